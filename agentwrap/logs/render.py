"""Problems as SARIF 2.1.0, as GitHub workflow commands, and with paths relative to a root."""

from __future__ import annotations

import ntpath
import os
import re
from pathlib import Path, PurePath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from agentwrap import __version__

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning"}


def root_of(given: str) -> Path | PureWindowsPath:
    """The `--root` a user gave: a Windows runner's `D:\\a\\repo\\repo` stays a Windows path on any machine
    (a windows-latest job's log read on Linux); another is made absolute here."""
    if _DRIVE.match(given) or given.startswith("\\\\"):
        return PureWindowsPath(given)
    return Path(os.path.abspath(given))


def relative(path: str, root: PurePath | None) -> str:
    """`path` relative to `root` when it lies inside it (absolute CI paths become repository paths). The
    root is a prefix taken off, whether or not it exists here (a downloaded log names the runner's folders);
    a root that does exist is also compared with symbolic links resolved."""
    if isinstance(root, PureWindowsPath):
        return _windows_relative(path, str(root))
    if root is None or not isinstance(root, Path) or not os.path.isabs(path):
        return path
    inside = _under(os.path.normpath(path), os.path.normpath(root))
    if inside is None and root.exists():
        inside = _under(os.path.realpath(path), os.path.realpath(root))
    return path if inside is None else inside


def _windows_relative(path: str, root: str) -> str:
    """Windows paths compare without case, `\\` and `/` alike; the part inside the root is written with `/`."""
    if not (_DRIVE.match(path) or path.startswith("\\\\")):
        return path
    inside = _under(ntpath.normpath(path).lower(), ntpath.normpath(root).lower(), "\\")
    if inside is None:
        return path
    return "." if inside == "." else ntpath.normpath(path)[-len(inside):].replace("\\", "/")


def _under(path: str, root: str, sep: str = os.sep) -> str | None:
    if path == root:
        return "."
    prefix = root if root.endswith(sep) else root + sep
    return path[len(prefix):] if path.startswith(prefix) else None


_SAFE = "/!$&'()*+,;=@-._~"  # RFC 3986 pchar (less `:`, which would read as a scheme) and the separator
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def _uri(path: str) -> dict[str, str]:
    """A SARIF artifactLocation: a relative reference under %SRCROOT%, or an absolute `file:` URI (POSIX,
    a Windows drive path, a UNC share), percent-encoded as RFC 3986 wants (`#`, spaces, non-ASCII)."""
    if _DRIVE.match(path) or path.startswith("\\\\"):
        slashed = path.replace("\\", "/")
        if slashed.startswith("//"):  # \\server\share\a.c
            return {"uri": "file:" + quote(slashed, safe=_SAFE + ":")}
        return {"uri": "file:///" + slashed[:2] + quote(slashed[2:], safe=_SAFE)}
    if os.path.isabs(path):
        return {"uri": "file://" + quote(os.path.normpath(path), safe=_SAFE)}
    return {"uri": quote(path.replace("\\", "/"), safe=_SAFE), "uriBaseId": "%SRCROOT%"}


def _region(loc: dict[str, Any]) -> dict[str, int]:
    region = {"startLine": int(loc["line"])}
    for key, name in (("column", "startColumn"), ("end_line", "endLine"), ("end_column", "endColumn")):
        if isinstance(loc.get(key), int) and loc[key] >= 1:
            region[name] = loc[key]
    return region


def _fixes(problem: dict[str, Any], root: PurePath | None) -> list[dict[str, Any]]:
    """SARIF fixes from machine-applicable edit code actions (file, line, column[, end_*], text)."""
    fixes = []
    for action in problem.get("code_actions") or []:
        edit = action.get("edit")
        if action.get("applicability") != "machine_applicable" or not isinstance(edit, dict):
            continue
        if not isinstance(edit.get("file"), str) or not isinstance(edit.get("line"), int):
            continue
        text = next((edit[k] for k in ("text", "insert", "replacement") if isinstance(edit.get(k), str)), "")
        deleted = _region(edit)
        if "end_column" not in edit and "column" in edit:
            deleted["endColumn"] = deleted["startColumn"]  # an insertion deletes nothing
        fixes.append({"description": {"text": action.get("title", "fix")},
                      "artifactChanges": [{"artifactLocation": _uri(relative(edit["file"], root)),
                                           "replacements": [{"deletedRegion": deleted,
                                                             "insertedContent": {"text": text}}]}]})
    return fixes


def _rule_id(p: dict[str, Any]) -> str:
    """The tool's own rule (`ruff/F401`, `gcc/-Wformat=`, `mypy/return-value`) where the problem names one:
    code scanning groups alerts by rule, and agentwrap's code (RUFF_VIOLATION) spans all of a tool's rules."""
    rule = p.get("rule")
    if isinstance(rule, str) and rule:
        return f"{p.get('tool') or p['code'].lower()}/{rule}"
    return str(p["code"])


def _same(values: list[Any]) -> Any:
    """The one value every result of a rule shares, else None (one result's fix is not the rule's help)."""
    return values[0] if values and all(v == values[0] for v in values) else None


def _rules(problems: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for p in problems:
        grouped.setdefault(_rule_id(p), []).append(p)
    rules = {}
    for rule_id, members in grouped.items():
        first = members[0]
        rule: dict[str, Any] = {"id": rule_id, "name": rule_id.title().replace("_", "").replace("/", "."),
                                "shortDescription": {"text": _same([m.get("title") for m in members])
                                                     or first["code"]},
                                "properties": {"category": first.get("category"), "tool": first.get("tool"),
                                               "code": first["code"]}}
        if url := _same([m.get("docs_url") for m in members]):
            rule["helpUri"] = url
        if fix := _same([m.get("suggested_fix") for m in members]):
            rule["help"] = {"text": fix}
        rules[rule_id] = rule
    return rules


def sarif(problems: list[dict[str, Any]], root: PurePath | None,
          cut: tuple[int, str] | None = None) -> dict[str, Any]:
    """The problems as one SARIF run; `cut`: how many were left out and the sentence that says so, a
    warning of the run (a reader of the file alone must not take the results for all there were)."""
    rules = _rules(problems)
    index = {rule_id: i for i, rule_id in enumerate(rules)}
    results = []
    for p in problems:
        rule_id = _rule_id(p)
        result: dict[str, Any] = {"ruleId": rule_id, "ruleIndex": index[rule_id],
                                  "level": _LEVEL.get(p.get("severity", "error"), "note"),
                                  "message": {"text": p.get("detail") or p.get("title") or p["code"]}}
        loc = p.get("location")
        if isinstance(loc, dict) and isinstance(loc.get("file"), str):
            physical: dict[str, Any] = {"artifactLocation": _uri(relative(loc["file"], root))}
            if isinstance(loc.get("line"), int) and loc["line"] >= 1:
                physical["region"] = _region(loc)
            result["locations"] = [{"physicalLocation": physical}]
        if fixes := _fixes(p, root):
            result["fixes"] = fixes
        props = {k: p[k] for k in ("step", "tool", "category", "code") if p.get(k)}
        if p.get("suggested_fix") and "help" not in rules[rule_id]:
            props["suggested_fix"] = p["suggested_fix"]  # this result's own fix
        if p.get("docs_url") and "helpUri" not in rules[rule_id]:
            props["docs_url"] = p["docs_url"]
        if props:
            result["properties"] = props
        results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "agentwrap", "version": __version__,
                            "informationUri": "https://github.com/agentwrap/agentwrap", "rules": list(rules.values())}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if cut is not None:
        run["invocations"] = [_cut_invocation(*cut)]
    if root is not None:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": _uri(str(root))["uri"].rstrip("/") + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _cut_invocation(count: int, message: str) -> dict[str, Any]:
    notice = {"level": "warning", "message": {"text": message}, "descriptor": {"id": "PROBLEMS_TRUNCATED"},
              "properties": {"problems_cut": count}}
    return {"executionSuccessful": True, "toolExecutionNotifications": [notice]}


def github_warning(message: str) -> str:
    """A workflow command that warns without a place (`::warning::…`), as the job's log shows it."""
    return f"::warning::{_escape_data(message)}\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(problems: list[dict[str, Any]], root: PurePath | None) -> str:
    """GitHub Actions workflow commands (`::error file=…,line=…::message`), escaped per GitHub's rules."""
    lines = []
    for p in problems:
        level = {"error": "error", "warning": "warning"}.get(p.get("severity", "error"), "notice")
        props = []
        loc = p.get("location") or {}
        if isinstance(loc.get("file"), str):
            props.append(f"file={_escape_property(relative(loc['file'], root))}")
            for key, name in (("line", "line"), ("end_line", "endLine"), ("column", "col"),
                              ("end_column", "endColumn")):
                if isinstance(loc.get(key), int):
                    props.append(f"{name}={loc[key]}")
        props.append(f"title={_escape_property(p.get('title') or p['code'])}")
        message = p.get("detail") or p.get("title") or p["code"]
        if p.get("suggested_fix"):
            message += f"\n{p['suggested_fix']}"
        lines.append(f"::{level} {','.join(props)}::{_escape_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")
