"""Reads of small plain files, which the hook leaves to the host: their raw text is already the cheapest answer.

`cat FILE`, `head -n N FILE`, `tail -n N FILE` and `sed -n 'A,Bp' FILE` of a regular file cannot prompt,
paint or hang, and an agent edits a file by its exact lines, so no adapter filters them. Through
`agentwrap --agent` such a read costs the envelope's frame and JSON's escaping (`\\n`, `\\"`): about a third
more tokens than the text itself. So the hook leaves one alone when what it would print is known before it
runs and is no worse raw than through agentwrap: at most the inline budget, valid UTF-8, no control
character but tab and newline (no colour, no carriage return), and no secret the redactor would hide. Any
other read (a large file, a FIFO, /dev/stdin, an option this module does not know, a file it cannot read)
goes through agentwrap as before, which bounds, cleans and redacts it.
"""

from __future__ import annotations

import os
import re
import stat

from agentwrap.options import AGENT_INLINE_BYTES

_MAX_SCAN = 1 << 20  # bytes read to find a `sed -n`/`head`/`tail` range; a range further in goes through agentwrap
_SED_RANGE = re.compile(r"(\d+)(?:,(\d+|\$))?p")
_COUNT = re.compile(r"[1-9]\d{0,6}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_PROGRAMS = frozenset({"cat", "head", "tail", "sed"})
WHY = "a read of a small plain file: its raw text costs fewer tokens than an envelope"


def left_raw(words: list[str], cwd: str, budget: int = AGENT_INLINE_BYTES) -> bool:
    """Whether `words` (a literal argv run in `cwd`) is such a read, judged from the files as they are now."""
    if not words or os.path.basename(words[0]) not in _PROGRAMS:
        return False
    asked = _selection(os.path.basename(words[0]), words[1:])
    if asked is None:
        return False
    kind, first, last, files = asked
    printed = b""
    for name in files:
        text = _read(os.path.join(cwd, name), kind, first, last, budget - len(printed))
        if text is None:
            return False
        printed += text
    return _plain(printed)


def _selection(program: str, args: list[str]) -> tuple[str, int, int, list[str]] | None:
    """(kind, first line, last line, files) that the arguments ask for; None for any form not known here."""
    if args[:1] == ["--"]:
        args = args[1:]
    if program == "cat":
        ok = args and not any(a.startswith("-") for a in args)
        return ("lines", 1, 0, args) if ok else None
    if program == "sed":
        if len(args) != 3 or args[0] != "-n" or args[2].startswith("-"):
            return None
        m = _SED_RANGE.fullmatch(args[1])
        if m is None:
            return None
        first = int(m[1])
        last = first if m[2] is None else 0 if m[2] == "$" else int(m[2])
        return ("lines", first, last, [args[2]]) if first >= 1 and (last == 0 or last >= first) else None
    count, rest = _count(args)  # head and tail
    if count is None or len(rest) != 1 or rest[0].startswith("-"):
        return None
    return ("lines", 1, count, rest) if program == "head" else ("tail", count, 0, rest)


def _count(args: list[str]) -> tuple[int | None, list[str]]:
    """`-n N`, `-nN`, `-N`, `--lines=N` or nothing (10), and the words after it."""
    if not args or not args[0].startswith("-"):
        return 10, args
    flag = args[0]
    if flag == "-n" and len(args) > 1:
        value, rest = args[1], args[2:]
    elif flag.startswith("--lines="):
        value, rest = flag[8:], args[1:]
    elif flag.startswith("-n"):
        value, rest = flag[2:], args[1:]
    else:
        value, rest = flag[1:], args[1:]
    return (int(value), rest) if _COUNT.fullmatch(value) else (None, rest)


def _read(path: str, kind: str, first: int, last: int, room: int) -> bytes | None:
    """The bytes the read prints from `path`, or None when they are not known within `room` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, a device or a directory: not a file's lines
            return None
        whole = kind == "lines" and first == 1 and last == 0  # `cat`: no more than the room is worth reading
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(room + 1 if whole else _MAX_SCAN + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if whole:
        return data if len(data) <= room else None
    complete = len(data) <= _MAX_SCAN
    lines = data.splitlines(keepends=True)
    if kind == "tail":
        if not complete:
            return None
        chosen = lines[-first:]
    else:
        end = len(lines) if last == 0 else last
        if (last == 0 or len(lines) < last) and not complete:
            return None  # the range runs past what was read
        chosen = lines[first - 1:end]
    out = b"".join(chosen)
    return out if len(out) <= room else None


def _plain(text: bytes) -> bool:
    """UTF-8 with no control character but tab and newline, and nothing the redactor would hide."""
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if _CONTROL.search(decoded):
        return False
    from agentwrap.redact import Redactor
    from agentwrap.secret_names import secret_values

    return Redactor(secret_values(os.environ)).redact(decoded) == decoded
