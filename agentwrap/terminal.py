"""Streaming terminal cleaner: raw pseudo-terminal bytes in, the text a person would see out.

The parser turns bytes into operations on a `Screen` (agentwrap/screen.py): a window of `rows` x
`cols` cells with a cursor, margins, autowrap, tab stops and an alternate screen. Rows that scroll
off the top are committed and never change again. Plain text, newlines and colour codes are handled
in bulk with C-speed string methods, so clean output streams through fast and comes out byte-exact.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

from agentwrap.cells import DEC_GRAPHICS
from agentwrap.lazyre import lazy
from agentwrap.screen import Screen

# Text mixed with what never changes the screen (SGR colours, G2/G3 charset selection, the CR of CRLF),
# dropped in bulk: the parser itself would read exactly these spans the same way. G0 and G1 selection
# (ESC ( 0, ESC ) 0, ESC ( B) is read by the parser: with SO/SI it switches line drawing on and off.
_NOOP = lazy(r"\x1b(?:\[[0-9;:]{0,1024}m|[*+\-./][0-~])")
_RUN = lazy(r"(?:[^\x00-\x08\x0b-\x1f\x7f-\x9f]++|\r(?=\n)|" + _NOOP.pattern + ")*+")
# C0/C1 controls with no meaning here: removed and counted as binary.
_STRAY = lazy(r"[\x00-\x06\x0b\x0c\x10-\x1a\x1c-\x1f\x80-\x8f\x91-\x97\x99\x9a\x9c]+")
# After the CSI introducer: parameters, private markers, intermediates, then the final byte. The
# bound keeps a sequence that never ends from being buffered without limit; a longer one is dropped whole.
_CSI_BODY = lazy(r"([\x20-\x3f]{0,1024})([\x40-\x7e])?")
_CSI_SKIP = lazy(r"[\x20-\x3f]*")
_NF_BODY = lazy(r"[\x20-\x2f]{1,16}([\x30-\x7e])?")  # ESC ( B, ESC # 8, ESC % G ...
_STRING_END = lazy(r"[\x07\x18\x1a\x1b\x9c]")  # BEL, CAN, SUB, ESC (\ = ST), C1 ST
_STRING_ESC = frozenset("]PX^_")  # OSC, DCS, SOS, PM, APC after ESC
_STRING_C1 = frozenset("\x90\x98\x9d\x9e\x9f")
_STRING_CAP = 64 * 1024
_ALT_SCREEN = frozenset({"?47", "?1047", "?1049"})
_C0 = bytes([*range(9), *range(11, 32), 127])
# A byte of a non-plain character becomes 0, any other 1. \xc2 leads C1 controls (and a few more letters,
# such as "©": those take the general path, which reads them right).
_MARKS = bytes(0 if b in _C0 or b == 0xC2 else 1 for b in range(256))
_LITERAL_FFFD = "\ufffd".encode()


# What the runner tells its sink (Sink.event) when the program's window changed size (SIGWINCH followed):
# {"cols": C, "rows": R}. The sink's cleaners take the new size, as the program's own terminal did.
WINDOW_RESIZED = "window_resized"

_PIECE = 64 * 1024  # bytes fed at a time (a quarter of the runner's batch): they and their copies stay in L2
_MAX_DISTINCT = 8  # distinct colour codes removed by str.replace before the rest goes to one split
_MAX_SKIPPED = 64  # other escapes stepped over on the way (cursor moves: the parser's work anyway)


def _drop_noops(text: str) -> str:
    """`"".join(_NOOP.split(text))`, about twice as fast on coloured text.

    A coloured output repeats a handful of distinct codes millions of times: each is replaced at
    C speed by as many NULs (a replacement of the same length is a copy, not a rebuild), and the
    NULs are deleted at the end in one pass. A code is always replaced where split would drop it
    (a match starts at its ESC and holds no other), and a NUL, unlike the empty string, cannot
    join what surrounds it into a new code. Text holding a NUL itself takes the split.
    """
    if "\x00" in text:
        return "".join(_NOOP.split(text))
    i, distinct, skipped = text.find("\x1b"), 0, 0
    while i >= 0:
        m = _NOOP.match(text, i)
        if m is None:
            skipped += 1
            i = text.find("\x1b", i + 1)
        else:
            code = m.group()
            text = text.replace(code, "\x00" * len(code))
            distinct += 1
            i = text.find("\x1b", i)
        if distinct > _MAX_DISTINCT or skipped > _MAX_SKIPPED:
            text = "".join(_NOOP.split(text))  # the NULs stand where codes were: the same result
            break
    if not distinct:
        return text
    return text.encode("utf-8", "surrogatepass").translate(None, b"\x00").decode("utf-8", "surrogatepass")


def _first_control(enc: bytes) -> int:
    """Where the first control byte is but '\\t' and '\\n' (or \\xc2, a C1 control's UTF-8 lead), or -1."""
    return enc.translate(_MARKS).find(0)


def _is_plain(text: str) -> bool:
    """Whether `text` holds no control character but '\\t' and '\\n' (a C-speed check)."""
    return _first_control(text.encode()) < 0


def _plain_parts(text: str) -> tuple[bool, bool]:
    """Whether `text` is plain (as `_is_plain`) up to its last newline, and whether it is plain whole:
    one C-speed pass for both, where a check of each part would copy the text to cut it first."""
    enc = text.encode()
    bad = _first_control(enc)
    return bad < 0 or bad >= enc.rfind(b"\n") + 1, bad < 0


class TerminalCleaner:
    """Turns a stream of terminal output into committed plain text.

    `feed` returns text as it becomes final (whole lines ending in '\\n', or the head of a line
    longer than the window that has scrolled away); `finish` flushes the rest. Their concatenation
    does not depend on how the bytes were chunked. Lines the screen model rewrote in place (carriage
    return, backspace, erase, cursor movement) lose trailing spaces and spinner frames; other lines
    pass through exactly. `binary_bytes` counts removed NUL and stray C0/C1 controls.
    """

    def __init__(self, *, rows: int = 50, cols: int = 250,
                 on_transient: Callable[[str], None] | None = None) -> None:
        if rows < 1 or cols < 1:
            raise ValueError("rows and cols must be positive")
        self._out: list[str] = []
        self._screen = Screen(rows, cols, self._out.append, on_transient)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail = b""  # the last bytes fed: a literal U+FFFD may be split across chunks
        self._pending = ""  # an escape sequence cut off by the end of the last chunk
        self._in_string, self._string_len = False, 0
        self._skip_csi = False  # inside a CSI longer than the bound: dropped up to its final byte
        self._graphics = False  # the set in use draws lines: letters are DEC Special Graphics
        self._sets = [False, False]  # G0 and G1 are DEC Special Graphics (ESC ( 0, ESC ) 0)
        self._shift = 0  # SO (shift out) selects G1, SI G0
        self.invalid_utf8 = 0
        self.binary_bytes = 0

    def feed(self, data: bytes) -> str:
        """Returns newly *committed* text: normally whole lines each ending in '\\n'."""
        # A big batch goes through in pieces: each pass over a piece (decode, colour codes, the plain check,
        # the screen) finds it in the CPU cache, where the whole batch and its copies would not fit. The
        # text does not depend on how the bytes are cut.
        for start in range(0, max(len(data), 1), _PIECE):  # (b"" too, as before: it re-reads a held escape)
            self._feed(data[start:start + _PIECE] if len(data) > _PIECE else data)
        return self._take()

    def _feed(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if "\ufffd" in text:
            self.invalid_utf8 += text.count("\ufffd") - (self._tail + data).count(_LITERAL_FFFD)
        self._tail = (self._tail + data[-2:])[-2:]
        self._run(text)

    def finish(self) -> str:
        """Flushes everything still held (the screen); the last line may lack '\\n'."""
        text = self._decoder.decode(b"", final=True)
        self.invalid_utf8 += text.count("\ufffd")
        self._run(text)
        self._screen.finish()
        self._tail, self._pending, self._in_string, self._skip_csi = b"", "", False, False
        self._decoder.reset()
        return self._take()

    def resize(self, *, rows: int, cols: int) -> None:
        """The program's window changed size: what it draws from now on is laid out on the new one."""
        if rows < 1 or cols < 1:
            raise ValueError("rows and cols must be positive")
        self._screen.resize(rows, cols)

    def settle(self) -> str:
        """Emits early the lines above the cursor that stopped changing (see Screen.settle): committed text
        that the screen will not emit again unless the program redraws it."""
        self._screen.settle()
        return self._take()

    def pending_lines(self) -> list[str] | None:
        """The lines on screen not yet committed, as `finish` would emit them (the last one still open);
        None while the alternate screen is up."""
        return self._screen.pending()

    def screen_tail(self, max_lines: int = 5) -> str:
        """The last `max_lines` uncommitted screen lines, up to and including the cursor's line."""
        return self._screen.tail(max_lines)

    # -- parsing ----------------------------------------------------------------------------------

    def _write(self, seg: str) -> None:
        if self._graphics:
            seg = seg.translate(DEC_GRAPHICS)
        self._screen.write(seg)

    def _run(self, text: str) -> None:
        if self._pending:
            text, self._pending = self._pending + text, ""
        if not self._in_string and not self._skip_csi:
            # Coloured text, the common case after plain text: colours dropped in C-speed passes
            plain = _drop_noops(text) if "\x1b" in text else text
            if "\r" in plain:
                plain = plain.replace("\r\n", "\n")
            # Whole lines and the unfinished last one apart: a chunk's end often cuts a colour code, and
            # then only that last line needs the parser. (Colour codes never hold a newline, so plain's
            # last newline is the text's.)
            cut = plain.rfind("\n") + 1
            lines_plain, all_plain = _plain_parts(plain)
            if all_plain:
                if plain:
                    self._write(plain)
                return
            if "\r" in plain and not self._graphics and _is_plain(plain.replace("\r", "")):
                self._redraws(plain)  # progress bars: text, newlines and carriage returns only
                return
            if lines_plain and cut:  # as if the chunk had ended after its last newline
                self._write(plain[:cut])
                text = text[text.rfind("\n") + 1:]
        i, n = 0, len(text)
        screen = self._screen
        while i < n:
            if self._in_string:
                i = self._skip_string(text, i)
                continue
            if self._skip_csi:
                i = _CSI_SKIP.match(text, i).end()  # type: ignore[union-attr]
                if i < n:
                    self._skip_csi = False
                    i += "\x40" <= text[i] <= "\x7e"  # its final byte goes with it
                continue
            m = _RUN.match(text, i)
            j = m.end() if m else i
            if j > i:
                seg = text[i:j]
                seg = "".join(_NOOP.split(seg)) if "\x1b" in seg else seg
                if seg:
                    self._write(seg.replace("\r\n", "\n") if "\r" in seg else seg)
                if j == n:
                    return
            c, i = text[j], j + 1
            if c == "\r":
                screen.col, screen.wrapnext, screen.moved = 0, False, True
            elif c == "\x08":
                screen.col, screen.wrapnext, screen.moved = max(0, screen.col - 1), False, True
            elif c == "\x0e" or c == "\x0f":
                self._shift = int(c == "\x0e")
                self._graphics = self._sets[self._shift]
            elif c == "\x1b" or c == "\x9b" or c in _STRING_C1:
                i = self._escape(text, j)
                if i < 0:
                    self._pending = text[j:]
                    return
            elif c not in "\x07\x7f":
                stray = _STRAY.match(text, j)
                i = stray.end() if stray else i
                self.binary_bytes += i - j

    def _redraws(self, text: str) -> None:
        screen = self._screen
        lines = text.split("\n")
        for k, line in enumerate(lines):
            if k:
                screen.newline()
            frames = line.split("\r")
            if frames[0]:
                screen.text(frames[0])
            if len(frames) > 1 and not screen.redraw(frames[1:]):
                for frame in frames[1:]:  # the frames need the whole screen model (wide cells, wrapping)
                    screen.col, screen.wrapnext, screen.moved = 0, False, True
                    if frame:
                        screen.text(frame)

    def _skip_string(self, text: str, i: int) -> int:
        stop = min(len(text), i + _STRING_CAP - self._string_len)
        m = _STRING_END.search(text, i, stop)
        if m is None:
            self._string_len += stop - i
            self._in_string = self._string_len < _STRING_CAP  # past the cap: give up, show the rest
            return stop
        self._in_string = False
        return m.start() if text[m.start()] == "\x1b" else m.end()  # ESC: ST or a new sequence

    def _escape(self, text: str, j: int) -> int:
        """Consumes the sequence at `j`; returns where parsing resumes, or -1 if it is cut off."""
        c, k = text[j], j + 1
        if c == "\x1b":
            if k == len(text):
                return -1
            c, k = text[k], k + 1
            if "\x20" <= c <= "\x2f":
                m = _NF_BODY.match(text, j + 1)
                end = m.end() if m else k
                if m and m.group(1) is None and end == len(text):
                    return -1
                if c in "()" and m and m.group(1) is not None and end == j + 3:
                    self._sets[c == ")"] = m.group(1) == "0"
                    self._graphics = self._sets[self._shift]
                return end
            if c != "[" and c not in _STRING_ESC:
                if not "\x30" <= c <= "\x7e":
                    return j + 1  # ESC before a control or non-ASCII character: dropped alone
                self._esc(c)
                return k
        if c in "[\x9b":
            m = _CSI_BODY.match(text, k)
            if m is None or m.group(2) is None:  # cut off, overlong, or malformed
                if m is None:
                    return k
                if m.end() - k >= 1024:
                    self._skip_csi = True  # an overlong sequence: dropped whole, digits and all
                    return m.end()
                return -1 if m.end() == len(text) else m.end()
            if m.group(2) != "m":
                self._csi(m.group(1), m.group(2))
            return m.end()
        self._in_string, self._string_len = True, 0
        return k

    def _esc(self, c: str) -> None:
        screen = self._screen
        if c == "D":
            screen.linefeed()
        elif c == "E":
            screen.newline()
        elif c == "M":
            screen.reverse_index()
        elif c == "7":
            screen.saved = (screen.row, screen.col)
        elif c == "8":
            screen.move_to(*screen.saved)
        elif c == "H":
            screen.set_tab(None)
        elif c == "c":
            screen.reset()
            self._graphics, self._sets, self._shift = False, [False, False], 0

    def _csi(self, params: str, final: str) -> None:
        screen = self._screen
        if params in _ALT_SCREEN and final in "hl":
            if params == "?1049" and final == "h":
                screen.saved = (screen.row, screen.col)
            screen.alternate(final == "h")
            if params == "?1049" and final == "l":
                screen.move_to(*screen.saved)
            return
        if params == "?7" and final in "hl":
            screen.autowrap = final == "h"
            return
        if params.strip("0123456789;"):  # other private markers or intermediates: modes and queries
            return
        args = [int(p) if p else 0 for p in params.split(";")]
        a = args[0]
        n = a or 1
        row, col = screen.row, screen.col
        if final == "A":
            screen.move_up(n)
        elif final in "Be":
            screen.move_down(n)
        elif final in "Ca":
            screen.move_to(row, col + n)
        elif final == "D":
            screen.move_to(row, col - n)
        elif final == "E":
            screen.move_down(n)
            screen.col = 0
        elif final == "F":
            screen.move_up(n)
            screen.col = 0
        elif final in "G`":
            screen.move_to(row, n - 1)
        elif final in "Hf":
            screen.move_to(n - 1, (args[1] if len(args) > 1 and args[1] else 1) - 1)
        elif final == "d":  # VPA keeps a pending wrap (as tmux does)
            pending = screen.wrapnext
            screen.move_to(n - 1, col)
            screen.wrapnext = pending
        elif final == "K":
            screen.erase_line(a)
        elif final == "J":
            screen.erase_display(a)
        elif final == "P":
            screen.delete_chars(n)
        elif final == "X":
            screen.erase_chars(n)
        elif final == "@":
            screen.insert_chars(n)
        elif final == "L":
            screen.insert_lines(n)
        elif final == "M":
            screen.delete_lines(n)
        elif final == "S":
            screen.scroll_up(n)
        elif final == "T" and len(args) == 1:
            screen.scroll_down(n)
        elif final == "b":
            screen.rep(n)
        elif final == "r":
            screen.set_margins(args[0], args[1] if len(args) > 1 else 0)
        elif final == "g" and a in (0, 3):
            screen.set_tab(a)
        elif final == "s":
            screen.saved = (row, col)
        elif final == "u":
            screen.move_to(*screen.saved)

    # -- output -----------------------------------------------------------------------------------

    def _take(self) -> str:
        out = "".join(self._out)
        self._out.clear()
        return out
