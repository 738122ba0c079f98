"""`--format jsonl` output events arrive while the program runs (CONTRACT 8), not once its lines scroll off the
virtual screen; a line goes out once, and what a program redraws in place is not emitted frame by frame."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agentwrap.terminal import TerminalCleaner
from tests.conftest import aw

ROOT = Path(__file__).resolve().parent.parent


def _stream(script: str, deadline: float = 30) -> list[tuple[float, bool, dict[str, Any]]]:
    """Each event of `agentwrap --format jsonl -- bash -c SCRIPT` with when it was read (seconds since
    operation_started) and whether agentwrap was still running then."""
    argv = [sys.executable, "-m", "agentwrap", "--agent", "--format", "jsonl", "--", "bash", "-c", script]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    out: list[tuple[float, bool, dict[str, Any]]] = []
    start = end = time.monotonic() + deadline
    try:
        for line in proc.stdout:
            now = time.monotonic()
            assert now < end, "no end of the stream in time"
            event = json.loads(line)
            if event["type"] == "operation_started":
                start = now
            out.append((now - start, proc.poll() is None and event["type"] != "operation_completed", event))
    finally:
        proc.kill()
        proc.wait()
    assert out and out[-1][2]["type"] == "operation_completed"
    return out


def _texts(events: list[tuple[float, bool, dict[str, Any]]]) -> list[tuple[float, bool, str]]:
    return [(t, running, e["text"]) for t, running, e in events if e["type"] == "output"]


def test_a_slow_printers_lines_arrive_while_it_runs() -> None:
    events = _stream("echo line 1; sleep 3; echo line 2; sleep 1")
    outputs = _texts(events)
    first = next((t, running) for t, running, text in outputs if "line 1" in text)
    assert first[1] and first[0] < 1.5, outputs  # printed at once; the program runs for 4 s more
    assert "".join(text for _, _, text in outputs) == "line 1\nline 2\n"


def test_a_progress_bars_frames_are_not_each_emitted() -> None:
    events = _stream("echo working; for i in 1 2 3 4 5; do printf '\\r%d%%' $((i*20)); sleep 0.4; done; "
                     "printf '\\n'; sleep 1")
    outputs = _texts(events)
    text = "".join(t for _, _, t in outputs)
    assert text == "working\n100%\n", outputs
    working = next((t, running) for t, running, t2 in outputs if "working" in t2)
    assert working[1] and working[0] < 1.5, outputs  # while the bar still runs


def test_a_cursor_up_redraw_is_not_emitted_twice() -> None:
    script = ("printf 'alpha\\nbeta\\n'; sleep 1.2; printf '\\033[2A\\033[2Kalpha\\n\\033[2Kbeta\\n'; sleep 1.2; "
              "printf '\\033[2Aalpha\\nbeta\\n'; echo gamma; sleep 1")
    outputs = _texts(_stream(script))
    text = "".join(t for _, _, t in outputs)
    assert text == "alpha\nbeta\ngamma\n", outputs
    assert outputs[0][1] and outputs[0][0] < 1.5, outputs  # alpha came before the redraws


def test_a_changed_redraw_is_emitted_as_new_text() -> None:
    outputs = _texts(_stream("echo 'step 1 of 2'; sleep 1.2; printf '\\033[1A\\033[2Kstep 2 of 2\\n'; sleep 1"))
    assert "".join(t for _, _, t in outputs) == "step 1 of 2\nstep 2 of 2\n", outputs
    assert outputs[0][1], outputs


def test_op_events_of_a_detached_slow_printer_show_its_lines_while_it_runs() -> None:
    ans = aw("--detach", "--", "bash", "-c", "for i in 1 2 3 4 5 6; do echo line $i; sleep 1; done")
    op_id = str(ans.env["operation_id"])
    time.sleep(3)
    data = aw("op", "events", op_id, "--after", "1").env["data"]
    assert data["complete"] is False
    text = "".join(e.get("text", "") for e in data["events"] if e["type"] == "output")
    assert text.startswith("line 1\nline 2\n"), data["events"]
    aw("op", "wait", op_id, "--timeout", "30")
    every = aw("op", "events", op_id).env["data"]["events"]
    assert "".join(e.get("text", "") for e in every if e["type"] == "output") == "".join(
        f"line {i}\n" for i in range(1, 7))


# --- the screen model, without processes --------------------------------------------------------------

def _settled(cleaner: TerminalCleaner) -> str:
    return cleaner.settle() + cleaner.settle()  # a line is emitted once seen unchanged twice


def test_settle_emits_ended_lines_above_the_cursor_once() -> None:
    cleaner = TerminalCleaner(rows=10, cols=40)
    assert cleaner.feed(b"one\ntwo") == ""
    assert cleaner.settle() == ""  # first look
    assert cleaner.settle() == "one\n"  # the open line `two` is not ended
    assert _settled(cleaner) == ""
    rest = cleaner.feed(b"\n" + b"x\n" * 20) + cleaner.finish()  # `one` scrolls off: emitted already
    assert rest == "two\n" + "x\n" * 20


def test_settle_leaves_a_line_still_changing_and_the_lines_below_it() -> None:
    cleaner = TerminalCleaner(rows=10, cols=40)
    cleaner.feed(b"a\nb\nc\n")
    cleaner.settle()
    cleaner.feed(b"\x1b[3Aa2\n\n\n")  # `a` rewritten since the first look: it and what follows wait
    assert cleaner.settle() == ""  # `b` and `c` are looked at, not emitted before the line above them
    assert cleaner.settle() == "a2\nb\nc\n"
    assert cleaner.finish() == ""


def test_settle_keeps_the_text_of_a_plain_stream() -> None:
    rng = random.Random(7)
    data = "".join(f"line {i} " + "w" * rng.randrange(0, 90) + "\t|\n" for i in range(300)).encode()
    steps = [rng.randrange(1, 200) for _ in range(len(data))]
    looks = [rng.randrange(0, 3) for _ in range(len(data))]

    def cleaned(settle: bool) -> str:
        cleaner = TerminalCleaner(rows=12, cols=40)
        got, pos = [], 0
        for step, n in zip(steps, looks, strict=True):
            if pos >= len(data):
                break
            got.append(cleaner.feed(data[pos:pos + step]))
            pos += step
            got.extend(cleaner.settle() for _ in range(n if settle else 0))
        return "".join(got) + cleaner.finish()

    assert cleaned(settle=True) == cleaned(settle=False)


def test_the_alternate_screen_is_never_settled() -> None:
    cleaner = TerminalCleaner(rows=10, cols=40)
    cleaner.feed(b"\x1b[?1049hmenu\nitem\n")
    assert _settled(cleaner) == ""
    cleaner.feed(b"\x1b[?1049lbye\n")
    assert _settled(cleaner) == "bye\n"
