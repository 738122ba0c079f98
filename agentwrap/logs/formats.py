"""Diagnostic formats: per-tool TOML files of problem matchers (`agentwrap/formats/*.toml`), GitHub
problem-matcher JSON files (the user adapter folder, `--matcher FILE.json`), and the problems they make.

One format file serves a tool's live run (`agentwrap -- go vet` reads with `go.toml`) and saved logs
(`agentwrap normalize` tries every format). A format is data only:

    name = "go"
    matches = ["go", "golint", "staticcheck"]        # program names whose runs it reads
    [[matchers]]
    owner = "go"
    severity = "error"                               # when the line names none
    pattern = [{ regexp = '^(?P<file>\\S+\\.go):(?P<line>\\d+):(?:(?P<column>\\d+):)? (?P<message>.+)$' }]
"""

from __future__ import annotations

import ntpath
import posixpath
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentwrap.logs.format_index import PROGRAMS
from agentwrap.logs.matchers import Diagnostic, Matcher, MatcherError, Scanner, load_json, matcher
from agentwrap.problem import adapter_problem
from agentwrap.records import Problem, ProblemCode

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "formats"
_KEYS = {"name", "matches", "purpose", "matchers"}
_ERROR = ("e", "f", "✖", "×", "x", "fatal", "critical", "high", "blocker")
_WARNING = ("w", "⚠", "medium", "major", "c", "r")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


@dataclass(frozen=True)
class Format:
    name: str
    matches: tuple[str, ...]
    matchers: tuple[Matcher, ...]
    source: str
    purpose: str = ""


def load_toml(path: Path) -> Format:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise MatcherError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise MatcherError(f"{path}: not valid TOML: {exc}") from None
    unknown = set(data) - _KEYS
    if unknown:
        raise MatcherError(f"{path}: unknown keys {sorted(unknown)} (known: {sorted(_KEYS)})")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise MatcherError(f"{path}: 'name' is required")
    raw = data.get("matchers")
    if not isinstance(raw, list) or not raw:
        raise MatcherError(f"{path}: at least one [[matchers]] is required")
    matchers = tuple(matcher(m, f"{path}: matchers[{i}]", name) for i, m in enumerate(raw))
    return Format(name, tuple(data.get("matches", [name])), matchers, str(path), str(data.get("purpose", "")))


def load_matcher_file(path: Path) -> list[Format]:
    """A GitHub problem-matcher JSON file as one format per owner (each owner's diagnostics its own code),
    in the file's order."""
    owners: dict[str, list[Matcher]] = {}
    for m in load_json(path):
        owners.setdefault(m.owner, []).append(m)
    return [Format(owner, (), tuple(ms), str(path)) for owner, ms in owners.items()]


_BUILTIN: list[Format] = []
_LOADED: dict[str, Format] = {}


def builtin() -> list[Format]:
    """The built-in formats (loaded once; a defect in one is a bug the test suite catches)."""
    if not _BUILTIN:
        _BUILTIN.extend(_stem(p.stem) for p in sorted(BUILTIN_DIR.glob("*.toml")))
    return _BUILTIN


def _stem(stem: str) -> Format:
    if stem not in _LOADED:
        _LOADED[stem] = load_toml(BUILTIN_DIR / f"{stem}.toml")
    return _LOADED[stem]


def user(folder: Path, warnings: list[dict[str, str]]) -> list[Format]:
    """Problem-matcher JSON files in the user adapter folder; a broken one is a warning, not a failure."""
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            found.extend(load_matcher_file(path))
        except MatcherError as exc:
            warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": str(exc)[:500]})
    return found


def for_program(name: str) -> list[Format]:
    """The built-in format of a program or format name (loading only that file)."""
    stem = PROGRAMS.get(name)
    return [_stem(stem)] if stem else []


def severity_of(word: str | None, default: str) -> str:
    if not word:
        return default
    low = word.strip().lower()
    if low.startswith(("err", "fatal")) or low in _ERROR:
        return "error"
    if low.startswith("warn") or low in _WARNING:
        return "warning"
    if low.startswith(("note", "notice", "info", "sugg", "hint", "low", "conv", "refactor", "style")):
        return "note"
    return default


def _from_path(file: str, from_path: str) -> str:
    """A relative `file` read from the folder of the file `fromPath` names (a project file), as the Actions
    runner reads it: `Program.cs` of `/w/src/App/App.csproj` is `/w/src/App/Program.cs`."""
    windows = bool(_DRIVE.match(from_path)) or ("\\" in from_path and "/" not in from_path)
    path = ntpath if windows else posixpath
    if not from_path or path.isabs(file) or _DRIVE.match(file):
        return file
    folder = path.dirname(from_path)
    return path.join(folder, file) if folder else file


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text).upper().strip("_") or "TOOL"


def diagnostic_code(tool: str) -> ProblemCode:
    """The one code a format's diagnostics have (TOOL_DIAGNOSTIC, type TOOL:diagnostic), declared."""
    return ProblemCode(code=f"{_slug(tool)}_DIAGNOSTIC", title=f"{tool}: diagnostic", category="validation",
                       status=422)


def problem(diag: Diagnostic, tool: str, default_severity: str, line: str = "") -> Problem | None:
    """The Problem of one matched diagnostic; None when it names neither a file nor a message. `line`: the
    one line it was read from, which the concise text then need not repeat (pylint's `m.py:5:15: E0602 …`
    says column 15 where the location, counted from 1, says 16: judged by its words it read as a new fact)."""
    v = diag.values
    message = (v.get("message") or "").strip()
    if not message and not v.get("file"):
        return None
    severity = severity_of(v.get("severity"), default_severity)
    location: dict[str, Any] | None = None
    if v.get("file"):
        location = {"file": _from_path(v["file"].strip(), v.get("from_path", "").strip())}
        for key in ("line", "column", "end_line", "end_column"):
            if v.get(key, "").isdigit() and int(v[key]) > 0:
                location[key] = int(v[key])
    extra: dict[str, Any] = {}
    if v.get("code"):
        extra["rule"] = v["code"]
    if v.get("from_path"):
        extra["from_path"] = v["from_path"]
    where = location["file"] if location else tool
    return adapter_problem(
        tool, diagnostic_code(tool), message or f"{where}", title=f"{tool}: {severity}", location=location,
        severity=severity, extra=extra, matched=line)  # no fix: "fix it at FILE:LINE" would only say the location


def problems(formats: Iterable[Format], text: str) -> list[Problem]:
    """Every diagnostic the formats' matchers find in a finished text (a live run's output)."""
    out = []
    for fmt in formats:
        scanner = Scanner(fmt.matchers)
        lines = text.splitlines()
        for diag in [*scanner.scan(lines), *scanner.flush()]:
            p = problem(diag, fmt.name, fmt.matchers[diag.matcher].severity, read_from(fmt.matchers[diag.matcher],
                                                                                       diag, lines))
            if p is not None:
                out.append(p)
    return out


def read_from(matcher: Matcher, diag: Diagnostic, lines: Sequence[str]) -> str:
    """The line a one-line matcher read `diag` from; "" for a matcher of several lines or one that waited
    for a caret line (the line that completed it is not the one it quotes)."""
    if len(matcher.patterns) != 1 or matcher.caret_lines or not 0 <= diag.line_index < len(lines):
        return ""
    return lines[diag.line_index]
