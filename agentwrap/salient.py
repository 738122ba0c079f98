"""Salient lines: the few lines of a long output worth keeping from its middle (errors, failures).

The scanner takes text in arbitrary chunks and never splits a chunk into lines: it searches the
whole chunk and maps each hit back to a line number by counting newlines, so scanning costs a
few passes of C-speed string functions over the text.
"""

from __future__ import annotations

import re
from typing import Any

from agentwrap import literals
from agentwrap.batch import Batch
from agentwrap.lazyre import lazy

SALIENT = lazy(
    r"""
      (?<![\w./-])(?<!\b0\ )(?<!\bno\ )
      (?:errors?|fatal|panic(?:ked)?|exception|traceback|abort(?:ed)?|fail(?:ed|ures?|s)?)
      (?![\w/-]|\.\w|[\ \t]*[=:][\ \t]*0\b)         # not -Werror, errors.rs, failed=0
    | (?-i:[a-z](?:Error|Exception))\b              # ValueError, NullPointerException
    | \b(?:denied|refused|cannot|unable\ to|not\ found|no\ such\ file|undefined\ reference
          |segmentation\ fault|timed\ out)\b
    | \bwarning: | \bERR! | ^E\ {3}                 # compiler warnings, npm, pytest assertion lines
    | \bexit(?:ed\ with)?\ (?:status|code)\ [1-9]
    | [✗✘✖]
    """,
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)

# A case-insensitive alternation costs `re` about 5 s per 64 MiB, and even a trie of the literals
# ~1 s; one str.find per literal over the lower-cased text costs ~25 ms per 64 MiB each, so SALIENT
# is only tried where one of these literals occurs.
_NEEDLES = (
    "err", "fatal", "panic", "exception", "traceback", "abort", "fail", "denied", "refused", "cannot",
    "unable to", "not found", "no such file", "undefined reference", "segmentation fault", "timed out",
    "warning:", "e   ", "exit", "✗", "✘", "✖",
)
MAX_LINES = 100
LINE_CHARS = 400
CARRY_CHARS = 1 << 16  # a line longer than this is scanned in pieces
_MAX_HITS = 20_000  # literal hits per segment before we fall back to one regex pass


# Past the first FULL_SCAN_CHARS of a stream only the core literals are searched: a huge output costs
# ~25 ms per literal per 64 MiB, and its few inline salient lines are mostly errors and failures anyway.
FULL_SCAN_CHARS = 8 << 20
_CORE = frozenset(("err", "fatal", "panic", "exception", "traceback", "fail", "✗", "✘", "✖"))
_FINDERS: dict[tuple[bool, bool], list[Any]] = {}


def _finders(core_only: bool, ascii_only: bool) -> list[Any]:
    # The `regex` module searches a literal as fast as str.find, and with concurrent=True it releases the
    # GIL meanwhile, so the runner's reading thread keeps draining the terminal while we scan.
    # ASCII text cannot hold the non-ASCII literals (✗): a search each fewer, a third of the core ones.
    key = (core_only, ascii_only)
    if key not in _FINDERS:
        import regex

        _FINDERS[key] = [regex.compile(regex.escape(needle)) for needle in _NEEDLES
                         if (not core_only or needle in _CORE) and (not ascii_only or needle.isascii())]
    return _FINDERS[key]


_AUTOMATA: dict[bool, tuple[Any, Any]] = {}
_FEW_LINES = 32  # lines holding a literal, past which every hit is looked for in the whole text at once


def _automata(core_only: bool) -> tuple[Any, Any]:
    """(leftmost-first, standard) automata of the ASCII literals: the first finds the lines that hold one
    at SIMD speed (~15 GB/s here: the crate's prefilter serves leftmost semantics only), the second every
    hit, overlapping ones too ("cannot" and "not found" in "cannot found"), on those lines."""
    if core_only not in _AUTOMATA:
        needles = [n.encode() for n in _NEEDLES if n.isascii() and (not core_only or n in _CORE)]
        _AUTOMATA[core_only] = (literals.automaton(needles), literals.automaton(needles, leftmost=False))
    return _AUTOMATA[core_only]


def _ascii_hits(probe: bytes, core_only: bool) -> list[int] | None:
    # Aho-Corasick (the GIL released meanwhile) for all the literals at once, not one search each.
    first, every = _automata(core_only)
    lines = first.find_matches_as_indexes(probe)  # a line holding a hit holds one of these (none span lines)
    if not lines:
        return []
    if len(lines) > _FEW_LINES:
        found = every.find_matches_as_indexes(probe, overlapping=True)
    else:
        found = []
        for line_start, line_end in literals.hit_lines(lines, probe):
            hits = every.find_matches_as_indexes(probe[line_start:line_end], overlapping=True)
            found += [(i, line_start + a, line_start + b) for i, a, b in hits]
    if len(found) > _MAX_HITS:
        return None
    return sorted([start for _, start, _ in found])


def _hits(probe: str, *, core_only: bool = False) -> list[int] | None:
    """Sorted start positions of every literal in `probe`, or None when there are too many to be worth it."""
    if probe.isascii():
        return _ascii_hits(probe.encode("ascii"), core_only)
    return _finder_hits(probe, core_only)


def _finder_hits(probe: str, core_only: bool) -> list[int] | None:
    hits: list[int] = []
    for finder in _finders(core_only, probe.isascii()):
        match = finder.search(probe, concurrent=True)
        while match is not None:
            hits.append(match.start())
            if len(hits) > _MAX_HITS:
                return None
            match = finder.search(probe, match.start() + 1, concurrent=True)
    hits.sort()
    return hits


class SalientScanner:
    """Finds salient lines in text fed in chunks, keeping at most `limit` of them twice over:
    the first ones anywhere (`first`) and the first ones after line `after_line` (`middle`)."""

    def __init__(self, pattern: re.Pattern[str] = SALIENT, *, limit: int = MAX_LINES) -> None:
        self.pattern = pattern
        self._prefilter = pattern is SALIENT
        self._scanned = 0
        self.limit = limit
        self.after_line = 0
        self.first: list[tuple[int, str]] = []
        self.middle: list[tuple[int, str]] = []
        self._carry = ""
        self._line = 1  # the number of the line that the next scanned text starts
        self._last = 0
        self._full = False

    def feed(self, text: str, *, final: bool = False, batch: Batch | None = None) -> None:
        """Scan `text`; only complete lines are scanned until `final` says the stream has ended. `batch`,
        made of `text`, lends its newline count and lower-cased bytes when `text` is scanned whole."""
        buf = self._carry + text if self._carry else text
        cut = len(buf) if final else buf.rfind("\n") + 1
        if cut:
            self._scan(buf[:cut] if cut < len(buf) else buf, batch)
            buf = buf[cut:]
        if len(buf) > CARRY_CHARS:  # an overlong line: scan what we have and keep memory bounded
            self._scan(buf)
            buf = ""
        self._carry = buf

    def _scan(self, seg: str, batch: Batch | None = None) -> None:
        batch = Batch.of(seg, batch)  # not the one lent when a carried end of a line came first
        line = self._line
        self._line += batch.newlines()
        self._scanned += len(seg)
        if self._full:
            return
        hits = None
        if self._prefilter:
            core_only = self._scanned > FULL_SCAN_CHARS
            low = batch.ascii_lower()
            if low is not None:  # what `_hits` would search: ASCII text lower-cased, as bytes
                hits = _ascii_hits(low, core_only)
            elif len(probe := seg.lower()) == len(seg):  # else a case mapping changed the length
                hits = _hits(probe, core_only=core_only)
        counted, pos = 0, 0
        for start in hits if hits is not None else self._regex_hits(seg):
            if start < pos or self._full:
                continue
            line_end = seg.find("\n", start)
            line_end = len(seg) if line_end < 0 else line_end
            # Every SALIENT match starts where a literal does, or one lower-case letter earlier
            # ("KeyError"), so anchored matches there decide.
            earlier = start - 1 if start > 0 and "a" <= seg[start - 1] <= "z" else -1
            if hits is not None and not (
                self.pattern.match(seg, start, line_end)
                or (earlier >= 0 and self.pattern.match(seg, earlier, line_end))
            ):
                continue
            line_start = seg.rfind("\n", 0, start) + 1
            line += seg.count("\n", counted, line_start)
            counted = line_start
            self._record(line, seg, line_start, start)
            pos = line_end + 1

    def _regex_hits(self, seg: str) -> list[int]:
        return [m.start() for m in self.pattern.finditer(seg)]

    def _record(self, line: int, seg: str, line_start: int, at: int) -> None:
        if line == self._last:
            return
        self._last = line
        begin = line_start if at - line_start < LINE_CHARS - 80 else at - 80  # a long line: show the hit
        end = seg.find("\n", begin)
        text = seg[begin : min(end if end >= 0 else len(seg), begin + LINE_CHARS)]
        if len(self.first) < self.limit:
            self.first.append((line, text))
        if line > self.after_line and len(self.middle) < self.limit:
            self.middle.append((line, text))
        self._full = len(self.first) >= self.limit and len(self.middle) >= self.limit
