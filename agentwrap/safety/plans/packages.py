"""Package-manager planners: the resolver's dry run is the resolution, the installed versions the state;
each package at its planned version is the postcondition. pip (`--dry-run --report -`) and apt-get (`-s`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.safety.plans.base import PROBE_TIMEOUT, PlanError, Planned
from agentwrap.safety.plans.base import run as _run


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


def package_drift(planned: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """For package managers: an installed version changed, or the resolver would now pick others."""
    changes = []
    moved = set()
    for name, version in planned["installed"].items():
        if name not in now["installed"]:
            continue  # not read now (the resolver dropped it): unknown, not "not installed"
        current = now["installed"][name]
        if current != version:
            moved.add(name)
            changes.append(f"{name} was {version or 'not installed'} when planned and is "
                           f"{current or 'not installed'} now")
    if planned["resolution"] != now["resolution"]:
        added = {k: v for k, v in now["resolution"].items() if planned["resolution"].get(k) != v}
        gone = sorted(set(planned["resolution"]) - set(now["resolution"]) - moved)  # a move explains its own
        if added:
            said = ", ".join(f"{k} {v or '(removal)'}" for k, v in sorted(added.items()))
            changes.append(f"the resolver now picks {said}: the index or the requirements changed")
        if gone:
            changes.append(f"the resolver no longer picks {', '.join(gone)}: the index or the requirements changed")
    return changes


def apt_install_drift(planned: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """package_drift, with dpkg read for the planned packages the resolver no longer picks: one installed by
    hand meanwhile is named as such, not as a change of the index."""
    unread = sorted(set(planned["installed"]) - set(now["installed"]))
    if unread:
        now = {**now, "installed": {**now["installed"], **_dpkg_versions(unread, "/")}}
    return package_drift(planned, now)


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


# --- apt-get install / remove ------------------------------------------------------------------
_APT_ACTION = lazy(r"^(Inst|Remv|Purg) (\S+) (?:\[([^\]]+)\] )?(?:\((\S+))?", re.M)


def _dpkg_versions(names: list[str], cwd: str) -> dict[str, str | None]:
    if not names:
        return {}
    env = {**os.environ, "LC_ALL": "C"}
    proc = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${db:Status-Abbrev} ${Version}\n", *names],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    found: dict[str, str | None] = dict.fromkeys(names)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1].startswith("ii"):
            found[parts[0].split(":")[0]] = parts[-1]
    return found


def apt_install_plan(argv: list[str], cwd: str) -> Planned:
    simulated = _run([argv[0], "-s", *[a for a in argv[1:] if a not in ("-y", "--yes", "--assume-yes")]], cwd)
    resolution: dict[str, str | None] = {}
    for action, name, _old, new in _APT_ACTION.findall(simulated):
        resolution[name.split(":")[0]] = new if action == "Inst" else None
    installed = _dpkg_versions(sorted(resolution), cwd)
    effects = []
    for name, version in sorted(resolution.items()):
        before = installed.get(name)
        action = "delete" if version is None else ("create" if before is None else "update")
        effects.append({"resource": f"deb-package:{name}", "action": action, "from": before, "to": version})
    return Planned({"installed": installed, "resolution": resolution}, effects)


def apt_install_verify(plan: dict[str, Any]) -> dict[str, Any]:
    wanted = plan["fingerprint"]["resolution"]
    installed = _dpkg_versions(sorted(wanted), plan["cwd"])
    checks = [{"name": f"{name} == {version or 'absent'}", "passed": installed.get(name) == version,
               "expected": version, "actual": installed.get(name),
               "command": ["dpkg-query", "-W", "-f", "${db:Status-Abbrev} ${Version}", name]}
              for name, version in sorted(wanted.items())]
    passed = all(c["passed"] for c in checks)
    return {"passed": passed, "checks": checks,
            "reason": "every planned package is at its planned version" if passed
            else "a package is not at its planned version"}
