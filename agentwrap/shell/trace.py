"""Reading the trace back: marks out of the terminal's bytes, and marks matched to the line's units.

The marks are taken out of each stream before anything else sees its bytes, so the cleaned output is
exactly what the line printed. Bash reprints `$BASH_COMMAND` with its own spacing, so a mark is matched
to a traced command by its text with blanks removed, in the order of the line: forward first (a
command skipped by `&&`/`||` or an `if` has no mark), then from the start again (a loop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from agentwrap.shell.model import Line
from agentwrap.shell.script import END_PREFIX

MAX_MARK = 1 << 20  # a mark longer than this is not ours: the bytes are output
_SPACE = re.compile(rb"\s+")


class Mark(NamedTuple):
    seq: int
    status: int
    pipestatus: tuple[int, ...]
    pwd: str
    command: str


def _field(buf: bytes, pos: int, end: bytes) -> tuple[bytes, int] | None:
    stop = buf.find(end, pos)
    return None if stop < 0 else (buf[pos:stop], stop + 1)


def parse_mark(buf: bytes, start: int, prefix: bytes) -> tuple[Mark | None, int]:
    """(mark, end) for the mark at `start`; (None, -1) while it is incomplete; (None, 0) when it is not one."""
    pos = start + len(prefix)
    parts: list[bytes] = []
    for _ in range(3):
        got = _field(buf, pos, b";")
        if got is None:
            return (None, -1) if len(buf) - start < MAX_MARK else (None, 0)
        parts.append(got[0])
        pos = got[1]
    sized: list[bytes] = []
    for _ in range(2):  # PWD and the command: any bytes but NUL
        got = _field(buf, pos, b"\0")
        if got is None:
            return (None, -1) if len(buf) - start < MAX_MARK else (None, 0)
        sized.append(got[0])
        pos = got[1]
    if buf[pos:pos + 1] != b"\a":
        return (None, -1) if pos >= len(buf) else (None, 0)
    pos += 1
    try:
        seq, status = int(parts[0]), int(parts[1])
        pipestatus = tuple(int(p) for p in parts[2].split())
    except ValueError:
        return None, 0
    return Mark(seq, status, pipestatus, sized[0].decode("utf-8", "replace"),
                sized[1].decode("utf-8", "replace")), pos


@dataclass
class Execution:
    """One run of one unit (or of something the line does not name: `unit` -1)."""

    unit: int
    seq: int
    cwd: str
    status: int | None = None  # None until the next mark, and when a subshell ran in between
    pipestatus: tuple[int, ...] = ()
    stages_seen: list[int] = field(default_factory=list)
    stage_seqs: dict[int, int] = field(default_factory=dict)  # a stage's own mark (names its tap file)
    header: bool = False  # a `for`/`case` header: no output of its own


class Matcher:
    """Marks in, executions out: which unit ran, in which folder, and with what status."""

    def __init__(self, line: Line) -> None:
        self.line = line
        self.keys = [key.encode() for key, _, _ in line.traced]
        self.cursor: int = -1
        self.executions: list[Execution] = []
        self.ended: Mark | None = None
        self._open: tuple[Execution, int] | None = None  # the running execution, its traced index

    def _find(self, command: str) -> int | None:
        text = _SPACE.sub(b"", command.encode("utf-8", "replace"))
        order: list[int] = [*range(self.cursor + 1, len(self.keys)), *range(0, self.cursor + 1)]
        for i in order:
            key = self.keys[i]
            if key and text.startswith(key):
                return i
        return None

    def _close(self, mark: Mark, upto: int | None) -> None:
        if self._open is None:
            return
        running, at = self._open
        self._open = None
        # A subshell that ran between the two marks: the status is its own, and so is the output after it.
        stop = len(self.keys) if upto is None or upto <= at else upto
        between = [i for i in range(at + 1, stop) if self.line.traced[i][2] == -2]
        if between and (upto is None or upto > at):
            unit = self.line.traced[between[-1]][1]
            self.executions.append(Execution(unit, mark.seq, running.cwd, mark.status, mark.pipestatus))
            return
        running.status, running.pipestatus = mark.status, mark.pipestatus

    def feed(self, mark: Mark) -> Execution | None:
        """Record `mark`; the execution it starts (None: a further stage of the running pipeline, or the end)."""
        if self.ended is not None:
            return None
        if mark.command.startswith(END_PREFIX):
            self._close(mark, None)
            self.ended = mark
            return None
        found = self._find(mark.command)
        if found is None:
            self._close(mark, self.cursor)
            running = Execution(-1, mark.seq, mark.pwd)
            self.executions.append(running)
            self._open = (running, self.cursor)
            return running
        _key, unit, stage = self.line.traced[found]
        if self._open is not None and unit >= 0 and self._open[0].unit == unit and found > self._open[1] \
                and stage > max(self._open[0].stages_seen, default=-1):
            self._open[0].stages_seen.append(stage)  # the next stage of the same pipeline
            self._open[0].stage_seqs[stage] = mark.seq
            self._open = (self._open[0], found)
            self.cursor = found
            return None
        self._close(mark, found)
        self.cursor = found
        running = Execution(unit, mark.seq, mark.pwd, stages_seen=[stage], stage_seqs={stage: mark.seq},
                            header=unit < 0)
        self.executions.append(running)
        self._open = (running, found)
        return running

    def finish(self, exit_code: int | None) -> None:
        """The shell ended without the trailer (`exit`, `set -e`, `exec`, a signal): the running unit
        ended it, with the shell's own status."""
        if self._open is not None and self.ended is None and exit_code is not None:
            self._open[0].status = exit_code
        self._open = None
