"""Parsing GCC/Clang diagnostics as a person sees them: `file:line:col: severity: message [-Wflag]`, the caret
blocks under them (gcc's `N | source` margin, or clang's bare source and caret lines) and the fix-it hints they
show, notes attached to their diagnostic, include chains and template contexts attached too.

Pure functions of text. Exact fix-its come from `-fdiagnostics-parseable-fixits` lines when the user asked for
them, else they are read from the caret block; `-fdiagnostics-format=json` output is read as is.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from agentwrap.lazyre import lazy

_SEVERITIES = "fatal error|internal compiler error|error|warning|note|remark"
# Files of other languages are never gcc's: a saved log may interleave mypy's `app.py:2: error:` lines.
_OTHER_LANGUAGE = (r"(?<!\.py)(?<!\.pyi)(?<!\.ts)(?<!\.tsx)(?<!\.js)(?<!\.mjs)(?<!\.rs)(?<!\.go)(?<!\.java)"
                   r"(?<!\.rb)(?<!\.kt)(?<!\.swift)")
# A path may hold colons when it holds no space (`/src/v1:2/a.c`, a drive `C:`); one with spaces holds none
# (so `make: a.c:3: error:` is not a file named `make: a.c`). A part that is only digits is a line or a
# column, never part of the file: mypy's `a.py:10:12: error:` is not gcc's file `a.py:10`, line 12.
DIAG = re.compile(r"^(?P<file>(?:[A-Za-z]:)?(?:[^\s:]+(?::(?!\d+:)[^\s:]+)*?|[^:\n]*[^:\s\n]))"
                  + _OTHER_LANGUAGE
                  + r":(?P<line>\d+):(?:(?P<column>\d+):)? "
                  rf"(?P<severity>{_SEVERITIES}): (?P<message>.*)$")
_OPTION = lazy(r"\s\[(?P<option>-[A-Za-z][^\]\s]*)\]$")
_FIXIT = lazy(r'^fix-it:"(?P<file>(?:[^"\\]|\\.)*)":\{(?P<l1>\d+):(?P<c1>\d+)-(?P<l2>\d+):(?P<c2>\d+)\}:'
                    r'"(?P<text>(?:[^"\\]|\\.)*)"\s*$')
_INCLUDED = lazy(r"^(?:In file included|\s+) from (?P<where>.+?)[:,]\s*$")
_SCOPE = lazy(r"^(?P<file>[^:\n]+): (?P<text>(?:In |At )[^\n]*):\s*$")
_CONTEXT = lazy(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<column>\d+):)?   (?P<text>\S.*)$")
_GCC_SOURCE = lazy(r"^( *(?P<n>\d+) \|) ?(?P<text>.*)$")
_GCC_ANNOT = lazy(r"^( +\|) ?(?P<text>.*)$")
_GCC_LEADING = lazy(r"^( *\+\+\+ \|)\+(?P<text>.*)$")
_GCC_GAP = lazy(r"^ *\.{3,}(?: *\|.*)?$")
_CARET = lazy(r"^[ ~^]*\^[ ~^]*$")
_SEGMENT = lazy(r"\S+(?: \S+)*")
_QUOTED = lazy(r"[‘'`]([^’'`]+)[’']")
_INSERT_WORDS = lazy(r"\b(expected|missing|insert|add)\b", re.I)
_SUMMARY = lazy(r"^\d+ (?:warnings?|errors?)(?: and \d+ (?:warnings?|errors?))? generated\.$")
_MISSING_HEADER = lazy(r"^(?:(?P<gcc>.+?): No such file or directory|'(?P<clang>.+?)' file not found)$")


@dataclass
class Fix:
    file: str
    line: int
    column: int
    text: str
    end_column: int | None = None  # exclusive; None: an insertion
    exact: bool = False  # the range is certain: -fdiagnostics-parseable-fixits, JSON, or gcc's dashes
    unit: str = "display"  # gcc's caret lines count display columns; clang and parseable fix-its count bytes

    def edit(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "line": self.line, "column": self.column}
        if self.end_column is None:
            out["insert"] = self.text
        else:
            out.update(end_line=self.line, end_column=self.end_column, replace=self.text)
        out["column_unit"] = self.unit
        return out


@dataclass
class Diag:
    offset: int
    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    option: str | None = None
    source: str | None = None  # the source line as printed
    fixes: list[Fix] = field(default_factory=list)
    notes: list[Diag] = field(default_factory=list)
    context: list[str] = field(default_factory=list)  # "In function", "required from here", include chain
    end: int | None = None  # where its caret block (source, caret, labels, fix-it rows) ends in the text

    @property
    def location(self) -> dict[str, Any] | None:
        if self.file is None:
            return None
        loc: dict[str, Any] = {"file": self.file}
        if self.line:
            loc["line"] = self.line
            if self.column:
                loc["column"] = self.column
        return loc

    @property
    def header(self) -> str | None:
        m = _MISSING_HEADER.match(self.message)
        return (m.group("gcc") or m.group("clang")) if m and "error" in self.severity else None


def display_width(text: str) -> int:
    """Columns a terminal gives `text` (wide East Asian characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _offsets(text: str) -> tuple[list[str], list[int]]:
    lines = text.split("\n")
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    return lines, starts


def line_index(text: str, offset: int) -> int:
    return text.count("\n", 0, offset)


def parse(text: str) -> list[Diag]:
    """Top-level diagnostics in order, each with its notes, fix-its and context."""
    stripped = text.lstrip()
    if stripped.startswith('[{"kind"'):
        parsed = _from_json(stripped)
        if parsed is not None:
            return parsed
    lines, starts = _offsets(text)
    top: list[Diag] = []
    last: Diag | None = None  # the diagnostic fix-it lines belong to (a note or a top-level one)
    context: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = DIAG.match(line)
        if m and not line.startswith(" "):
            diag = _diag(m, starts[i])
            diag.context, context = _own(context, diag.file), []
            i = _block(lines, i + 1, diag)
            diag.end = starts[i] if i < len(starts) else len(text)
            if diag.severity in ("note", "remark") and top:
                top[-1].notes.append(diag)
            else:
                top.append(diag)
            last = diag
            continue
        fix = _FIXIT.match(line)
        if fix and last is not None:
            _add_exact(last, fix)
        elif _INCLUDED.match(line) or _SCOPE.match(line):
            context.append(line.strip())
        elif (ctx := _CONTEXT.match(line)) and not _SUMMARY.match(line):
            where = ":".join(g for g in ctx.group("file", "line", "column") if g)
            context.append(f"{where}: {ctx.group('text').rstrip()}")
        elif line.strip() and not _SUMMARY.match(line) and not fix:
            context = []
        i += 1
    return top


def _own(context: list[str], file: str | None) -> list[str]:
    """The context lines of this diagnostic: under `make -j` two compiles' output interleaves, and another
    file's `f2.c: In function 'f2':` is no scope of an error in f1.c."""
    return [c for c in context if not ((m := _SCOPE.match(c)) and file and m.group("file") != file)]


def _diag(m: re.Match[str], offset: int) -> Diag:
    message = m.group("message").rstrip()
    opt = _OPTION.search(message)
    if opt:
        message = message[:opt.start()]
    col = m.group("column")
    return Diag(offset, m.group("severity"), message, m.group("file"), int(m.group("line")),
                int(col) if col else None, opt.group("option") if opt else None)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def _add_exact(diag: Diag, m: re.Match[str]) -> None:
    if not any(f.exact for f in diag.fixes):
        diag.fixes = []  # the exact ones replace what the caret block suggested
    line, col, end = int(m.group("l1")), int(m.group("c1")), int(m.group("c2"))
    diag.fixes.append(Fix(_unescape(m.group("file")), line, col, _unescape(m.group("text")),
                          None if (line, col) == (int(m.group("l2")), end) else end, exact=True, unit="byte"))


# --- caret blocks -------------------------------------------------------------------------------------------

def _block(lines: list[str], i: int, diag: Diag) -> int:
    if i < len(lines) and (_GCC_SOURCE.match(lines[i]) or _GCC_LEADING.match(lines[i])):
        return _gcc_block(lines, i, diag)
    if i + 1 < len(lines) and _CARET.match(lines[i + 1]) and not DIAG.match(lines[i]):
        diag.source = lines[i]
        caret = lines[i + 1]
        i += 2
        if i < len(lines) and _clang_fixit_row(lines[i], caret):
            _fix_row(diag, diag.line or 0, lines[i], caret, 0)
            # clang prints tabs expanded but counts columns in bytes: shift by what the caret shows
            shift = (diag.column or 0) - (display_width(caret[:caret.index("^")]) + 1) if diag.column else 0
            for fix in diag.fixes:
                fix.column += shift
                fix.end_column = fix.end_column + shift if fix.end_column is not None else None
                fix.unit = "byte"
            i += 1
        return i
    return i


def _clang_fixit_row(row: str, caret: str) -> bool:
    if not row.strip() or DIAG.match(row) or _FIXIT.match(row) or _SUMMARY.match(row) or _INCLUDED.match(row):
        return False
    indent = len(row) - len(row.lstrip(" "))
    return indent <= len(caret.rstrip()) + 1 and not _CONTEXT.match(row) and not _SCOPE.match(row)


def _gcc_block(lines: list[str], i: int, diag: Diag) -> int:
    cur, caret, state, bars = 0, "", "source", [0]
    leading: list[str] = []
    while i < len(lines):
        row = lines[i]
        src, lead, ann = _GCC_SOURCE.match(row), _GCC_LEADING.match(row), _GCC_ANNOT.match(row)
        if lead:
            leading.append(lead.group("text"))
        elif src:
            cur, caret, state = int(src.group("n")), "", "source"
            if diag.source is None and cur == diag.line:
                diag.source = src.group("text")
            for text in leading:
                diag.fixes.append(Fix(diag.file or "", cur, 1, text + "\n"))
            leading = []
        elif ann:
            prefix = len(ann.group(1)) + 1
            content = " " * prefix + ann.group("text")
            body = content.strip()
            if state == "source" and body and set(body) <= set("^~ "):
                caret, state = content, "caret"
            elif state in ("source", "caret") and body and set(body) <= set("| "):
                bars, state = [k for k, ch in enumerate(content) if ch == "|"], "labels"
            elif state == "labels":
                if not any(k < len(content) and content[k] == "|" for k in bars):
                    state = "fixits"
            elif body:
                state = "fixits"
                _fix_row(diag, cur, content, caret, prefix)
        elif not _GCC_GAP.match(row):
            break
        i += 1
    return i


def _fix_row(diag: Diag, line: int, row: str, caret: str, prefix: int) -> None:
    """One printed row of fix-it hints: text at the columns it applies to, or `-` under a deletion."""
    quoted = [q.strip() for q in _QUOTED.findall(diag.message)]
    for seg in _SEGMENT.finditer(row):
        start, text = seg.start(), seg.group(0)
        column = display_width(row[prefix:start]) + 1
        if set(text) == {"-"}:  # gcc marks a deletion with dashes under it: the range is certain
            diag.fixes.append(Fix(diag.file or "", line, column, "", column + display_width(text), exact=True,
                                  unit="display" if prefix else "byte"))
            continue
        # the range under the text: one run of `~` holding at most one `^` (gcc prints `~^` under `%d`, the caret
        # at its end, `^~~~~` under a word); a second `^` starts another range
        run, carets = 0, 0
        while start + run < len(caret) and caret[start + run] in "^~":
            carets += caret[start + run] == "^"
            if carets > 1:
                break
            run += 1
        inserting = not run or (text in quoted and bool(_INSERT_WORDS.search(diag.message))
                                and "did you mean" not in diag.message)
        if inserting and row[seg.end():] == " ":
            text += " "  # clang prints "typename " with the space it inserts
        end = None if inserting else column + display_width(caret[start:start + run])
        diag.fixes.append(Fix(diag.file or "", line, column, text, end))


def applicability(diag: Diag, fix: Fix, *, from_note: bool) -> str:
    """machine_applicable only for gcc/clang's own exact fix-its on the diagnostic itself, or an unambiguous
    `expected 'X'` insertion; suggestions ("did you mean"), notes and inferred ranges are maybe_incorrect."""
    if from_note or "did you mean" in diag.message:
        return "maybe_incorrect"
    if fix.exact:
        return "machine_applicable"
    quoted = [q.strip() for q in _QUOTED.findall(diag.message)]
    if fix.end_column is None and fix.text.strip() in quoted and diag.message.startswith(("expected", "missing")):
        return "machine_applicable"
    return "maybe_incorrect"


# --- -fdiagnostics-format=json --------------------------------------------------------------------------------

def _from_json(text: str) -> list[Diag] | None:
    try:
        raw, _ = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    if not isinstance(raw, list):
        return None
    return [_json_diag(d) for d in raw if isinstance(d, dict)]


def _json_diag(d: dict[str, Any]) -> Diag:
    locs = d.get("locations") or [{}]
    caret = locs[0].get("caret") or {}
    diag = Diag(0, str(d.get("kind", "error")), str(d.get("message", "")), caret.get("file"), caret.get("line"),
                caret.get("column"), d.get("option"))
    for fx in d.get("fixits") or []:
        start, nxt = fx.get("start", {}), fx.get("next", {})
        same = (start.get("line"), start.get("column")) == (nxt.get("line"), nxt.get("column"))
        col, end = (int(start.get("byte-column", start.get("column", 0))),
                    int(nxt.get("byte-column", nxt.get("column", 0))))
        diag.fixes.append(Fix(str(start.get("file", "")), int(start.get("line", 0)), col, str(fx.get("string", "")),
                              None if same else end, exact=True, unit="byte"))
    diag.notes = [_json_diag(c) for c in d.get("children") or [] if isinstance(c, dict)]
    return diag
