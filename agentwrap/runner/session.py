"""One run of one program: spawn, pump output, watch for prompts, enforce the deadline, end the tree.

Everything that waits is in this loop: a single poll(2) over the output descriptors and a wake-up pipe
that signals (SIGCHLD, and SIGINT/SIGTERM/SIGHUP sent to agentwrap) write to.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import resource
import select
import signal
import termios
import time
from typing import IO, Any, NamedTuple, Protocol

from agentwrap import signal_mask, stop_signals
from agentwrap.ids import rfc3339
from agentwrap.lazyre import lazy
from agentwrap.runner import forward, prompts, spawn, tree
from agentwrap.runner.relay import ThreadedSink
from agentwrap.runner.shims import Request, ShimDir
from agentwrap.terminal import WINDOW_RESIZED

READ_SIZE = 1 << 16
BATCH_SIZE = 1 << 18
# A batch under this waits up to LINGER seconds for more: a program streaming output gives ~4 KiB per
# read, and a sink that keeps up would otherwise get a hand-over (a thread wake-up, a GIL hand-off and
# the per-call costs of cleaning) every few reads: 64 MiB of coloured text came in ~2,000 batches, not
# ~300, and took 1.2 s, not 0.75. A pause in the output is handed over after LINGER at the latest.
MIN_BATCH = 1 << 16
LINGER = 0.002
IDLE_BEFORE_CHECK = 0.15  # seconds of silence before we look for a waiting reader
CHECK_EVERY = 0.1
# seen this long before it counts
CONFIRM = {"kernel": 0.1, "kernel-wait": 0.1, "kernel-relay": 0.1, "kernel-peer": 0.1, "terminal-mode": 0.5}
HEURISTIC_IDLE = 1.5
OUTSIDE_IDLE = 1.0  # silence before looking for readers of our terminal outside the tree, and how often
LINGER_AFTER_EXIT = 0.3  # descendants holding the terminal get this long to finish writing
MAX_ANSWERS = 100
# A reply the program rejected: it asks the same question again at once. What it wrote since our reply is
# compared when it is at most this long (an error line and the prompt); more is real output (another item).
SHORT_BETWEEN = 400
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Answer(NamedTuple):
    pattern: re.Pattern[str]
    reply: str


class RunSpec(NamedTuple):
    argv: list[str]
    program: str
    cwd: str
    env: dict[str, str]
    use_pty: bool = True
    stdin: IO[bytes] | None = None
    timeout: float | None = None
    grace: float = 3.0
    answers: tuple[Answer, ...] = ()
    window: tuple[int, int] | None = None  # (columns, rows) of the program's terminal; None: the agent's
    mutating: bool = False  # its adapter says it changes things: only the kernel's word may end it (5.4)
    # The person's terminal (a descriptor): when it is resized (SIGWINCH), the program's terminals get its new
    # size, so a program laying out for the window (a progress bar, a table) re-lays out as it would there.
    follow_window: int | None = None


_ESCAPES = lazy(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-B]|[78=>])")


def _animation(data: bytes) -> bool:
    """Output that only animates what is on the screen: escape sequences alone (a cursor shown, hidden or
    blinking), or a line redrawn in place (`\r` or cursor moves first, no newline): a spinner, a
    status line. Detection treats it as silence, so a prompt drawn with a spinner is still found."""
    if len(data) > 512 or b"\n" in data:  # a batch of real output: decided without scanning it
        return False
    rest = _ESCAPES.sub(b"", data)
    if not rest.strip(b"\r\b "):
        return True
    return data.startswith((b"\r", b"\x1b["))


class Sink(Protocol):
    """Where the runner sends what it sees; the caller cleans, bounds and reports it."""

    def output(self, stream: str, data: bytes) -> None: ...
    def prompt_text(self) -> str: ...
    def answering(self) -> None: ...
    def since_answer(self) -> str | None: ...
    def event(self, kind: str, payload: dict[str, object]) -> None: ...


class PromptInfo(NamedTuple):
    text: str
    input_kind: str
    detection: str
    source: str
    pid: int
    process: str


def _asking_line(text: str) -> str:
    """The last line of a prompt's text: the one that asks."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


class RunResult:
    """What happened to one run (filled in by the session as it goes)."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.signal: int | None = None
        self.timed_out = False
        self.interrupted: int | None = None
        self.prompt: PromptInfo | None = None
        self.started_at = ""
        self.started_epoch: float | None = None  # started_at as wall-clock seconds (an adapter's "now")
        self.duration_ms = self.cpu_ms = self.max_rss_bytes = self.tree_ended = 0
        self.raw_bytes = {"stdout": 0, "stderr": 0}
        self.answered: list[dict[str, object]] = []
        self.rejected: dict[str, object] | None = None  # an answer the program asked again for at once
        self.requests: list[Request] = []
        self.left: list[str] = []  # files a stopped program left half done (a git index.lock)


def _refuse_if_stopped(spec: RunSpec) -> None:
    """A SIGTERM or Ctrl-C that came while agentwrap started (held: stop_signals): the program never starts."""
    held = stop_signals.take()
    if held is not None:
        raise stop_signals.StopSignal(held, f"agentwrap received {signal.Signals(held).name} before "
                                      f"{os.path.basename(spec.argv[0])} started; nothing ran", nothing_ran=True)


def _feed(source: IO[bytes], fd: int) -> None:
    """Copy --stdin data into the child's pipe (a thread: a slow reader must not stall the output loop)."""
    try:
        while chunk := source.read(READ_SIZE):
            os.write(fd, chunk)
    except OSError:
        pass  # the program closed its stdin early: not our failure
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


class _Session:
    def __init__(self, spec: RunSpec, sink: Sink, shims: ShimDir | None) -> None:
        self.spec, self.sink, self.shims = spec, sink, shims
        self.result = RunResult()
        self.received: int | None = None
        self.last_output = time.monotonic()
        self.candidate: tuple[int, str] | None = None
        self.candidate_since = 0.0
        self.last_check = 0.0
        self.outside_scan = 0.0
        self.outside_pids: list[int] = []
        self.answer_counts: dict[str, int] = {}
        self.last_answer: tuple[str, str, str | None] | None = None  # (pattern, its prompt's line, seen before)
        self.finished: list[int] = []
        self.forwarders: list[forward.Forwarder] = []
        self.masters: set[int] = set()  # terminals still read here, which a forwarder may take over
        self.resized = False  # SIGWINCH came: the person's terminal changed size

    # --- output -------------------------------------------------------------------------------
    def pump(self, timeout: float) -> None:
        for fd, _ in self.poller.poll(max(0.0, timeout) * 1000):
            if fd == self.wake_r:
                with contextlib.suppress(OSError):
                    os.read(self.wake_r, 512)
                continue
            self._drain(fd)

    def _drain(self, fd: int) -> None:
        # A terminal hands out at most ~4 KiB per read; the sink gets one call per batch, not per read,
        # so the per-call costs of cleaning and capture are paid ~60 times less often.
        stream = self.streams[fd]
        batch: list[bytes] = []
        size, eof = 0, False
        until, waiter = 0.0, None
        while size < BATCH_SIZE:
            try:
                data = os.read(fd, READ_SIZE)
            except BlockingIOError:
                if size >= MIN_BATCH or not size:
                    break
                now = time.monotonic()
                until = until or now + LINGER
                if waiter is None:  # poll, not select: a descriptor may be numbered past FD_SETSIZE
                    waiter = select.poll()
                    waiter.register(fd, select.POLLIN)
                if now >= until or not waiter.poll((until - now) * 1000):
                    break
                continue
            except OSError as exc:  # EIO: every holder of the terminal closed it
                if exc.errno not in (errno.EIO, errno.EBADF):
                    raise
                data = b""
            if not data:
                eof = True
                break
            batch.append(data)
            size += len(data)
        if batch:
            data = b"".join(batch)
            self.result.raw_bytes[stream] += size
            if not _animation(data):  # a blinking cursor or a redrawn spinner is no sign of progress
                self.last_output = time.monotonic()
            self.sink.output(stream, data)
            if fd in self.masters and not eof and self.result.raw_bytes[stream] >= forward.FORWARD_AFTER:
                self._forward(fd)
        if eof:
            self.poller.unregister(fd)
            del self.streams[fd]
            # Not closed yet: closing a terminal's master hangs it up, and SIGHUP would kill a program
            # that closed its stdout but has not exited (dd, cp). Closed once the tree is gone.
            self.finished.append(fd)

    def _forward(self, master: int) -> None:
        """From now on a forwarder reads this terminal; we read its pipe (see runner.forward)."""
        self.masters.discard(master)
        try:
            forwarder = forward.Forwarder(master)
        except OSError:  # no process to spare (EAGAIN: a process limit): read it here, as before
            return
        self.forwarders.append(forwarder)
        stream = self.streams.pop(master)
        self.poller.unregister(master)
        self.finished.append(master)  # kept open: answers are written to it, and closing it hangs it up
        self.streams[forwarder.fd] = stream
        self.poller.register(forwarder.fd, select.POLLIN)

    def drain_all(self) -> None:
        for fd in list(self.streams):
            self._drain(fd)

    # --- process state ------------------------------------------------------------------------
    def poll_main(self) -> bool:
        return not (self.proc.returncode is None and self.proc.poll() is None)

    def tick(self) -> None:
        self.poll_main()
        self.pump(0)

    def end_tree(self, first: int = signal.SIGTERM) -> int:
        return tree.end_tree(self.spec.grace, poll_main=self.tick, first_signal=first)

    # --- prompts ------------------------------------------------------------------------------
    def _outside_waiter(self, procs: list[Any], *, rescan: bool) -> prompts.Waiter | None:
        """A reader of our terminal outside the tree (gpg-agent's pinentry). Looked for at most once a
        second (it lists every process's descriptors); the holders found are checked at every tick."""
        import psutil

        if rescan:
            self.outside_scan = time.monotonic()
            self.outside_pids = prompts.outside_holders(self.chans.wait_targets, {p.pid for p in procs})
        outside = []
        for pid in self.outside_pids:
            with contextlib.suppress(psutil.Error):
                outside.append(psutil.Process(pid))
        return prompts.find_waiter(outside, self.chans.wait_targets, raw_mode=self._raw_mode()) if outside else None

    def _foreground(self) -> int | None:
        """The foreground process group of the program's terminal (None on pipes, or unknown)."""
        if self.chans.tty_master is None:
            return None
        try:
            return os.tcgetpgrp(self.chans.tty_master)
        except OSError:
            return None

    def _raw_mode(self) -> bool:
        if self.chans.tty_master is None:
            return False
        try:
            return not termios.tcgetattr(self.chans.tty_master)[3] & termios.ICANON
        except (termios.error, OSError):
            return False

    def check_prompt(self, now: float) -> PromptInfo | None:
        idle = now - self.last_output
        if idle < IDLE_BEFORE_CHECK or now - self.last_check < CHECK_EVERY:
            return None
        self.last_check = now
        procs = tree.descendants()
        waiter = prompts.find_waiter(procs, self.chans.wait_targets, raw_mode=self._raw_mode(),
                                     foreground=self._foreground())
        if waiter is not None and waiter.detection == "kernel-relay":
            # apt relays our terminal to dpkg's: dpkg blocked reading that one (a conffile question) asks us
            waiter = prompts.relayed_reader(procs, waiter) or waiter
        if waiter is None and idle >= OUTSIDE_IDLE:
            # a tree at work (compiling, not waiting) asks nobody: no need to list every process
            rescan = now - self.outside_scan >= OUTSIDE_IDLE and prompts.all_sleeping(procs)
            waiter = self._outside_waiter(procs, rescan=rescan)
        text = self.sink.prompt_text()
        if waiter is not None:
            key = (waiter.pid, waiter.detection)
            if self.candidate != key or self.candidate_since < self.last_output:
                self.candidate, self.candidate_since = key, now
                return None
            if now - self.candidate_since < CONFIRM[waiter.detection]:
                return None
            if waiter.detection == "kernel-peer" and not prompts.screen_asks(text):
                return None  # waiting on a peer as much as on us (a remote command at work): not asked yet
            if self.spec.mutating and (waiter.detection not in ("kernel", "kernel-wait") or waiter.timed):
                # a progress screen checking for a key between redraws, or apt relaying our terminal to
                # dpkg while it unpacks, looks like this: never end a mutation on a guess
                return None
            return PromptInfo(text, prompts.kind_of(waiter.name, text), waiter.detection, waiter.source, waiter.pid,
                              waiter.name)
        self.candidate = None
        if self.spec.mutating:
            return None  # the text heuristic alone never ends a program that is changing something
        if idle >= HEURISTIC_IDLE and prompts.STRONG_PROMPT.search(text) and prompts.all_sleeping(procs):
            return PromptInfo(text, prompts.classify(text), "heuristic", "terminal", procs[0].pid, "")
        return None

    def try_answer(self, prompt: PromptInfo) -> bool:
        """Reply to `prompt` when an --answer rule matches it. The prompt's text is only what the program wrote
        since the last reply (the sink's `answering`), so a rule never answers a later, different question."""
        fd = self.chans.answer_fd
        if fd is None:
            return False
        for answer in self.spec.answers:
            if not answer.pattern.search(prompt.text):
                continue
            total = self.answer_counts.get(answer.pattern.pattern, 0)
            if total >= MAX_ANSWERS:
                return False
            seen = self.sink.since_answer()
            if self._rejected(answer, prompt.text, seen):
                self.result.rejected = {"pattern": answer.pattern.pattern, "prompt": _asking_line(prompt.text),
                                        "times": total}
                return False
            self.answer_counts[answer.pattern.pattern] = total + 1
            self.last_answer = (answer.pattern.pattern, _asking_line(prompt.text), seen)
            self.sink.answering()  # before the reply: whatever comes after it is the next prompt
            with contextlib.suppress(OSError):
                os.write(fd, answer.reply.encode() + b"\n")
            record: dict[str, object] = {"pattern": answer.pattern.pattern, "prompt": prompt.text,
                                         "input_kind": prompt.input_kind}
            self.result.answered.append(record)
            self.sink.event("prompt_answered", record)
            self.candidate, self.last_output = None, time.monotonic()
            return True
        return False

    def _rejected(self, answer: Answer, text: str, seen: str | None) -> bool:
        """The program asks again, at once, the question this rule just answered: it rejected the reply.

        At once means: between our reply and the question again it wrote nothing else, or the same short text
        as the last time (`please type yes`); a program asking the same question for another item writes
        something else between (`rm -ri`: another name), or more than SHORT_BETWEEN."""
        last = self.last_answer
        if last is None or last[0] != answer.pattern.pattern or _asking_line(text) != last[1]:
            return False
        if seen is None or len(seen) > SHORT_BETWEEN:
            return False
        words = " ".join(seen.split())
        if words in (" ".join(text.split()), " ".join(f"{answer.reply} {text}".split())):
            return True  # nothing but the question again (and our reply, where the program echoed it)
        return last[2] is not None and words == " ".join(last[2].split())

    # --- the loop -----------------------------------------------------------------------------
    def run(self) -> RunResult:
        spec = self.spec
        self.chans, child_fds = spawn.open_channels(use_pty=spec.use_pty, feed_stdin=spec.stdin is not None,
                                                    window=spec.window or (spawn.COLS, spawn.ROWS))
        self.streams = {self.chans.stdout_fd: "stdout", self.chans.stderr_fd: "stderr"}
        if spec.use_pty:
            self.masters = set(self.streams)
        self.poller = select.poll()
        for fd in self.streams:
            os.set_blocking(fd, False)
            self.poller.register(fd, select.POLLIN)
        self.wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.poller.register(self.wake_r, select.POLLIN)
        old_wakeup = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        followed = (signal.SIGWINCH,) if spec.use_pty and spec.follow_window is not None else ()
        old_handlers = {s: signal.signal(s, self._on_signal) for s in (*_STOP_SIGNALS, signal.SIGCHLD, *followed)}
        usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        self.result.started_epoch = time.time()
        self.result.started_at = rfc3339(self.result.started_epoch)
        try:
            try:
                _refuse_if_stopped(spec)
                self.proc = spawn.start(spec.argv, spec.program, cwd=spec.cwd, env=spec.env,
                                        child_fds=child_fds, use_pty=spec.use_pty)
            finally:
                self.chans.close_child_ends()
            if spec.stdin is not None and self.chans.stdin_pipe_w is not None:
                signal_mask.start_thread(_feed, spec.stdin, self.chans.stdin_pipe_w)
            self._loop(start)
        except BaseException:
            self._end_forwarders()
            raise
        finally:
            signal.set_wakeup_fd(old_wakeup)
            signal_mask.put_back(old_handlers)
            spare = [] if self.chans.answer_fd in (None, self.chans.stdout_fd) else [self.chans.answer_fd]
            for fd in (*self.streams, *self.finished, self.wake_r, wake_w, *spare):
                with contextlib.suppress(OSError):
                    os.close(fd)
        tree.reap_orphans()
        usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        self._end_forwarders()  # reaped after the usage is read: a forwarder's size is ours, not the program's
        r = self.result
        r.duration_ms = int((time.monotonic() - start) * 1000)
        r.cpu_ms = int(((usage1.ru_utime + usage1.ru_stime) - (usage0.ru_utime + usage0.ru_stime)) * 1000)
        r.max_rss_bytes = usage1.ru_maxrss * 1024
        code = self.proc.returncode
        if code is not None and code < 0:
            r.signal, r.returncode = -code, None
        else:
            r.returncode = code
        if self.shims is not None:
            r.requests = self.shims.requests()
            # an askpass reply an --answer rule authorised is reported as a terminal prompt's reply is
            r.answered += [{"pattern": q.answered, "prompt": q.prompt, "input_kind": prompts.classify(q.prompt)}
                           for q in r.requests if q.answered is not None]
        return r

    def _end_forwarders(self) -> None:
        while self.forwarders:
            self.forwarders.pop().end()

    def _on_signal(self, signum: int, _frame: object) -> None:
        if signum == signal.SIGWINCH:
            self.resized = True  # acted on in the loop, which the wake-up pipe wakes
        elif signum != signal.SIGCHLD and self.received is None:
            self.received = signum

    def _follow_window(self) -> None:
        """The person's terminal was resized: both of the program's terminals take its size (each
        TIOCSWINSZ on a master sends the program SIGWINCH), and so does the sink's cleaning of it, so that what
        the program redraws at the new width reads as it shows."""
        self.resized = False
        follow = self.spec.follow_window
        window = spawn.window_of(follow) if follow is not None else None
        if window is None:
            return
        for master in (self.chans.stdout_fd, self.chans.stderr_fd):
            with contextlib.suppress(OSError):  # a terminal every holder of which has gone: nothing to tell
                spawn.set_window(master, *window)
        # after what came before the new size is cleaned (the relay flushes), before what comes after it
        self.sink.event(WINDOW_RESIZED, {"cols": window[0], "rows": window[1]})

    def _loop(self, start: float) -> None:
        deadline = start + self.spec.timeout if self.spec.timeout else None
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if self.resized:
                self._follow_window()
            if self.received is not None:
                self.result.interrupted = self.received
                self.end_tree(self.received)
                break
            if deadline is not None and now >= deadline:
                self.result.timed_out = True
                self.end_tree()
                break
            if self.poll_main():
                if exited_at is None:
                    exited_at = now
                    self.drain_all()
                if not self.streams or now - exited_at >= LINGER_AFTER_EXIT:
                    # Nothing may outlive the run: a nohup/setsid descendant is ended here too.
                    tree.reap_orphans()  # safe now: the main child's status is already ours
                    if tree.has_children():
                        self.result.tree_ended = self.end_tree()
                    break
            elif self.shims is not None and self.shims.refused():
                # An editor or askpass request was refused: the shim holds the program there, so that
                # it cannot go on as if the answer were empty; the tree is ended (CONTRACT 5.1).
                self.end_tree()
                break
            else:
                prompt = self.check_prompt(now)
                if prompt is not None and not self.try_answer(prompt):
                    self.result.prompt = prompt
                    self.sink.event("prompt_detected", {"prompt": prompt.text, "input_kind": prompt.input_kind})
                    self.end_tree()
                    if prompt.pid in self.outside_pids:
                        # gpg-agent's pinentry, on our terminal for our run: it asks nobody once we are gone
                        with contextlib.suppress(OSError):
                            os.kill(prompt.pid, signal.SIGTERM)
                    break
            wait = 0.05 if exited_at is not None else (CHECK_EVERY if now - self.last_output >= 0.1 else 0.5)
            if deadline is not None:
                wait = min(wait, max(0.0, deadline - now))
            self.pump(wait)
        # The tree is gone: whatever is still buffered in the terminals is the end of the output.
        end = time.monotonic() + 2.0
        while self.streams and time.monotonic() < end:
            self.pump(0.05)


def run(spec: RunSpec, sink: Sink, shims: ShimDir | None = None) -> RunResult:
    """Run `spec` to completion (or timeout, prompt, interruption) and report what happened.

    The sink is called from a worker thread (one at a time, in order); every call has returned
    when run() does.
    """
    tree.become_subreaper()
    relay = ThreadedSink(sink)
    try:
        return _Session(spec, relay, shims).run()
    finally:
        relay.close()
