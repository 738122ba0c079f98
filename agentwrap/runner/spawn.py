"""Starting the unmodified program on pseudo-terminals (or pipes) in a session of its own.

stdout and stdin share one terminal, which is also the controlling terminal (so /dev/tty readers
find it); stderr gets a second terminal so the two streams stay separate while each is still a
terminal to the program. Both have echo off and no ONLCR, so the program's '\n' reaches us as '\n'.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import struct
import subprocess
import termios

from agentwrap.errors import NotExecutable, ProgramNotFound, UsageError

COLS, ROWS = 250, 50  # wide enough that tools do not wrap or truncate; rows for full-screen redraws


class Channels:
    """The parent's ends: what to read for each stream, where to write answers, what the child may wait on."""

    def __init__(self, stdout_fd: int, stderr_fd: int, answer_fd: int | None, stdin_pipe_w: int | None,
                 wait_targets: frozenset[str], tty_master: int | None, child_fds: list[int]) -> None:
        self.stdout_fd, self.stderr_fd = stdout_fd, stderr_fd
        self.answer_fd = answer_fd  # the terminal's master (or our stdin pipe), for --answer replies
        self.stdin_pipe_w = stdin_pipe_w  # the write end feeding --stdin data
        self.wait_targets = wait_targets  # /proc fd targets that mean "waiting for us": tty paths, our pipe
        self.tty_master = tty_master
        self._child_fds = child_fds

    def close_child_ends(self) -> None:
        for fd in self._child_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._child_fds.clear()


def resolve_program(name: str, path_env: str | None, cwd: str) -> str:
    """The executable's path, or ProgramNotFound / NotExecutable with a precise detail."""
    if os.sep in name:
        candidate = name if os.path.isabs(name) else os.path.join(cwd, name)
        if not os.path.lexists(candidate):
            raise ProgramNotFound(f"{name}: no such file")
        _check_executable(candidate, name)
        return candidate
    found = shutil.which(name, path=path_env)
    if found:
        return found
    # shutil.which skips non-executable matches; say "not executable" when that is what happened.
    for folder in (path_env or "").split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.exists(candidate) and not os.path.isdir(candidate):
            _check_executable(candidate, name)
    raise ProgramNotFound(f"{name}: command not found in PATH")


def _check_executable(path: str, name: str) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise ProgramNotFound(f"{name}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise NotExecutable(f"{name}: is a directory")
    if not os.access(path, os.X_OK):
        raise NotExecutable(f"{name}: permission denied (not executable)")


def _open_terminal(cols: int, rows: int, *, echo: bool = False) -> tuple[int, int]:
    master, slave = os.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # oflag: keep '\n' as '\n'
    if not echo:
        attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ECHOE | termios.ECHOK | termios.ECHOCTL)
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return master, slave


def open_channels(*, use_pty: bool, feed_stdin: bool) -> tuple[Channels, tuple[int, int, int]]:
    """Create the parent's and the child's ends. Returns (channels, (child_stdin, child_stdout, child_stderr))."""
    if use_pty:
        out_m, out_s = _open_terminal(COLS, ROWS)
        err_m, err_s = _open_terminal(COLS, ROWS)
        # /dev/tty opened by getpass, ssh or sudo shows as itself; in our session it can only be ours.
        targets = frozenset({os.ttyname(out_s), os.ttyname(err_s), "/dev/tty"})
        child_fds = [out_s, err_s]
        stdin_w = None
        child_in = out_s
        if feed_stdin:
            # Fed through a pipe: a terminal's canonical line holds only 4095 bytes.
            child_in, stdin_w = os.pipe()
            child_fds.append(child_in)
        chans = Channels(out_m, err_m, out_m, stdin_w, targets, out_m, child_fds)
        return chans, (child_in, out_s, err_s)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe()
    if feed_stdin:
        return Channels(out_r, err_r, None, in_w, frozenset(), None, [in_r, out_w, err_w]), (in_r, out_w, err_w)
    # Never /dev/null: some tools (npx) read EOF on stdin as consent. A pipe we hold open but never
    # write to blocks, and a read blocked on it is a prompt the kernel reports like any other.
    targets = frozenset({f"pipe:[{os.fstat(in_r).st_ino}]"})
    return Channels(out_r, err_r, in_w, None, targets, None, [in_r, out_w, err_w]), (in_r, out_w, err_w)


def _become_terminal_owner() -> None:  # runs in the child, after setsid
    with contextlib.suppress(OSError):
        fcntl.ioctl(1, termios.TIOCSCTTY, 0)


def start(argv: list[str], program: str, *, cwd: str, env: dict[str, str],
          child_fds: tuple[int, int, int], use_pty: bool) -> subprocess.Popen[bytes]:
    """Start the program in a new session; exec failures become ProgramNotFound / NotExecutable."""
    stdin, stdout, stderr = child_fds
    try:
        return subprocess.Popen(  # noqa: S603 - running the user's program is the point
            argv, executable=program, cwd=cwd, env=env,
            stdin=stdin, stdout=stdout, stderr=stderr, close_fds=True,
            start_new_session=True, preexec_fn=_become_terminal_owner if use_pty else None,
        )
    except FileNotFoundError as exc:
        if not os.path.isdir(cwd):
            raise UsageError(f"--cwd {cwd}: no such directory") from None
        # The file exists (resolved above) but its interpreter (#! line) does not.
        raise NotExecutable(f"{argv[0]}: cannot execute: {exc.strerror} (bad interpreter?)") from None
    except PermissionError as exc:
        raise NotExecutable(f"{argv[0]}: {exc.strerror}") from None
    except NotADirectoryError:
        raise UsageError(f"--cwd {cwd}: not a directory") from None
    except OSError as exc:
        raise NotExecutable(f"{argv[0]}: cannot execute: {exc.strerror}") from None
