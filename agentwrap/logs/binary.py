"""Lines of binary data in a log (a `cat` of an object file, a core dump, a compressed artifact echoed by a
step), dropped before anything reads them.

Such bytes are no diagnostic, and they are the costliest input there is: every control byte sends the
text through the terminal model one character at a time (a 3 MB random file took 50 s). A chunk with
no control byte at all, every ordinary log, is passed through after one C-speed count.
"""

from __future__ import annotations

from typing import NamedTuple

# C0 controls a terminal log does not print as text: not tab, newline, carriage return, escape (colour),
# backspace (overstrike) or bell (ends an OSC hyperlink); and DEL.
_CONTROLS = bytes(b for b in range(32) if b not in b"\t\n\r\x1b\x08\x07") + b"\x7f"
_FEW = 8  # fewer control bytes than this in a chunk, and no NUL: stray bytes in text (the cleaner drops them)
_SHARE = 16  # a line is binary when one byte in this many or more is a control byte (random data: one in ten)


class Dropped(NamedTuple):
    text: bytes  # the chunk without its binary lines
    lines: int
    bytes: int


def _binary(line: bytes) -> bool:
    if b"\0" in line:
        return True
    controls = len(line) - len(line.translate(None, _CONTROLS))
    return controls >= 2 and controls * _SHARE >= len(line)


def drop(chunk: bytes) -> Dropped:
    """`chunk` (whole lines) without the lines that are binary data."""
    controls = len(chunk) - len(chunk.translate(None, _CONTROLS))
    if controls == 0 or (controls < _FEW and b"\0" not in chunk):
        return Dropped(chunk, 0, 0)
    kept, lines, size = [], 0, 0
    pieces = chunk.split(b"\n")
    if not pieces[-1]:
        pieces.pop()  # what followed the last newline: nothing
    for line in pieces:
        if _binary(line):
            lines += 1
            size += len(line) + 1
        else:
            kept.append(line + b"\n")
    return Dropped(b"".join(kept), lines, size)
