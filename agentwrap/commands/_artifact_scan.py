"""How `agentwrap artifact show` walks an artifact's bytes: page positions, UTF-8 cuts, line counts, grep.

Everything streams in blocks. A line longer than LINE_CAP is never held whole: --grep searches it in
windows of LINE_CAP bytes that overlap by OVERLAP, so a 50 MB one-line output is searched to its end in
bounded memory, and a match is shown as a window around it with the byte offset where that window starts.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

BLOCK = 1 << 16
LINE_CAP = 1 << 20  # --grep holds a line whole up to this; a longer one is searched in windows
OVERLAP = 1 << 16  # a match shorter than this is never lost between two windows
MAX_MATCHES = 200
MATCH_TEXT_BYTES = 2048
CONTEXT_BEFORE = MATCH_TEXT_BYTES // 4  # a clipped match shows this much of its line before the match


@dataclass
class Position:
    """Where a page starts: a byte offset, the line number there, and the walk's mode and range."""

    mode: str  # "bytes" | "lines" | "grep"
    offset: int = 0
    line: int = 1
    last: int | None = None  # the last line of --lines, inclusive
    pattern: str | None = None
    seek: int = 1  # a first page starts by skipping to this line (--lines A:)


@dataclass
class GrepPage:
    matches: list[dict[str, Any]]
    next: Position
    more: bool  # a cursor would find more (the file or the --lines range goes on)
    windowed_lines: int = 0  # lines longer than LINE_CAP, searched in overlapping windows


@dataclass(frozen=True)
class Piece:
    """What `_pieces` reads next: whole lines, or one window of a line too long to hold whole."""

    data: bytes
    advance: int  # file bytes this piece moves past (a window's overlap was counted by the one before)
    window_at: int = -1  # a window: where `data` starts within its line; -1: whole lines
    search_from: int = 0  # a window: the first character a match may start at (0 only for the line's start)
    search_to: int = 0  # a window: matches must start before this byte; the next window owns the rest
    line_ends: bool = False  # a window: its line ends here, `newline` says whether with a newline
    newline: bool = False


def utf8_cut(buf: bytes | bytearray) -> int:
    """Length of the longest prefix of `buf` that does not end inside a multi-byte UTF-8 character."""
    i = len(buf) - 1
    while i >= 0 and len(buf) - i <= 3 and buf[i] & 0xC0 == 0x80:
        i -= 1
    lead = buf[i] if i >= 0 else 0  # only continuation bytes: not ours to repair, pass them through
    need = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
    return i if i + need > len(buf) else len(buf)


def char_start(buf: bytes | bytearray, at: int) -> int:
    """The first offset at or after `at` that does not fall inside a UTF-8 character (at most 3 on)."""
    at = max(at, 0)
    for _ in range(3):
        if at >= len(buf) or buf[at] & 0xC0 != 0x80:
            break
        at += 1
    return at


def after_lines(buf: bytes, count: int) -> int:
    """The offset just past the `count`-th newline in `buf`, or -1 if it has fewer (no per-line objects)."""
    if buf.count(b"\n") < count:
        return -1
    match = re.match(rb"(?:[^\n]*\n){%d}" % count, buf)
    return match.end() if match else -1


def seek_line(fh: BinaryIO, offset: int, line: int, target: int) -> tuple[int, int]:
    """The byte offset where line `target` starts (or the end of the file), counting from `offset`."""
    fh.seek(offset)
    while line < target and (block := fh.read(BLOCK)):
        end = after_lines(block, target - line)
        if end < 0:
            line, offset = line + block.count(b"\n"), offset + len(block)
            continue
        return offset + end, target
    return offset, line


def _pieces(fh: BinaryIO) -> Iterator[Piece]:
    """Whole lines from the current position, in blocks; a line longer than LINE_CAP as windows."""
    carry = b""
    while block := fh.read(BLOCK):
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        if cut:
            carry = data[cut:]
            yield Piece(data[:cut], cut)
        elif len(data) <= LINE_CAP:
            carry = data
        else:
            carry = yield from _windows(fh, data)
    if carry:
        yield Piece(carry, len(carry))


def _windows(fh: BinaryIO, head: bytes) -> Generator[Piece, None, bytes]:
    """The windows of one overlong line that starts with `head` (no newline in it); returns the bytes
    read past the line's end, where whole lines resume."""
    buf, at, counted = bytearray(head), 0, 0  # counted: bytes of `buf` a previous piece advanced past
    while True:
        while len(buf) < LINE_CAP and (block := fh.read(BLOCK)):
            newline = block.find(b"\n")
            if newline >= 0:
                buf += block[:newline]
                yield Piece(bytes(buf), len(buf) - counted + 1, at, int(at > 0), len(buf), True, True)
                return block[newline + 1 :]
            buf += block
        if len(buf) < LINE_CAP:  # the file ends inside the line
            yield Piece(bytes(buf), len(buf) - counted, at, int(at > 0), len(buf), True, False)
            return b""
        cut = utf8_cut(buf)
        keep = char_start(buf, cut - OVERLAP)
        # The next window searches from its second character, so this one owns starts up to `keep`.
        yield Piece(bytes(memoryview(buf)[:cut]), cut - counted, at, int(at > 0), keep + 1)
        del buf[:keep]
        at, counted = at + keep, cut - keep


def _window_hit(piece: Piece, line_rx: re.Pattern[str]) -> int | None:
    """The byte offset in `piece.data` of a match this window owns, or None. Searching from the second
    character keeps `^` to the line's real start; lookbehinds still see the character before."""
    text = piece.data.decode("utf-8", "surrogateescape")
    hit = line_rx.search(text, piece.search_from)
    if hit is None:
        return None
    start = len(text[: hit.start()].encode("utf-8", "surrogateescape"))
    return start if start < piece.search_to else None


def _shown(raw: bytes, hit: int, room: int) -> tuple[bytes, int]:
    """At most `room` bytes of `raw` around byte `hit` (a match's start), cut at characters, and where they
    start: a clipped line shows the match, not the line's first bytes."""
    if len(raw) <= room:
        return raw, 0
    start = char_start(raw, min(hit - CONTEXT_BEFORE, len(raw) - room)) if hit > CONTEXT_BEFORE else 0
    return raw[start : start + utf8_cut(raw[start : start + room])], start


class _Grep:
    """One page of --grep: matching lines from a position, at most MAX_MATCHES and `limit` bytes of text."""

    def __init__(self, pos: Position, limit: int) -> None:
        assert pos.pattern is not None
        # The MULTILINE search over a whole block finds candidate lines fast; the plain pattern on the
        # line alone then decides, so `^`, `$` and lookarounds mean what they mean to grep.
        self.block_rx = re.compile(pos.pattern, re.MULTILINE)
        self.line_rx = re.compile(pos.pattern)
        self.pos, self.limit = pos, limit
        self.matches: list[dict[str, Any]] = []
        self.offset, self.line, self.used, self.windowed = pos.offset, pos.line, 0, 0
        self.long_start, self.long_found = 0, False

    def page(self, fh: BinaryIO) -> GrepPage:
        fh.seek(self.offset)
        last = self.pos.last
        for piece in _pieces(fh):
            if last is not None and self.line > last:
                break
            stop = self._window(piece) if piece.window_at >= 0 else self._lines(piece)
            if stop is not None:
                return GrepPage(self.matches, stop, True, self.windowed)
        # The file or the --lines range ended: nothing further for a cursor to find.
        nxt = Position("grep", self.offset, self.line, last, self.pos.pattern)
        return GrepPage(self.matches, nxt, False, self.windowed)

    def _room(self, whole: int) -> int | None:
        """The bytes this page still has for a match's text; None when the match should open the next page
        (no room left, or it would be clipped only for lack of room here)."""
        room = min(MATCH_TEXT_BYTES, self.limit - self.used)
        if self.matches and (len(self.matches) >= MAX_MATCHES or room < min(whole, MATCH_TEXT_BYTES)):
            return None
        return room

    def _add(self, raw: bytes, hit: int, room: int, line_offset: int, whole: int) -> None:
        shown, start = _shown(raw, hit, room)
        entry: dict[str, Any] = {"line": self.line, "text": shown.decode("utf-8", "replace")}
        if len(shown) < whole:
            entry.update(truncated=True, offset=line_offset + start)
        self.matches.append(entry)
        self.used += len(shown)

    def _window(self, piece: Piece) -> Position | None:
        if piece.window_at == 0:
            self.long_start, self.long_found = self.offset, False
            self.windowed += 1
        if not self.long_found and (hit := _window_hit(piece, self.line_rx)) is not None:
            room = self._room(LINE_CAP)
            if room is None:
                return Position("grep", self.long_start, self.line, self.pos.last, self.pos.pattern)
            self._add(piece.data, hit, room, self.long_start + piece.window_at, LINE_CAP + 1)
            self.long_found = True
        self.offset += piece.advance
        self.line += piece.newline
        return None

    def _lines(self, piece: Piece) -> Position | None:
        chunk, advance, last = piece.data, piece.advance, self.pos.last
        end = after_lines(chunk, last - self.line + 1) if last is not None else -1  # stop after `last`
        if 0 <= end < len(chunk):
            advance, chunk = end, chunk[:end]
        # surrogateescape round-trips any bytes, so a line start maps back to an exact file offset
        text = chunk.decode("utf-8", "surrogateescape")
        at = counted = 0
        byte_at = char_at = 0  # one place in `text` whose byte offset is known, so each is encoded once
        while (hit := self.block_rx.search(text, at)) is not None:
            line_start = text.rfind("\n", 0, hit.start()) + 1
            line_end = text.find("\n", line_start)
            line_end = len(text) if line_end < 0 else line_end
            self.line += text.count("\n", counted, line_start)
            counted, at = line_start, line_end + 1
            found = self.line_rx.search(text[line_start:line_end])  # a slice: `^` is the line's start
            if found is None:
                continue
            byte_at += len(text[char_at:line_start].encode("utf-8", "surrogateescape"))
            char_at = line_start
            raw = text[line_start:line_end].encode("utf-8", "surrogateescape")
            room = self._room(len(raw))
            if room is None:
                return Position("grep", self.offset + byte_at, self.line, last, self.pos.pattern)
            hit_at = len(text[line_start : line_start + found.start()].encode("utf-8", "surrogateescape"))
            self._add(raw, hit_at, room, self.offset + byte_at, len(raw))
        self.line += text.count("\n", counted)
        self.offset += advance
        return None


def grep(fh: BinaryIO, pos: Position, limit: int) -> GrepPage:
    """Matching lines from `pos` on, at most MAX_MATCHES and `limit` bytes of text per page."""
    return _Grep(pos, limit).page(fh)
