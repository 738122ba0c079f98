"""Finding a program that waits for input, and naming what it waits for.

On Linux the kernel says so for certain: /proc/PID/syscall shows a process blocked in read(2) and
the file descriptor it reads, and /proc/PID/fd/N says whether that is our terminal (or our stdin
pipe). /dev/tty readers (getpass, ssh, sudo) open our terminal too, so they are caught the same way.
A wait in poll/select/epoll is read for certain too: the descriptor set it waits on (the pollfd array or
fd_set in the process's memory, an epoll's registered fds in /proc/PID/fdinfo) says whether it waits for
our terminal (bash's `read -t`, readline, inquirer menus), when the process is in the terminal's
foreground group. Where that cannot be read, programs that switched our terminal out of canonical mode
are caught by that, and as a last resort by prompt text.
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
_POLL = {"x86_64": {7, 271}, "aarch64": {73}}  # poll ppoll: (struct pollfd *fds, nfds, ...)
_SELECT = {"x86_64": {23, 270}, "aarch64": {72}}  # select pselect6: (nfds, fd_set *readfds, ...)
_EPOLL = {"x86_64": {232, 281, 441}, "aarch64": {22, 441}}  # epoll_wait/pwait/pwait2: (epfd, ...)
# Which argument (0-based) holds each wait's timeout: an int of milliseconds, or a pointer to a time.
_TIMEOUT_INT = {"x86_64": {7: 2, 232: 3, 281: 3}, "aarch64": {22: 3}}
_TIMEOUT_PTR = {"x86_64": {23: 4, 270: 4, 271: 2, 441: 3}, "aarch64": {72: 4, 73: 2, 441: 3}}
_POLLIN_OR_PRI = 0x3
_MAX_FDS = 4096  # a wait set larger than this is not a prompt we can read cheaply

#: Prompt text strong enough to act on when the kernel cannot tell (the process waits in poll/select).
STRONG_PROMPT = lazy(
    r"\[y/n\]|\(y/n\)|\[yes/no\]|\(yes/no(/\[fingerprint\])?\)|\by/n\b|are you sure|"
    r"do you want to (continue|proceed)|continue\?|proceed\?|password( for [^:]*)?:\s*$|passphrase.*:\s*$|"
    r"username( for [^:]*)?:\s*$|press (return|enter|any key)|--more--|\(end\)\s*$|\?\s*›",
    re.IGNORECASE,
)

# An interpreter's or a client's prompt as the screen's last line: IPython's `In [1]: `, Python's `>>> `,
# `sqlite> `, `mysql> `, `postgres=# `, `irb(main):001:0> `, a shell's `$ `. Counted only for a wait that
# also holds a socket (asyncio's loop always does: its self-pipe), where the screen must say it asks.
REPL_PROMPT = lazy(r"(?:^|\n)(?:In \[\d+\]:|>>>|\.\.\.|(?![\d.]*%)[\w.()~:@/-]{0,32}=?[>$#%])[ \t]*\Z")


def screen_asks(text: str) -> bool:
    """Whether the screen shows a question or an input prompt (the test for a wait that holds a socket)."""
    return bool(STRONG_PROMPT.search(text) or REPL_PROMPT.search(text.rstrip("\n")))


_KINDS = (
    ("password", lazy(r"pass(word| ?phrase|code)|\bpin\b|secret|token|otp|verification code", re.I)),
    ("credential", lazy(r"user ?name|login|e-?mail|account", re.I)),
    ("pager", lazy(r"--more--|\(end\)|press return|lines \d+-\d+|terminal is not fully functional", re.I)),
    ("confirmation", lazy(
        r"\[y/?n\]|\(y/?n\)|y/n|yes/no|are you sure|continue\?|proceed\?|confirm|overwrite\?|\(y\)|\[y\]|"
        r"\b(?:remove|overwrite|replace|delete|discard|descend into|unlink)\b[^\n]*\?\s*$|"
        r"\[y,n(?:,[a-z?])*\]\??\s*$|"  # git add -p: "Stage this hunk [y,n,q,a,d,e,?]?"
        r"\(Y/I/N/O/D/Z\)|press any key to continue", re.I | re.M)),  # dpkg's conffile question
    ("selection", lazy(r"select|choose|pick|use arrow|❯|^\s*\d+[).]\s", re.I | re.M)),
)


#: Programs whose waiting is what they are: an editor or a pager started directly (`vim FILE`, `less FILE`).
PROGRAM_KINDS = {**dict.fromkeys(("vim", "vi", "nvim", "view", "nano", "pico", "emacs", "micro", "joe", "mcedit",
                                  "ed", "ex", "kak", "hx"), "editor"),
                 **dict.fromkeys(("less", "more", "most", "pg", "man"), "pager"),
                 **dict.fromkeys(("pinentry", "pinentry-curses", "pinentry-tty", "pinentry-gnome3", "pinentry-qt",
                                  "pinentry-gtk-2", "pinentry-fltk", "pinentry-mac"), "password")}


def kind_of(process: str, prompt: str) -> str:
    """The input_kind of a wait: what the waiting program is, else what its prompt line says."""
    return PROGRAM_KINDS.get(os.path.basename(process), "") or classify(prompt)


class Waiter(NamedTuple):
    """A process found waiting for input, and how we know."""

    pid: int
    name: str
    detection: str  # "kernel" (blocked in read) | "kernel-wait" (poll/select on it) | "kernel-relay" (the same,
    # relaying to a child's terminal) | "kernel-peer" (the same, also waiting on a socket) | "terminal-mode" |
    # "heuristic"
    source: str  # "terminal" | "stdin-pipe" | "dev-tty"
    timed: bool = False  # a wait that ends by itself (a timeout): a progress screen's key check, or `read -t`


def classify(prompt: str) -> str:
    """The CONTRACT input_kind for a prompt's text: the prompt line itself first (a file on the screen
    that mentions a token does not make a name prompt a password prompt), then the lines above it, from
    which a password or credential is never inferred."""
    lines = [line for line in prompt.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    for kind, pattern in _KINDS:
        if pattern.search(last):
            return kind
    for kind, pattern in _KINDS:
        if kind not in ("password", "credential") and pattern.search(prompt):
            return kind
    return "text"


def _syscalls(pid: int) -> list[tuple[int, ...]]:
    """What each thread of `pid` is blocked in, with its first arguments: Go programs read stdin on a thread
    other than the main one."""
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
        if len(fields) >= 3 and fields[0].lstrip("-").isdigit():  # else "running", or not ours to inspect
            calls.append((int(fields[0]), *(int(a, 16) for a in fields[1:7])))
    return calls


def _memory(pid: int, address: int, size: int) -> bytes:
    """`size` bytes of the process's memory (we are its ancestor: Yama's default scope allows it)."""
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        mem.seek(address)
        return mem.read(size)


def waited_fds(pid: int, number: int, arg0: int, arg1: int) -> set[int] | None:
    """The descriptors a process blocked in poll/select/epoll waits to read; None when unknown."""
    try:
        if number in _POLL.get(_ARCH, ()) and 0 <= arg1 <= _MAX_FDS:
            if not arg1:
                return set()  # poll() with no descriptor: a sleep
            data = _memory(pid, arg0, arg1 * 8)  # struct pollfd {int fd; short events; short revents;}
            entries = (data[i:i + 8] for i in range(0, len(data), 8))
            return {int.from_bytes(e[:4], "little", signed=True) for e in entries
                    if int.from_bytes(e[4:6], "little") & _POLLIN_OR_PRI}
        if number in _SELECT.get(_ARCH, ()) and 0 <= arg0 <= _MAX_FDS:
            if not arg0 or not arg1:
                return set()  # select() with no read set: a sleep
            bits = int.from_bytes(_memory(pid, arg1, (arg0 + 7) // 8), "little")
            return {fd for fd in range(arg0) if bits >> fd & 1}
        if number in _EPOLL.get(_ARCH, ()):
            with open(f"/proc/{pid}/fdinfo/{arg0}") as info:
                return {int(line.split()[1]) for line in info if line.startswith("tfd:")
                        and int(line.split()[3], 16) & _POLLIN_OR_PRI}
    except (OSError, ValueError, IndexError, OverflowError):
        pass
    return None


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


def find_waiter(pids: list[psutil.Process], targets: frozenset[str], *, raw_mode: bool,
                foreground: int | None = None) -> Waiter | None:
    """The first process blocked reading one of `targets` (terminal device paths or 'pipe:[inode]').

    A wait in poll/select/epoll whose set holds one of `targets` is a read for certain when the process is
    in `foreground` (the terminal's foreground process group; None: not known). `raw_mode` says the
    program turned canonical mode off on our terminal: then a process waiting in poll/select while
    holding the terminal is reading keys, not sleeping on the network, even where its set is unreadable.
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
        known_waits = False  # a wait whose set was read, and does not hold our terminal: not reading it
        for number, fd, arg1, *rest in calls:
            candidates = [fd] if number in reads else []
            if number in waits and _in_foreground(proc.pid, foreground):
                fds = waited_fds(proc.pid, number, fd, arg1)
                known_waits = known_waits or fds is not None
                candidates = sorted(fds or ())
            for candidate in candidates:
                target = _fd_target(proc.pid, candidate)
                if target in targets:
                    source = "stdin-pipe" if target and target.startswith("pipe:") else (
                        "terminal" if candidate == 0 else "dev-tty")
                    # A blocking read is a prompt for certain; so is a wait on a set holding the terminal,
                    # unless the set also holds a pseudo-terminal's master: then the process relays our
                    # terminal to a child's (apt to dpkg, script, expect), which waits there while it works.
                    detection = "kernel" if number in reads else (
                        "kernel-relay" if _relays(proc.pid, candidates) else
                        "kernel-peer" if _peers(proc.pid, candidates) else "kernel-wait")
                    return Waiter(proc.pid, name, detection, source,
                                  timed=number in waits and _timed(number, rest))
        if raw_mode and not known_waits and any(call[0] in waits for call in calls) and _holds(proc.pid, targets):
            return Waiter(proc.pid, name, "terminal-mode", "terminal")
    return None


def _timed(number: int, args: list[int]) -> bool:
    """Whether a poll/select/epoll wait has a timeout (the registers after the first two arguments)."""
    if len(args) < 3:
        return False
    if number in _TIMEOUT_INT.get(_ARCH, {}):  # poll, epoll_wait, epoll_pwait: an int, negative = forever
        value = args[_TIMEOUT_INT[_ARCH][number] - 2] & 0xFFFFFFFF
        return value < 0x80000000
    index = _TIMEOUT_PTR.get(_ARCH, {}).get(number)  # select, pselect6, ppoll, epoll_pwait2: NULL = forever
    return index is not None and args[index - 2] != 0


def relayed_reader(pids: list[psutil.Process], relay: Waiter) -> Waiter | None:
    """A process of the tree blocked reading a terminal whose master `relay` holds while it relays ours to
    it (dpkg asking about a configuration file on the terminal apt made for it): a prompt for certain."""
    inner = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{relay.pid}/fd"):
            if (_fd_target(relay.pid, int(fd)) or "").endswith("ptmx"):
                with open(f"/proc/{relay.pid}/fdinfo/{fd}") as info:
                    index = next((line.split()[1] for line in info if line.startswith("tty-index:")), None)
                if index is not None:
                    inner.add(f"/dev/pts/{index}")
    if not inner:
        return None
    reads = _READ_CALLS.get(_ARCH, set())
    for proc in pids:
        if proc.pid == relay.pid:
            continue
        for number, read_fd, *_ in _syscalls(proc.pid):
            if number in reads and _fd_target(proc.pid, read_fd) in inner:
                name = ""
                with contextlib.suppress(Exception):
                    name = proc.name()
                return Waiter(proc.pid, name, "kernel", relay.source)
    return None


def _relays(pid: int, fds: list[int]) -> bool:
    """Whether one of the descriptors waited on is a pseudo-terminal's master (/dev/ptmx, /dev/pts/ptmx)."""
    return any((_fd_target(pid, fd) or "").endswith("ptmx") for fd in fds)


def _peers(pid: int, fds: list[int]) -> bool:
    """Whether one of the descriptors waited on is a socket: the process waits for our terminal *or* a peer
    (ssh forwarding stdin while the remote command runs, nc, `kubectl exec -i`), so the wait alone is no
    question: only a prompt on the screen makes it one."""
    return any((_fd_target(pid, fd) or "").startswith("socket:") for fd in fds)


def _in_foreground(pid: int, foreground: int | None) -> bool:
    if foreground is None:
        return True
    try:
        return os.getpgid(pid) == foreground
    except OSError:
        return False


def outside_holders(targets: frozenset[str], inside: set[int]) -> list[int]:
    """Processes outside our tree that hold our terminal: a helper started by a daemon that was already
    running, such as gpg-agent's pinentry, which draws and reads on the terminal gpg named to it."""
    ttys = {t for t in targets if t.startswith("/dev/") and t != "/dev/tty"}
    found = []
    me = os.getpid()
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) in inside or int(entry.name) == me:
                continue
            with contextlib.suppress(OSError):
                fds = os.listdir(f"/proc/{entry.name}/fd")
                if any(_fd_target(int(entry.name), int(fd)) in ttys for fd in fds):
                    found.append(int(entry.name))
    return found


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
