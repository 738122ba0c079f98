"""The DEC Special Graphics character set, as text: `lqqqk` drawn after `ESC ( 0` is the box `┌───┐`.

Curses programs (pinentry-curses, dialog, mc) draw boxes by switching the terminal to this set with
`ESC ( 0` (or `ESC ) 0` and Shift Out) and writing ASCII letters; a cleaner that drops the switch but
keeps the letters shows `mqqqj` where a person sees a frame. `DecGraphics` follows the switches across
chunks and translates the letters to the Unicode characters the terminal would show; the switches
themselves, and every other escape sequence, pass through untouched for the cleaner.
"""

from __future__ import annotations

import re

# VT100 DEC Special Graphics, 0x5f-0x7e (xterm's table): `_` is a blank, the rest boxes and symbols.
_TABLE = str.maketrans(dict(zip("_`abcdefghijklmnopqrstuvwxyz{|}~",
                                " ◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·", strict=True)))
# An escape sequence whose bytes must never be translated (a CSI's final letter is in the table's range),
# a charset designation, or a Shift Out/In.
_TOKEN = re.compile(r"\x1b(?:\[[\x20-\x3f]*[\x40-\x7e]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()*+][\x20-\x7e]|"
                    r"[\x20-\x2f]*[\x30-\x5a\x5c\x5e-\x7e])|[\x0e\x0f]")
_CARRY_MAX = 256  # a sequence cut off by a chunk's end is held back at most this long


class DecGraphics:
    """A streaming translator: `feed` text chunks, get them back with line-drawing letters as boxes."""

    def __init__(self) -> None:
        self._sets = ["B", "B"]  # what G0 and G1 designate ("0": DEC Special Graphics)
        self._shifted = 0  # 0: G0 is in use; 1: G1 (after Shift Out)
        self._carry = ""

    def feed(self, text: str) -> str:
        if self._carry:
            text, self._carry = self._carry + text, ""
        if not self._graphics() and "\x1b(0" not in text and "\x1b)0" not in text and "\x0e" not in text:
            if text.endswith(("\x1b", "\x1b(", "\x1b)")):  # a switch may be cut off at the chunk's end
                cut = text.rindex("\x1b")
                self._carry, text = text[cut:], text[:cut]
            return text
        out: list[str] = []
        pos = 0
        for m in _TOKEN.finditer(text):
            out.append(self._plain(text[pos:m.start()]))
            token = m.group(0)
            pos = m.end()
            if token == "\x0e" or token == "\x0f":
                self._shifted = 1 if token == "\x0e" else 0
                continue  # a charset shift, not a character: nothing to show
            if token[1:2] in "()" and len(token) == 3:
                self._sets[0 if token[1] == "(" else 1] = token[2]
            out.append(token)
        rest = text[pos:]
        cut = rest.rfind("\x1b")
        if cut >= 0 and len(rest) - cut <= _CARRY_MAX:
            self._carry, rest = rest[cut:], rest[:cut]  # an unfinished sequence: decided with the next chunk
        out.append(self._plain(rest))
        return "".join(out)

    def flush(self) -> str:
        """What is held back at the end of the stream."""
        carry, self._carry = self._carry, ""
        return carry

    def _graphics(self) -> bool:
        return self._sets[self._shifted] == "0"

    def _plain(self, text: str) -> str:
        return text.translate(_TABLE) if text and self._graphics() else text
