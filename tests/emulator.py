"""A terminal emulator nobody here wrote (pyte) as the oracle for the cleaner, and tmux as referee.

`pyte_text` is what a person saw: the lines that scrolled off the top, then the final screen, each
row without its trailing blanks, trailing empty rows dropped. `rows_of` lays agentwrap's logical
lines out in rows of the window, so both sides are compared row by row.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import tempfile
import time
import unicodedata
from pathlib import Path

import pyte
from wcwidth import wcwidth

from agentwrap.terminal import TerminalCleaner


def _row(line: object, cols: int) -> str:
    """A row as drawn. pyte keeps the second cell of a wide character as "" and renders it as nothing;
    once the wide character is erased, that cell is a blank on a real screen (tmux shows a space)."""
    out, prev = [], " "
    for x in range(cols):
        data = line[x].data  # type: ignore[index]
        out.append(data if data or wcwidth(prev[:1] or " ") == 2 else " ")
        prev = data
    return "".join(out).rstrip()


class _Screen(pyte.HistoryScreen):  # type: ignore[misc]
    def delete_lines(self, count: int | None = None) -> None:
        """pyte 0.8 keeps the cursor's row when the rows below it were never written (it moves up only
        rows present in its sparse buffer); DL deletes it (VT100 and tmux): make every row present."""
        for y in range(self.lines):
            _ = self.buffer[y]
        super().delete_lines(count)


    def restore_cursor(self) -> None:
        """pyte 0.8 pops the saved cursor (a second DECRC goes home) and moves it into the scroll region;
        xterm and tmux restore the one saved state as it was, as often as asked."""
        saved = self.savepoints[-1] if self.savepoints else None
        cursor = copy.copy(saved.cursor) if saved is not None else None  # before pyte moves it
        super().restore_cursor()
        if saved is not None and cursor is not None:
            self.savepoints.append(saved._replace(cursor=copy.copy(cursor)))  # kept for the next DECRC
            self.cursor = cursor
            self.ensure_hbounds()
            self.ensure_vbounds()  # within the screen, or the region only in origin mode

    def draw(self, data: str) -> None:
        """pyte 0.8 puts a wide character that reaches the right margin in the last column, its second
        half off the screen; xterm and tmux leave that column as it is and wrap the character."""
        # (each case checked with tests/emulator.py's tmux_rows)
        if data.isascii() and not any(c.data == "" for c in self.buffer[self.cursor.y].values()):
            super().draw(data)
            return
        for ch in data:
            if unicodedata.combining(ch) and self.cursor.x == self.columns:
                # pyte wraps before a combining mark at the margin; tmux puts it on the last cell
                line = self.buffer[self.cursor.y]
                last = line[self.columns - 1]
                line[self.columns - 1] = last._replace(data=unicodedata.normalize("NFC", last.data + ch))
                continue
            x, line = self.cursor.x, self.buffer[self.cursor.y]
            if 0 < x < self.columns and line[x].data == "" and wcwidth((line[x - 1].data or " ")[0]) == 2:
                # pyte overwrites only the second half of a wide character, which stays drawn; xterm
                # blanks the character (overwriting either half of one erases it)
                line[x - 1] = line[x - 1]._replace(data=" ")
            if x < self.columns - 1 and wcwidth(ch) == 1 and wcwidth((line[x].data or " ")[0]) == 2:
                line[x + 1] = line[x + 1]._replace(data=" ")
            if wcwidth(ch) == 2 and self.cursor.x == self.columns - 1 and pyte.modes.DECAWM in self.mode:
                self.cursor.x = self.columns  # the last cell keeps what it shows, the character wraps
            super().draw(ch)

    def _unpend(self) -> None:
        if self.cursor.x == self.columns:
            self.cursor.x = self.columns - 1

    # pyte 0.8 keeps a pending wrap across CUU/CUD (the next character then wraps); tmux and xterm end
    # it: the character lands in the last column of the new row. IND and RI keep it, in tmux too.

    def cursor_down(self, count: int | None = None) -> None:
        if not self._indexing:  # IND keeps the pending wrap, in tmux too
            self._unpend()
        bottom = self.margins.bottom if self.margins else self.lines - 1
        if self.cursor.y > bottom:  # below the region: xterm stops at the last row
            self.cursor.y = min(self.cursor.y + (count or 1), self.lines - 1)
            return
        super().cursor_down(count)

    _indexing = False

    def index(self) -> None:
        self._indexing = True
        try:
            super().index()
        finally:
            self._indexing = False

    def reverse_index(self) -> None:
        self._indexing = True
        try:
            super().reverse_index()
        finally:
            self._indexing = False

    def cursor_up(self, count: int | None = None) -> None:
        if not self._indexing:
            self._unpend()
        top = self.margins.top if self.margins else 0
        if self.cursor.y < top:  # pyte pulls a cursor above the region into it; xterm stops at row 0
            self.cursor.y = max(self.cursor.y - (count or 1), 0)
            return
        pyte.HistoryScreen.cursor_up(self, count)

    def set_margins(self, top: int | None = None, bottom: int | None = None) -> None:
        """A 0 parameter is the default (ECMA-48): `CSI 0;0 r` is the whole screen, and homes the cursor."""
        super().set_margins(top or None, bottom or None)
        if not top and not bottom:
            self.cursor_position()

    def insert_characters(self, count: int | None = None) -> None:
        """pyte 0.8 keeps a pushed cell in the column past the right margin, where a later DCH finds it
        again; the VT100 (and tmux) lose it."""
        super().insert_characters(count)
        line = self.buffer[self.cursor.y]
        for x in [x for x in line if x >= self.columns]:
            line.pop(x)


def pyte_rows(data: bytes, rows: int, cols: int) -> list[str]:
    screen = _Screen(cols, rows, history=1_000_000)
    screen.set_mode(pyte.modes.LNM)  # our terminal has ONLCR off: '\n' is a new line, as printed
    pyte.ByteStream(screen).feed(data)
    out = [_row(line, cols) for line in screen.history.top]
    out += [_row(screen.buffer[y], cols) for y in range(rows)]
    while out and not out[-1]:
        out.pop()
    return [unicodedata.normalize("NFC", line) for line in out]


def agentwrap_text(data: bytes, rows: int, cols: int, chunk: int = 0) -> str:
    cleaner = TerminalCleaner(rows=rows, cols=cols)
    if chunk:
        return "".join(cleaner.feed(data[i:i + chunk]) for i in range(0, len(data), chunk)) + cleaner.finish()
    return cleaner.feed(data) + cleaner.finish()


def rows_of(text: str, cols: int) -> list[str]:
    """agentwrap's logical lines as the window's rows (tabs expanded, long lines wrapped)."""
    out: list[str] = []
    for line in text.split("\n"):
        row, col = "", 0
        for ch in line:
            w = 0 if unicodedata.combining(ch) else max(wcwidth(ch), 0)
            if ch == "\t":
                stop = min((col // 8 + 1) * 8, cols - 1)
                row, col = row + " " * (stop - col), stop
                continue
            if col + w > cols:
                out.append(row.rstrip())  # as the emulator's rows: blank cells at the end are no text
                row, col = "", 0
            row, col = row + ch, col + w
        out.append(row.rstrip())
    while out and not out[-1]:
        out.pop()
    return [unicodedata.normalize("NFC", line.rstrip()) for line in out]


def agentwrap_rows(data: bytes, rows: int, cols: int, chunk: int = 0) -> list[str]:
    return rows_of(agentwrap_text(data, rows, cols, chunk), cols)


def tmux_rows(data: bytes, rows: int, cols: int) -> list[str] | None:
    """What tmux shows after `cat`-ing the bytes in a rows x cols pane (history included); None without tmux."""
    if shutil.which("tmux") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw"
        raw.write_bytes(data)
        sock = str(Path(tmp) / "sock")
        tmux = ["tmux", "-S", sock, "-f", "/dev/null"]
        subprocess.run([*tmux, "new-session", "-d", "-x", str(cols), "-y", str(rows),
                        f"cat {raw}; touch {tmp}/done; sleep 30"], check=True,
                       env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"})
        try:
            for _ in range(200):
                if (Path(tmp) / "done").exists():
                    break
                time.sleep(0.05)
            time.sleep(0.2)
            shown = subprocess.run([*tmux, "capture-pane", "-p", "-S", "-", "-E", "-"], capture_output=True,
                                   text=True, check=True).stdout
        finally:
            subprocess.run([*tmux, "kill-server"], check=False, capture_output=True)
    out = [line.rstrip() for line in shown.split("\n")]
    while out and not out[-1]:
        out.pop()
    return out
