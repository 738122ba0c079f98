"""The program's output shown to a person while it runs (pretty on a terminal), before the summary.

The runner hands the raw bytes of both streams over in the order they arrived; each stream is cleaned on
a screen as large as the person's window, so what the program redraws there (a progress bar's `\\r`
frames, a block of lines rewritten with cursor-up) is redrawn on the person's screen too: the lines the
view printed are compared, line by line, with the screen's after each batch, and a changed line is
repainted in place (`\\r`, cursor up, erase below) while this stream was the last to write and the lines
are still in the window; otherwise it is printed again below. A line is shown once it ends; the line
still open (a prompt: `Continue? `) is shown after a moment of quiet, and only the rest of it once it ends.

Each line is redacted before it is shown, with the run's own secrets, by a redactor that remembers a
private key begun on an earlier line; a line wrapped across the screen's rows is redacted whole, so a
secret cut by the width is still seen. Memory stays bounded: one window per stream, and a line that
never ends is shown in pieces cut at a blank.

Colour: a line made only of text and SGR codes (colours, bold) is shown with them when the person's
terminal takes colour (stdout a terminal, NO_COLOR unset) and redaction changes nothing in it; any
other line is shown as the cleaned text. The envelope and artifacts never see this view: they come from
the pipeline's own cleaning.
"""

from __future__ import annotations

import _thread  # a lock: agentwrap's run path imports no `threading`
import copy
import os
import re
import time

from agentwrap import cells, signal_mask
from agentwrap.redact import Redactor
from agentwrap.terminal import TerminalCleaner

HOLD_CHARS = 1 << 16  # an unfinished line is held up to this long, then shown cut at a blank
HOLD_OVERLAP = 8192  # more than the longest secret the redactor matches (4096 characters)
BINARY_MIN = 32  # as the pipeline judges a stream binary: this many odd bytes, a third of what came
QUIET = 0.3  # seconds without output after which the open line (a prompt) is shown
_RESET = "\x1b[0m"
_SGR = re.compile(r"\x1b\[[0-9;:]{0,64}m")
# Text, tabs and SGR codes only: a line that is safe to show with its colours.
_COLOURED_TEXT = re.compile(r"(?:[^\x00-\x08\x0a-\x1f\x7f-\x9f\ufffd]|\x1b\[[0-9;:]{0,64}m)*")


class _Stream:
    def __init__(self, rows: int, cols: int, secrets: list[str]) -> None:
        self.cleaner = TerminalCleaner(rows=rows, cols=cols)
        self.redactor = Redactor(secrets)  # has seen the committed text: what is above the screen
        self.partial = ""  # committed text of the line not yet ended (it goes on at the top of the screen)
        self.raw = bytearray()  # the bytes of the line being written, while it may be shown in colour
        self.sgr = ""  # the colour in effect at the start of the next line (codes since the last reset)
        self.colours: dict[str, str] = {}  # a recent line's text -> its coloured form
        self.received = 0
        self.hidden = False  # binary data: not shown
        self.screen: list[str] = []  # the screen's ended lines, as last read
        self.open = ""  # the screen's open line (the cursor's), as last read
        self.shown: list[str] = []  # those ended lines as printed (redacted, perhaps coloured)
        self.fixed = 0  # how many of `shown` can no longer be repainted (something was printed below)
        self.prompt = ""  # the open line as printed before it ended; the person's cursor is after it
        self.cut = False  # a piece of a line that never ends was printed; the person's cursor is after it


class LiveView:
    """`output(stream, data)` is the pipeline's tee (called from the runner's worker thread, one call at a
    time); `finish()` shows the unfinished lines once the run has ended. `shown` says whether anything
    (the command line at least) went to the terminal, so the summary that follows does not repeat it.
    A timer thread shows an open line after QUIET seconds; the lock keeps its writes and theirs apart."""

    def __init__(self, fd: int, header: str, secrets: list[str], *, cols: int, color: bool, rows: int = 24) -> None:
        self.fd, self.header, self.color = fd, header, color
        self.cols, self.rows = cols, rows
        self._follow_size(init=True)
        self.streams = {name: _Stream(self.rows, self.cols, secrets) for name in ("stdout", "stderr")}
        self.shown = self.broken = self.finished = False
        self.last: _Stream | None = None  # the stream whose text is at the bottom of the person's screen
        self._lock = _thread.allocate_lock()
        self._timer = False
        self._quiet_at = 0.0

    def output(self, stream: str, data: bytes) -> None:
        with self._lock:
            state = self.streams[stream]
            if state.hidden or self.broken or self.finished:
                return
            self._follow_size()
            state.received += len(data)
            if self.color and (b"\x1b" in data or state.raw):
                committed = self._coloured(state, data)
            else:
                committed = state.cleaner.feed(data)
            cleaner = state.cleaner
            odd = cleaner.binary_bytes + cleaner.invalid_utf8
            if odd >= BINARY_MIN and 3 * odd >= state.received:  # the batch that shows it is binary is not shown
                state.hidden, state.partial, state.raw, state.shown, state.open = True, "", bytearray(), [], ""
                self._print(state, f"[agentwrap: {stream} is binary data; not shown]\n")
                return
            self._update(state, committed, cleaner.pending_lines())
            if state.open:
                self._arm()

    def finish(self) -> None:
        with self._lock:
            self.finished = True
            for state in self.streams.values():
                if not state.hidden:
                    self._update(state, state.cleaner.finish(), None, final=True)
            self._show("", always=True)

    # -- what changed -----------------------------------------------------------------------------------

    def _update(self, state: _Stream, committed: str, screen: list[str] | None, *, final: bool = False) -> None:
        """Committed text is final (it scrolled off the stream's screen); the screen's ended lines may still
        change. Both, redacted, are compared with what was printed; the open line is held."""
        text = state.partial + committed
        if final and text and not text.endswith("\n"):
            text += "\n"
        cut = text.rfind("\n") + 1
        if not cut and len(text) > HOLD_CHARS:  # a line that does not end: shown in pieces, cut at a blank
            blank = max(text.rfind(" ", 0, len(text) - HOLD_OVERLAP), text.rfind("\t", 0, len(text) - HOLD_OVERLAP))
            cut = blank + 1 if blank > 0 else len(text) - HOLD_OVERLAP
        state.partial = text[cut:]
        if screen is None:  # the alternate screen is up (or the run ended): the screen adds nothing
            screen = [""] if final else [*state.screen, state.open]
        ended, state.open = screen[:-1], screen[-1]
        if ended and state.partial:  # the line begun above the screen ended on it
            ended, state.partial = [state.partial + ended[0], *ended[1:]], ""
        if not cut and ended == state.screen:
            return  # the common batch: the open line grew, nothing else changed
        done = state.redactor.redact(text[:cut]).split("\n") if cut else [""]
        piece = done.pop()  # a piece of a line that never ends, or ""
        state.screen = ended
        lines = list(self._display(state, done))
        if ended:  # redacted after the committed text, as one text: a key begun above is still hidden
            redacted = copy.copy(state.redactor).redact("\n".join(ended) + "\n").split("\n")[:-1]
            lines += self._display(state, redacted, ended if len(redacted) == len(ended) else None)
        self._present(state, lines, len(done))
        if piece:
            self._print(state, self._leave_prompt(state, piece))
            state.cut, state.shown, state.fixed = True, [], 0

    def _display(self, state: _Stream, redacted: list[str], plain: list[str] | None = None) -> list[str]:
        """Each line as printed: in its colours when it came as text and colours and redaction left it be."""
        if not state.colours:
            return redacted
        plain = plain or redacted
        pairs = zip(redacted, plain, strict=True)
        return [state.colours.get(line, line) if line == clean else line for line, clean in pairs]

    def _present(self, state: _Stream, lines: list[str], done: int) -> None:
        """Print `lines` (the committed ones first, `done` of them) where `state.shown` was printed."""
        old = state.shown
        same = 0
        while same < min(len(old), len(lines)) and old[same] == lines[same]:
            same += 1
        new = lines[same:]
        if same < len(old) and new:  # a line already printed changed
            if self.last is state and same >= state.fixed and not state.cut:
                up = sum(self._height(line) for line in old[same:]) + max(self._height(state.prompt) - 1, 0)
                if up < self.rows:  # still in the window: repainted where it is
                    back = "\r" + (f"\x1b[{up}A" if up else "") + "\x1b[J"
                    state.prompt = ""
                    self._print(state, back + "".join(line + "\n" for line in new))
                    state.shown = lines[done:]
                    return
            state.fixed = same  # printed again below: the lines above stay as they were
        elif not new:
            state.shown, state.fixed = lines[done:], max(state.fixed - done, 0)
            return
        if new:
            first = self._leave_prompt(state, new[0] + "\n")
            self._print(state, first + "".join(line + "\n" for line in new[1:]))
            state.cut = False
        state.shown = lines[done:]
        state.fixed = max(state.fixed - done, 0)

    def _leave_prompt(self, state: _Stream, text: str) -> str:
        """`text` begins a line: after the open line shown before, only what is new in it."""
        prompt, state.prompt = state.prompt, ""
        if not prompt:
            return text
        if self.last is state and text.startswith(prompt):
            return text[len(prompt):]
        if self.last is state:  # the open line was rewritten: painted over
            up = self._height(prompt) - 1
            return "\r" + (f"\x1b[{up}A" if up else "") + "\x1b[J" + text
        return "\n" + text

    def _height(self, line: str) -> int:
        """Rows of the person's screen a printed line takes."""
        if "\x1b" in line:
            line = _SGR.sub("", line)
        if "\t" in line:
            line = line.expandtabs()
        return max(1, -(-cells.width(cells.to_cells(line)) // self.cols))

    # -- the open line ----------------------------------------------------------------------------------

    def _arm(self) -> None:
        self._quiet_at = time.monotonic() + QUIET
        if not self._timer:
            self._timer = True
            signal_mask.start_thread(self._wait)

    def _wait(self) -> None:
        while True:
            with self._lock:
                delay = self._quiet_at - time.monotonic()
                if delay <= 0 or self.finished or self.broken:
                    self._timer = False
                    if not (self.finished or self.broken):
                        self._show_open_lines()
                    return
            time.sleep(delay)

    def _show_open_lines(self) -> None:
        for state in self.streams.values():
            line = state.partial + state.open
            if state.hidden or not line or len(line) > HOLD_CHARS:
                continue
            shown = copy.copy(state.redactor).redact("\n".join([*state.screen, line])).rsplit("\n", 1)[-1]
            if shown == state.prompt:
                continue
            if state.cut and self.last is state:  # the pieces of the line were printed already
                continue
            text = self._leave_prompt(state, shown)
            self._print(state, text)
            state.prompt = shown

    # -- colour -----------------------------------------------------------------------------------------

    def _coloured(self, state: _Stream, data: bytes) -> str:
        """Fed line by line: each line that came as text and colours only is remembered in its colours."""
        committed = []
        for piece in data.splitlines(keepends=True):
            committed.append(state.cleaner.feed(piece))
            if len(state.raw) + len(piece) <= HOLD_CHARS:
                state.raw += piece
            else:
                state.raw = bytearray(b"\x00")  # too long to check: no longer shown in colour
            if piece.endswith(b"\n"):
                raw, state.raw = bytes(state.raw).decode("utf-8", "replace").replace("\r\n", "\n"), bytearray()
                self._remember(state, raw)
        return "".join(committed)

    def _remember(self, state: _Stream, raw: str) -> None:
        before = state.sgr
        codes = _SGR.findall(raw)
        if codes:
            last_reset = max((i for i, code in enumerate(codes) if code in ("\x1b[0m", "\x1b[m")), default=-1)
            state.sgr = (state.sgr if last_reset < 0 else "") + "".join(codes[last_reset + 1:])
            state.sgr = state.sgr[-256:] if len(state.sgr) > 256 else state.sgr
        if not (codes or before) or not _COLOURED_TEXT.fullmatch(raw[:-1]):
            return
        # Keyed by its text: shown so only where the screen read the same text (no tab, no wide character
        # at the edge, nothing written over it since).
        state.colours[_SGR.sub("", raw[:-1])] = f"{before}{raw[:-1]}{_RESET if state.sgr else ''}"
        while len(state.colours) > 2 * self.rows:  # the lines still on a screen, bounded
            del state.colours[next(iter(state.colours))]

    # -- the terminal -----------------------------------------------------------------------------------

    def _follow_size(self, *, init: bool = False) -> None:
        """The person's terminal was resized (the program's follows it): lines are laid out at its new size,
        so a bar redrawn with `\r` at that width shows its last frame, not pieces of every frame."""
        try:
            size = os.get_terminal_size(self.fd)  # an ioctl: a few microseconds a batch
        except OSError:  # not a terminal (a file in tests): the first size stays
            return
        cols, rows = size.columns, size.lines
        if (cols, rows) == (self.cols, self.rows) or cols < 1 or rows < 1:
            return
        self.cols, self.rows = cols, rows
        if init:
            return
        for state in self.streams.values():
            state.cleaner.resize(rows=rows, cols=cols)
            state.fixed = len(state.shown)  # laid out anew by the terminal: not repainted

    def _print(self, state: _Stream, text: str) -> None:
        """Text of `state`'s stream at the bottom of the screen; another stream's open line ends first."""
        if not text:
            return
        for other in self.streams.values():
            if other is not state and (other.prompt or other.cut) and self.last is other:
                text = "\n" + text
                other.prompt, other.cut, other.fixed = "", False, len(other.shown)
            elif other is not state:
                other.fixed = len(other.shown)
        self.last = state
        self._show(text)

    def _show(self, text: str, *, always: bool = False) -> None:
        if not self.shown and (text or always):
            text, self.shown = self.header + text, True
        data = text.encode("utf-8", "replace")
        try:
            while data and not self.broken:
                data = data[os.write(self.fd, data):]
        except OSError:  # the terminal went away: the run goes on, its answer still comes
            self.broken = True
