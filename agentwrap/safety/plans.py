"""Plan, apply, verify: a mutation bound to the state it was planned against.

`agentwrap plan -- PROGRAM ARGS` runs the tool's own dry run (dry_runs.toml) and asks the tool's
planner (below) for two things: the effects the real command would have, and a fingerprint of the state
those effects depend on (for git push: the local commit of each ref and the remote ref, read with
`git ls-remote`). The plan is kept in the state directory with an id, a digest and an expiry.

`agentwrap apply PLAN_ID [--expect-hash H]` runs the real command only while the plan is unexpired, its
digest is the one the caller approved, and the fingerprint read again is the same; otherwise it refuses
with a `precondition` problem naming what changed. After the run the planner's read-only check of the
postcondition fills `verification` (the remote ref now equals the planned commit) and `effects`.

Planners read state with the tool itself (git rev-parse, git ls-remote): read-only commands, run with
prompts off and a time limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from agentwrap.errors import AgentwrapError
from agentwrap.ids import new_id, rfc3339
from agentwrap.lazyre import lazy
from agentwrap.operations import store

DEFAULT_TTL_SECONDS = 15 * 60
KEEP_EXPIRED_SECONDS = 86400  # an expired plan is kept a day (apply names it as expired), then pruned
PROBE_TIMEOUT = 60.0
ID_RE = lazy(r"plan_[0-9a-hjkmnp-tv-z]{26}\Z")


class PlanError(AgentwrapError):
    code = "PLAN_UNSUPPORTED"


class PlanNotFound(AgentwrapError):
    code = "PLAN_NOT_FOUND"


class PlanExpired(AgentwrapError):
    code = "PLAN_EXPIRED"


class PlanDrift(AgentwrapError):
    code = "PLAN_DRIFT"


class PlanHashMismatch(AgentwrapError):
    code = "PLAN_HASH_MISMATCH"


class PlanApplied(AgentwrapError):
    code = "PLAN_ALREADY_APPLIED"


class Planned(NamedTuple):
    fingerprint: dict[str, Any]
    proposed_effects: list[dict[str, Any]]


class Planner(NamedTuple):
    plan: Callable[[list[str], str], Planned]  # (argv, cwd) -> what it would do, and the state it reads
    verify: Callable[[dict[str, Any]], dict[str, Any]]  # plan -> verification {passed, reason, checks}
    drift: Callable[[dict[str, Any], dict[str, Any]], list[str]]  # (planned, now) fingerprints -> changes


# --- storage ----------------------------------------------------------------------------------
def root() -> Path:
    return store.state_base() / "plans"


def digest_of(plan: dict[str, Any]) -> str:
    bound = {k: plan[k] for k in ("argv", "cwd", "adapter", "fingerprint", "proposed_effects")}
    return "sha256:" + hashlib.sha256(json.dumps(bound, sort_keys=True).encode()).hexdigest()


def save(argv: list[str], cwd: str, adapter: str, planner: str, planned: Planned,
         ttl: float = DEFAULT_TTL_SECONDS) -> dict[str, Any]:
    now = time.time()
    plan = {"plan_id": new_id("plan"), "argv": argv, "cwd": cwd, "adapter": adapter, "planner": planner,
            "fingerprint": planned.fingerprint, "proposed_effects": planned.proposed_effects,
            "created_at": rfc3339(now), "expires_at": rfc3339(now + ttl), "expires_epoch": now + ttl}
    plan["digest"] = digest_of(plan)
    root().mkdir(parents=True, exist_ok=True, mode=0o700)
    _prune(now)
    store.write_json(root() / f"{plan['plan_id']}.json", plan)
    return plan


def load(plan_id: str) -> dict[str, Any]:
    if not ID_RE.match(plan_id):
        raise PlanNotFound(f"{plan_id!r} is not a plan id (they look like plan_01j…)",
                           suggested_fix="Make a plan with `agentwrap plan -- PROGRAM ARGS`.")
    plan = store.read_json(root() / f"{plan_id}.json")
    if plan is None:
        raise PlanNotFound(f"no plan {plan_id} here (expired plans are kept a day)",
                           suggested_fix="Make a new plan with `agentwrap plan -- PROGRAM ARGS`.")
    return dict(plan)


def mark_applied(plan: dict[str, Any], request_id: str) -> None:
    store.write_json(root() / f"{plan['plan_id']}.json", {**plan, "applied_at": rfc3339(time.time()),
                                                           "applied_by": request_id})


def _prune(now: float) -> None:
    for path in root().glob("plan_*.json"):
        plan = store.read_json(path) or {}
        if now - float(plan.get("expires_epoch", 0)) > KEEP_EXPIRED_SECONDS:
            path.unlink(missing_ok=True)


# --- probes -----------------------------------------------------------------------------------
def _git(cwd: str, *args: str) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "SSH_ASKPASS": "true",
           "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes"), "LC_ALL": "C"}
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlanError(f"could not read the state for the plan: git {' '.join(args)}: {exc}") from None
    if proc.returncode != 0:
        raise PlanError(f"could not read the state for the plan: git {' '.join(args)}: "
                        f"{proc.stderr.strip()[:500] or f'exit {proc.returncode}'}")
    return proc.stdout.strip()


# --- git push ---------------------------------------------------------------------------------
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


def git_push_plan(argv: list[str], cwd: str) -> Planned:
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


def git_push_drift(planned: dict[str, Any], now: dict[str, Any]) -> list[str]:
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


def git_push_verify(plan: dict[str, Any]) -> dict[str, Any]:
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


# --- pip install ------------------------------------------------------------------------------
def _run(argv: list[str], cwd: str) -> str:
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LC_ALL": "C"}
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=PROBE_TIMEOUT * 5,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlanError(f"could not read the state for the plan: {' '.join(argv)}: {exc}") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise PlanError(f"could not read the state for the plan: {' '.join(argv[:4])} ...: {last[:500]}")
    return proc.stdout


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip_parts(argv: list[str]) -> tuple[list[str], list[str]]:
    at = argv.index("install")
    rest = [a for a in argv[at + 1:] if a not in ("--dry-run", "-q", "--quiet", "-v", "--verbose")]
    if any(a == "--report" or a.startswith("--report=") for a in rest):
        raise PlanError("`pip install --report` is the planner's own: plan the install without it")
    return argv[:at], rest


def _installed(pip: list[str], cwd: str) -> dict[str, str]:
    listed = json.loads(_run([*pip, "list", "--format=json"], cwd) or "[]")
    return {_canonical(p["name"]): str(p["version"]) for p in listed}


def pip_install_plan(argv: list[str], cwd: str) -> Planned:
    pip, rest = _pip_parts(argv)
    report = json.loads(_run([*pip, "install", "--dry-run", "--quiet", "--report", "-", *rest], cwd) or "{}")
    resolution = {_canonical(item["metadata"]["name"]): str(item["metadata"]["version"])
                  for item in report.get("install", [])}
    installed = _installed(pip, cwd)
    before = {name: installed.get(name) for name in sorted(resolution)}
    effects = [{"resource": f"python-package:{name}", "action": "create" if before[name] is None else "update",
                "from": before[name], "to": version} for name, version in sorted(resolution.items())]
    return Planned({"pip": pip, "installed": before, "resolution": resolution}, effects)


def pip_install_drift(planned: dict[str, Any], now: dict[str, Any]) -> list[str]:
    changes = []
    for name, version in planned["installed"].items():
        current = now["installed"].get(name)
        if current != version:
            changes.append(f"{name} was {version or 'not installed'} when planned and is "
                           f"{current or 'not installed'} now")
    if planned["resolution"] != now["resolution"]:
        added = {k: v for k, v in now["resolution"].items() if planned["resolution"].get(k) != v}
        said = ", ".join(f"{k} {v}" for k, v in sorted(added.items())) or "fewer packages"
        changes.append(f"the resolver now picks {said}: the index or the requirements changed")
    return changes


def pip_install_verify(plan: dict[str, Any]) -> dict[str, Any]:
    fp = plan["fingerprint"]
    try:
        installed = _installed(fp["pip"], plan["cwd"])
    except PlanError as exc:
        return {"passed": False, "reason": exc.detail, "checks": []}
    checks = [{"name": f"{name} == {version}", "passed": installed.get(name) == version, "expected": version,
               "actual": installed.get(name), "command": [*fp["pip"], "show", name]}
              for name, version in sorted(fp["resolution"].items())]
    passed = all(c["passed"] for c in checks)
    return {"passed": passed, "checks": checks,
            "reason": "every planned package is installed at its planned version" if passed
            else "a package is not at its planned version"}


PLANNERS: dict[str, Planner] = {
    "git_push": Planner(git_push_plan, git_push_verify, git_push_drift),
    "pip_install": Planner(pip_install_plan, pip_install_verify, pip_install_drift),
}
