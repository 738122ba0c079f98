"""A resize of the person's terminal (SIGWINCH followed) reaches the cleaning of the envelope's text too: what
the program redraws at the new width reads as it shows, not wrapped at the first width frame after frame.
Run for real: a session under a real pseudo-terminal standing in for the person's, and a real SIGWINCH."""

from __future__ import annotations

import os
import pty
import signal
import sys
import threading
import time
from pathlib import Path

from agentwrap.pipeline import Pipeline
from agentwrap.runner import session, spawn
from agentwrap.terminal import TerminalCleaner

# A progress bar filling its window, redrawn with `\r`, laid out for the window it has at each frame.
_BAR = r'''
import os, sys, time
for p in range(0, 101, 10):
    cols = os.get_terminal_size(1).columns
    body = f" {p:3d}%"; fill = cols - 1 - len(body)
    sys.stdout.write("\r" + "#" * (fill * p // 100) + "." * (fill - fill * p // 100) + body); sys.stdout.flush()
    time.sleep(0.1)
print()
'''


def test_a_bar_redrawn_at_the_new_width_reads_as_its_last_frame(tmp_path: Path) -> None:
    person, persons_slave = pty.openpty()
    spawn.set_window(persons_slave, 60, 30)
    pipeline = Pipeline(max_inline_bytes=1 << 20, store=None, secrets=[], window=(60, 30))

    def widen() -> None:
        time.sleep(0.45)  # some frames at 60 columns first
        spawn.set_window(person, 120, 30)
        os.kill(os.getpid(), signal.SIGWINCH)  # what the person's terminal sends agentwrap

    resizer = threading.Thread(target=widen)
    resizer.start()
    spec = session.RunSpec(argv=[sys.executable, "-c", _BAR], program=sys.executable, cwd=str(tmp_path),
                           env=dict(os.environ), window=(60, 30), follow_window=persons_slave)
    try:
        result = session.run(spec, pipeline)
    finally:
        resizer.join()
        os.close(person)
        os.close(persons_slave)
    assert result.returncode == 0
    assert pipeline.finish()["stdout"].text == "#" * 114 + " 100%\n"  # 120 columns, less the last one


def test_a_wider_window_lets_a_row_grow_in_place() -> None:
    cleaner = TerminalCleaner(rows=5, cols=10)
    assert cleaner.feed(b"abcdefghij") == ""  # the last column written: a wrap is pending
    cleaner.resize(rows=5, cols=20)
    text = cleaner.feed(b"klm\rABC\n") + cleaner.finish()
    assert text == "ABCdefghijklm\n"  # no wrap after j, and `\r` goes back to the start of its one row


def test_a_smaller_window_commits_the_rows_that_no_longer_fit_and_keeps_the_cursor_inside() -> None:
    cleaner = TerminalCleaner(rows=5, cols=20)
    assert cleaner.feed(b"one\ntwo\nthree\nfour\nfive 12345678901") == ""
    cleaner.resize(rows=2, cols=8)
    assert cleaner.feed(b"") == "one\ntwo\nthree\n"  # scrolled away, whole: no text is lost
    assert cleaner.feed(b"\x1b[1A\x1b[99CX\n") == ""  # up a row, right as far as it goes: column 8
    assert cleaner.finish() == "four   X\nfive 12345678901"
