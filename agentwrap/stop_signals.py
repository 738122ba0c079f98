"""Stop signals (SIGINT, SIGTERM, SIGHUP) that arrive before the program runs, or after it ended.

A host that gives up on a call sends SIGTERM; a person presses Ctrl-C. Python's defaults answer
neither with an envelope: SIGTERM ends the process silently, SIGINT raises KeyboardInterrupt wherever
the interpreter is (often in the middle of an import, which the edge is not yet there to catch). So the
process entry holds them from its first line: a held signal is noted, not acted on, while agentwrap
does its own short work (imports, parsing, building the answer). The run session installs its own
handlers for the program's run and asks `take()` first: a held signal means the program never starts.
A command that is not a run (`stats`, `mcp`, `normalize -` …) calls `release()`: the defaults come
back and a held signal is delivered then. Waiting on the caller (`--input -`) is `interruptible()`.
In-process callers of `cli.main` (tests, embedders) never call `hold()`: nothing here changes theirs.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from agentwrap import signal_mask

STOP = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_held: list[int] = []
_raise_now = False


class StopSignal(KeyboardInterrupt):
    """A stop signal agentwrap acted on outside the program's run (`signum` gives the exit status,
    128 + N); `nothing_ran`: it came before the program started, which makes a retry safe."""

    def __init__(self, signum: int, detail: str | None = None, *, nothing_ran: bool = False) -> None:
        self.signum, self.nothing_ran = signum, nothing_ran
        self.detail = detail or f"agentwrap received {signal.Signals(signum).name} and stopped"
        super().__init__(self.detail)


def _note(signum: int, _frame: FrameType | None) -> None:
    if _raise_now:
        raise StopSignal(signum)
    _held.append(signum)


def hold() -> None:
    """From here on, stop signals are noted. One the caller's shell ignores (`nohup`, a background job's
    SIGINT) stays ignored."""
    for s in STOP:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _note)


def take() -> int | None:
    """The first stop signal held so far (and forget them all): the run must not start."""
    first = _held[0] if _held else None
    _held.clear()
    return first


def release() -> None:
    """Python's defaults again; a signal held until now is delivered now."""
    signal_mask.put_back({s: signal.default_int_handler if s == signal.SIGINT else signal.SIG_DFL
                          for s in STOP if signal.getsignal(s) is _note})
    first = take()
    if first is not None:
        signal.raise_signal(first)


@contextmanager
def interruptible() -> Iterator[None]:
    """While agentwrap waits on its caller (a request read from stdin), a stop signal ends the wait."""
    global _raise_now
    held = take()
    if held is not None:
        raise StopSignal(held)
    _raise_now = True
    try:
        yield
    finally:
        _raise_now = False
