"""Signals reach agentwrap's main thread only, and a handler is handed back without a signal in flight.

CPython runs a Python signal handler later than the signal arrives: the C handler notes it, and the main
thread calls the Python handler at its next instruction boundary. If the handler is set back to SIG_DFL or
SIG_IGN in between (the end of a run gives SIGCHLD back), the interpreter finds no handler to call and
prints "Signal 17 ignored due to race condition" with a traceback to stderr: a caller reads a crash in a
run that went well. Two things close that window:

- `put_back` swaps handlers with their signals blocked in the main thread; one noted before the block
  runs its (outgoing) handler first, and one that arrives meanwhile waits, at the kernel, for the new one.
- `start_thread` starts helper threads with every signal blocked, so that the kernel can never give a
  blocked signal to another thread of agentwrap's instead.
"""

from __future__ import annotations

import _thread  # agentwrap's run path imports no `threading`
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the process entry imports this module first: nothing more at run time
    from collections.abc import Callable
    from typing import Any, TypeAlias

    Handler: TypeAlias = Callable[[int, Any], Any] | int | signal.Handlers | None


def _flush() -> None:
    """A Python call: the interpreter runs the handlers of signals it noted before reaching it."""


def put_back(handlers: dict[int, Handler]) -> None:
    """Set each signal's handler as given (the ones a run replaced), losing no signal and printing nothing."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set(handlers))
    try:
        _flush()
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def start_thread(work: Callable[..., object], *args: object) -> None:
    """Start `work(*args)` on a new thread that takes no signal (a thread inherits its creator's mask)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        _thread.start_new_thread(work, args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
