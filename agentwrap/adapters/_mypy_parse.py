"""mypy's text output read back: `file:line[:col[:end_line:end_col]]: error|note: message  [code]` lines, with
notes attached to the error at the same location (as `mypy -O json` attaches them as `hint`), `--pretty`'s
wrapped messages re-joined, and the closing summary as counts.

Only `.py`/`.pyi` files (and `<string>` for `mypy -c`) are read, so a C compiler's `x.c:3:5: error:` in the
same log is never taken for mypy's.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.lazyre import lazy

_PATH = r"(?:[A-Za-z]:[\\/])?[^\s:][^:\n]*?\.pyi?|<string>"
HEADER = re.compile(rf"^(?P<file>{_PATH}):(?:(?P<line>\d+):(?:(?P<column>\d+):(?:(?P<end_line>\d+):"
                    r"(?P<end_column>\d+):)?)?)? (?P<severity>error|warning|note): (?P<message>.*?)"
                    r"(?:  \[(?P<rule>[a-z][a-z0-9-]*)\])?\s*$")
_RULE_TAIL = lazy(r"^(?:(?P<text>.*\S)  )?\[(?P<rule>[a-z][a-z0-9-]*)\]\s*$")
_SUMMARY = lazy(r"^Found (?P<errors>\d+) errors? in (?P<files>\d+) files?"
                      r" \((?:checked (?P<checked>\d+) source files?|(?P<blocked>errors prevented further checking))\)",
                      re.M)
_SUCCESS = lazy(r"^Success: no issues found in (?P<checked>\d+) source files?", re.M)
_CONTEXT = lazy(r"^(?:In (?:function|member|class) .*:|At top level:)$")


class Diagnostic(NamedTuple):
    file: str
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None
    severity: str
    message: str
    rule: str | None
    text: str  # the tool's own line(s), re-joined
    notes: list[str]
    context: str | None


def _int(value: str | None) -> int | None:
    return int(value) if value else None


def diagnostics(text: str) -> list[Diagnostic]:
    """Every error (and free-standing note) in mypy's text output, in order, with attached notes."""
    found: list[Diagnostic] = []
    latest: dict[tuple[str, int | None, int | None], int] = {}  # location -> index of its latest error
    context: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = HEADER.match(lines[i])
        i += 1
        if not match:
            continue
        g = match.groupdict()
        message, rule, raw = g["message"], g["rule"], match.group(0).rstrip()
        if g["severity"] != "note" and rule is None:  # --pretty wraps long messages: find the `[code]` tail
            joined, used = _rejoin(lines, i)
            if joined is not None:
                message, rule, raw = f"{message} {joined[0]}".strip(), joined[1], f"{raw} {joined[2]}"
                i += used
        file, line, column = g["file"], _int(g["line"]), _int(g["column"])
        if g["severity"] == "note" and line is None and _CONTEXT.match(message):
            context[file] = message.rstrip(":")
            continue
        key = (file, line, column)
        if g["severity"] == "note" and key in latest:
            found[latest[key]].notes.append(message)
            continue
        diag = Diagnostic(file, line, column, _int(g["end_line"]), _int(g["end_column"]), g["severity"], message,
                          rule, raw, [], context.get(file))
        if g["severity"] != "note":
            latest[key] = len(found)
        found.append(diag)
    return found


def _rejoin(lines: list[str], start: int) -> tuple[tuple[str, str, str] | None, int]:
    """`--pretty` continues a wrapped message on unindented lines up to the one ending in `[code]`."""
    parts: list[str] = []
    for offset, line in enumerate(lines[start:start + 4]):
        if not line.strip() or line[0].isspace() or HEADER.match(line) or line.startswith(("Found ", "Success: ")):
            return None, 0
        tail = _RULE_TAIL.match(line)
        if tail:
            rule = tail.group("rule")
            parts.append(tail.group("text") or "")
            return (" ".join(p for p in parts if p), rule, " ".join(lines[start:start + offset + 1])), offset + 1
        parts.append(line.strip())
    return None, 0


def counts(text: str, found: list[Diagnostic]) -> dict[str, Any] | None:
    """errors, notes, files (with errors) and checked (source files), from the summary when mypy printed one."""
    errors = [d for d in found if d.severity == "error"]
    data: dict[str, Any] = {"errors": len(errors), "warnings": sum(d.severity == "warning" for d in found),
                            "notes": sum(d.severity == "note" for d in found),
                            "files": len({d.file for d in errors}), "checked": None, "blocked": False}
    summary = _last(_SUMMARY, text)
    if summary:
        data.update(errors=int(summary["errors"]), files=int(summary["files"]), blocked=bool(summary["blocked"]))
        data["checked"] = int(summary["checked"]) if summary["checked"] else None
        return data
    success = _last(_SUCCESS, text)
    if success:
        data.update(errors=0, files=0, checked=int(success["checked"]))
        return data
    return data if found else None


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match: a log may hold several runs, the final summary is the one that counts."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - keeps the last
        pass
    return found
