"""The directory a build tool said it works in, so that relative paths in its diagnostics can be resolved.

make prints `make[2]: Entering directory '/src/lib'` and `Leaving directory`, ninja (and cmake --build
driving it) `ninja: Entering directory `build'`; a compiler under them prints paths relative to that
directory. Only those announcements move the state, so a log without them keeps every path as printed.
"""

from __future__ import annotations

import os
import re

from agentwrap.problem import Problem

_DIRECTORY = re.compile(rb"^(?:g?make(?:\[\d+\])?|ninja|samu): (Entering|Leaving) directory [`'\"]([^'\"\n]+)['\"]",
                        re.M)


_DEPTH = 32


class Directories:
    def __init__(self) -> None:
        self._stack: list[str] = []

    def advance(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        """Read the announcements in `data[start:end]` (text the log has passed; no copy is made)."""
        end = len(data) if end is None else end
        if data.find(b"directory", start, end) < 0:
            return
        for m in _DIRECTORY.finditer(data, start, end):
            if m.group(1) == b"Entering":
                self._stack.append(m.group(2).decode("utf-8", "replace"))
                del self._stack[:-_DEPTH]  # a log of parallel makes need not leave in order: bounded
            elif self._stack:
                self._stack.pop()

    def resolve(self, problem: Problem) -> Problem:
        """The problem's relative paths (location, edits, notes) read from the folder make was in."""
        if not self._stack:
            return problem
        from agentwrap.problem import rebased

        return rebased(problem, os.path.join(*self._stack))  # make -C inside make -C: nested
