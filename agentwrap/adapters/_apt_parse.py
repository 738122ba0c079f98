"""Pure parsers for apt, apt-get and dpkg output: package lists, install/remove plans and results, policy.

Each takes cleaned text and returns plain data (lists of dicts with stable keys); none starts a process.
"""

from __future__ import annotations

import re
from typing import Any

from agentwrap.lazyre import lazy

_APT_LIST = lazy(r"^(?P<name>[^/\s]+)/(?P<suites>\S+) (?P<version>\S+) (?P<arch>\S+)(?: \[(?P<flags>[^\]]*)\])?$")
_DPKG_ROW = lazy(r"^(?P<status>[uihrp][ncUuFWtHi][ R]) (?P<name>\S+)\s+(?P<version>\S+)\s+(?P<arch>\S+)"
                       r"(?:\s+(?P<description>.*))?$")
_INST = lazy(r"^Inst (?P<name>\S+)(?: \[(?P<old>[^\]]+)\])? \((?P<version>\S+) (?P<origin>.*?)"
                   r"(?: \[(?P<arch>[^\]]+)\])?\)")
_REMV = lazy(r"^(?:Remv|Purg) (?P<name>\S+)(?: \[(?P<version>[^\]]+)\])?")
_SETUP = lazy(r"^Setting up (?P<name>\S+) \((?P<version>[^)]+)\)")
_REMOVING = lazy(r"^(?:Removing|Purging configuration files for) (?P<name>\S+) \((?P<version>[^)]+)\)")
# `N not upgraded` counts every package with a newer version this run leaves alone: held ones, kept back
# ones (the upgrade needs new packages or removals) and, for an install, every other upgradable package.
_SUMMARY = lazy(r"^(?P<upgraded>\d+) upgraded, (?P<installed>\d+) newly installed, (?:(?P<reinstalled>\d+) "
                r"reinstalled, )?(?P<removed>\d+) to remove and (?P<not_upgraded>\d+) not upgraded\.")
_KEPT = lazy(r"^The following packages have been kept back:\s*\n((?:[ \t]+.*\n?)+)", re.M)
#: apt's announced lists, by the words of their header, and their key in `plan`. `held_changed` names
#: packages on hold (apt-mark hold) that this run changes anyway; a hold apt keeps is only in `kept_back`.
_PLAN_KEYS = {"NEW packages will be installed": "new", "packages will be REMOVED": "remove",
              "packages will be upgraded": "upgrade", "packages will be DOWNGRADED": "downgrade",
              "held packages will be changed": "held_changed"}
_PLAN = lazy(r"^The following (?P<what>" + "|".join(_PLAN_KEYS) + r"):\s*\n(?P<names>(?:[ \t]+.*\n?)+)", re.M)


def _arch_split(name: str) -> tuple[str, str | None]:
    base, _, arch = name.partition(":")
    return base, arch or None


def apt_list(text: str) -> dict[str, Any]:
    """`apt list [--installed|--upgradable] [PATTERN]`: one entry per package line."""
    packages = []
    for line in text.splitlines():
        m = _APT_LIST.match(line.strip())
        if not m:
            continue
        flags = [f.strip() for f in (m["flags"] or "").split(",") if f.strip()]
        suites = m["suites"].split(",")
        upgradable_to = next((f.split(": ", 1)[1] for f in flags if f.startswith("upgradable to: ")), None)
        upgradable_from = next((f.split(": ", 1)[1] for f in flags if f.startswith("upgradable from: ")), None)
        packages.append({
            "name": m["name"], "version": m["version"], "architecture": m["arch"],
            "suites": [s for s in suites if s != "now"],
            "installed": any(f.startswith("installed") for f in flags) or upgradable_to is not None,
            "automatic": "automatic" in flags,
            "upgradable_to": upgradable_to, "upgradable_from": upgradable_from,
        })
    return {"packages": packages, "count": len(packages)}


def dpkg_list(text: str) -> dict[str, Any]:
    """`dpkg -l [PATTERN]`: the table rows after the `+++-===` ruler."""
    packages = []
    started = False
    for line in text.splitlines():
        if line.startswith("+++-"):
            started = True
            continue
        m = _DPKG_ROW.match(line) if started else None
        if not m:
            continue
        name, arch_suffix = _arch_split(m["name"])
        status = m["status"].strip()
        packages.append({
            "name": name, "version": None if m["version"] == "<none>" else m["version"],
            "architecture": None if m["arch"] == "<none>" else (arch_suffix or m["arch"]),
            "status": status, "installed": status[1:2] in ("i", "U", "F", "W", "t", "H") and status[:1] != "u",
            "description": (m["description"] or "").strip() or None,
        })
    return {"packages": packages, "count": len(packages)}


def changes(text: str) -> dict[str, Any]:
    """install/remove/upgrade: the plan (`-s` Inst/Remv lines) or the result (Setting up/Removing lines)."""
    simulated = bool(re.search(r"^(?:Inst|Remv|Purg|Conf) \S+", text, re.M))
    install: list[dict[str, Any]] = []
    remove: list[dict[str, Any]] = []
    for line in text.splitlines():
        if m := _INST.match(line):
            name, arch = _arch_split(m["name"])
            install.append({"name": name, "version": m["version"], "from_version": m["old"],
                            "architecture": m["arch"] or arch, "origin": m["origin"] or None})
        elif m := _REMV.match(line):
            remove.append({"name": _arch_split(m["name"])[0], "version": m["version"]})
        elif not simulated and (m := _SETUP.match(line)):
            install.append({"name": _arch_split(m["name"])[0], "version": m["version"]})
        elif not simulated and (m := _REMOVING.match(line)):
            remove.append({"name": _arch_split(m["name"])[0], "version": m["version"]})
    out: dict[str, Any] = {"simulated": simulated, "install": install, "remove": remove}
    summary = _summary(text)
    if summary:
        out["counts"] = summary
    plan = {_PLAN_KEYS[m["what"]]: [n.rstrip("*") for n in m["names"].split()] for m in _PLAN.finditer(text)}
    if plan:
        out["plan"] = plan  # what apt announced (and, at a prompt, what -y would approve)
    kept = _KEPT.search(text)
    if kept:
        out["kept_back"] = kept.group(1).split()
    return out


def _summary(text: str) -> dict[str, int] | None:
    for line in text.splitlines():
        m = _SUMMARY.match(line.strip())
        if m:
            return {k: int(v) for k, v in m.groupdict().items() if v is not None}
    return None


def policy(text: str) -> dict[str, Any]:
    """`apt policy PKG...`: the installed and candidate version of each package named."""
    packages = []
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        if re.match(r"^\S+:$", line):
            current = {"name": line[:-1], "installed": None, "candidate": None}
            packages.append(current)
        elif current is not None and (m := re.match(r"^\s+(Installed|Candidate): (\S+)", line)):
            current[m.group(1).lower()] = None if m.group(2) == "(none)" else m.group(2)
    return {"packages": packages}


def dpkg_status(text: str) -> dict[str, Any]:
    """`dpkg -s PKG...`: the main fields of each stanza."""
    packages = []
    keep = {"Package": "name", "Status": "status", "Version": "version", "Architecture": "architecture",
            "Installed-Size": "installed_size_kib", "Depends": "depends"}
    for stanza in re.split(r"\n\s*\n", text.strip()):
        fields: dict[str, Any] = {}
        for line in stanza.splitlines():
            key, sep, value = line.partition(": ")
            if sep and key in keep:
                fields[keep[key]] = int(value) if key == "Installed-Size" and value.isdigit() else value.strip()
        if "name" in fields:
            fields["installed"] = str(fields.get("status", "")).endswith(" installed")
            packages.append(fields)
    return {"packages": packages}


def update(text: str) -> dict[str, Any]:
    """`apt-get update`: how many index sources were unchanged (Hit), downloaded (Get), failed (Err)."""
    seen: dict[str, set[str]] = {"Hit": set(), "Get": set(), "Err": set(), "Ign": set()}
    for m in re.finditer(r"^(Hit|Get|Err|Ign):(\d+) ", text, re.M):
        seen[m.group(1)].add(m.group(2))  # the number names one index file across its Ign/Err/Get lines
    failed = seen["Err"]
    return {"unchanged": len(seen["Hit"] - failed), "downloaded": len(seen["Get"] - failed), "failed": len(failed)}
