"""Salient lines: the few lines of a long output worth keeping from its middle (errors, failures).

The scanner takes text in arbitrary chunks and never splits a chunk into lines: it searches the
whole chunk and maps each hit back to a line number by counting newlines, so scanning costs a
few passes of C-speed string functions over the text.
"""

from __future__ import annotations

import re
from typing import Any

SALIENT = re.compile(
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

# A case-insensitive alternation costs `re` about 5 s per 64 MiB, so SALIENT is only tried on the
# lines in which a trie of lower-case literals (about 0.2 s per 64 MiB) finds one of these first.
_HINT_WORDS = (
    "error", "fatal", "panic", "exception", "traceback", "abort", "fail", "denied", "refused",
    "cannot", "unable to", "not found", "no such file", "undefined reference", "segmentation fault",
    "timed out", "warning:", "err!", "e   ", "exit status", "exit code", "exited with", "✗", "✘", "✖",
)
MAX_LINES = 100
LINE_CHARS = 400
CARRY_CHARS = 1 << 16  # a line longer than this is scanned in pieces


def _trie(words: list[str]) -> str:
    """One regex for many literals, shared prefixes factored out: `re` then tries few branches."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(c) + emit(sub) for c, sub in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


_HINT = re.compile(_trie(sorted(_HINT_WORDS)))


class SalientScanner:
    """Finds salient lines in text fed in chunks, keeping at most `limit` of them twice over:
    the first ones anywhere (`first`) and the first ones after line `after_line` (`middle`)."""

    def __init__(self, pattern: re.Pattern[str] = SALIENT, *, limit: int = MAX_LINES) -> None:
        self.pattern = pattern
        self._hint = _HINT if pattern is SALIENT else None
        self.limit = limit
        self.after_line = 0
        self.first: list[tuple[int, str]] = []
        self.middle: list[tuple[int, str]] = []
        self._carry = ""
        self._line = 1  # the number of the line that the next scanned text starts
        self._last = 0
        self._full = False

    def feed(self, text: str, *, final: bool = False) -> None:
        """Scan `text`; only complete lines are scanned until `final` says the stream has ended."""
        buf = self._carry + text if self._carry else text
        cut = len(buf) if final else buf.rfind("\n") + 1
        if cut:
            self._scan(buf[:cut] if cut < len(buf) else buf)
            buf = buf[cut:]
        if len(buf) > CARRY_CHARS:  # an overlong line: scan what we have and keep memory bounded
            self._scan(buf)
            buf = ""
        self._carry = buf

    def _scan(self, seg: str) -> None:
        line = self._line
        self._line += seg.count("\n")
        if self._full:
            return
        hint, probe = self._hint, seg
        if hint is not None:
            probe = seg.lower()
            if len(probe) != len(seg):  # a case mapping changed the length: positions would drift
                hint, probe = None, seg
        finder = hint or self.pattern
        counted, pos, end = 0, 0, len(seg)
        while pos < end and not self._full:
            match = finder.search(probe, pos)
            if match is None:
                break
            start = match.start()
            line_end = seg.find("\n", start)
            line_end = end if line_end < 0 else line_end
            # Every SALIENT match starts where a hint word does, or one lower-case letter earlier
            # ("KeyError"), so anchored matches there decide; a search of the line costs ~10 us.
            earlier = start - 1 if start > 0 and "a" <= seg[start - 1] <= "z" else -1
            if hint is not None and not (
                self.pattern.match(seg, start, line_end)
                or (earlier >= 0 and self.pattern.match(seg, earlier, line_end))
            ):
                pos = start + 1
                continue
            line_start = seg.rfind("\n", 0, start) + 1
            line += seg.count("\n", counted, line_start)
            counted = line_start
            self._record(line, seg, line_start, start)
            pos = line_end + 1

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
