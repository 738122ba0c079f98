"""Whether a sed script writes files or runs commands (GNU sed's `w`/`W`/`e` commands and the `s///w`, `s///e`
flags), read command by command the way sed reads it. A script this reader cannot follow counts as writing."""

from __future__ import annotations

_SIMPLE = set("=dDgGhHlLnNpPqQxzF{}")  # commands without a file or text argument (q/l take a number)
_TO_LINE_END = set("rRaic#")  # a file name, text or comment to the end of the line
_TO_SEMICOLON = set(":btTv")  # a label (or version) to the end of the line or a `;`


def writes(script: str) -> bool:
    """True when `script` has a command or flag that writes a file or runs a command, or cannot be read."""
    at: int | None = 0
    while True:
        at = _command_start(script, at or 0)
        if at is None:
            return True
        if at >= len(script):
            return False
        command = script[at]
        if command in "wWe":
            return True
        if command == "s":
            end = _after_delimited(script, at + 1, 2)
            if end is None:
                return True
            flags = _until(script, end, ";\n}")
            if set(script[end:flags]) & {"w", "e"}:
                return True
            at = flags
        elif command == "y":
            end = _after_delimited(script, at + 1, 2)
            if end is None:
                return True
            at = end
        elif command in _TO_LINE_END:
            at = _line_end(script, at, command in "aic")
        elif command in _TO_SEMICOLON:
            at = _until(script, at, ";\n")
        elif command in _SIMPLE:
            at += 1
        else:
            return True


def _command_start(script: str, at: int) -> int | None:
    """Past separators and the address (`1,5`, `$`, `/re/I`, `\\%re%`, `0~2`, `+3`, `!`): the command."""
    while at < len(script):
        char = script[at]
        if char in " \t\n;,!~+$0123456789IM":
            at += 1
        elif char == "/":
            found = _after_delimited(script, at, 1)
            if found is None:
                return None
            at = found
        elif char == "\\" and at + 1 < len(script):
            found = _after_delimited(script, at + 1, 1)
            if found is None:
                return None
            at = found
        else:
            return at
    return at


def _after_delimited(script: str, at: int, parts: int) -> int | None:
    """`script[at]` is the delimiter; the index past the `parts`-th unescaped one after it, or None."""
    if at >= len(script) or script[at] in "\n\\":
        return None
    delimiter, at = script[at], at + 1
    while parts:
        if at >= len(script):
            return None
        if script[at] == "\\":
            at += 2
            continue
        if script[at] == delimiter:
            parts -= 1
        at += 1
    return at


def _line_end(script: str, at: int, continued: bool) -> int:
    """The end of the line at `at`; for a/i/c text, of the last line a trailing backslash continues."""
    at = _until(script, at, "\n")
    while continued and at < len(script) and script[at - 1] == "\\":
        at = _until(script, at + 1, "\n")
    return at


def _until(script: str, at: int, stops: str) -> int:
    while at < len(script) and script[at] not in stops:
        at += 1
    return at
