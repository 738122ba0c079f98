"""pip's read commands and install/uninstall reports (cleaned text) -> data. Pure functions of text."""

from __future__ import annotations

import json
import re
from typing import Any

from agentwrap.lazyre import lazy

_INSTALLED = lazy(r"^Successfully installed (?P<items>.+)$", re.M)
_UNINSTALLED = lazy(r"^\s*Successfully uninstalled (?P<item>\S+)$", re.M)
_REPLACED = lazy(r"^\s*Attempting uninstall: (?P<name>\S+)$", re.M)
# the installation an upgrade (or downgrade, or --force-reinstall) removes: pip names it under `Attempting
# uninstall: NAME`, and nowhere else says the version it replaced
_EXISTING = lazy(r"^\s*Attempting uninstall: (?P<name>\S+)\n\s*Found existing installation: \S+ (?P<version>\S+)$",
                 re.M)
_WOULD_INSTALL = lazy(r"^Would install (?P<items>.+)$", re.M)  # `pip install --dry-run`
_SATISFIED = lazy(r"^Requirement already satisfied: (?P<name>[^\s<>=!~;\[]+)", re.M)
_SKIPPED = lazy(r"^WARNING: Skipping (?P<name>\S+) as it is not installed\.$", re.M)
# a file pip wrote, or found already there from an earlier run (`pip download -d DIR` again): in place either way
_SAVED = lazy(r"^\s*(?:Saved|File was already downloaded) (?P<path>.+)$", re.M)
_NOT_FOUND = lazy(r"^WARNING: Package\(s\) not found: (?P<names>.+)$", re.M)
_VERSION = lazy(r"^pip (?P<version>\S+) from (?P<location>.+) \(python (?P<python>[\d.]+)\)$", re.M)
_CHECK = lazy(r"^(?P<name>\S+) (?P<version>\S+) (?:requires (?P<missing>\S+), which is not installed|"
                    r"has requirement (?P<req>.+?), but you have (?P<have>.+?))\.$", re.M)
MAX_ITEMS = 2000


def _name_version(item: str) -> dict[str, str]:
    name, _, version = item.rpartition("-")  # versions never contain '-'; names may
    return {"name": name, "version": version} if name else {"name": item}


def _normalized(name: str) -> str:
    """A project's name as PEP 503 compares it: pip's `Attempting uninstall: Flask_Login` is `flask-login`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def install(text: str) -> dict[str, Any]:
    installed = [_name_version(i) for m in _INSTALLED.finditer(text) for i in m.group("items").split()]
    replaced = {_normalized(m.group("name")) for m in _REPLACED.finditer(text)}
    old = {_normalized(m.group("name")): m.group("version") for m in _EXISTING.finditer(text)}
    for item in installed:
        name = _normalized(item["name"])
        item["action"] = "update" if name in replaced else "create"
        if name in old:
            item["replaced"] = old[name]
    # `pip install -U beta` says `Requirement already satisfied: beta` of the version it then replaces
    done = {_normalized(item["name"]) for item in installed}
    satisfied = sorted({m.group("name") for m in _SATISFIED.finditer(text)})
    satisfied = [name for name in satisfied if _normalized(name) not in done]
    data: dict[str, Any] = {"installed": installed[:MAX_ITEMS], "already_satisfied": satisfied[:MAX_ITEMS]}
    if would := [_name_version(i) for m in _WOULD_INSTALL.finditer(text) for i in m.group("items").split()]:
        data["would_install"] = would[:MAX_ITEMS]
    if saved := [m.group("path").strip() for m in _SAVED.finditer(text)]:
        data["saved"] = saved[:MAX_ITEMS]
    return data


def uninstall(text: str) -> dict[str, Any]:
    return {"uninstalled": [_name_version(m.group("item")) for m in _UNINSTALLED.finditer(text)][:MAX_ITEMS],
            "not_installed": [m.group("name") for m in _SKIPPED.finditer(text)][:MAX_ITEMS]}


def download(text: str) -> dict[str, Any]:
    return {"saved": [m.group("path").strip() for m in _SAVED.finditer(text)][:MAX_ITEMS],
            "already_satisfied": sorted({m.group("name") for m in _SATISFIED.finditer(text)})[:MAX_ITEMS]}


def _table(lines: list[str]) -> list[dict[str, str]]:
    """pip's column table: a header, a line of dashes that gives the column widths, then rows."""
    for i in range(1, len(lines)):
        if re.fullmatch(r"-+(?: -+)*\s*", lines[i]) and lines[i - 1].strip():
            spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[i])]
            header = lines[i - 1]
            keys = [header[a:b if k + 1 < len(spans) else None].strip().lower().replace(" ", "_").replace("-", "_")
                    for k, (a, b) in enumerate(spans)]
            rows = []
            for line in lines[i + 1:]:
                if not line.strip() or line.startswith(("WARNING", "ERROR", "[notice]")):
                    break
                cells = [line[a:spans[k + 1][0] if k + 1 < len(spans) else None].strip()
                         for k, (a, _) in enumerate(spans)]
                rows.append({"name" if key == "package" else key: cell
                             for key, cell in zip(keys, cells, strict=True) if cell})
            return rows
    return []


def freeze_lines(text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "WARNING", "ERROR", "[notice]")):
            continue
        if line.startswith("-e "):
            egg = re.search(r"#egg=([\w.-]+)", line)
            out.append({"name": egg.group(1) if egg else None, "editable": True, "requirement": line[3:]})
        elif " @ " in line:
            name, _, url = line.partition(" @ ")
            out.append({"name": name.strip(), "url": url.strip()})
        elif "==" in line:
            name, _, version = line.partition("==")
            out.append({"name": name.strip(), "version": version.strip()})
    return out[:MAX_ITEMS]


def list_packages(text: str) -> dict[str, Any]:
    stripped = text.strip()
    start = stripped.find("[")
    if start >= 0 and stripped.endswith("]"):
        try:
            return {"packages": json.loads(stripped[start:])[:MAX_ITEMS]}
        except ValueError:
            pass
    rows = _table(text.splitlines())
    return {"packages": rows[:MAX_ITEMS] if rows else freeze_lines(text)}


def freeze(text: str) -> dict[str, Any]:
    return {"packages": freeze_lines(text)}


def show(text: str) -> dict[str, Any]:
    packages: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    key: str | None = None
    for line in text.splitlines():
        if line.startswith(("WARNING:", "ERROR:", "[notice]")):
            continue
        if line.strip() == "---":
            if current:
                packages.append(current)
            current, key = {}, None
            continue
        field = re.match(r"^(?P<key>[A-Z][\w-]*(?: [\w-]+)?):(?: (?P<value>.*))?$", line)
        if field and not line.startswith(" "):
            key = field.group("key").lower().replace("-", "_").replace(" ", "_")
            value = (field.group("value") or "").strip()
            current[key] = [v.strip() for v in value.split(",") if v.strip()] if key in ("requires", "required_by") \
                else value
        elif key in ("files", "entry_points") and line.startswith(" "):
            current[key] = [*(current[key] if isinstance(current.get(key), list) else []), line.strip()][:MAX_ITEMS]
    if current:
        packages.append(current)
    data: dict[str, Any] = {"packages": packages}
    if missing := _NOT_FOUND.search(text):
        data["not_found"] = missing.group("names").split(", ")
    return data


def check(text: str) -> dict[str, Any]:
    broken = []
    for m in _CHECK.finditer(text):
        item = {"name": m.group("name"), "version": m.group("version")}
        item.update({"missing": m.group("missing")} if m.group("missing") else
                    {"requirement": m.group("req"), "installed": m.group("have")})
        broken.append(item)
    return {"ok": not broken and "No broken requirements found" in text, "broken": broken[:MAX_ITEMS]}


def version(text: str) -> dict[str, Any] | None:
    m = _VERSION.search(text)
    return m.groupdict() if m else None
