"""Screen cells: how many columns a character takes, from wcwidth's maintained Unicode tables.

A screen line is stored as a string with one code point per cell: a wide character (CJK, most emoji)
or a tab is followed by FILL for each further cell it covers, and a zero-width character (a combining
mark, ZWJ, a variation selector) rides after the cell it belongs to. So for the common line, which
holds no zero-width character, a column is a string index; only lines with combining marks are walked.
"""

from __future__ import annotations

import re
from functools import cache

FILL = "\x00"  # never reaches a line otherwise: NUL input is removed as binary


def _char_class(ranges: list[tuple[int, int]]) -> str:
    return "[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges) + "]"


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(any character whose width is not 1, zero-width characters, wide characters as a group)."""
    import wcwidth  # ~10 ms to import: only text beyond ASCII needs its tables

    version = wcwidth.list_versions()[-1]
    wide = _char_class(list(wcwidth.table_wide.WIDE_EASTASIAN[version]))
    zero = _char_class([(max(lo, 0xA0), hi) for lo, hi in wcwidth.table_zero.ZERO_WIDTH[version] if hi >= 0xA0])
    return re.compile(f"{wide}|{zero}"), re.compile(zero), re.compile(f"({wide})")


def to_cells(text: str) -> str:
    """`text` (printable, no tab) in the stored form: FILL after each wide character."""
    if text.isascii():
        return text
    special, _, wide = _patterns()
    return text if special.search(text) is None else wide.sub("\\1" + FILL, text)


def has_zero_width(line: str) -> bool:
    return not line.isascii() and _patterns()[1].search(line) is not None


def width(line: str) -> int:
    """Columns covered by a stored line."""
    if line.isascii():
        return len(line)
    return len(line) - len(_patterns()[1].findall(line))


def index(line: str, col: int) -> int:
    """Where cell `col` of a stored line starts (after the marks of the cell before); len past the end."""
    if not has_zero_width(line):
        return min(col, len(line))
    cells, zero = 0, _patterns()[1]
    for i, ch in enumerate(line):
        if zero.match(ch):
            continue
        if cells == col:
            return i
        cells += 1
    return len(line)


def split(cells: str, avail: int) -> tuple[str, int, str]:
    """The longest head of stored `cells` that fits `avail` columns, its width, and the rest.

    A wide character is never cut: if only its first half fits, it goes to the rest."""
    if not has_zero_width(cells):
        head = cells[:avail]
        if len(cells) > avail and cells[avail:avail + 1] == FILL:
            head = head[:-1]  # the wide character's filler would not fit
        return head, len(head), cells[len(head):]
    end = index(cells, avail)
    if end < len(cells) and cells[end] == FILL:
        end -= 1
    head = cells[:end]
    return head, width(head), cells[end:]


def last_cell(cells: str) -> str:
    """The last cell group of stored text (its base character, filler and marks)."""
    if cells[-1:].isascii() and cells[-1:] != FILL:
        return cells[-1:]
    k, zero = len(cells), _patterns()[1]
    while k > 0 and (cells[k - 1] == FILL or zero.match(cells[k - 1])):
        k -= 1
    return cells[max(k - 1, 0):]


# DEC Special Graphics (ESC ( 0): the line-drawing set ncurses and dialog draw boxes with.
DEC_GRAPHICS = str.maketrans(dict(zip(
    "`abcdefghijklmnopqrstuvwxyz{|}~",
    "◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·", strict=True)))

__all__ = ["DEC_GRAPHICS", "FILL", "has_zero_width", "index", "last_cell", "split", "to_cells", "width"]
