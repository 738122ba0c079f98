"""The screen a program draws on: `rows` x `cols` cells, a cursor, margins, and what scrolled away.

Rows scrolled off the top (of the screen, or of a scroll region) are final: they are emitted and never
change again, so memory stays bounded by the window. A row is materialised only when written to or
reached by a line feed, so a cursor parked far down (a size probe) adds no blank lines. Rows only ever
appended to come out byte-exact (tabs and trailing spaces kept); rows rewritten in place come out as a
person sees them: trailing blanks dropped, spinner frames gone. `settle` emits ended rows above the cursor
before they scroll away, once they stop changing (live `--format jsonl` events), and marks them emitted.
"""

from __future__ import annotations

from collections.abc import Callable

from agentwrap import cells
from agentwrap.cells import FILL
from agentwrap.lazyre import lazy

DIRTY, WRAP, SPUN = 1, 2, 4  # row flags: rewritten in place; continues on the next row; was a spinner
SERIAL = 8  # flags >> SERIAL: the row's number for `settle` (0: none), which moves with the row
_SPINNERS = frozenset("|/-\\◐◓◑◒◴◷◶◵▖▘▝▗◜◝◞◟◠◡◰◳◲◱✶✸✹✺✻✽·•●○◉◎⊙←↖↑↗→↘↓↙┤┘┴└├┌┬┐▁▂▃▄▅▆▇█")
_TAB_CELLS = lazy("\t\x00*")
_LEAD_SPINNER = frozenset("◐◓◑◒◴◷◶◵▖▘▝▗◜◝◞◟◰◳◲◱✶✸✹✺✻✽")


def _tabs_to_spaces(part: str) -> str:
    """Cells that shift sideways: a kept tab would expand differently at its new column."""
    return _TAB_CELLS.sub(lambda m: " " * len(m.group()), part) if "\t" in part else part


def _is_spinner(text: str) -> bool:
    glyph = text.strip()
    return len(glyph) == 1 and (glyph in _SPINNERS or "\u2800" <= glyph <= "\u28ff")


def _animates(old: str, new: str) -> bool:
    """One spinner glyph replaced by another: a frame of an animation, not text."""
    return _is_spinner(old) and (_is_spinner(new) or not new.strip()) and old.strip() != new.strip()


def _strip_lead_spinner(line: str) -> str:
    body = line.lstrip(" ")
    if len(body) > 1 and body[1] == " " and (body[0] in _LEAD_SPINNER or "\u2800" <= body[0] <= "\u28ff"):
        return line[:len(line) - len(body)] + body[1:].lstrip(" ")
    return line


class Screen:
    """A VT-style screen; the parser calls its operations, `emit` receives the committed text."""

    def __init__(self, rows: int, cols: int, emit: Callable[[str], None],
                 on_transient: Callable[[str], None] | None) -> None:
        self.rows, self.cols = rows, cols
        self._emit_out, self.on_transient = emit, on_transient
        self.lines: list[str] = [""]
        self.flags: list[int] = [0]
        self.row = self.col = 0
        self.wrapnext = False  # the last column was written: the next character wraps first
        self.moved = False  # the cursor moved since the last write: a write now overwrites
        self.top, self.bottom = 0, rows - 1
        self.autowrap = True
        self.tabs: list[int] | None = None  # None: a stop every 8 columns
        self.saved = (0, 0)
        self.last = ""  # the last graphic character written, for REP
        self.main: tuple[list[str], list[int], int, int] | None = None  # the main screen, while on the alternate
        self._cont = False  # the last row committed (above the screen) wrapped: the next one continues its line
        # `settle`: what each numbered row emitted before it left the screen, and what it showed when last seen
        self._serial = 0
        self._sent: dict[int, str] = {}
        self._seen: dict[int, str] = {}

    # -- writing ------------------------------------------------------------------------------------

    def write(self, seg: str) -> None:
        """Printable text, tabs and newlines (each a CR + LF) at the cursor."""
        f = seg.find("\n")
        if f < 0:
            self.text(seg)
            return
        if f:
            self.text(seg[:f])
        self.newline()
        rest = seg[f + 1:]
        cut = self._cut_above_last_rows(rest) if self._at_plain_bottom() else -1
        if cut >= 0:
            # All but the last `rows` lines scroll away untouched: they go out exactly as written.
            self._commit_top(len(self.lines) - 1)
            self._emit(rest[:cut + 1])
            rest = rest[cut + 1:]
        parts = rest.split("\n")
        if (len(parts) > 1 and rest.isascii() and "\t" not in rest and self._at_plain_bottom()
                and not any(self.flags) and max(map(len, parts)) < self.cols):
            # Short ASCII lines below rows nothing rewrote: they only scroll the screen up.
            full = self.lines[:-1] + parts[:-1]
            gone = len(full) - (self.rows - 1)
            if gone > 0:
                text = "\n".join(full[:gone]) + "\n"
                self._emit(text.replace(FILL, "") if FILL in text else text)
                self._cont = False
                del full[:gone]
            full.append(parts[-1])
            self.lines, self.flags = full, [0] * len(full)
            self.row, self.col, self.moved = len(full) - 1, len(parts[-1]), not parts[-1]
            return
        for part in parts[:-1]:
            if part:
                self.text(part)
            self.newline()
        if parts[-1]:
            self.text(parts[-1])

    def _cut_above_last_rows(self, text: str) -> int:
        """Where the newline before the last `rows` lines of `text` is, or -1 when it has fewer newlines
        than `rows`: found from the end, so a batch of a million lines costs no pass to count them."""
        cut = len(text)
        for _ in range(self.rows):
            cut = text.rfind("\n", 0, cut)
            if cut < 0:
                return -1
        return cut

    def _at_plain_bottom(self) -> bool:
        return (self.row == len(self.lines) - 1 and not self.lines[-1] and self.top == 0
                and self.bottom == self.rows - 1 and self.main is None)

    def text(self, s: str) -> None:
        """Printable text and tabs at the cursor."""
        if "\t" not in s:
            self.put(s)
            return
        for k, piece in enumerate(s.split("\t")):
            if k:
                self.tab()
            if piece:
                self.put(piece)

    def put(self, s: str) -> None:
        """Printable characters (no tab) at the cursor, wrapping at the right margin."""
        if not s:
            return
        row = self.row
        line = self.lines[row] if row < len(self.lines) else ""
        if (s.isascii() and not self.wrapnext and self.col == len(line) and self.col + len(s) < self.cols
                and row < len(self.lines) and not cells.has_zero_width(line)):
            self.lines[row] = line + s  # the common case: appending a short ASCII run
            self.col += len(s)
            self.moved = False
            self.last = s[-1]
            return
        s = cells.to_cells(s)
        if not self.autowrap and len(s) > self.cols:
            s = s[-self.cols:]
        while s:
            if self.wrapnext:
                marks, _, rest = cells.split(s, 0)
                if marks:  # combining marks of the last cell written: no wrap for them
                    line = self.lines[self.row]
                    i = cells.index(line, self.cols)
                    self.lines[self.row] = line[:i] + marks + line[i:]
                    self.last += marks if self.last else ""  # REP repeats the cell with its marks
                    s = rest
                    continue
                self.wrapnext = False
                if self.autowrap:
                    self._materialise(self.row)
                    self.flags[self.row] |= WRAP
                    self.col = 0
                    self.linefeed()
            head, w, rest = cells.split(s, self.cols - self.col)
            if not head:  # a wide character that does not fit the last column
                if self.autowrap and self.cols >= 2:
                    self.wrapnext = True  # it goes to the next row
                    continue
                head, w, rest = s[:2], 2, s[2:]  # no room anywhere: it takes the last column alone
            s = rest
            self._overwrite(head, w)
            if w:
                self.last = cells.last_cell(head)
                self.col += w
                if self.col >= self.cols:
                    self.col, self.wrapnext = self.cols - 1, True
            elif self.last:
                self.last += head  # marks for the cell written before (fed apart from it): as if fed with it

    def _overwrite(self, s: str, w: int) -> None:
        row, col = self.row, self.col
        self._materialise(row)
        line = self.lines[row]
        lw = cells.width(line)
        if col >= lw:
            self.lines[row] = line + " " * (col - lw) + s
            self.moved = False
            return
        if self.moved:
            self._transient(line)
        i, j = cells.index(line, col), cells.index(line, col + w)
        left, right = line[:i], line[j:]
        if line[i:i + 1] == FILL:  # starts on the second half of a wide character or tab: that one is blanked
            k = i
            while k > 0 and left[k - 1] == FILL:
                k -= 1
            left = left[:max(k - 1, 0)] + " " * (i - k + 1)
        if right[:1] == FILL:  # ends on the first half of one: its other cells are blank now
            rest = right.lstrip(FILL)
            right = " " * (len(right) - len(rest)) + rest
        new = left + s + right
        self.lines[row] = new
        self.flags[row] |= DIRTY | (SPUN if _animates(line, new) else 0)
        self.moved = False

    def _transient(self, line: str) -> None:
        """The state a rewrite is about to replace: a progress frame, told to the callback."""
        if self.on_transient is not None and line:
            self.on_transient(line.replace(FILL, ""))

    def redraw(self, frames: list[str]) -> bool:
        """Each frame after a carriage return, in one pass: what a progress bar's redraws leave on a
        row whose cells and frames are all one column wide and shorter than the row. False: not such."""
        row = self.row
        if row >= len(self.lines):
            return False
        state = self.lines[row]
        if not state.isascii() or FILL in state or "\t" in state:
            return False
        if any(not f.isascii() or "\t" in f or len(f) >= self.cols for f in frames):
            return False
        flags = self.flags[row]
        for frame in frames:
            if not frame:
                continue
            if state:
                if self.on_transient is not None:
                    self.on_transient(state)
                new = frame + state[len(frame):]
                flags |= DIRTY | (SPUN if _animates(state, new) else 0)
                state = new
            else:
                state = frame
        self.lines[row], self.flags[row] = state, flags
        # the cursor is after the last frame (at column 0 after a final carriage return)
        self.col, self.wrapnext, self.moved = len(frames[-1]), False, not frames[-1]
        written = next((f for f in reversed(frames) if f), "")
        if written:
            self.last = written[-1]
        return True

    def rep(self, n: int) -> None:
        if self.last:
            self.put(self.last * min(n, self.rows * self.cols))

    def tab(self) -> None:
        self.wrapnext = False
        col = self.col
        if self.tabs is None:
            stop = min((col // 8 + 1) * 8, self.cols - 1)
        else:
            stop = next((t for t in self.tabs if t > col), self.cols - 1)
        if stop <= col:
            return
        if self.row < len(self.lines) and col == cells.width(self.lines[self.row]) and self.tabs is None:
            self.lines[self.row] += "\t" + FILL * (stop - col - 1)  # kept as a tab while nothing overwrites it
        self.col = stop

    # -- line feeds and scrolling -------------------------------------------------------------------

    def newline(self) -> None:
        self.col, self.wrapnext = 0, False
        self.linefeed()

    def linefeed(self) -> None:
        """IND: down one row in the same column (a pending wrap stays pending, as in tmux and pyte)."""
        self.moved = True
        if self.row == self.bottom:
            self.scroll_up(1)
        elif self.row < self.rows - 1:
            self.row += 1
            if self.row >= len(self.lines):
                self._materialise(self.row)

    def reverse_index(self) -> None:
        self.moved = True
        if self.row == self.top:
            self.scroll_down(1)
        elif self.row > 0:
            self.row -= 1

    def scroll_up(self, n: int) -> None:
        """The region's top `n` rows scroll away (committed); blank rows enter at its bottom."""
        n = min(n, self.bottom - self.top + 1)
        self._materialise(self.bottom)
        if self.top == 0 and self.bottom == len(self.lines) - 1:
            row = self.row  # scrolling never moves the cursor
            self._commit_top(n)
            self.lines.extend([""] * n)
            self.flags.extend([0] * n)
            self.row = row
            return
        if self.top:  # the row above the region no longer continues into the row that scrolled away
            self.flags[self.top - 1] &= ~WRAP
        for i in range(n):
            flags = self.flags.pop(self.top)
            if self.top and i == n - 1:  # it continued into a row still on screen, below the rows above the
                flags &= ~WRAP  # region that are emitted before it: the line that scrolled away ends here
            self._emit_row(self.lines.pop(self.top), flags)
            self.lines.insert(self.bottom, "")
            self.flags.insert(self.bottom, 0)

    def scroll_down(self, n: int) -> None:
        n = min(n, self.bottom - self.top + 1)
        self._materialise(self.bottom)
        del self.lines[self.bottom - n + 1:self.bottom + 1]
        del self.flags[self.bottom - n + 1:self.bottom + 1]
        if self.top:  # blank rows now follow the row above the region: it no longer continues
            self.flags[self.top - 1] &= ~WRAP
        self.lines[self.top:self.top] = [""] * n
        self.flags[self.top:self.top] = [DIRTY] * n

    def _unwrap_above(self) -> None:
        """Rows moved under a wrapped row no longer continue its line."""
        if 0 < self.row <= len(self.flags):
            self.flags[self.row - 1] &= ~WRAP
        elif self.row == 0 and self._cont:  # the row above is already emitted: end its line there
            self._emit("\n")
            self._cont = False

    def insert_lines(self, n: int) -> None:
        if self.top <= self.row <= self.bottom:
            self._unwrap_above()
            top, self.top = self.top, self.row
            self.scroll_down(n)
            self.top, self.col, self.wrapnext = top, 0, False

    def delete_lines(self, n: int) -> None:
        if self.top <= self.row <= self.bottom:
            self._unwrap_above()
            n = min(n, self.bottom - self.row + 1)
            self._materialise(self.bottom)
            del self.lines[self.row:self.row + n]
            del self.flags[self.row:self.row + n]
            self.lines[self.bottom - n + 1:self.bottom - n + 1] = [""] * n
            self.flags[self.bottom - n + 1:self.bottom - n + 1] = [DIRTY] * n
            self.col, self.wrapnext = 0, False

    # -- cursor -------------------------------------------------------------------------------------

    def move_to(self, row: int, col: int) -> None:
        self.row = min(max(row, 0), self.rows - 1)
        self.col = min(max(col, 0), self.cols - 1)
        self.wrapnext, self.moved = False, True

    def move_up(self, n: int) -> None:
        floor = self.top if self.row >= self.top else 0
        self.move_to(max(self.row - n, floor), self.col)

    def move_down(self, n: int) -> None:
        ceiling = self.bottom if self.row <= self.bottom else self.rows - 1
        self.move_to(min(self.row + n, ceiling), self.col)

    def set_margins(self, top: int, bottom: int) -> None:
        top, bottom = max(top, 1) - 1, min(bottom or self.rows, self.rows) - 1
        if top < bottom:
            self.top, self.bottom = top, bottom
            self.move_to(0, 0)

    def set_tab(self, clear: int | None) -> None:
        """HTS (clear None) or TBC 0 / 3."""
        stops = set(range(8, self.cols, 8)) if self.tabs is None else set(self.tabs)
        if clear is None:
            stops.add(self.col)
        elif clear == 0:
            stops.discard(self.col)
        elif clear == 3:
            stops.clear()
        self.tabs = sorted(stops)

    # -- erasing ------------------------------------------------------------------------------------

    def _edit(self, row: int, new: str) -> None:
        if row >= len(self.lines):
            return
        old = self.lines[row]
        if new != old:
            if row == self.row:
                self._transient(old)
            self.lines[row] = new
            self.flags[row] |= DIRTY | (SPUN if _animates(old, new) else 0)

    def _blank_from(self, line: str, col: int) -> str:
        """`line` without its cells from `col` on; a wide character whose second half is at `col`
        stays whole (as tmux and pyte draw it)."""
        i = cells.index(line, col)
        if line[i:i + 1] != FILL:
            return line[:i]
        start = len(line[:i].rstrip(FILL))  # the tab or wide character whose cells `col` is in
        if line[start - 1:start] == "\t":  # a tab cut short is the blanks it drew up to `col`
            return line[:start - 1] + " " * (i - start + 1)
        return line[:i + 1]

    def _blank_to(self, line: str, col: int) -> str:
        """`line` with cells 0..col blank."""
        right = line[cells.index(line, col + 1):]
        rest = right.lstrip(FILL)
        return " " * min(col + 1, cells.width(line)) + " " * (len(right) - len(rest)) + rest

    def _ecol(self) -> int:
        """The cursor's column for erasing: past the last one while a wrap is pending (as tmux and pyte)."""
        return self.cols if self.wrapnext else self.col

    def erase_line(self, mode: int) -> None:
        if self.row >= len(self.lines):
            return
        line, col = self.lines[self.row], self._ecol()
        if mode == 2 or (mode == 0 and col < self.cols):
            self.flags[self.row] &= ~WRAP  # its last cell is blank now: the line ends here
        if mode == 0:
            self._edit(self.row, self._blank_from(line, col))
        elif mode == 1:
            self._edit(self.row, self._blank_to(line, col))
        elif mode == 2:
            self._edit(self.row, "")

    def erase_display(self, mode: int) -> None:
        if mode == 0:
            self.erase_line(0)
            del self.lines[self.row + 1:]
            del self.flags[self.row + 1:]
        elif mode == 1:
            for r in range(min(self.row, len(self.lines))):
                self.lines[r], self.flags[r] = "", DIRTY
            self.erase_line(1)
        elif mode == 2:  # the screen is cleared, not scrolled away: what it showed is gone
            self.lines, self.flags = [""], [0]
        # mode 3 clears the scrollback only: what scrolled away has been emitted, the screen stays

    def delete_chars(self, n: int) -> None:
        if self.row < len(self.lines) and not self.wrapnext:
            line = self.lines[self.row]
            left = self._blank_from(line, self.col)
            right = line[cells.index(line, self.col + n):]
            rest = _tabs_to_spaces(right.lstrip(FILL))
            self._edit_quiet(left + " " * (len(right) - len(rest)) + rest)

    def erase_chars(self, n: int) -> None:
        if self.row < len(self.lines) and not self.wrapnext:
            line = self.lines[self.row]
            if self.col < cells.width(line):
                n = min(n, cells.width(line) - self.col)
                left = self._blank_from(line, self.col)
                right = line[cells.index(line, self.col + n):]
                rest = right.lstrip(FILL)
                self._edit_quiet(left + " " * (n + len(right) - len(rest)) + rest)

    def insert_chars(self, n: int) -> None:
        if self.row < len(self.lines) and not self.wrapnext:
            line = self.lines[self.row]
            if self.col < cells.width(line):
                i = cells.index(line, self.col)
                wider = line[:i] + " " * min(n, self.cols) + _tabs_to_spaces(line[i:])
                self._edit_quiet(wider[:cells.index(wider, self.cols)])

    def _edit_quiet(self, new: str) -> None:
        if new != self.lines[self.row]:
            self.lines[self.row] = new
            self.flags[self.row] |= DIRTY

    def reset(self) -> None:
        """RIS: a fresh screen (what it showed is gone)."""
        self.lines, self.flags = [""], [0]
        self.top, self.bottom, self.autowrap, self.tabs = 0, self.rows - 1, True, None
        self.move_to(0, 0)
        self.moved = False

    def resize(self, rows: int, cols: int) -> None:
        """The window changed size (SIGWINCH), as a terminal without reflow takes it: rows keep their cells,
        the cursor stays within the new size, the scroll region is the whole window again, and the top rows
        that no longer fit scroll away (committed: no text is lost to a smaller window)."""
        self.rows, self.cols = rows, cols
        self.top, self.bottom = 0, rows - 1
        if len(self.lines) > rows and self.main is None:
            self._commit_top(len(self.lines) - rows)
        elif len(self.lines) > rows:  # the alternate screen's rows are never output: the bottom ones just go
            del self.lines[rows:], self.flags[rows:]
        self.row = min(self.row, rows - 1)
        if self.col >= cols:
            self.col, self.wrapnext = cols - 1, False
        elif self.wrapnext and self.col < cols - 1:  # the last column is no longer the last: no wrap pending
            self.col, self.wrapnext = self.col + 1, False
        self.saved = (min(self.saved[0], rows - 1), min(self.saved[1], cols - 1))

    # -- alternate screen ---------------------------------------------------------------------------

    def alternate(self, on: bool) -> None:
        if on and self.main is None:
            self.main = (self.lines, self.flags, self.row, self.col)
            self.lines, self.flags = [""], [0]
        elif not on and self.main is not None:  # what was drawn on the alternate screen vanishes
            self.lines, self.flags, self.row, self.col = self.main
            self.main = None
            self.wrapnext = False

    # -- output -------------------------------------------------------------------------------------

    def _materialise(self, row: int) -> None:
        if row >= len(self.lines):
            k = row + 1 - len(self.lines)
            self.lines.extend([""] * k)
            self.flags.extend([0] * k)

    def _final(self, line: str, flags: int, cont: bool) -> str | None:
        """The committed form of a row: rewritten rows lose padding and spinner frames."""
        if flags & WRAP:  # a row its line continues from: blank cells are part of it, unless the one
            gap = self.cols - cells.width(line)  # a wide character left when it did not fit
            if gap > 1 or (gap and flags & DIRTY):
                line += " " * gap
        if FILL in line:
            line = line.replace(FILL, "")
        if flags & WRAP:
            return line
        if not flags & DIRTY:
            return line
        line = line.rstrip(" ")
        if cont:
            return line
        if flags & SPUN and _is_spinner(line):
            return None
        return _strip_lead_spinner(line)

    def _row_out(self, line: str, flags: int, cont: bool) -> str | None:
        """What committing a row emits, after a row that wrapped (`cont`) or not; None: nothing."""
        text = self._final(line, flags, cont)
        if text == "" and cont and flags & DIRTY:
            text = "\n"  # a continuation row erased: the screen shows an empty row there
        if text is None or flags & WRAP:
            return text
        return text + "\n"

    def _emit_row(self, line: str, flags: int) -> None:
        out = self._row_out(line, flags, self._cont)
        self._cont = bool(flags & WRAP)
        if flags >> SERIAL and self._was_sent(flags >> SERIAL, out):
            return
        if out is not None:
            self._emit(out)

    def _was_sent(self, serial: int, out: str | None) -> bool:
        """Whether `settle` emitted this numbered row as it is now (forgotten: it leaves the screen)."""
        self._seen.pop(serial, None)
        return self._sent.pop(serial, None) == (out or "")

    def settle(self) -> None:
        """Emits, early, the lines above the cursor's row that have not changed since the last call: a log
        of the screen for readers who cannot wait until a row scrolls away (`--format jsonl`).

        Lines go out whole and in order from the top; one still changing (or still going on at the cursor's
        row) holds those below it. Each row is numbered and remembered as emitted: when it leaves the screen
        (scrolled away or at `finish`) unchanged it is not emitted again; redrawn since, its new state is
        emitted then, or here once it stops changing, as new text (as a log shows a redraw)."""
        if self.main is not None:  # the alternate screen never reaches the output
            return
        lines, flags = self.lines, self.flags
        limit, cont, k, held = min(self.row, len(lines)), self._cont, 0, False
        while k < limit:
            end = k
            while end < limit and flags[end] & WRAP:
                end += 1
            if end >= limit:  # the line goes on at the cursor's row
                break
            outs, fresh, stable = [], False, True
            for r in range(k, end + 1):
                serial = flags[r] >> SERIAL
                if not serial:
                    self._serial += 1
                    serial = self._serial
                    flags[r] |= serial << SERIAL
                out = self._row_out(lines[r], flags[r], cont) or ""
                cont = bool(flags[r] & WRAP)
                outs.append((serial, out))
                if self._sent.get(serial) != out:
                    fresh = True
                    if self._seen.get(serial) != out:
                        self._seen[serial] = out
                        stable = False
            held = held or (fresh and not stable)  # the lines below are only looked at
            if fresh and not held:
                for serial, out in outs:
                    self._sent[serial] = out
                    self._seen.pop(serial, None)
                self._emit("".join(out for _, out in outs))
            k = end + 1
        if len(self._sent) + len(self._seen) > 2 * self.rows + 16:  # rows erased or deleted, never committed
            alive = {f >> SERIAL for f in flags}
            self._sent = {s: t for s, t in self._sent.items() if s in alive}
            self._seen = {s: t for s, t in self._seen.items() if s in alive}

    def _commit_top(self, k: int) -> None:
        if k <= 0:
            return
        top, flags = self.lines[:k], self.flags[:k]
        del self.lines[:k], self.flags[:k]
        self.row = max(self.row - k, 0)
        if any(flags):
            for line, f in zip(top, flags, strict=True):
                self._emit_row(line, f)
        else:
            text = "\n".join(top) + "\n"
            self._emit(text.replace(FILL, "") if FILL in text else text)
            self._cont = False

    def _emit(self, text: str) -> None:
        if self.main is None and text:  # the alternate screen never reaches the output
            self._emit_out(text)

    def finish(self) -> None:
        """Emits the rows still on screen; the last one without its newline."""
        self.main = None  # ended on the alternate screen: that is what was visible
        end = len(self.lines)
        while end > self.row + 1 and not self.lines[end - 1] and self.flags[end - 1] & DIRTY:
            end -= 1  # blanked by an erase or a scroll, not ended by a newline of the program
        for line, f in zip(self.lines[:end - 1], self.flags[:end - 1], strict=True):
            self._emit_row(line, f)
        flags = self.flags[end - 1] & ~WRAP
        last = self._final(self.lines[end - 1], flags, self._cont)
        if not (flags >> SERIAL and self._was_sent(flags >> SERIAL, f"{last or ''}\n")):
            self._emit(last or "")
        self.lines, self.flags, self._cont = [""], [0], False
        self._sent.clear()
        self._seen.clear()
        self.row = self.col = 0

    def pending(self) -> list[str] | None:
        """The lines `finish` would emit now (rows a line wrapped across joined into it), the last one the
        line still open; None on the alternate screen, whose rows never reach the output. Nothing changes:
        the live view reads it after each batch to show, and redraw, the rows still on screen."""
        if self.main is not None:
            return None
        end = len(self.lines)
        while end > self.row + 1 and not self.lines[end - 1] and self.flags[end - 1] & DIRTY:
            end -= 1
        out, line = [], ""
        for k in range(end):
            flags = self.flags[k] if k < end - 1 else self.flags[k] & ~WRAP
            text = self._final(self.lines[k], flags, self._cont)
            if text is None:  # a spinner's frame: committed as nothing
                continue
            line += text
            if not flags & WRAP:
                out.append(line)
                line = ""
        return out or [""]

    def tail(self, max_lines: int) -> str:
        """The last `max_lines` rows up to and including the cursor's."""
        lines, end = self.lines, len(self.lines)
        while end > self.row + 1 and not lines[end - 1]:
            end -= 1
        shown = [line.replace(FILL, "") for line in lines[max(0, end - max_lines):end]]
        return "\n".join(shown) if max_lines > 0 else ""
