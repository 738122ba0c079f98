"""A busy terminal read by a process of its own, so the program never waits for our interpreter.

The runner's loop and the worker thread that cleans output share one GIL. While the worker holds it
(removing millions of colour codes from a batch), nothing reads the terminal: its few KiB of buffer
fill and the program blocks in write(2). Output then moves at the speed of our cleaning *plus* our
reading, not the larger of the two. Once a stream has passed FORWARD_AFTER bytes, a forked forwarder
takes over its terminal master: it only copies the terminal into a pipe of PIPE_SIZE bytes, so the
program writes on while we clean, and we read the pipe in large reads when the GIL allows. Nearly
every agent command prints less and never pays for the fork (about 1 ms).

The forwarder is not the program's: `tree` leaves it out of the descendants that prompt detection
and ending the tree look at. After the end of its terminal it closes the pipe and waits to be ended,
so that it is reaped only after the run's resource usage of the program's tree has been read (its
RSS is agentwrap's own). It ignores the signals a terminal or a caller sends agentwrap's process
group, and dies with us.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import warnings

from agentwrap.runner import tree

FORWARD_AFTER = 1 << 20  # bytes a stream has delivered before its reading moves to a forwarder
PIPE_SIZE = 1 << 20  # what the program may run ahead of us (the default pipe holds 64 KiB)
_F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ (Python 3.10+ on Linux), by number to be safe elsewhere
_READ_SIZE = 1 << 16


class Forwarder:
    """One forked copier from a terminal master to a pipe; `fd` is the pipe's read end (non-blocking)."""

    def __init__(self, master: int) -> None:
        import fcntl

        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        with contextlib.suppress(OSError):
            fcntl.fcntl(write_end, _F_SETPIPE_SZ, PIPE_SIZE)
        parent = os.getpid()
        with warnings.catch_warnings():
            # Python 3.12 warns that a fork beside other threads may deadlock in the child: this child
            # makes system calls only (read, write, poll, close), never a lock another thread could hold.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            _copy(master, write_end, parent)  # never returns
        os.close(write_end)
        os.set_blocking(read_end, False)
        self.pid, self.fd = pid, read_end
        tree.OWN.add(pid)

    def end(self) -> None:
        """Kill and reap it: by now its pipe reached its end, or the run stopped reading it."""
        tree.OWN.discard(self.pid)
        try:
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                return  # it had ended (a broken pipe): reaped now
        except ChildProcessError:
            return  # reaped already (tree.reap_orphans): the number may be another process's by now
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _copy(master: int, out: int, parent: int) -> None:
    """In the forked child: copy `master` into `out` until the terminal's end, then wait to be killed."""
    try:
        # Each step may fail alone (a platform without prctl): the copy below is what must happen.
        with contextlib.suppress(Exception):
            signal.set_wakeup_fd(-1)  # agentwrap's wake-up pipe is not ours to write
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGTSTP):
            with contextlib.suppress(Exception):
                signal.signal(sig, signal.SIG_IGN)  # the caller's Ctrl-C is for agentwrap, which ends the tree
        with contextlib.suppress(Exception):
            tree.die_with_parent(signal.SIGKILL)
        if os.getppid() != parent:  # agentwrap died before that took effect
            os._exit(0)
        _close_all_but(master, out)
        poller = select.poll()
        poller.register(master, select.POLLIN)
        while True:
            try:
                data = os.read(master, _READ_SIZE)
            except BlockingIOError:  # the master is non-blocking: the flag is shared with agentwrap's copy
                poller.poll()
                continue
            except OSError:  # EIO: every holder of the terminal's other side closed it
                break
            if not data:
                break
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
        os.close(out)  # the runner reads the end of the stream
        while True:
            signal.pause()
    except BaseException:  # noqa: BLE001 - a broken pipe (agentwrap stopped reading) or anything else: just go
        pass
    finally:
        os._exit(0)


def _close_all_but(*keep: int) -> None:
    """Hold nothing else of agentwrap's: the write end of a program's stdin pipe held here would keep the
    program from ever reading its end, and agentwrap's stdout held here would keep its reader waiting."""
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(1024))
    for fd in fds:
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
