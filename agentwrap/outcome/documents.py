"""The documents a program printed over several lines: JSON (`npm ls --json`), YAML (`kubectl -o yaml`, a
config a script prints) and TOML, each as the span [start, end) of its lines. `agentwrap.outcome.lean`
judges each whole: a line of one left out leaves a text that is no longer the document, and a YAML or TOML
one still reads as a document, one the program never printed (`retries: 3` gone from its config).
JSON is found where it parses; TOML where `tomllib` reads it; YAML, which the standard library cannot
read, by its shape: keys and items whose indents nest, with at least one block under a key, so that a
log's one `error: x` line or a listing of flat `Name: value` lines is no document."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Sequence

from agentwrap.lazyre import lazy

_DECODER = json.JSONDecoder()
# What may follow a document's first bracket: a log's `[INFO]` and `[gw0]` are none, and each failed decode
# counts the text's lines up to where it failed, so trying every such line of a long log would cost its square
_JSON_START = lazy(r"""\{\s*(?:["}]|$)|\[\s*(?:[]["{\d-]|true|false|null|$)""")
# A YAML line: a `key:` (a block under it, or a `|`/`>` text) or a `key: value`, perhaps inside one or more
# `- ` items, or an item alone. A key is one plain word (dots, slashes, dashes: kubectl's annotations) or
# quoted: `Traceback (most recent call last):` and `a.c:3:5: error:` are no keys.
_YAML_KEY = lazy(r"""^ *(?:- +)*(?:[A-Za-z_][\w./-]*|"[^"\n]*"|'[^'\n]*'):(?: +(?P<value>\S.*))?$""")
_YAML_ITEM = lazy(r"^ *-(?: +(?P<value>\S.*))?$")  # `-rw-r--r--` is no item
_YAML_MARK = lazy(r"^(?:---|\.\.\.)$")
_BLOCK_TEXT = lazy(r"^[|>][-+]?\d?$")  # `key: |`: the lines under it are text, whatever they look like
# A TOML line: a `[table]` or `[[array]]` header, or a `key = value` (keys dotted or quoted).
_TOML_HEADER = lazy(r"""^\[\[?\s*[\w-]+(?:\s*\.\s*(?:[\w-]+|"[^"\n]*"))*\s*\]\]?\s*(?:#.*)?$""")
_TOML_KEY_SOURCE = r"""^(?:[\w-]+|"[^"\n]*")(?:\s*\.\s*(?:[\w-]+|"[^"\n]*"))*\s*=\s*\S"""
_TOML_KEY = lazy(_TOML_KEY_SOURCE)
_COMMENT = lazy(r"^\s*#")
_YAML_OPENS = lazy(r"""^ *(?:- +)*(?:[A-Za-z_][\w./-]*|"[^"\n]*"|'[^'\n]*'):(?: +[|>][-+]?\d?)?$""", re.M)
_TOML_KEY_LINE = lazy(_TOML_KEY_SOURCE, re.M)
TOML_LINES = 2000  # the longest run tomllib (pure Python, ~30 µs a line) is asked to read


def documents(lines: Sequence[str]) -> list[tuple[int, int]]:
    """The spans of the JSON, YAML and TOML documents of `lines`, in order, none inside another."""
    spans = json_documents(lines)
    taken = {i for start, end in spans for i in range(start, end)}
    text = "\n".join(lines)  # a document of each kind needs a line that one search finds, or none is read
    kinds = (yaml_documents, _YAML_OPENS), (toml_documents, _TOML_KEY_LINE)
    for found in (read(lines) for read, needed in kinds if needed.search(text)):
        for start, end in found:
            if not taken & set(range(start, end)):
                spans.append((start, end))
                taken |= set(range(start, end))
    return sorted(spans)


def json_documents(lines: Sequence[str]) -> list[tuple[int, int]]:
    """The JSON documents printed over several lines (`json.dumps(x, indent=2)`): where one parses from a
    line's first `{` or `[` to the end of a later line."""
    text = "\n".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        body = line.lstrip()
        if not _JSON_START.match(body):
            index += 1
            continue
        end = _decoded_end(text, starts[index] + len(line) - len(body))
        if end is None:
            index += 1
            continue
        last = bisect_right(starts, end - 1) - 1
        if last > index and not text[end:starts[last + 1] - 1].strip():
            spans.append((index, last + 1))
            index = last + 1
        else:
            index += 1
    return spans


def _decoded_end(text: str, at: int) -> int | None:
    """Where the JSON value from `at` ends, or None. Decoded in a window that grows while the window's end
    cut it: a failed decode counts the lines of all it was given up to where it failed, so a long log's
    `[ 40%]` lines would each cost the log's length."""
    size = 512  # most lines that open with a bracket are no JSON a few characters on
    while True:
        window = text[at:at + size]
        try:
            return at + _DECODER.raw_decode(window)[1]
        except RecursionError:
            return None
        except json.JSONDecodeError as error:
            cut = at + size < len(text) and (error.pos >= len(window) - 8 or error.msg.startswith("Unterminated"))
            if not cut:
                return None
        size *= 8


def yaml_documents(lines: Sequence[str]) -> list[tuple[int, int]]:
    """The YAML documents of `lines`: runs of key and item lines (comments, blank lines and a `---` between
    them) whose indents nest, with a block under at least one key (`metadata:` and its members, `items:`
    and its `- ` entries)."""
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        end, nested = _yaml_run(lines, index)
        if nested:
            spans.append((index, end))
        index = max(end, index + 1)  # a run that is no document holds none either: each line is read once
    return spans


def _yaml_run(lines: Sequence[str], start: int) -> tuple[int, bool]:
    """One past the last line of the YAML run from `start`, and whether it nests (a document, not a flat
    list of `Name: value` lines or of `- ` items)."""
    if not (_YAML_KEY.match(lines[start]) or _YAML_MARK.match(lines[start])):
        return start + 1, False
    base = _indent(lines[start])
    last = start + 1  # one past the last line of the run that is not blank
    opener: int | None = None  # the column of a `key:` with nothing after it: the lines below may nest
    members = base  # the column of the last line's members (a `- key: v` item's key): no line goes deeper
    text_under: int | None = None  # a `key: |` or `key: >`: the lines indented past it are its text
    nested = keys = False
    for index in range(start, len(lines)):
        line = lines[index]
        indent = _indent(line)
        if not line.strip():
            continue
        if text_under is not None and indent > text_under:
            last = index + 1
            continue
        text_under = None
        if _YAML_MARK.match(line) or _COMMENT.match(line):
            last = index + 1
            continue
        key = _YAML_KEY.match(line)
        match = key or _YAML_ITEM.match(line)
        if match is None or indent < base or indent > members and (opener is None or indent <= opener):
            if indent > base:
                return index, False  # the block goes on in lines of another shape (apt's `Version table:`)
            break
        nested = nested or opener is not None and (indent > opener or line.lstrip().startswith("-"))
        value = match.group("value")
        members = len(line) - len(line.lstrip("- ")) if key else indent + 2
        opener = members if key and value is None else None
        if key and value is not None and _BLOCK_TEXT.match(value):
            text_under, nested = members, True
        keys = keys or key is not None
        last = index + 1
    return last, keys and nested and last - start >= 2


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def toml_documents(lines: Sequence[str]) -> list[tuple[int, int]]:
    """The TOML documents of `lines`: runs of headers and `key = value` lines (an array or a text over
    several lines, comments and blank lines among them) of two lines or more that `tomllib` reads."""
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        if not (_TOML_HEADER.match(lines[index]) or _TOML_KEY.match(lines[index])):
            index += 1
            continue
        end = _toml_run(lines, index)
        body = [line for line in lines[index:end] if line.strip() and not _COMMENT.match(line)]
        if len(body) >= 2 and any(_TOML_KEY.match(line) for line in body) and _reads_as_toml(lines[index:end]):
            spans.append((index, end))
        index = end  # a run that is no document holds none either: each line is read once
    return spans


def _toml_run(lines: Sequence[str], start: int) -> int:
    """One past the last line of the TOML-shaped run from `start`: a line inside an open array, inline
    table or multi-line text belongs to it whatever it looks like."""
    end = start
    open_ = 0  # brackets open across lines, or -1 inside a `\"\"\"` text
    for index in range(start, len(lines)):
        line = lines[index]
        if open_ == 0 and not (_TOML_HEADER.match(line) or _TOML_KEY.match(line) or _COMMENT.match(line)):
            if line.strip():
                break
            continue
        open_ = _still_open(line, open_)
        end = index + 1
    return end


def _still_open(line: str, open_: int) -> int:
    """The brackets open after `line` (a multi-line array or inline table), given those open before it;
    -1 inside a multi-line text, whose lines are text whatever they hold."""
    if line.count('"""') % 2 or line.count("'''") % 2:  # a multi-line text opens or closes on this line
        return 0 if open_ < 0 else -1
    if open_ < 0:
        return open_
    depth, quote = open_, ""
    for char in line:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            break  # a comment: its brackets are no array's
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return max(depth, 0)


def _reads_as_toml(lines: Sequence[str]) -> bool:
    if len(lines) > TOML_LINES:
        return False  # its lines are judged one by one, as before TOML was read
    import tomllib  # here, not at the top: its import compiles regexes, ~10 ms of every run's start-up

    try:
        tomllib.loads("\n".join(lines))
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    return True
