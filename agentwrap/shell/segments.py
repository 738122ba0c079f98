"""The runner's sink for a traced line: marks out, the line's output to the run's pipeline unchanged,
and a copy of each unit's own output (its latest run) to a pipeline of that unit, for its adapter.

Each stream is split by its own marks (the two terminals are read independently; each gets every mark,
in the order the shell wrote it), so a unit's stderr is never mixed with the next unit's.
"""

from __future__ import annotations

from agentwrap.pipeline import Pipeline
from agentwrap.shell.model import Line
from agentwrap.shell.script import MARK_OSC
from agentwrap.shell.trace import Execution, Mark, Matcher, parse_mark

UNKNOWN = -1  # output of something no unit names (an `eval`'d command, what ran before the first mark)


class _StreamSplit:
    def __init__(self, line: Line) -> None:
        self.matcher = Matcher(line)
        self.pending = b""
        self.unit = UNKNOWN
        self.runs: dict[int, int] = {}  # unit -> how many of its runs this stream has seen begin


class TraceSink:
    """A `runner.session.Sink` in front of the run's pipeline."""

    def __init__(self, pipeline: Pipeline, line: Line, nonce: str, secrets: list[str]) -> None:
        self.pipeline = pipeline
        self.prefix = MARK_OSC + nonce.encode() + b";"
        self.line = line
        self.secrets = secrets
        self.splits = {"stdout": _StreamSplit(line), "stderr": _StreamSplit(line)}
        self.segments: dict[int, tuple[int, Pipeline]] = {}  # unit -> (run number, its output's pipeline)
        self.marks = 0

    # --- the runner's Sink -----------------------------------------------------------------------------
    def output(self, stream: str, data: bytes) -> None:
        split = self.splits[stream]
        buf = split.pending + data
        split.pending = b""
        pos = 0
        while True:
            at = buf.find(self.prefix, pos)
            if at < 0:
                keep = _partial_prefix(buf, pos, self.prefix)
                self._forward(stream, buf[pos:len(buf) - keep])
                split.pending = buf[len(buf) - keep:]
                return
            self._forward(stream, buf[pos:at])
            mark, end = parse_mark(buf, at, self.prefix)
            if end < 0:  # the rest of the mark is still on its way
                split.pending = buf[at:]
                return
            if mark is None:  # not a mark after all: output
                self._forward(stream, buf[at:at + len(self.prefix)])
                pos = at + len(self.prefix)
                continue
            self._on_mark(stream, mark)
            pos = end

    def prompt_text(self) -> str:
        return self.pipeline.prompt_text()

    def answering(self) -> None:
        self.pipeline.answering()

    def since_answer(self) -> str | None:
        return self.pipeline.since_answer()

    def event(self, kind: str, payload: dict[str, object]) -> None:
        self.pipeline.event(kind, payload)

    # --- the split -----------------------------------------------------------------------------------
    def _forward(self, stream: str, data: bytes) -> None:
        if not data:
            return
        self.pipeline.output(stream, data)
        split = self.splits[stream]
        run = split.runs.get(split.unit, 0)
        seg = self.segments.get(split.unit)
        if seg is None or seg[0] < run:  # made on the first output: a loop of silent commands costs nothing
            seg = (run, Pipeline(max_inline_bytes=self.pipeline.max_inline_bytes, store=None, secrets=self.secrets,
                                 window=self.pipeline.window))
            self.segments[split.unit] = seg
        if seg[0] == run:  # else the other stream already moved on to a later run of the unit: stale
            seg[1].output(stream, data)

    def _on_mark(self, stream: str, mark: Mark) -> None:
        split = self.splits[stream]
        if stream == "stdout":
            self.marks += 1
        started: Execution | None = split.matcher.feed(mark)
        if split.matcher.ended is not None:
            split.unit = UNKNOWN
            return
        if started is None:
            return  # a further stage of the running pipeline: its output is the pipeline's
        unit = started.unit
        # A subshell's mark-less run took over the status; the output after a mark is still the unit's.
        runs = split.runs.get(unit, 0) + 1
        split.runs[unit] = runs
        split.unit = unit
        seg = self.segments.get(unit)
        if seg is not None and seg[0] < runs:
            del self.segments[unit]  # an earlier run's output: this run may print nothing

    def finish(self, exit_code: int | None) -> list[Execution]:
        """The executions, as the stdout stream's marks tell them; flushes what was held back."""
        for stream, split in self.splits.items():
            if split.pending:
                self._forward(stream, split.pending)
                split.pending = b""
        matcher = self.splits["stdout"].matcher
        matcher.finish(exit_code)
        return matcher.executions

    @property
    def ended(self) -> Mark | None:
        return self.splits["stdout"].matcher.ended


def _partial_prefix(buf: bytes, pos: int, prefix: bytes) -> int:
    """How many bytes at the end of `buf` could begin a mark (kept until the next read)."""
    tail = buf[max(pos, len(buf) - len(prefix) + 1):]
    for size in range(len(tail), 0, -1):
        if prefix.startswith(tail[-size:]):
            return size
    return 0
