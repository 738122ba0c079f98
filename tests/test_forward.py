"""A stream past FORWARD_AFTER bytes is read by a forwarder process: nothing lost, nothing left, nothing changed."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time

import psutil
import pytest

from agentwrap.runner import forward, session, tree
from agentwrap.runner.spawn import resolve_program

BIG = 3 * forward.FORWARD_AFTER  # well past the hand-over, several pipe-fulls


class _Sink:
    def __init__(self) -> None:
        self.data: dict[str, list[bytes]] = {"stdout": [], "stderr": []}

    def output(self, stream: str, data: bytes) -> None:
        self.data[stream].append(data)

    def text(self, stream: str) -> bytes:
        return b"".join(self.data[stream])

    def prompt_text(self) -> str:  # the unfinished last line (input() without readline asks on stderr)
        ends = (self.text(s)[-200:].decode(errors="replace").rsplit("\n", 1)[-1] for s in self.data)
        return " ".join(end for end in ends if end)

    def event(self, kind: str, payload: dict[str, object]) -> None:
        pass


def _run(code: str, **kw: object) -> tuple[session.RunResult, _Sink]:
    sink = _Sink()
    spec = session.RunSpec(argv=[sys.executable, "-c", code], program=resolve_program(sys.executable, "", "."),
                           cwd=".", env=dict(os.environ), **kw)  # type: ignore[arg-type]
    return session.run(spec, sink), sink


def _lines(prefix: str, total: int) -> bytes:
    out, i, size = [], 0, 0
    while size < total:
        line = f"{prefix} {i}\n"
        out.append(line)
        size += len(line)
        i += 1
    return "".join(out).encode()


def _left_behind() -> list[psutil.Process]:
    return psutil.Process().children(recursive=True)


def test_both_streams_arrive_whole_and_in_order_after_the_hand_over() -> None:
    # interleaved writes to both terminals, each stream well past the hand-over
    count = BIG // 8
    code = (f"import sys\nfor i in range(0, {count}, 100):\n"
            f"    r = range(i, min(i + 100, {count}))\n"
            "    sys.stdout.write(''.join(f'out {j}\\n' for j in r))\n"
            "    sys.stderr.write(''.join(f'err {j}\\n' for j in r))\n")
    result, sink = _run(code)
    assert sink.text("stdout") == "".join(f"out {i}\n" for i in range(count)).encode()
    assert sink.text("stderr") == "".join(f"err {i}\n" for i in range(count)).encode()
    assert result.raw_bytes["stdout"] > forward.FORWARD_AFTER
    assert result.returncode == 0
    assert _left_behind() == [] and not tree.OWN


def test_a_program_that_prints_less_is_never_forwarded(monkeypatch) -> None:
    started: list[int] = []
    real = forward.Forwarder.__init__

    def spy(self: forward.Forwarder, master: int) -> None:
        started.append(master)
        real(self, master)

    monkeypatch.setattr(forward.Forwarder, "__init__", spy)
    _, sink = _run(f"print('x' * {forward.FORWARD_AFTER // 2})")
    assert started == []
    _run(f"print('x' * {BIG})")
    assert len(started) == 1


def test_a_prompt_after_forwarded_output_is_still_detected_on_the_program() -> None:
    code = (f"import sys\nsys.stdout.write(''.join(f'line {{i}}\\n' for i in range({BIG // 10})))\n"
            "sys.stdout.flush()\ninput('Overwrite? [y/N] ')\n")
    start = time.monotonic()
    result, sink = _run(code, timeout=30)
    assert result.prompt is not None, "the prompt was missed"
    assert result.prompt.pid not in tree.OWN and result.prompt.process.startswith("python")
    assert "Overwrite? [y/N]" in result.prompt.text
    assert sink.text("stdout").startswith("".join(f"line {i}\n" for i in range(BIG // 10)).encode())
    assert time.monotonic() - start < 20 and not result.timed_out
    assert _left_behind() == []


def test_stdin_fed_to_the_program_still_ends_after_the_hand_over() -> None:
    # a forwarder holding the write end of the program's stdin pipe would keep it waiting forever
    code = f"import sys\nprint('x' * {BIG})\nsys.stdout.flush()\nprint(len(sys.stdin.buffer.read()))\n"
    result, sink = _run(code, stdin=io.BytesIO(b"abc" * 1000), timeout=30)
    assert not result.timed_out and result.returncode == 0
    assert sink.text("stdout").endswith(b"\n3000\n")


def test_a_timeout_ends_a_program_that_never_stops_printing() -> None:
    start = time.monotonic()
    result, sink = _run("import sys\nwhile True:\n    sys.stdout.write('y\\n' * 4096)\n", timeout=1.5)
    assert result.timed_out
    assert time.monotonic() - start < 10
    assert len(sink.text("stdout")) > forward.FORWARD_AFTER
    assert _left_behind() == [] and not tree.OWN


@pytest.mark.slow  # a long run: the `-m slow` step
def test_ctrl_c_to_agentwrap_s_process_group_while_forwarding_still_answers() -> None:
    # A terminal's Ctrl-C reaches agentwrap's whole group, the forwarder too: it must outlive the signal
    # so that agentwrap ends the tree, reads the end of the output and answers.
    import json
    import signal
    import subprocess

    code = "import sys\nwhile True:\n    sys.stdout.write('z\\n' * 4096)\n"
    proc = subprocess.Popen([sys.executable, "-m", "agentwrap", "--agent", "--detail", "standard", "--",
                             sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        time.sleep(2.0)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert b"Traceback" not in err
    envelope = json.loads(out)
    assert proc.returncode == 130 and envelope["error"]["code"] == "INTERRUPTED"
    assert envelope["output"]["stdout"]["bytes"] > forward.FORWARD_AFTER
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 0)
        raise AssertionError("a process of agentwrap's group outlived it")


def test_without_a_process_to_spare_the_terminal_is_read_as_before(monkeypatch) -> None:
    real_fork, calls = os.fork, []

    def fork_once() -> int:  # the program is started; the forwarder finds the process limit reached
        calls.append(1)
        if len(calls) > 1:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real_fork()

    monkeypatch.setattr(os, "fork", fork_once)
    result, sink = _run(f"import sys\nsys.stdout.write('w\\n' * {BIG // 2})\n")
    assert sink.text("stdout") == b"w\n" * (BIG // 2)
    assert result.returncode == 0 and not tree.OWN and len(calls) == 2
