"""The program's process tree: keep every descendant findable, and end all of them.

agentwrap makes itself a child subreaper (Linux prctl), so a `nohup`/`setsid` grandchild whose parent
exits is re-parented to us instead of to init: it stays in our tree, where `descendants()` finds it
and `end_tree()` ends it. Elsewhere we fall back to snapshots of the tree taken while it runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psutil

_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1
_subreaper = False
OWN: set[int] = set()  # agentwrap's own helpers (runner.forward): children of ours, never the program's


def become_subreaper() -> bool:
    global _subreaper
    if _subreaper or not sys.platform.startswith("linux"):
        return _subreaper
    try:
        _subreaper = _prctl(_PR_SET_CHILD_SUBREAPER, 1) == 0
    except (OSError, AttributeError, TypeError):
        _subreaper = False
    return _subreaper


def die_with_parent(sig: int) -> None:
    """In a helper forked from agentwrap: get `sig` when agentwrap's thread that forked it ends (Linux)."""
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_PDEATHSIG, sig)


def _prctl(option: int, arg: int) -> int:
    """prctl(2) through _ctypes, the C core of ctypes: importing the ctypes package costs ~0.8 ms more."""
    try:
        import _ctypes

        address = _ctypes.dlsym(_ctypes.dlopen(None, os.RTLD_NOW), "prctl")  # type: ignore[arg-type]
        return int(_ctypes.call_function(address, (option, arg, 0, 0, 0)))
    except (ImportError, AttributeError):  # a Python without these internals
        import ctypes

        return int(ctypes.CDLL(None, use_errno=True).prctl(option, arg, 0, 0, 0))


def has_children() -> bool:
    """A cheap look (no psutil) for any child of ours: after the main child is reaped, every
    survivor of the tree has been re-parented to us, so none here means none anywhere."""
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as f:
                if any(int(pid) not in OWN for pid in f.read().split()):
                    return True
    except OSError:
        return bool(descendants())
    return False


def descendants() -> list[psutil.Process]:
    """Every live process below agentwrap (zombies excluded: they are already dead)."""
    import psutil  # imported on first need: most runs end without asking

    try:
        kids = psutil.Process().children(recursive=True)
    except psutil.Error:
        return []
    alive = []
    for p in kids:
        if p.pid in OWN:
            continue
        with contextlib.suppress(psutil.Error):
            if p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p)
    return alive


def reap_orphans() -> None:
    """Collect exit statuses of re-parented descendants so no zombie remains.

    Only call this once the main child has been waited for: waitpid(-1) would otherwise steal its status.
    """
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _signal_all(procs: list[psutil.Process], sig: int) -> None:
    import psutil

    for p in procs:
        with contextlib.suppress(psutil.Error, OSError):
            p.send_signal(sig)
            if sig != signal.SIGKILL:
                # A stopped process would hold the signal until continued.
                p.send_signal(signal.SIGCONT)


def end_tree(grace: float, *, poll_main: Callable[[], object], first_signal: int = signal.SIGTERM) -> int:
    """End every descendant: `first_signal`, up to `grace` seconds, then SIGKILL. Returns how many were signalled.

    SIGKILL first would leave state behind (a killed `git commit` leaves .git/index.lock), hence the
    grace period. New processes forked meanwhile are found on every pass. `poll_main` reaps the main
    child (so its exit status is kept) whenever it dies.
    """
    seen: set[int] = set()
    deadline = time.monotonic() + grace
    killed_hard = False
    while True:
        poll_main()
        procs = descendants()
        fresh = [p for p in procs if p.pid not in seen]
        if fresh:
            seen.update(p.pid for p in fresh)
            _signal_all(fresh, signal.SIGKILL if killed_hard else first_signal)
        if not procs:
            break
        if not killed_hard and time.monotonic() >= deadline:
            killed_hard = True
            _signal_all(procs, signal.SIGKILL)
        if killed_hard and time.monotonic() >= deadline + 5:
            break  # an unkillable (D-state) process; do not hang forever on it
        time.sleep(0.01)
    poll_main()
    return len(seen)
