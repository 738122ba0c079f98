"""ruff's text output read back, in every form it prints:

- concise: `a.py:1:8: F401 [*] `os` imported but unused` (also ruff < 0.5's default, then followed by a frame);
- full (the default since ruff 0.9): `F401 [*] `os` imported but unused` then ` --> a.py:1:8`, a code frame,
  `help: ...` and, for an unsafe fix, `note: This is an unsafe fix and may change runtime behavior`;
- grouped: a `a.py:` line, then `  1:8  F401 [*] ...` rows;
- `ruff format --check`: `unformatted: File would be reformatted` + ` --> b.py:3:1` (or `Would reformat: b.py`);
- `ruff failed` / `  Cause: ...` blocks (configuration and selector errors).

Only .py/.pyi/.ipynb files are read, so other tools' `file:line:col:` lines in a log are left alone.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.lazyre import lazy

_PATH = r"(?:[A-Za-z]:[\\/])?[^\s:][^:\n]*?\.(?:pyi?|ipynb)"
_LOC = rf"(?P<file>{_PATH}):(?:cell (?P<cell>\d+):)?(?P<line>\d+):(?P<column>\d+)"
# A rule is a code (F401, PLR0913) or, for ruff's own diagnostics, a kebab-case name (invalid-syntax, unformatted).
_RULE = r"(?:(?P<code>[A-Z]{1,4}[0-9]{1,4})(?P<fix> \[\*\])?|(?P<name>(?!(?:error|warning|note|help)\b)" \
        r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*|SyntaxError):)"
CONCISE = re.compile(rf"^{_LOC}: {_RULE} (?P<message>.*?)\s*$", re.M)
FULL = re.compile(rf"^{_RULE} (?P<message>.*?)\s*\n[ \t]*--> {_LOC}\s*$", re.M)
_GROUP_FILE = lazy(rf"^(?P<file>{_PATH}):$")
_GROUP_ROW = lazy(rf"^\s+(?P<line>\d+):(?P<column>\d+)\s+{_RULE} (?P<message>.*?)\s*$")
_WOULD_REFORMAT = lazy(rf"^Would reformat: (?P<file>{_PATH})$", re.M)
_HELP = lazy(r"^\s*(?:= )?help: (?P<help>.+?)\s*$", re.M)
_UNSAFE = lazy(r"^\s*(?:= )?note: This is an unsafe fix", re.M)
_FAILED = lazy(r"^ruff failed\s*$", re.M)
_CAUSE = lazy(r"^\s+Cause: (?P<cause>.+?)\s*$")


class Diagnostic(NamedTuple):
    file: str
    line: int
    column: int
    rule: str
    message: str
    fixable: bool  # ruff marked it [*]: a safe fix exists
    unsafe_fix: bool  # the full format says a fix exists but is unsafe
    help: str | None
    text: str
    cell: int | None = None
    block: str = ""  # the full format's snippet and help under the diagnostic, as printed

    def evidence(self) -> list[str]:
        """The flagged source line and the caret under it, from the snippet."""
        lines = self.block.splitlines()
        for i, line in enumerate(lines):
            if re.match(rf"\s*{self.line} \| ", line):
                return [text.rstrip() for text in lines[i:i + 2]]
        return []


def _diag(m: re.Match[str], text: str, help_block: str = "", file: str | None = None) -> Diagnostic:
    g = m.groupdict()
    helped = _HELP.search(help_block)
    return Diagnostic(file or g["file"], int(g["line"]), int(g["column"]), g["code"] or g["name"], g["message"],
                      bool(g["fix"]), bool(_UNSAFE.search(help_block)), helped["help"] if helped else None,
                      text, int(g["cell"]) if g.get("cell") else None)


def diagnostics(text: str) -> list[Diagnostic]:
    """Every diagnostic ruff printed, in the order printed, whatever the output format."""
    hits: list[tuple[int, int, re.Match[str], str]] = []  # (start, end, match, kind)
    for kind, pattern in (("full", FULL), ("concise", CONCISE)):
        hits.extend((m.start(), m.end(), m, kind) for m in pattern.finditer(text))
    hits.sort(key=lambda h: h[0])
    found: list[Diagnostic] = []
    for i, (_, end, match, kind) in enumerate(hits):
        block = text[end:hits[i + 1][0] if i + 1 < len(hits) else len(text)]
        block = re.split(r"^(?:Found \d+ errors?|All checks passed!|\[\*\] \d+ fixable)", block, maxsplit=1,
                         flags=re.M)[0]
        g = match.groupdict()
        if kind == "full":
            head = f"{g['file']}:{g['line']}:{g['column']}: " + match.group(0).split("\n", 1)[0].strip()
        else:
            head = match.group(0).strip()
        found.append(_diag(match, head, block)._replace(block=match.group(0) + block))
    found.extend(_grouped(text))
    for m in _WOULD_REFORMAT.finditer(text):
        found.append(Diagnostic(m["file"], 0, 0, "unformatted", "File would be reformatted", True, False, None,
                                m.group(0)))
    return found


def _grouped(text: str) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    file: str | None = None
    for line in text.splitlines():
        head = _GROUP_FILE.match(line)
        if head:
            file = head["file"]
            continue
        row = _GROUP_ROW.match(line) if file else None
        if row and file:
            found.append(_diag(row, f"{file}:{row['line']}:{row['column']}: {line.strip()}", "", file))
        elif line.strip() and not line[0].isspace():
            file = None
    return found


_CONFIG_AT = lazy(r"Failed to parse (?P<file>\S+\.toml)(?: .*?at line (?P<line>\d+), column (?P<column>\d+))?")


def failures(text: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    """`ruff failed` blocks: (the causes and the parser's last words joined, all of them, the config location)."""
    out = []
    for m in _FAILED.finditer(text):
        causes: list[str] = []
        last: str | None = None
        for line in text[m.end():].splitlines()[1:30]:
            cause = _CAUSE.match(line)
            if cause:
                causes.append(cause["cause"])
            elif not line.strip():
                if causes:
                    break
            elif not re.match(r"^\s*(?:\d+\s*)?\|", line):  # a TOML frame line
                last = line.strip()
                if not line[0].isspace():
                    break
        parts = [*causes, *([last] if last else [])]
        joined = " ".join(parts)
        at = _CONFIG_AT.search(joined)
        location = None
        if at:
            location = {"file": at["file"], **({"line": int(at["line"]), "column": int(at["column"])}
                                               if at["line"] else {})}
        out.append(("ruff failed: " + "; ".join(parts), joined, location))
    return out


_FOUND = lazy(r"^Found (?P<n>\d+) errors?(?: \((?P<fixed>\d+) fixed, (?P<left>\d+) remaining\))?\.", re.M)
_FIXABLE = lazy(r"^\[\*\] (?P<n>\d+) fixable with", re.M)
_UNSAFE_N = lazy(r"(?P<n>\d+) unsafe fix(?:es)? (?:are )?available", re.M)
_PASSED = lazy(r"^All checks passed!", re.M)
# `ruff check --fix --diff` (or --diff alone): the fixes it shows and did not apply
_WOULD_FIX = lazy(r"^Would fix (?P<n>\d+) errors?\b", re.M)
_FORMAT = lazy(r"^(?:(?P<changed>\d+) files? (?P<verb>would be reformatted|reformatted))?(?:, )?"
                     r"(?:(?P<same>\d+) files? (?:already formatted|left unchanged))?\s*$", re.M)


def counts(text: str, found: list[Diagnostic]) -> dict[str, Any] | None:
    """errors, files, fixable, unsafe_fixable (and fixed); for `ruff format`, reformatted/unchanged counts."""
    lint = [d for d in found if d.rule != "unformatted"]
    data: dict[str, Any] = {"errors": len(lint), "warnings": 0, "files": len({d.file for d in lint}),
                            "fixable": sum(d.fixable for d in lint), "unsafe_fixable": sum(d.unsafe_fix for d in lint)}
    seen = bool(found)
    for m in _FOUND.finditer(text):
        data["errors"] = int(m["left"] if m["left"] is not None else m["n"])
        if m["fixed"] is not None:
            data["fixed"] = int(m["fixed"])
        seen = True
    for m in _FIXABLE.finditer(text):
        data["fixable"] = int(m["n"])
    for m in _UNSAFE_N.finditer(text):
        data["unsafe_fixable"] = int(m["n"])
    if _PASSED.search(text):
        data.update(errors=0, files=0, fixable=0, unsafe_fixable=0)
        seen = True
    for m in _WOULD_FIX.finditer(text):
        data["would_fix"] = int(m["n"])
        seen = True
    for m in _FORMAT.finditer(text):
        if m["changed"] or m["same"]:
            key = "would_reformat" if (m["verb"] or "").startswith("would") else "reformatted"
            data[key] = int(m["changed"] or 0)
            data["unchanged"] = int(m["same"] or 0)
            seen = True
    if not seen:
        return None
    return data
