"""The git push planner: local commits and remote refs (`git ls-remote`) are the fingerprint; the remote ref
equal to the planned commit is the postcondition."""

from __future__ import annotations

import subprocess
from typing import Any

from agentwrap.safety.plans.base import PROBE_TIMEOUT, PlanError, Planned
from agentwrap.safety.plans.base import git as _git

_UNPLANNED_PUSH = {"--all", "--mirror", "--tags", "--follow-tags", "-d", "--delete", "--prune"}
_PUSH_VALUE_OPTS = {"--repo", "--receive-pack", "--exec", "-o", "--push-option", "--signed"}


def _push_words(argv: list[str]) -> tuple[str | None, list[str]]:
    at = argv.index("push")
    pos: list[str] = []
    skip = False
    for arg in argv[at + 1:]:
        if skip:
            skip = False
            continue
        if arg in _UNPLANNED_PUSH or arg.split("=")[0] in _UNPLANNED_PUSH:
            raise PlanError(f"`git push {arg}` changes refs that a plan cannot list in advance; plan one "
                            "push per ref (`git push REMOTE BRANCH`)")
        if arg in _PUSH_VALUE_OPTS:
            skip = True
            continue
        if arg.startswith("-"):
            continue
        pos.append(arg)
    return (pos[0] if pos else None), pos[1:]


def _remote_ref(cwd: str, name: str) -> str:
    if name.startswith("refs/"):
        return name
    tag = subprocess.run(["git", "show-ref", "--verify", "--quiet", f"refs/tags/{name}"], cwd=cwd,
                         capture_output=True, timeout=PROBE_TIMEOUT)
    return f"refs/tags/{name}" if tag.returncode == 0 else f"refs/heads/{name}"


def _ls_remote(cwd: str, remote: str, ref: str) -> str | None:
    out = _git(cwd, "ls-remote", remote, ref)
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        if name == ref:
            return sha
    return None


def plan(argv: list[str], cwd: str) -> Planned:
    if "push" not in argv:
        raise PlanError("not a git push")
    branch = _git(cwd, "rev-parse", "--abbrev-ref", "HEAD")
    remote, specs = _push_words(argv)
    if remote is None:
        try:
            remote = _git(cwd, "config", f"branch.{branch}.remote")
        except PlanError:
            remote = "origin"
    if not specs:
        specs = [branch]
    refs = []
    for spec in specs:
        src, colon, dst = spec.lstrip("+").partition(":")
        if colon and not src:
            raise PlanError(f"`git push {remote} {spec}` deletes a remote ref; plan a push that updates one")
        if src == "HEAD":
            src = branch
        dst = dst or src
        local_sha = _git(cwd, "rev-parse", "--verify", f"{src}^{{commit}}")
        remote_ref = _remote_ref(cwd, dst)
        refs.append({"local": src, "local_sha": local_sha, "remote_ref": remote_ref,
                     "remote_sha": _ls_remote(cwd, remote, remote_ref)})
    fingerprint = {"remote": remote, "remote_url": _remote_url(cwd, remote), "refs": refs}
    effects = []
    for ref in refs:
        if ref["remote_sha"] == ref["local_sha"]:
            continue
        effects.append({"resource": f"git-ref:{remote}:{ref['remote_ref']}",
                        "action": "create" if ref["remote_sha"] is None else "update",
                        "from": ref["remote_sha"], "to": ref["local_sha"]})
    return Planned(fingerprint, effects)


def _remote_url(cwd: str, remote: str) -> str:
    try:
        return _git(cwd, "remote", "get-url", remote)
    except PlanError:
        return remote  # a URL or a path given in place of a remote's name


def drift(planned: dict[str, Any], now: dict[str, Any]) -> list[str]:
    changes = []
    if planned.get("remote_url") != now.get("remote_url"):
        changes.append(f"remote {planned['remote']} now points at {now.get('remote_url')}, "
                       f"not {planned.get('remote_url')}")
    for before, after in zip(planned["refs"], now["refs"], strict=False):
        if before["local_sha"] != after["local_sha"]:
            changes.append(f"local {before['local']} moved from {_short(before['local_sha'])} to "
                           f"{_short(after['local_sha'])} since the plan")
        if before["remote_sha"] != after["remote_sha"]:
            changes.append(f"{planned['remote']} {before['remote_ref']} was {_short(before['remote_sha'])} when "
                           f"planned and is {_short(after['remote_sha'])} now: someone else pushed")
    return changes


def verify(plan: dict[str, Any]) -> dict[str, Any]:
    fp = plan["fingerprint"]
    checks = []
    for ref in fp["refs"]:
        name = f"{fp['remote']} {ref['remote_ref']} == {ref['local']}"
        try:
            now = _ls_remote(plan["cwd"], fp["remote"], ref["remote_ref"])
        except PlanError as exc:
            checks.append({"name": name, "passed": False, "reason": exc.detail})
            continue
        checks.append({"name": name, "passed": now == ref["local_sha"],
                       "expected": ref["local_sha"], "actual": now,
                       "command": ["git", "ls-remote", fp["remote"], ref["remote_ref"]]})
    passed = all(c["passed"] for c in checks)
    reason = "the remote refs equal the planned commits" if passed else "a remote ref is not at the planned commit"
    return {"passed": passed, "reason": reason, "checks": checks}


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "absent"
