"""The program's output shown to a person while it runs (pretty on a terminal), before the summary.

The runner hands the raw bytes of both streams over in the order they arrived; each stream is cleaned on
a screen one row tall, so a line is final, and shown, as soon as its newline comes (a progress bar's
`\\r` frames end as its last one; what a larger screen would let the program redraw above is shown again
as it is redrawn). Each line is redacted before it is shown, with the run's own secrets, by a redactor
that remembers a private key begun on an earlier line. Memory stays bounded: one row per stream, and a
line that never ends is shown in pieces cut at a blank.

Colour: a line made only of text and SGR codes (colours, bold) is shown with them when the person's
terminal takes colour (stdout a terminal, NO_COLOR unset) and redaction changes nothing in it; any
other line is shown as the cleaned text. The envelope and artifacts never see this view: they come from
the pipeline's own cleaning.
"""

from __future__ import annotations

import os
import re

from agentwrap.redact import Redactor
from agentwrap.terminal import TerminalCleaner

HOLD_CHARS = 1 << 16  # an unfinished line is held up to this long, then shown cut at a blank
HOLD_OVERLAP = 8192  # more than the longest secret the redactor matches (4096 characters)
BINARY_MIN = 32  # as the pipeline judges a stream binary: this many odd bytes, a third of what came
_RESET = "\x1b[0m"
_SGR = re.compile(r"\x1b\[[0-9;:]{0,64}m")
# Text, tabs and SGR codes only: a line that is safe to show with its colours.
_COLOURED_TEXT = re.compile(r"(?:[^\x00-\x08\x0a-\x1f\x7f-\x9f\ufffd]|\x1b\[[0-9;:]{0,64}m)*")


class _Stream:
    def __init__(self, cols: int, secrets: list[str]) -> None:
        self.cleaner = TerminalCleaner(rows=1, cols=cols)
        self.redactor = Redactor(secrets)
        self.partial = ""  # cleaned text of the line not yet ended
        self.raw = bytearray()  # that line's bytes as written, while it may be shown in colour
        self.sgr = ""  # the colour in effect at the start of the next line (codes since the last reset)
        self.received = 0
        self.hidden = False  # binary data: not shown


class LiveView:
    """`output(stream, data)` is the pipeline's tee (called from the runner's worker thread, one call at a
    time); `finish()` shows the unfinished lines once the run has ended. `shown` says whether anything
    (the command line at least) went to the terminal, so the summary that follows does not repeat it."""

    def __init__(self, fd: int, header: str, secrets: list[str], *, cols: int, color: bool) -> None:
        self.fd, self.header, self.color = fd, header, color
        self.cols = cols
        self.streams = {name: _Stream(cols, secrets) for name in ("stdout", "stderr")}
        self.shown = self.broken = False

    def output(self, stream: str, data: bytes) -> None:
        state = self.streams[stream]
        if state.hidden or self.broken:
            return
        self._follow_width()
        state.received += len(data)
        if self.color and (b"\x1b" in data or state.raw):
            shown = self._coloured(state, data)
        else:
            shown = self._plain(state, state.cleaner.feed(data))
        cleaner = state.cleaner
        odd = cleaner.binary_bytes + cleaner.invalid_utf8
        if odd >= BINARY_MIN and 3 * odd >= state.received:  # the batch that shows it is binary is not shown
            state.hidden, state.partial, state.raw = True, "", bytearray()
            shown = f"[agentwrap: {stream} is binary data; not shown]\n"
        self._show(shown)

    def _follow_width(self) -> None:
        """The person's terminal was resized (the program's follows it): lines are cut at its new width, so a
        bar redrawn with `\r` at that width shows its last frame, not pieces of every frame."""
        try:
            cols = os.get_terminal_size(self.fd).columns  # an ioctl: a few microseconds a batch
        except OSError:  # not a terminal (a file in tests): the first width stays
            return
        if cols != self.cols and cols >= 1:
            self.cols = cols
            for state in self.streams.values():
                state.cleaner.resize(rows=1, cols=cols)

    def finish(self) -> None:
        text = []
        for state in self.streams.values():
            if state.hidden:
                continue
            rest = state.partial + state.cleaner.finish()
            state.partial, state.raw = "", bytearray()
            if rest:
                text.append(state.redactor.redact(rest if rest.endswith("\n") else rest + "\n"))
        self._show("".join(text), always=True)

    def _plain(self, state: _Stream, text: str) -> str:
        """Whole lines of `text` (after what the stream held), redacted; the rest is held."""
        text = state.partial + text
        cut = text.rfind("\n") + 1
        if not cut and len(text) > HOLD_CHARS:  # a line that does not end: shown in pieces, cut at a blank
            blank = max(text.rfind(" ", 0, len(text) - HOLD_OVERLAP), text.rfind("\t", 0, len(text) - HOLD_OVERLAP))
            cut = blank + 1 if blank > 0 else len(text) - HOLD_OVERLAP
        state.partial = text[cut:]
        return state.redactor.redact(text[:cut]) if cut else ""

    def _coloured(self, state: _Stream, data: bytes) -> str:
        """Line by line: each line's cleaned text, or its own bytes when they are text and colours only."""
        shown = []
        for piece in data.splitlines(keepends=True):
            ended = piece.endswith(b"\n")
            text = state.cleaner.feed(piece)
            if len(state.raw) + len(piece) <= HOLD_CHARS:
                state.raw += piece
            else:
                state.raw = bytearray(b"\x00")  # too long to check: no longer shown in colour
            if not ended:
                shown.append(self._plain(state, text))
                continue
            line = state.partial + text
            cut = line.rfind("\n") + 1  # a newline inside an unended OSC string ends no line of the screen
            line, state.partial = line[:cut], line[cut:]
            raw, state.raw = bytes(state.raw).decode("utf-8", "replace").replace("\r\n", "\n"), bytearray()
            if line:
                shown.append(self._line(state, line, raw))
        return "".join(shown)

    def _line(self, state: _Stream, line: str, raw: str) -> str:
        clean = state.redactor.redact(line)
        before = state.sgr
        codes = _SGR.findall(raw)
        if codes:
            last_reset = max((i for i, code in enumerate(codes) if code in ("\x1b[0m", "\x1b[m")), default=-1)
            state.sgr = (state.sgr if last_reset < 0 else "") + "".join(codes[last_reset + 1:])
            state.sgr = state.sgr[-256:] if len(state.sgr) > 256 else state.sgr
        if clean != line or not (codes or before) or not _COLOURED_TEXT.fullmatch(raw[:-1]):
            return clean
        if _SGR.sub("", raw) != line:  # the screen read it otherwise (a tab, a wide character at the edge)
            return clean
        return f"{before}{raw[:-1]}{_RESET if state.sgr else ''}\n"  # a colour left on ends with its line

    def _show(self, text: str, *, always: bool = False) -> None:
        if not self.shown and (text or always):
            text, self.shown = self.header + text, True
        data = text.encode("utf-8", "replace")
        try:
            while data and not self.broken:
                data = data[os.write(self.fd, data):]
        except OSError:  # the terminal went away: the run goes on, its answer still comes
            self.broken = True
