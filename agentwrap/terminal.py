"""Streaming terminal cleaner: raw pseudo-terminal bytes in, the text a person would see out.

The model is a small screen: a live region of the last `rows` lines, which cursor movement can still
reach; lines that scroll above it are committed and never change again. Plain text, newlines and
colour codes are handled in bulk with C-speed string methods, so clean output streams through fast
and comes out byte-exact.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

from agentwrap.decgraphics import DecGraphics
from agentwrap.lazyre import lazy

# Text mixed with what never changes the screen (SGR colours, charset selection, the CR of CRLF),
# dropped in bulk: the parser itself would read exactly these spans the same way.
_NOOP = lazy(r"\x1b(?:\[[0-9;:]{0,1024}m|[()*+\-./][0-~])")
_RUN = lazy(r"(?:[^\x00-\x08\x0b-\x1f\x7f-\x9f]++|\r(?=\n)|" + _NOOP.pattern + ")*+")
# C0/C1 controls with no meaning here: removed and counted as binary.
_STRAY = lazy(r"[\x00-\x06\x0b\x0c\x0e-\x1a\x1c-\x1f\x80-\x8f\x91-\x97\x99\x9a\x9c]+")
# After the CSI introducer: parameters, private markers, intermediates, then the final byte. The
# bound keeps a sequence that never ends from being buffered without limit.
_CSI_BODY = lazy(r"([\x20-\x3f]{0,1024})([\x40-\x7e])?")
_NF_BODY = lazy(r"[\x20-\x2f]{1,16}([\x30-\x7e])?")  # ESC ( B, ESC # 8, ESC % G ...
_STRING_END = lazy(r"[\x07\x18\x1a\x1b\x9c]")  # BEL, CAN, SUB, ESC (\ = ST), C1 ST
_STRING_ESC = frozenset("]PX^_")  # OSC, DCS, SOS, PM, APC after ESC
_STRING_C1 = frozenset("\x90\x98\x9d\x9e\x9f")
_STRING_CAP = 64 * 1024
_ESC_AS_CSI = {"7": ("", "s"), "8": ("", "u"), "M": ("", "A"), "c": ("2", "J")}  # others: nothing
_ALT_SCREEN = frozenset({"?47", "?1047", "?1049"})
_SPINNERS = frozenset("|/-\\◐◓◑◒◴◷◶◵▖▘▝▗◜◝◞◟◠◡◰◳◲◱✶✸✹✺✻✽·•●○◉◎⊙←↖↑↗→↘↓↙┤┘┴└├┌┬┐▁▂▃▄▅▆▇█")
_LEAD_SPINNER = lazy(r"( *)[\u2800-\u28ff◐◓◑◒◴◷◶◵▖▘▝▗◜◝◞◟◰◳◲◱✶✸✹✺✻✽] +")
_C0 = bytes([*range(9), *range(11, 32), 127])
_LITERAL_FFFD = "\ufffd".encode()


def _is_plain(text: str) -> bool:
    """Whether `text` holds no control character but '\\t' and '\\n' (a C-speed check)."""
    enc = text.encode()
    return len(enc.translate(None, _C0)) == len(enc) and (text.isascii() or b"\xc2" not in enc)


class TerminalCleaner:
    """Turns a stream of terminal output into committed plain text.

    `feed` returns text as it becomes final (whole lines ending in '\\n', or pieces of an overlong
    line); `finish` flushes the rest. Their concatenation does not depend on how the bytes were
    chunked. Lines the screen model rewrote in place (carriage return, backspace, erase, cursor
    movement) lose trailing spaces and spinner frames; other lines pass through exactly.
    `binary_bytes` counts removed NUL and stray C0/C1 controls.
    """

    def __init__(self, *, rows: int = 50, max_line_chars: int = 1 << 20,
                 on_transient: Callable[[str], None] | None = None) -> None:
        if rows < 1 or max_line_chars < 1:
            raise ValueError("rows and max_line_chars must be positive")
        self._rows, self._max, self._on_transient = rows, max_line_chars, on_transient
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._charset = DecGraphics()  # line drawing (`ESC ( 0` then `lqqk`) read as the boxes it draws
        self._tail = b""  # the last bytes fed: a literal U+FFFD may be split across chunks
        self._pending = ""  # an escape sequence cut off by the end of the last chunk
        self._in_string, self._string_len = False, 0
        self._lines: list[str] = [""]
        self._row = self._col = 0
        self._base = 0  # absolute number of the live region's first line
        self._dirty: set[int] = set()  # absolute numbers of lines rewritten in place
        self._moved = False  # the cursor moved since the last write: a write now overwrites
        self._saved = (0, 0)
        self._main: tuple[list[str], int, int, int, set[int]] | None = None  # while on alt screen
        self._out: list[str] = []
        self.invalid_utf8 = 0
        self.binary_bytes = 0

    def feed(self, data: bytes) -> str:
        """Returns newly *committed* text: normally whole lines each ending in '\\n'."""
        text = self._decoder.decode(data)
        if "\ufffd" in text:
            self.invalid_utf8 += text.count("\ufffd") - (self._tail + data).count(_LITERAL_FFFD)
        self._tail = (self._tail + data[-2:])[-2:]
        self._run(self._charset.feed(text))
        return self._take()

    def finish(self) -> str:
        """Flushes everything still held (the live region); the last line may lack '\\n'."""
        text = self._decoder.decode(b"", final=True)
        self.invalid_utf8 += text.count("\ufffd")
        self._run(self._charset.feed(text) + self._charset.flush())
        self._main = None  # ended on the alternate screen: that is what was visible
        kept = [self._final(line, self._base + i) for i, line in enumerate(self._lines)]
        self._emit("".join(k + "\n" for k in kept[:-1] if k is not None) + (kept[-1] or ""))
        self._tail, self._pending, self._in_string = b"", "", False
        self._decoder.reset()
        self._clear()
        return self._take()

    def screen_tail(self, max_lines: int = 5) -> str:
        """The last `max_lines` uncommitted screen lines, up to and including the cursor's line."""
        lines, end = self._lines, len(self._lines)
        while end > self._row + 1 and not lines[end - 1]:
            end -= 1
        return "\n".join(lines[max(0, end - max_lines):end]) if max_lines > 0 else ""

    # -- parsing ----------------------------------------------------------------------------------

    def _run(self, text: str) -> None:
        if self._pending:
            text, self._pending = self._pending + text, ""
        if not self._in_string and _is_plain(text):
            self._write(text)
            return
        i, n = 0, len(text)
        while i < n:
            if self._in_string:
                i = self._skip_string(text, i)
                continue
            m = _RUN.match(text, i)
            j = m.end() if m else i
            if j > i:
                seg = text[i:j]
                seg = _NOOP.sub("", seg) if "\x1b" in seg else seg
                if seg:
                    self._write(seg.replace("\r\n", "\n") if "\r" in seg else seg)
                if j == n:
                    return
            c, i = text[j], j + 1
            if c == "\r" or c == "\x08":
                self._col, self._moved = (0 if c == "\r" else max(0, self._col - 1)), True
            elif c == "\x1b" or c == "\x9b" or c in _STRING_C1:
                i = self._escape(text, j)
                if i < 0:
                    self._pending = text[j:]
                    return
            elif c not in "\x07\x7f":
                stray = _STRAY.match(text, j)
                i = stray.end() if stray else i
                self.binary_bytes += i - j

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
                return -1 if m and m.group(1) is None and end == len(text) else end
            if c != "[" and c not in _STRING_ESC:
                if not "\x30" <= c <= "\x7e":
                    return j + 1  # ESC before a control or non-ASCII character: dropped alone
                if c in "DE":  # index, next line: a '\n' that keeps the column for D
                    col = self._col
                    self._newline()
                    self._col = col if c == "D" else 0
                else:
                    self._csi(*_ESC_AS_CSI.get(c, ("", "~")))
                return k
        if c in "[\x9b":
            m = _CSI_BODY.match(text, k)
            if m is None or m.group(2) is None:  # cut off, or malformed: dropped up to the bad char
                return -1 if m is None or m.end() == len(text) else m.end()
            if m.group(2) != "m":
                self._csi(m.group(1), m.group(2))
            return m.end()
        self._in_string, self._string_len = True, 0
        return k

    def _csi(self, params: str, final: str) -> None:
        if params in _ALT_SCREEN and final in "hl" and (final == "h") == (self._main is None):
            if self._main is None:
                self._main = (self._lines, self._row, self._col, self._base, self._dirty)
                self._lines, self._row, self._col, self._dirty = [""], 0, 0, set()
            else:  # what was drawn on the alternate screen vanishes on exit
                self._lines, self._row, self._col, self._base, self._dirty = self._main
                self._main = None
        if params.strip("0123456789;"):  # private marker or intermediates: modes and queries
            return
        args = [int(p) if p else 0 for p in params.split(";")]
        a, row, col, line = args[0], self._row, self._col, self._lines[self._row]
        n = a or 1
        if final in "ABCDEFGHadef`":
            col2 = (args[1] if len(args) > 1 and args[1] else 1) - 1
            self._move_to(*{"A": (row - n, col), "B": (row + n, col), "e": (row + n, col),
                            "C": (row, col + n), "a": (row, col + n), "D": (row, col - n),
                            "E": (row + n, 0), "F": (row - n, 0), "G": (row, n - 1), "`": (row, n - 1),
                            "H": (n - 1, col2), "f": (n - 1, col2), "d": (n - 1, col)}[final])
        elif final == "K" and a in (0, 1, 2):
            self._replace(row, (line[:col], " " * min(col + 1, len(line)) + line[col + 1:], "")[a])
        elif final == "J" and a == 0:
            self._replace(row, line[:col])
            del self._lines[row + 1:]
            self._dirty = {d for d in self._dirty if d <= self._base + row}
        elif final == "J" and a == 1:
            for r in range(row):
                self._replace(r, "", notify=False)
            self._replace(row, " " * min(col + 1, len(line)) + line[col + 1:])
        elif final == "J" and a in (2, 3):
            self._clear()
        elif final == "P":
            self._replace(row, line[:col] + line[col + n:], notify=False)
        elif final == "X":
            self._replace(row, line[:col] + " " * min(n, len(line) - col) + line[col + n:], notify=False)
        elif final == "@" and col < len(line):
            wider = line[:col] + " " * min(n, self._max) + line[col:]
            self._replace(row, wider[:max(len(line), self._max)], notify=False)
        elif final == "s":
            self._saved = (self._base + row, col)
        elif final == "u":
            self._move_to(self._saved[0] - self._base, self._saved[1])

    # -- screen model -----------------------------------------------------------------------------

    def _write(self, seg: str) -> None:
        if seg[:1] == "\n" and self._row == len(self._lines) - 1:  # e.g. after a CR: the fast path again
            self._newline()
            seg = seg[1:]
        lines, rows = self._lines, self._rows
        last = lines[-1]
        if self._row == len(lines) - 1 and self._col == len(last) and len(last) + len(seg) <= self._max:
            p = seg.rfind("\n")  # appending at the bottom and no line grows too long: in bulk
            if p < 0:
                lines[-1] = last + seg
                self._col, self._moved = len(lines[-1]), False
                return
            bulk = seg.count("\n") >= rows and self._base + len(lines) - 1 not in self._dirty
            for _ in range(rows - 1 if bulk else 0):
                p = seg.rfind("\n", 0, p)
            if bulk:  # all but the last `rows` lines go out untouched
                self._commit_top(len(lines) - 1)
                self._emit(last)
                self._emit(seg[:p + 1])
                self._base += seg.count("\n", 0, p + 1)
                lines = self._lines = seg[p + 1:].split("\n")
            else:
                parts = seg.split("\n")
                lines[-1] = last + parts[0]
                lines.extend(parts[1:])
                self._commit_top(len(lines) - rows)
            self._row, self._col, self._moved = len(lines) - 1, len(lines[-1]), not lines[-1]
            return
        for k, part in enumerate(seg.split("\n")):
            if k:
                self._newline()
            if part:
                self._put(part)

    def _put(self, s: str) -> None:
        row, col = self._row, self._col
        line = self._lines[row]
        if col >= len(line):
            line = line + " " * (col - len(line)) + s
        else:
            if self._moved and self._on_transient is not None:
                self._on_transient(line)
            line = line[:col] + s + line[col + len(s):]
            self._dirty.add(self._base + row)
        self._lines[row], self._col, self._moved = line, col + len(s), False
        if len(line) > self._max:  # commit whole pieces of it; what is left stays editable
            self._commit_top(row)
            cut = (len(line) - 1) // self._max * self._max
            self._emit(line[:cut])
            self._lines[0], self._col = line[cut:], max(0, self._col - cut)

    def _newline(self) -> None:
        self._row, self._col, self._moved = self._row + 1, 0, True
        if self._row == len(self._lines):
            self._lines.append("")
            self._commit_top(len(self._lines) - self._rows)

    def _move_to(self, row: int, col: int) -> None:
        row = min(max(row, 0), self._rows - 1)
        self._lines.extend([""] * (row + 1 - len(self._lines)))
        self._row, self._col, self._moved = row, min(max(col, 0), self._max), True

    def _replace(self, row: int, new: str, *, notify: bool = True) -> None:
        old = self._lines[row]
        if new != old:
            if notify and old and self._on_transient is not None:
                self._on_transient(old)
            self._lines[row] = new
            self._dirty.add(self._base + row)

    def _clear(self) -> None:
        self._base += len(self._lines)
        self._lines, self._row, self._col, self._moved = [""], 0, 0, False
        self._dirty = set()

    # -- output -----------------------------------------------------------------------------------

    def _final(self, line: str, number: int) -> str | None:
        """The committed form of a line: rewritten lines lose padding and spinner frames."""
        if number not in self._dirty:
            return line
        line = line.rstrip(" ")
        glyph = line.strip()
        if len(glyph) == 1 and (glyph in _SPINNERS or "\u2800" <= glyph <= "\u28ff"):
            return None
        m = _LEAD_SPINNER.match(line)
        return m.group(1) + line[m.end():] if m else line

    def _commit_top(self, k: int) -> None:
        if k <= 0:
            return
        top, base = self._lines[:k], self._base
        del self._lines[:k]
        self._row, self._base = self._row - k, base + k
        if self._dirty and min(self._dirty) < base + k:
            kept = (self._final(line, base + i) for i, line in enumerate(top))
            self._emit("".join(line + "\n" for line in kept if line is not None))
            self._dirty = {d for d in self._dirty if d >= base + k}
        else:
            self._emit("\n".join(top) + "\n")

    def _emit(self, text: str) -> None:
        if self._main is None and text:  # the alternate screen never reaches the output
            self._out.append(text)

    def _take(self) -> str:
        out = "".join(self._out)
        self._out.clear()
        return out
