"""Problem matchers: GitHub Actions' (and VS Code's) line-pattern format, as declarative diagnostic rules.

A matcher is a list of patterns tried on consecutive lines, as the Actions runner does it: the first
pattern starts a match, each following one must match the next line, the last may `loop` (every further
line it matches is one more diagnostic, with the values the earlier lines gave). Properties are group
numbers (`"file": 1`, GitHub's form) or the regex's named groups (`(?P<file>...)`, the TOML form).

agentwrap's extensions, all optional: `severity` names a default per matcher; `column_base = 0` for a
tool that counts columns from 0 (pylint); `caret_lines = N` reads the column from a caret line (`   ^`)
within N lines of a match that had none (scalac, javac); `caret_prefix` is a regex removed from those
lines first (sbt's `[error] `). JavaScript's `(?<name>` becomes Python's `(?P<name>`. VS Code's form is
read too: one `location` group (`3`, `3,5`, `3,5,3,9`) instead of `line` and `column`, and a single
matcher object instead of a list. Matchers never see colour or CI decorations: those are removed first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from agentwrap.logs import literals

PROPERTIES = ("file", "line", "column", "end_line", "end_column", "severity", "code", "message", "from_path",
              "location")
_LOCATION = re.compile(r"^\(?(\d+)(?:[,:](\d+)(?:[,:](\d+)[,:](\d+))?)?\)?$")  # VS Code: 3 | 3,5 | 3,5,3,9
_GITHUB_NAMES = {"fromPath": "from_path", "endLine": "end_line", "endColumn": "end_column"}
_JS_NAMED = re.compile(r"\(\?<(?=[A-Za-z_])")
_CARET = re.compile(r"^(\s*)[\^~][\^~ ]*$")
_SEVERITIES = {"error": "error", "warning": "warning", "warn": "warning", "notice": "note", "note": "note",
               "info": "note"}


class MatcherError(ValueError):
    """A matcher file or spec that cannot be used: the message names the file and the key."""


class Diagnostic(NamedTuple):
    """One match: what the patterns captured, and the index of the line that completed it."""

    owner: str
    line_index: int
    values: dict[str, str]
    matcher: int = 0  # its position in the scanner's list (owners of different files may share a name)


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[str]
    groups: dict[str, int | str]  # property -> group number or name
    loop: bool = False

    def values(self, m: re.Match[str]) -> dict[str, str]:
        out = {}
        for prop, group in self.groups.items():
            try:
                value = m.group(group)
            except (IndexError, KeyError):
                continue
            if value:
                out[prop] = value
        where = _LOCATION.match(out.pop("location", "").strip())
        if where:  # VS Code's one `location` group: line[,column[,end line,end column]]
            for key, part in zip(("line", "column", "end_line", "end_column"), where.groups(), strict=True):
                if part:
                    out.setdefault(key, part)
        return out


@dataclass(frozen=True)
class Matcher:
    owner: str
    patterns: tuple[Pattern, ...]
    severity: str = "error"
    caret_lines: int = 0
    caret_prefix: re.Pattern[str] | None = None
    tool: str = ""
    column_base: int = 1  # pylint counts columns from 0
    extra: dict[str, Any] = field(default_factory=dict)


def _compile(source: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(_JS_NAMED.sub("(?P<", source))
    except re.error as exc:
        raise MatcherError(f"{where}: regexp does not compile: {exc}") from None


def _pattern(raw: Any, where: str) -> Pattern:
    if not isinstance(raw, dict) or not isinstance(raw.get("regexp"), str):
        raise MatcherError(f"{where}: a pattern needs a string 'regexp'")
    regex = _compile(raw["regexp"], where)
    groups: dict[str, int | str] = {}
    for key, value in raw.items():
        prop = _GITHUB_NAMES.get(key, key)
        if key in ("regexp", "loop"):
            continue
        if prop not in PROPERTIES:
            raise MatcherError(f"{where}: unknown key {key!r} (known: regexp, loop, {', '.join(PROPERTIES)})")
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise MatcherError(f"{where}.{key}: a group number or name")
        if isinstance(value, int) and not 0 <= value <= regex.groups:
            raise MatcherError(f"{where}.{key}: group {value} does not exist (the regexp has {regex.groups})")
        groups[prop] = value
    for name in regex.groupindex:  # named groups need no property list
        if name in PROPERTIES and name not in groups:
            groups[name] = name
    return Pattern(regex, groups, bool(raw.get("loop", False)))


def _severity(value: Any, where: str) -> str:
    """A matcher's default severity as a problem's: the runner's error, warning and notice (and the
    note and info VS Code and the TOML formats say); anything else the runner refuses, so is refused."""
    word = str(value).strip().lower()
    if word not in _SEVERITIES:
        raise MatcherError(f"{where}.severity: {value!r} is not one of {', '.join(_SEVERITIES)}")
    return _SEVERITIES[word]


def matcher(raw: Any, where: str, tool: str = "") -> Matcher:
    """One matcher from its GitHub/TOML dict; raises MatcherError naming `where` and the key."""
    if not isinstance(raw, dict):
        raise MatcherError(f"{where}: a matcher is an object")
    owner = raw.get("owner") or tool
    if not isinstance(owner, str) or not owner:
        raise MatcherError(f"{where}: 'owner' is required")
    patterns = raw.get("pattern")
    if isinstance(patterns, dict):
        patterns = [patterns]
    if not isinstance(patterns, list) or not patterns:
        raise MatcherError(f"{where}: 'pattern' must be a non-empty list")
    compiled = tuple(_pattern(p, f"{where}.pattern[{i}]") for i, p in enumerate(patterns))
    if any(p.loop for p in compiled[:-1]):
        raise MatcherError(f"{where}: only the last pattern may loop")
    if compiled[-1].loop and len(compiled) == 1:
        raise MatcherError(f"{where}: a loop needs at least two patterns")
    severity = _severity(raw.get("severity", "error"), where)
    if not any("message" in p.groups for p in compiled):
        raise MatcherError(f"{where}: at least one pattern must set 'message'")  # the runner's rule too
    prefix = raw.get("caret_prefix")
    return Matcher(owner, compiled, severity,
                   int(raw.get("caret_lines", 0)), _compile(prefix, where) if prefix else None, tool or owner,
                   int(raw.get("column_base", 1)))


def load_json(path: Path) -> list[Matcher]:
    """The matchers of a GitHub problem-matcher file (`{"problemMatcher": [...]}`)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise MatcherError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MatcherError(f"{path}: not valid JSON: {exc}") from None
    items = data.get("problemMatcher") if isinstance(data, dict) else None
    if isinstance(items, dict):  # a VS Code task's single matcher
        items = [items]
    if not isinstance(items, list) or not items:
        raise MatcherError(f"{path}: expected {{\"problemMatcher\": [...]}}")
    return [matcher(m, f"{path}: problemMatcher[{i}]") for i, m in enumerate(items)]


class _Index(NamedTuple):
    """Which matchers a line can start: those one of whose needed literals it contains, and those that need
    none."""

    gate: re.Pattern[str] | None  # any needed literal at all (one C call rules out most lines)
    by_literal: tuple[tuple[str, tuple[int, ...]], ...]
    always: tuple[int, ...]

    def starting(self, line: str) -> tuple[int, ...]:
        if self.gate is None or self.gate.search(line) is None:
            return self.always
        found = {k for literal, ks in self.by_literal if literal in line for k in ks}
        return tuple(sorted(found.union(self.always)))


_INDEXES: dict[tuple[int, ...], _Index] = {}
_KEPT: list[tuple[Matcher, ...]] = []


def _index(matchers: tuple[Matcher, ...]) -> _Index:
    """The first patterns' literal prefilter, built once per matcher list (a scanner is made per region)."""
    sources = tuple(map(id, matchers))  # the same Matcher objects (kept alive by the cache: ids stay theirs)
    if sources not in _INDEXES:
        by_literal: dict[str, list[int]] = {}
        always = []
        for k, m in enumerate(matchers):
            need = literals.needed(m.patterns[0].regex)
            if need is None:
                always.append(k)
            for literal in need or ():
                by_literal.setdefault(literal, []).append(k)
        ordered = sorted(by_literal, key=len, reverse=True)
        gate = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        pairs = tuple((lit, tuple(by_literal[lit])) for lit in ordered)
        _INDEXES[sources] = _Index(gate, pairs, tuple(always))
        _KEPT.append(matchers)
    return _INDEXES[sources]


class Scanner:
    """Runs matchers over lines as they come, keeping each multi-line matcher's state between calls."""

    def __init__(self, matchers: Iterable[Matcher]) -> None:
        self.matchers = tuple(matchers)
        self._index = _index(self.matchers)
        self._firsts = tuple(m.patterns[0].regex for m in self.matchers)
        self._state: dict[int, tuple[int, dict[str, str], bool]] = {}  # matcher -> (next pattern, values, looped)
        self._caret: list[tuple[int, dict[str, str], int]] = []  # matchers waiting for a caret line

    def scan(self, lines: list[str], base: int = 0, starts: frozenset[int] | None = None) -> Iterator[Diagnostic]:
        """Diagnostics completed by `lines` (line indexes counted from `base`). With `starts`, a match may
        begin only on those lines (the caller knows the others cannot start one)."""
        for i, line in enumerate(lines):
            if self._caret:
                yield from self._carets(line, base + i)
            if starts is not None and i not in starts and not self._state:
                continue
            # only matchers whose first regex can match this line, and those in the middle of a match, are fed
            fed = self._index.starting(line) if starts is None or i in starts else ()
            if self._state:
                fed = tuple(sorted({*fed, *self._state}))
            for k in fed:
                if k not in self._state and self._firsts[k].search(line) is None:
                    continue  # the common case, without a call: this matcher does not start here
                m = self.matchers[k]
                found = self._feed(k, m, line)
                if found is not None and m.column_base != 1 and found.get("column", "").isdigit():
                    found = {**found, "column": str(int(found["column"]) + 1 - m.column_base)}
                if found is not None:
                    if m.caret_lines and "column" not in found:
                        self._caret.append((k, found, m.caret_lines))
                    else:
                        yield Diagnostic(m.owner, base + i, found, k)

    def flush(self) -> Iterator[Diagnostic]:
        """Diagnostics still waiting for a caret line that never came (the input ended)."""
        for k, values, _ in self._caret:
            yield Diagnostic(self.matchers[k].owner, -1, values, k)
        self._caret = []
        self._state.clear()

    def _carets(self, line: str, index: int) -> Iterator[Diagnostic]:
        waiting = []
        for k, values, left in self._caret:
            m = self.matchers[k]
            text = m.caret_prefix.sub("", line, count=1) if m.caret_prefix else line
            caret = _CARET.match(text)
            if caret:
                yield Diagnostic(m.owner, index, {**values, "column": str(len(caret.group(1)) + 1)}, k)
            elif left > 1 and not any(p.regex.search(line) for p in m.patterns[:1]):
                waiting.append((k, values, left - 1))
            else:
                yield Diagnostic(m.owner, index, values, k)
        self._caret = waiting

    def _feed(self, k: int, m: Matcher, line: str) -> dict[str, str] | None:
        state = self._state.pop(k, None)
        if state is not None:
            at, values, looped = state
            pattern = m.patterns[at]
            hit = pattern.regex.search(line)
            if hit:
                merged = {**values, **pattern.values(hit)}
                if at + 1 < len(m.patterns):
                    self._state[k] = (at + 1, merged, False)
                    return None
                if pattern.loop:
                    self._state[k] = (at, values, True)
                return merged
        first = m.patterns[0].regex.search(line)
        if first is None:
            return None
        values = m.patterns[0].values(first)
        if len(m.patterns) > 1:
            self._state[k] = (1, values, False)
            return None
        return values
