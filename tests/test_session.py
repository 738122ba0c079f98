"""The runner in-process: what it leaves behind in agentwrap's own process."""

from __future__ import annotations

import os

import psutil

from agentwrap.runner import session
from agentwrap.runner.spawn import resolve_program


class _Sink:
    def __init__(self) -> None:
        self.data: dict[str, list[bytes]] = {"stdout": [], "stderr": []}

    def output(self, stream: str, data: bytes) -> None:
        self.data[stream].append(data)

    def prompt_text(self) -> str:
        return b"".join(self.data["stdout"][-2:]).decode(errors="replace")

    def event(self, kind: str, payload: dict[str, object]) -> None:
        pass


def _run(*argv: str, **kw: object) -> tuple[session.RunResult, _Sink]:
    sink = _Sink()
    spec = session.RunSpec(argv=list(argv), program=resolve_program(argv[0], os.environ["PATH"], "."),
                           cwd=".", env=dict(os.environ), **kw)  # type: ignore[arg-type]
    return session.run(spec, sink), sink


def _zombies() -> list[psutil.Process]:
    return [c for c in psutil.Process().children() if c.status() == psutil.STATUS_ZOMBIE]


def test_no_zombie_or_open_descriptor_remains():
    fds_before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        _run("sh", "-c", "(sleep 0.05; true) & sleep 0.1 & echo hi")
        _run("sh", "-c", "exit 1")
    assert _zombies() == []
    assert psutil.Process().children() == []
    assert len(os.listdir("/proc/self/fd")) == fds_before


def test_large_output_arrives_whole_and_in_order():
    result, sink = _run("seq", "1", "200000")
    expected = "".join(f"{i}\n" for i in range(1, 200001)).encode()
    assert b"".join(sink.data["stdout"]) == expected
    assert result.raw_bytes["stdout"] == len(expected)
    assert result.returncode == 0


def test_signal_handlers_are_restored():
    import signal

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD)}
    _run("true")
    assert {s: signal.getsignal(s) for s in before} == before
