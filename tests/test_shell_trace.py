"""The trace read back: marks taken out of the bytes wherever the reads split them, and matched to units."""

from __future__ import annotations

import pytest

from agentwrap.pipeline import Pipeline
from agentwrap.shell import grammar, model
from agentwrap.shell.script import END_PREFIX, MARK_OSC
from agentwrap.shell.segments import TraceSink
from agentwrap.shell.trace import parse_mark

pytestmark = pytest.mark.skipif(grammar.find_shfmt() is None, reason="needs shfmt")
NONCE = "n0"


def mark(seq: int, command: str, status: int = 0, pipestatus: str = "0", pwd: str = "/w") -> bytes:
    return (MARK_OSC + f"{NONCE};{seq};{status};{pipestatus};".encode() + pwd.encode() + b"\0"
            + command.encode() + b"\0\a")


def sink_for(line: str) -> tuple[TraceSink, Pipeline]:
    plan = model.build(line, grammar.parse(line).tree or {})
    pipeline = Pipeline(max_inline_bytes=4096, store=None, secrets=[])
    return TraceSink(pipeline, plan, NONCE, []), pipeline


def feed_in_pieces(sink: TraceSink, data: bytes, size: int) -> None:
    for i in range(0, len(data), size):
        sink.output("stdout", data[i:i + size])


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 10_000])
def test_marks_are_removed_however_the_reads_split_them(size: int) -> None:
    sink, pipeline = sink_for("echo a && make")
    stream = (mark(1, "echo a") + b"a\n" + mark(2, "make") + b"make: *** [all] Error 2\n"
              + mark(3, f'{END_PREFIX}{NONCE} "$?" "${{PIPESTATUS[*]}}"', status=2, pipestatus="2"))
    feed_in_pieces(sink, stream, size)
    runs = sink.finish(2)
    assert pipeline.finish()["stdout"].text == "a\nmake: *** [all] Error 2\n"
    assert [(r.unit, r.status) for r in runs] == [(0, 0), (1, 2)]
    sink.segments[1][1].finish()
    assert sink.segments[1][1].analysis_text("stdout")[0] == "make: *** [all] Error 2\n"


def test_a_mark_holding_bel_and_escape_is_read_whole() -> None:
    raw = mark(1, "printf '\a\x1b]x'", pwd="/odd\a dir")
    got, end = parse_mark(raw, 0, MARK_OSC + NONCE.encode() + b";")
    assert got is not None and end == len(raw)
    assert got.command == "printf '\a\x1b]x'" and got.pwd == "/odd\a dir"


def test_output_that_looks_like_a_mark_stays_output() -> None:
    sink, pipeline = sink_for("cat f")
    sink.output("stdout", MARK_OSC + b"othernonce;1;0;0;/\0x\0\a" + b"text\n")
    sink.output("stdout", MARK_OSC + NONCE.encode() + b";notanumber;;\a\n")
    assert sink.finish(0) == []
    text = pipeline.finish()["stdout"].text
    # another run's mark and an incomplete one are passed on as output (and cleaned like any OSC)
    assert text == "text\n\n"


def test_pipeline_stage_marks_do_not_split_the_pipeline() -> None:
    sink, _ = sink_for("make 2>&1 | tail -5; echo done")
    sink.output("stdout", mark(1, "make 2>&1") + mark(2, "tail -5") + b"Error\n"
                + mark(3, "echo done", status=0, pipestatus="2 0") + b"done\n")
    runs = sink.finish(0)
    assert [(r.unit, r.pipestatus) for r in runs] == [(0, (2, 0)), (1, ())]
    seg = sink.segments[0][1]
    seg.finish()
    assert seg.analysis_text("stdout")[0] == "Error\n"


def test_a_subshell_takes_the_status_of_the_mark_after_it() -> None:
    sink, _ = sink_for("echo a; (exit 3); echo b")
    sink.output("stdout", mark(1, "echo a") + b"a\n" + mark(2, "echo b", status=3, pipestatus="3") + b"b\n")
    runs = sink.finish(0)
    # `echo a`'s status is unknown (the subshell ran after it); the shell's own status ends `echo b`
    assert [(r.unit, r.status) for r in runs] == [(0, None), (1, 3), (2, 0)]


def test_loops_match_back_to_the_start() -> None:
    sink, _ = sink_for("for f in a b; do ls $f; done")
    sink.output("stdout", mark(1, "for f in a b") + mark(2, "ls $f") + b"x\n" + mark(3, "for f in a b", status=2)
                + mark(4, "ls $f", status=0) + b"y\n")
    runs = sink.finish(0)
    assert [r.unit for r in runs if not r.header] == [0, 0]
    assert [r.status for r in runs if not r.header] == [2, 0]
