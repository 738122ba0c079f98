"""A signal that arrives while a run hands its handlers back is neither lost nor reported as a crash.

CI once failed on `/usr/bin/time git status`: the program's SIGCHLD came as the session set SIGCHLD back to
SIG_DFL, and CPython printed "Signal 17 ignored due to race condition" with a traceback to stderr. These
tests make that window wide: another process sends SIGCHLD as fast as it can while the handlers change.
"""

from __future__ import annotations

import _thread
import os
import signal
import subprocess
import sys
import textwrap

from conftest import ROOT

from agentwrap import signal_mask

_STORM = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    from agentwrap import signal_mask
    spam = subprocess.Popen(["sh", "-c", f"while kill -CHLD {os.getpid()} 2>/dev/null; do :; done"])
    def noted(signum, frame):
        pass
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        old = signal.signal(signal.SIGCHLD, noted)
        signal_mask.put_back({signal.SIGCHLD: old})
    spam.kill()
    spam.wait()
    print("default" if signal.getsignal(signal.SIGCHLD) is signal.SIG_DFL else "changed")
""")


def test_handing_a_handler_back_under_a_storm_of_signals_prints_nothing() -> None:
    done = subprocess.run([sys.executable, "-c", _STORM, "2"], capture_output=True, text=True, timeout=60,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0
    assert done.stdout == "default\n"
    assert "race condition" not in done.stderr and "Traceback" not in done.stderr, done.stderr[:500]


def test_a_helper_thread_takes_no_signal() -> None:
    seen: list[set[signal.Signals]] = []
    finished = _thread.allocate_lock()
    finished.acquire()

    def work() -> None:
        seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, set()))
        finished.release()

    signal_mask.start_thread(work)
    assert finished.acquire(timeout=10)
    assert {signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGWINCH} <= seen[0]
    assert signal.SIGCHLD not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # the caller's own mask is kept
