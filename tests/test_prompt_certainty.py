"""Certainty before a kill (CONTRACT 5.4) for mutating programs: the kernel's word, read with care."""

from __future__ import annotations

import sys

from conftest import aw

PY = sys.executable
# apt's shape: our terminal relayed to a child's pseudo-terminal, waited on with no timeout while it works
RELAY = ("import os, pty, select, subprocess\nm, s = pty.openpty()\n"
         "p = subprocess.Popen(['sleep', '3'], stdin=s, stdout=s, stderr=s)\nos.close(s)\nwhile True:\n"
         "    select.select([0, m], [], [])\n    try:\n        os.read(m, 1024)\n    except OSError:\n        break\n"
         "p.wait(); print('done')")


def test_a_relay_of_our_terminal_to_a_childs_is_not_a_prompt():
    a = aw("--adapter", "make", "--timeout", "30", "--", PY, "-c", RELAY, timeout=60)
    assert a.code == 0 and "done" in a.text(), a.env.get("error")
    assert a.wall >= 3


def test_a_mutating_program_waiting_forever_on_the_terminal_is_refused():
    """npm login is mutating and waits in its event loop (epoll, no timeout) for a name: the kernel's word."""
    code = "import select, sys; sys.stdout.write('Username: '); sys.stdout.flush(); select.select([0], [], [])"
    a = aw("--adapter", "make", "--timeout", "30", "--", PY, "-c", code, timeout=60)
    assert a.code == 125 and a.error["detection"] == "kernel-wait" and a.error["input_kind"] == "credential"
