"""Where in a log the diagnostics can be: lines with a trigger, with a few lines of context around them.

Most of a build log is progress nobody needs read twice. Triggers are lower-case literals (searched a
first byte at a time at memchr speed on an ASCII-lowered copy) and regexes of location shapes (`:12:`, `(3,5)`,
`[12,`, `line 7`); the adapters and matchers then read only the regions around them, never the rest.
A trigger list that misses a tool's lines loses them, so it is wide: the failure words of the adapters'
signatures and of the generic rules, and the shapes every matcher's location has (a pytest node id, a
`Compiling` line or a stack frame alone is no trigger: they are the bulk of a log, not its problems).
"""

from __future__ import annotations

import re
from typing import NamedTuple

BEFORE = 3  # lines of context before a trigger: a stylish report's file line, a pydocstyle location
AFTER = 10  # and after it: carets, notes, a rustc block's source lines (further triggers extend a region)

# Words of problems that name no location (located ones are found by their shape below).
_WORDS = (
    "error", "warn", "fail", "fatal", "panic", "denied", "refused", "not found", "cannot", "unable", "exception",
    "traceback", "timed out", "killed", "abort", "invalid", "no such", "undefined", "would reformat", "***",
    "\n_____", "\n=====", "\ne   ", "\u2716", "\u26a0", "out of memory", "unknown", "missing",
    # the generic rules' failures of any program (adapters/generic.toml)
    "no space left", "quota", "read-only file", "resolve host", "name resolution", "not known", "unreachable",
    "no route to host", "timeout", "too many requests", "rate limit", "file exists", "a directory",
    "segmentation", "bus error", "illegal instruction",
    # a report whose diagnostic starts lines before its location: bandit's `>> Issue: [B602:...]` is four
    # lines above its `Location: ./a.py:5:4`, out of the location's context
    ">> issue: [",
)
# `file.c:12:`, `a.ts(3,5)`, `a.ts[418, 38]`, `a.rb:57 text`: a digit run after `:`, `(` or `[` that
# follows a name (a fast charset scan; the byte before is checked apart: never a clock's `10:00:00`).
_LOCATOR = re.compile(rb"[:(\[]\d+[:,)\s]")
_NOT_NAME = frozenset(b" \t\n0123456789:")
# `line 7` ending a line or followed by `:` or `,` (puppet-lint's `on line 7`, eslint -f compact's `line 7,
# col 2`, shellcheck's `In a.sh line 7:`, yaml's `line 7: …`): not a progress message's `line 7 of 90`,
# which would make every line of some logs a trigger
_SHAPES = re.compile(rb"line \d+(?:[:,]|\r?$)", re.M)


def _literals() -> tuple[bytes, ...]:
    words = {w.lower() for w in _WORDS}
    # a literal that contains another is found through it
    kept = sorted(words, key=len)
    out: list[str] = []
    for w in kept:
        if not any(o in w for o in out):
            out.append(w)
    return tuple(w.encode() for w in out)


LITERALS = _literals()


def _by_first_byte(literals: tuple[bytes, ...]) -> tuple[re.Pattern[bytes], ...]:
    """One regex per first byte (`e(?:rror|xception)`): a pattern that starts with a literal is searched
    at memchr speed, so 20 scans find what 43 `find` loops did, in 2/5 of the time."""
    groups: dict[bytes, list[bytes]] = {}
    for lit in literals:
        groups.setdefault(lit[:1], []).append(lit)
    out = []
    for first, words in groups.items():
        rests = sorted((w[1:] for w in words), key=len, reverse=True)
        out.append(re.compile(re.escape(first) + b"(?:" + b"|".join(map(re.escape, rests)) + b")"))
    return tuple(out)


_TRIGGERS = _by_first_byte(LITERALS)


class Region(NamedTuple):
    start: int
    end: int
    open: bool  # it reaches the end of the text: more lines may belong to it
    hits: frozenset[int] = frozenset()  # indexes (within the region) of trigger lines and the line before each
    first: int = 0  # offset of its first trigger line (what is before it is context)


def _hits(low: bytes, data: bytes, extra: tuple[re.Pattern[bytes], ...]) -> list[int]:
    found = [m.start() for m in _SHAPES.finditer(low)]
    for pattern in extra:  # the first lines of matchers a user gave: a trigger whatever they look for
        found.extend(m.start() for m in pattern.finditer(data))
    found.extend(at for at in (m.start() for m in _LOCATOR.finditer(low)) if at and low[at - 1] not in _NOT_NAME)
    for pattern in _TRIGGERS:
        found.extend(m.start() for m in pattern.finditer(low))
    found.sort()
    return found


def back(data: bytes, line_start: int, lines: int) -> int:
    pos = line_start
    for _ in range(lines):
        if pos <= 0:
            return 0
        pos = data.rfind(b"\n", 0, pos - 1) + 1
    return pos


_SKIP = {n: re.compile(rb"(?:[^\n]*\n){0,%d}" % n) for n in (1, 10)}


def _forward(data: bytes, pos: int, lines: int) -> int:
    """The offset `lines` lines after `pos` (a line start), or the end."""
    m = _SKIP[lines].match(data, pos)
    end = m.end() if m else pos
    return len(data) if end >= len(data) or (end == pos and lines) else end


def find(data: bytes, extra: tuple[re.Pattern[bytes], ...] = ()) -> list[Region]:
    """Regions (byte offsets into `data`, whole lines) around every trigger, merged when they touch.
    `extra`: more trigger patterns (searched on `data` as it is, line by line)."""
    low = data.lower()
    regions: list[Region] = []
    start = end = -1
    last_line = -1
    hits: set[int] = set()
    first = 0
    counted, index = 0, 0  # newlines counted from `start` up to offset `counted`
    for hit in _hits(low, data, extra):
        if last_line <= hit < end and data.find(b"\n", last_line, hit) < 0:
            continue  # another trigger on the line just seen
        line_start = data.rfind(b"\n", 0, hit) + 1
        if line_start == last_line:
            continue
        last_line = line_start
        line_end = _forward(data, line_start, 1)
        if start < 0 or line_start > end:
            if start >= 0:
                regions.append(Region(start, end, False, frozenset(hits), first))
            start, first = back(data, line_start, BEFORE), line_start
            hits, counted, index = set(), start, 0
        end = max(end, _forward(data, line_end, AFTER))
        index += data.count(b"\n", counted, line_start)
        counted = line_start
        hits.update((index, index - 1))
    if start >= 0:
        regions.append(Region(start, end, end >= len(data), frozenset(hits), first))
    return regions


_EVERY_LINE = re.compile(rb"^", re.M)


def triggers(patterns: list[str]) -> tuple[re.Pattern[bytes], ...]:
    """Byte patterns for the first patterns of user matchers; one that has no byte form (a character
    class of non-ASCII characters) makes every line a trigger, so that no match is lost."""
    out = []
    for source in patterns:
        try:
            out.append(re.compile(source.encode("utf-8"), re.M))
        except re.error:
            return (_EVERY_LINE,)
    return tuple(out)
