"""Edit a JSON file's text the least possible: add one entry to a list (or the keys leading to it), or
take one out, leaving every other byte (the user's layout, spacing, one-line objects) as it was.

`agentwrap init` shows its change as a diff; a rewrite of the whole file would show lines it did not
mean to touch. Every splice is checked by parsing the result and comparing it with the intended
document; when the text cannot be spliced safely the callers fall back to a full re-serialisation.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
Span = tuple[int, int]


def _ws(s: str, i: int) -> int:
    match = _WS.match(s, i)
    return match.end() if match else i


def _value(s: str, i: int) -> int:
    """The end of the value starting at `i`."""
    c = s[i]
    if c == "{":
        return _object(s, i)[1]
    if c == "[":
        return _array(s, i)[1]
    if c == '"':
        return int(scanstring(s, i + 1)[1])
    for literal in ("true", "false", "null"):
        if s.startswith(literal, i):
            return i + len(literal)
    number = _NUMBER.match(s, i)
    if number:
        return number.end()
    raise ValueError(f"unexpected {c!r} at {i}")


def _object(s: str, i: int) -> tuple[dict[str, Span], int, int]:
    """Members (key -> value span), the end, and the position of the closing brace."""
    members: dict[str, Span] = {}
    i = _ws(s, i + 1)
    if s[i] == "}":
        return members, i + 1, i
    while True:
        if s[i] != '"':
            raise ValueError(f"expected a key at {i}")
        key, i = scanstring(s, i + 1)
        i = _ws(s, i)
        if s[i] != ":":
            raise ValueError(f"expected ':' at {i}")
        start = _ws(s, i + 1)
        end = _value(s, start)
        members[key] = (start, end)
        i = _ws(s, end)
        if s[i] == ",":
            i = _ws(s, i + 1)
            continue
        if s[i] == "}":
            return members, i + 1, i
        raise ValueError(f"expected ',' or '}}' at {i}")


def _array(s: str, i: int) -> tuple[list[Span], int, int]:
    items: list[Span] = []
    i = _ws(s, i + 1)
    if s[i] == "]":
        return items, i + 1, i
    while True:
        end = _value(s, i)
        items.append((i, end))
        i = _ws(s, end)
        if s[i] == ",":
            i = _ws(s, i + 1)
            continue
        if s[i] == "]":
            return items, i + 1, i
        raise ValueError(f"expected ',' or ']' at {i}")


def _line_indent(s: str, pos: int) -> str:
    start = s.rfind("\n", 0, pos) + 1
    line = s[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _insert(s: str, open_pos: int, close_pos: int, last_end: int | None, piece: Any, key: str | None,
            unit: int | str) -> str:
    """Put `piece` (with `key` in an object) after the container's last element, in its own layout."""
    multiline = "\n" in s[open_pos:close_pos]
    prefix = json.dumps(key, ensure_ascii=False) + ": " if key is not None else ""
    if not multiline and last_end is not None:  # a one-line container stays on one line
        text = prefix + json.dumps(piece, ensure_ascii=False, separators=(", ", ": "))
        return s[:last_end] + ", " + text + s[last_end:]
    outer = _line_indent(s, close_pos) if multiline else _line_indent(s, open_pos)
    inner = outer + ("\t" if unit == "\t" else " " * int(unit))
    text = prefix + json.dumps(piece, ensure_ascii=False, indent=unit).replace("\n", "\n" + inner)
    if last_end is None:
        return s[: open_pos + 1] + "\n" + inner + text + "\n" + outer + s[close_pos:]
    return s[:last_end] + ",\n" + inner + text + "\n" + outer + s[close_pos:]


def add_to_list(s: str, key_path: tuple[str, ...], item: Any, unit: int | str, expected: Any) -> str | None:
    """`s` with `item` appended to the list at `key_path` (missing keys created), or None when the text
    cannot be spliced into exactly `expected`."""
    try:
        start = _ws(s, 0)
        if s[start] != "{":
            return None
        members, _, close = _object(s, start)
        open_pos = start
        for n, key in enumerate(key_path):
            last = n == len(key_path) - 1
            if key not in members:
                piece: Any = [item]
                for outer_key in reversed(key_path[n + 1:]):
                    piece = {outer_key: piece}
                last_end = max((end for _, end in members.values()), default=None)
                out = _insert(s, open_pos, close, last_end, piece, key, unit)
                break
            value_start, _ = members[key]
            if last:
                if s[value_start] != "[":
                    return None
                items, _, aclose = _array(s, value_start)
                out = _insert(s, value_start, aclose, items[-1][1] if items else None, item, None, unit)
                break
            if s[value_start] != "{":
                return None
            members, _, close = _object(s, value_start)
            open_pos = value_start
        else:
            return None
        return out if json.loads(out) == expected else None
    except (ValueError, IndexError):
        return None


def remove_from_list(s: str, key_path: tuple[str, ...], item: Any, expected: Any) -> str | None:
    """`s` without the one element equal to `item` in the list at `key_path`, when others remain."""
    try:
        start = _ws(s, 0)
        members, _, _ = _object(s, start)
        for key in key_path[:-1]:
            value_start, _ = members[key]
            members, _, _ = _object(s, value_start)
        items, _, _ = _array(s, members[key_path[-1]][0])
        found = [k for k, (a, b) in enumerate(items) if json.loads(s[a:b]) == item]
        if len(items) < 2 or len(found) != 1:
            return None
        k = found[0]
        # with the separator before it (after it, for the first element)
        cut = (items[k - 1][1], items[k][1]) if k > 0 else (items[0][0], items[1][0])
        out = s[: cut[0]] + s[cut[1]:]
        return out if json.loads(out) == expected else None
    except (ValueError, IndexError, KeyError):
        return None
