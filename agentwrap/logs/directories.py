"""The directory a build tool said it works in, so that relative paths in its diagnostics can be resolved.

make prints `make[2]: Entering directory '/src/lib'` and `Leaving directory`, ninja (and cmake --build
driving it) `ninja: Entering directory `build'`; a compiler under them prints paths relative to that
directory. cargo prints `Compiling rs v0.1.0 (/src/repo/rs)` for a local package, and rustc's paths are
relative to the workspace root: the package folder itself when it is no workspace's member (`src/main.rs`),
a folder above it when it is (`rs/src/main.rs`, checked with cargo 1.95). Only those announcements move the
state, so a log without them keeps every path as printed.
"""

from __future__ import annotations

import os
import re

from agentwrap.problem import Problem, rebased

_DIRECTORY = re.compile(rb"^(?:g?make(?:\[\d+\])?|ninja|samu): (Entering|Leaving) directory [`'\"]([^'\"\n]+)['\"]",
                        re.M)
_PACKAGE = re.compile(rb"^[ \t]*(?:Compiling|Checking|Documenting|Fixing) \S+ v\S+ "
                      rb"\(((?:/|[A-Za-z]:\\)[^)\n]*)\)", re.M)
_DEPTH = 32


class Directories:
    def __init__(self) -> None:
        self._stack: list[str] = []
        self._packages: list[str] = []  # cargo's local packages, the last compiled last

    def advance(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        """Read the announcements in `data[start:end]` (text the log has passed; no copy is made)."""
        end = len(data) if end is None else end
        if data.find(b"directory", start, end) >= 0:
            for m in _DIRECTORY.finditer(data, start, end):
                if m.group(1) == b"Entering":
                    self._stack.append(m.group(2).decode("utf-8", "replace"))
                    del self._stack[:-_DEPTH]  # a log of parallel makes need not leave in order: bounded
                elif self._stack:
                    self._stack.pop()
        if data.find(b" v", start, end) >= 0:
            for m in _PACKAGE.finditer(data, start, end):
                self._packages.append(m.group(1).decode("utf-8", "replace").rstrip("/\\"))
                del self._packages[:-_DEPTH]

    def cuts(self, data: bytes, start: int, end: int) -> list[int]:
        """Offsets in `data[start:end]` just after each announcement: the text after one is read in the
        folder it announced (the outer make's `***` after a sub-make's `Leaving directory`)."""
        if data.find(b"directory", start, end) < 0 and data.find(b" v", start, end) < 0:
            return []
        found = [m.end() for pattern in (_DIRECTORY, _PACKAGE) for m in pattern.finditer(data, start, end)]
        return sorted({min(end, data.find(b"\n", at) + 1 or end) for at in found})

    def resolve(self, problem: Problem, tool: str = "") -> Problem:
        """The problem's relative paths (location, edits, notes) read from the folder its tool was in."""
        file = (problem.location or {}).get("file")
        if tool == "cargo" and self._packages and isinstance(file, str) and not os.path.isabs(file):
            return rebased(problem, self._cargo_root(file))
        if not self._stack:
            return problem
        return rebased(problem, os.path.join(*self._stack))  # make -C inside make -C: nested

    def _cargo_root(self, file: str) -> str:
        """The workspace root `file` is relative to: above a package whose trailing folders it starts with
        (a workspace member's `rs/src/main.rs`), else the last package compiled (a lone package's
        `src/…`)."""
        for package in reversed(self._packages):
            parts = re.split(r"[/\\]", package)
            for n in range(len(parts) - 1, 0, -1):
                if file.replace("\\", "/").startswith("/".join(parts[-n:]) + "/"):
                    return package[: len(package) - len("/".join(parts[-n:]))].rstrip("/\\") or "/"
        return self._packages[-1]
