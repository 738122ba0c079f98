"""Starting the unmodified program on pseudo-terminals (or pipes) in a session of its own.

stdout and stdin share one terminal, which is also the controlling terminal (so /dev/tty readers
find it); stderr gets a second terminal so the two streams stay separate while each is still a
terminal to the program. Both have echo off and no output processing (OPOST and ONLCR off), so the
program's '\n' reaches us as '\n'.

The child is forked and exec'd here rather than by subprocess.Popen: what Popen would do for us (a new
session, the three descriptors, the working directory, default SIGPIPE/SIGXFSZ, no other inherited
descriptor, an exec failure reported to the parent) is a dozen lines, and subprocess with the threading
module it imports costs ~3 ms of every start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import stat
import sys
import termios
from typing import NoReturn

from agentwrap.errors import NotExecutable, ProgramNotFound, UsageError

# An agent's window: wide enough that tools do not truncate what they print to its width (ps, docker ps,
# kubectl get); what they draw to it (rules, right-aligned progress) the adapters' layout cleaning shortens.
# Rows for full-screen redraws. A person's run (pretty on a terminal) gets that person's window instead.
COLS, ROWS = 250, 50


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
    found = _which(name, path_env)
    if found:
        return found
    # _which skips non-executable matches; say "not executable" when that is what happened.
    for folder in (path_env or "").split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.exists(candidate) and not os.path.isdir(candidate):
            _check_executable(candidate, name)
    raise ProgramNotFound(f"{name}: command not found in PATH")


def _which(name: str, path_env: str | None) -> str | None:
    """shutil.which(name, path=path_env) on POSIX, without importing shutil (~1.5 ms with bz2 and lzma)."""
    if path_env is None:
        path_env = os.environ.get("PATH", os.defpath)
    seen: set[str] = set()
    for folder in path_env.split(os.pathsep) if path_env else ():
        if folder in seen:
            continue
        seen.add(folder)
        candidate = os.path.join(folder, name)
        try:
            mode = os.stat(candidate).st_mode
        except (OSError, ValueError):
            continue
        if not stat.S_ISDIR(mode) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _check_executable(path: str, name: str) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise ProgramNotFound(f"{name}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise NotExecutable(f"{name}: is a directory", suggested_fix="Name a program inside the directory, "
                            "not the directory itself.")
    if not os.access(path, os.X_OK):
        raise NotExecutable(f"{name}: permission denied (not executable)",
                            suggested_fix=f"Make it executable (`chmod +x {name}`) or run it through its "
                                          "interpreter (`bash FILE`, `python3 FILE`).")


def _open_terminal(cols: int, rows: int, *, echo: bool = False) -> tuple[int, int]:
    master, slave = os.openpty()
    attrs = termios.tcgetattr(slave)
    # oflag: keep '\n' as '\n'. With ONLCR off, OPOST changes no byte (the other output flags are off), but
    # the kernel still steps through every byte a program writes (and hands each tab over on its own).
    # Off, 64 MiB from cat costs it 0.05 s of system time, not 0.14 s, and arrives in fewer, fuller reads.
    attrs[1] &= ~(termios.OPOST | termios.ONLCR)
    if not echo:
        attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ECHOE | termios.ECHOK | termios.ECHOCTL)
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    set_window(slave, cols, rows)
    return master, slave


def set_window(fd: int, cols: int, rows: int) -> None:
    """Give a terminal its size; on a master this also sends SIGWINCH to the program in its foreground."""
    # struct winsize {unsigned short rows, cols, xpixel, ypixel} (struct.pack("HHHH"), without importing struct)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, b"".join(n.to_bytes(2, sys.byteorder) for n in (rows, cols, 0, 0)))


def window_of(fd: int) -> tuple[int, int] | None:
    """(columns, rows) of the terminal on `fd` as a program should be given it, or None: not a terminal, or too
    narrow to lay anything out in."""
    try:
        size = os.get_terminal_size(fd)
    except (OSError, ValueError):
        return None
    if size.columns < 20:
        return None
    return size.columns, size.lines if size.lines > 0 else 24  # `stty rows 0` (script -qc): a usual height


def open_channels(*, use_pty: bool, feed_stdin: bool,
                  window: tuple[int, int] = (COLS, ROWS)) -> tuple[Channels, tuple[int, int, int]]:
    """Create the parent's and the child's ends. Returns (channels, (child_stdin, child_stdout, child_stderr))."""
    if use_pty:
        cols, rows = window
        out_m, out_s = _open_terminal(cols, rows)
        err_m, err_s = _open_terminal(cols, rows)
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


class Child:
    """The started program, polled as subprocess.Popen is: returncode is -N after signal N."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped already: nothing more can be known (Popen says 0 too)
                self.returncode = 0
            else:
                if pid == self.pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


def _inherited_descriptors(keep: int) -> list[int]:
    """Descriptors above 2 that an exec would pass on (ours are close-on-exec; these came from our parent)."""
    try:
        candidates = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        candidates = list(range(3, 256))
    leaks = []
    for fd in candidates:
        if fd > 2 and fd != keep:
            with contextlib.suppress(OSError):  # the listing's own descriptor is gone already
                if os.get_inheritable(fd):
                    leaks.append(fd)
    return leaks


_RESTORED = tuple(getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, name))


def _exec_child(argv: list[str], program: str, cwd: str, env: dict[str, str], fds: tuple[int, int, int],
                own_terminal: bool, report: int, leaks: list[int], ignored: list[int]) -> NoReturn:
    """In the forked child: never returns; a failure is written to `report` as 'stage:errno'. Everything that
    can be is worked out by the parent: what runs here runs on copy-on-write pages."""
    stage = "setup"
    try:
        os.setsid()
        if min(fds) < 3:  # move them up first, so that no dup2 below clobbers another
            fds = (fcntl.fcntl(fds[0], fcntl.F_DUPFD_CLOEXEC, 3), fcntl.fcntl(fds[1], fcntl.F_DUPFD_CLOEXEC, 3),
                   fcntl.fcntl(fds[2], fcntl.F_DUPFD_CLOEXEC, 3))
        os.dup2(fds[0], 0)
        os.dup2(fds[1], 1)
        os.dup2(fds[2], 2)
        if own_terminal:
            with contextlib.suppress(OSError):
                fcntl.ioctl(1, termios.TIOCSCTTY, 0)
        stage = "chdir"
        os.chdir(cwd)
        stage = "setup"
        for signum in ignored:  # Python ignores SIGPIPE and SIGXFSZ; a program expects the default
            signal.signal(signum, signal.SIG_DFL)
        for fd in leaks:
            with contextlib.suppress(OSError):
                os.close(fd)
        stage = "exec"
        os.execve(program, argv, env)
    except BaseException as exc:  # noqa: BLE001 - whatever happened, the parent must hear of it
        code = exc.errno if isinstance(exc, OSError) and exc.errno else 0
        with contextlib.suppress(BaseException):
            os.write(report, f"{stage}:{code}".encode())
    finally:
        os._exit(127)


def start(argv: list[str], program: str, *, cwd: str, env: dict[str, str],
          child_fds: tuple[int, int, int], use_pty: bool) -> Child:
    """Start the program in a new session; exec failures become ProgramNotFound / NotExecutable."""
    report_r, report_w = os.pipe()  # close-on-exec: an exec that works closes it, and we read EOF
    leaks = _inherited_descriptors(report_w)
    ignored = [s for s in _RESTORED if signal.getsignal(s) == signal.SIG_IGN]
    try:
        try:
            pid = os.fork()
        except OSError as exc:  # EAGAIN, ENOMEM: no process could be made
            raise NotExecutable(f"{argv[0]}: cannot execute: {exc.strerror}") from None
        if pid == 0:
            _exec_child(argv, program, cwd, env, child_fds, use_pty, report_w, leaks, ignored)
        os.close(report_w)
        report_w = -1
        chunks = []
        while chunk := os.read(report_r, 64):
            chunks.append(chunk)
    finally:
        os.close(report_r)
        if report_w >= 0:
            os.close(report_w)
    if not chunks:
        return Child(pid)
    os.waitpid(pid, 0)  # the child exits at once after reporting
    stage, _, number = b"".join(chunks).decode(errors="replace").partition(":")
    code = int(number) if number.isdigit() else 0
    if stage not in ("chdir", "exec") or not code:
        raise NotExecutable(f"{argv[0]}: cannot execute: the child failed before exec ({stage})")
    try:
        raise OSError(code, os.strerror(code))  # the subclass for the errno, as Popen raises it
    except FileNotFoundError as exc:
        if not os.path.isdir(cwd):
            raise UsageError(f"--cwd {cwd}: no such directory") from None
        # The file exists (resolved above) but its interpreter (#! line) does not.
        interpreter = _interpreter(program)
        if interpreter is None:
            raise NotExecutable(f"{argv[0]}: cannot execute: {exc.strerror} (bad interpreter?)") from None
        raise NotExecutable(f"{argv[0]}: cannot execute: its interpreter `{interpreter}` (the #! line) does not exist",
                            suggested_fix=f"Install `{interpreter}` or fix the file's #! line, or run the file "
                                          "with an interpreter that exists (`bash FILE`, `python3 FILE`).") from None
    except PermissionError as exc:
        raise NotExecutable(f"{argv[0]}: {exc.strerror}") from None
    except NotADirectoryError:
        raise UsageError(f"--cwd {cwd}: not a directory") from None
    except OSError as exc:
        raise NotExecutable(f"{argv[0]}: cannot execute: {exc.strerror}") from None


def _interpreter(program: str) -> str | None:
    """The interpreter a script's `#!` line names (its first word), or None."""
    try:
        with open(program, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].split()
    return words[0].decode(errors="replace") if words else None
