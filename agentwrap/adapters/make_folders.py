"""The folder each line of a make run was printed from, for making its paths absolute.

make starts in the caller's folder moved by each `-C DIR`; each sub-make announces the folder it works in
(`make[1]: Entering directory '/p/sub'`) and leaves it (`Leaving directory`), and its own messages carry
its level (`make[1]: ***`). `Folders` follows those over the captured run; pure, reading the files only in
a live run (to choose among the folders make worked in the one that holds a file).
"""

from __future__ import annotations

import bisect
import os
import re

from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun, Problem

#: make's prefix on its own lines (`make: `, `make[1]: `), with the sub-make's level as a group.
LEVEL = r"^make(?:\[(?P<level>\d+)\])?: "
_FAILURE = lazy(LEVEL + r"\*\*\* ", re.M)
_PREFIXED = lazy(r"g?make(?:\[\d+\])?: ")
_MOVED = lazy(LEVEL + r"(?P<verb>Entering|Leaving) directory [`'‘](?P<dir>[^'’]+)['’]\s*$", re.M)


def start_folder(argv: tuple[str, ...], cwd: str | None) -> str | None:
    """The folder make reads its makefile in: where it ran, moved by each `-C DIR` (which `-s` keeps
    quiet)."""
    folder = cwd
    args = list(argv[1:])
    for i, arg in enumerate(args):
        value = None
        if arg in ("-C", "--directory") and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--directory="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-C") and len(arg) > 2:
            value = arg[2:]
        if value is not None:
            folder = value if os.path.isabs(value) else os.path.join(folder, value) if folder else None
    return os.path.normpath(folder) if folder else None


def _serial(argv: tuple[str, ...]) -> bool:
    """Neither -j nor -k: make stops at its first failure, so the sub-make entered last is the one that
    failed."""
    for arg in argv[1:]:
        if arg.startswith("--jobs") or arg == "--keep-going":
            return False
        if arg.startswith("-") and not arg.startswith("--"):
            for letter in arg[1:]:
                if letter in "jk":
                    return False
                if letter in "CfIloWEO":  # takes a value: the rest of the word is that value
                    break
    return True


class Folders:
    """The folder each make worked in when it printed each line: those its `Entering directory` lines opened
    and had not yet left. make prints them on stdout, while the compilers' diagnostics and make's `***`
    failures go to stderr: across the two streams, the make level of the failure that follows says which."""

    def __init__(self, run: CapturedRun, start: str | None) -> None:
        self.start, self.readable, self.serial = start, run.cwd is not None, _serial(run.argv)
        self.text, self.split = run.text(), len(run.stderr_text)  # run.text() is stderr, then stdout
        self._marks: list[int] = []
        self._open: list[tuple[tuple[int, str], ...]] = []  # (make level, folder) open after each mark
        self._entered: list[tuple[int, str]] = []
        opened: list[tuple[int, str]] = []
        for m in _MOVED.finditer(self.text):
            entry = (int(m.group("level") or 0), m.group("dir"))
            if m.group("verb") == "Entering":
                opened.append(entry)
                self._entered.append(entry)
            elif entry in opened:
                del opened[len(opened) - 1 - opened[::-1].index(entry)]
            self._marks.append(m.start())
            self._open.append(tuple(opened))

    def _ordered(self, offset: int) -> bool:
        """Whether `offset` is in the stream make announced its folders in (then its place among them
        tells)."""
        return not self._marks or (self._marks[0] >= self.split) == (offset >= self.split)

    def _opened(self, offset: int) -> tuple[tuple[int, str], ...]:
        i = bisect.bisect_right(self._marks, offset) - 1
        return self._open[i] if i >= 0 else ()

    def of_level(self, level: int, offset: int) -> str | None:
        """The folder of the make at `level` (make's own messages say theirs: `make[1]: ***`)."""
        if self._ordered(offset):
            mine = [folder for at, folder in self._opened(offset) if at == level]
            return mine[-1] if mine else self.start if level == 0 else None
        entered = [folder for at, folder in self._entered if at == level]
        if not entered:
            return self.start if level == 0 else None
        return entered[-1] if self.serial or len(set(entered)) == 1 else None

    def _level_after(self, offset: int) -> int | None:
        """The make level of the first `***` failure printed after `offset` in its stream: the make whose
        recipe printed the text at `offset`."""
        end = len(self.text) if offset >= self.split else self.split
        m = _FAILURE.search(self.text, offset, end)
        return int(m.group("level") or 0) if m else None

    def _guess(self, offset: int, own_failure: bool) -> str | None:
        if self._ordered(offset):
            opened = self._opened(offset)
            if not opened:
                return self.start
            deepest = max(level for level, _ in opened)
            innermost = set(folder for level, folder in opened if level == deepest)
            return innermost.pop() if len(innermost) == 1 else None  # two parallel sub-makes: either
        level = self._level_after(offset)
        if own_failure:  # a make's own `*** ... Stop.`: its parent, if any, reports the failure next
            level = 0 if level is None else level + 1
        if level is not None:
            return self.of_level(level, offset)
        every = {self.start, *(folder for _, folder in self._entered)}
        return every.pop() if len(every) == 1 else None

    def of_file(self, offset: int, file: str, own_failure: bool = False) -> str | None:
        """The folder `file`, printed at `offset`, is relative to. In a live run, when that is not certain or
        the file is not there, the one folder make worked in that holds it."""
        sure = self._guess(offset, own_failure)
        if not self.readable or not file or os.path.isabs(file):
            return sure
        candidates = [folder for _, folder in reversed(self._entered)] + ([self.start] if self.start else [])
        holding = list(dict.fromkeys(f for f in candidates if os.path.exists(os.path.join(f, file))))
        if sure in holding or not holding:
            return sure
        return holding[0] if len(holding) == 1 else sure


def folder_of_message(problem: Problem, m: re.Match[str], folders: Folders) -> str | None:
    """The folder a make message's paths are relative to: its make's, by the level its prefix names (`make[1]:
    ***`); one without (`Makefile:3: *** missing separator.  Stop.`) is found like a compiler's path."""
    if _PREFIXED.match(m.group(0)):
        return folders.of_level(int((problem.extra or {}).get("make_level", 0)), m.start())
    file = str((problem.location or {}).get("file", ""))
    return folders.of_file(m.start(), file, own_failure="***" in m.group(0))
