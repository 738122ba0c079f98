"""Finding a program that waits for input, and naming what it waits for.

On Linux the kernel says so for certain: /proc/PID/syscall shows a process blocked in read(2) and
the file descriptor it reads, and /proc/PID/fd/N says whether that is our terminal (or our stdin
pipe). /dev/tty readers (getpass, ssh, sudo) open our terminal too, so they are caught the same way.
Programs that wait in poll/select (readline in raw mode, Node's readline, inquirer menus) are caught
when they have switched our terminal out of canonical mode, and as a last resort by prompt text.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import TYPE_CHECKING, NamedTuple

from agentwrap.lazyre import lazy

if TYPE_CHECKING:
    import psutil

_READ_CALLS = {"x86_64": {0, 17, 19, 295}, "aarch64": {63, 65, 67, 69}}  # read, pread64, readv, preadv
_WAIT_CALLS = {
    "x86_64": {7, 23, 232, 270, 271, 281, 441},  # poll select epoll_wait pselect6 ppoll epoll_pwait(2)
    "aarch64": {22, 72, 73, 441},
}
_ARCH = os.uname().machine

#: Prompt text strong enough to act on when the kernel cannot tell (the process waits in poll/select).
STRONG_PROMPT = lazy(
    r"\[y/n\]|\(y/n\)|\[yes/no\]|\(yes/no(/\[fingerprint\])?\)|\by/n\b|are you sure|"
    r"do you want to (continue|proceed)|continue\?|proceed\?|password( for [^:]*)?:\s*$|passphrase.*:\s*$|"
    r"username( for [^:]*)?:\s*$|press (return|enter|any key)|--more--|\(end\)\s*$|\?\s*›",
    re.IGNORECASE,
)

_KINDS = (
    ("password", lazy(r"pass(word|phrase|code)|\bpin\b|secret|token|otp|verification code", re.I)),
    ("credential", lazy(r"user ?name|login|e-?mail|account", re.I)),
    ("pager", lazy(r"--more--|\(end\)|press return|lines \d+-\d+|terminal is not fully functional", re.I)),
    ("confirmation", lazy(
        r"\[y/?n\]|\(y/?n\)|y/n|yes/no|are you sure|continue\?|proceed\?|confirm|overwrite\?|\(y\)|\[y\]", re.I)),
    ("selection", lazy(r"select|choose|pick|use arrow|❯|^\s*\d+[).]\s", re.I | re.M)),
)


class Waiter(NamedTuple):
    """A process found waiting for input, and how we know."""

    pid: int
    name: str
    detection: str  # "kernel" | "terminal-mode" | "heuristic"
    source: str  # "terminal" | "stdin-pipe" | "dev-tty"


def classify(prompt: str) -> str:
    """The CONTRACT input_kind for a prompt's text."""
    for kind, pattern in _KINDS:
        if pattern.search(prompt):
            return kind
    return "text"


def _syscalls(pid: int) -> list[tuple[int, int]]:
    """What each thread of `pid` is blocked in: Go programs read stdin on a thread other than the main one."""
    calls = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tasks = [str(pid)]
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/syscall") as f:
                fields = f.read().split()
        except OSError:
            continue
        if len(fields) >= 2 and fields[0].lstrip("-").isdigit():  # else "running", or not ours to inspect
            calls.append((int(fields[0]), int(fields[1], 16)))
    return calls


def _fd_target(pid: int, fd: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return None


def _holds(pid: int, targets: frozenset[str]) -> bool:
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") in targets for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False


def find_waiter(pids: list[psutil.Process], targets: frozenset[str], *, raw_mode: bool) -> Waiter | None:
    """The first process blocked reading one of `targets` (terminal device paths or 'pipe:[inode]').

    `raw_mode` says the program turned canonical mode off on our terminal: then a process waiting in
    poll/select while holding the terminal is reading keys, not sleeping on the network.
    """
    reads = _READ_CALLS.get(_ARCH, set())
    waits = _WAIT_CALLS.get(_ARCH, set())
    for proc in pids:
        calls = _syscalls(proc.pid)
        if not calls:
            continue
        name = ""
        with contextlib.suppress(Exception):  # psutil.Error: the process is gone or hidden
            name = proc.name()
        for number, fd in calls:
            if number in reads:
                target = _fd_target(proc.pid, fd)
                if target in targets:
                    source = "stdin-pipe" if target and target.startswith("pipe:") else (
                        "terminal" if fd == 0 else "dev-tty")
                    return Waiter(proc.pid, name, "kernel", source)
        if raw_mode and any(number in waits for number, _ in calls) and _holds(proc.pid, targets):
            return Waiter(proc.pid, name, "terminal-mode", "terminal")
    return None


def all_sleeping(pids: list[psutil.Process]) -> bool:
    """True when no process of the tree is running or in uninterruptible I/O (for the text heuristic)."""
    import psutil

    for proc in pids:
        try:
            if proc.status() in (psutil.STATUS_RUNNING, psutil.STATUS_DISK_SLEEP):
                return False
        except psutil.Error:
            continue
    return bool(pids)
