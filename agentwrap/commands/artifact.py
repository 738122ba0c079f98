"""`agentwrap artifact show ID`: read a stored output back in bounded pages (CONTRACT section 7).

Every mode streams the file in blocks, so memory stays bounded by the page size however large the
artifact. Pages never end inside a UTF-8 character, and `next_cursor` resumes exactly where a
page ended, so concatenating the pages of a walk gives back the file.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from agentwrap.artifacts import ID_RE, ArtifactNotFound, ArtifactRef, ArtifactStore
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome, build
from agentwrap.errors import UsageError

DEFAULT_LIMIT = 16384
MAX_LIMIT = 1 << 20
MIN_LIMIT = 4  # one UTF-8 character always fits, so every page makes progress
BLOCK = 1 << 16
LINE_CAP = 1 << 20  # --grep matches an overlong line on its first LINE_CAP bytes
MAX_MATCHES = 200
MATCH_TEXT_BYTES = 2048
MAX_PATTERN = 1000


@dataclass
class Position:
    """Where a page starts: a byte offset, the line number there, and the walk's mode and range."""

    mode: str  # "bytes" | "lines" | "grep"
    offset: int = 0
    line: int = 1
    last: int | None = None  # the last line of --lines, inclusive
    pattern: str | None = None
    seek: int = 1  # a first page starts by skipping to this line (--lines A:)


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap artifact", description="Read artifacts: complete outputs kept on disk.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    actions.required = True
    show = actions.add_parser("show", help="print one bounded page of an artifact",
                              description="Print one bounded page of an artifact, by bytes, lines or regex.")
    show.add_argument("id", nargs="?", metavar="ID", help="the artifact id (art_…); optional with --cursor")
    show.add_argument("--offset", type=int, metavar="N", help="start at byte N (default 0)")
    show.add_argument("--limit", type=int, metavar="BYTES",
                      help=f"page size in bytes (default {DEFAULT_LIMIT}, at most {MAX_LIMIT})")
    show.add_argument("--lines", metavar="A:B", help="lines A to B, 1-based, inclusive; either side optional")
    show.add_argument("--grep", metavar="REGEX", help="only lines matching REGEX (Python syntax), numbered")
    show.add_argument("--cursor", metavar="C", help="continue from a previous page's next_cursor")
    ns = parser.parse_args(list(args))
    pos, limit, cursor_id = _position(ns)
    artifact_id = ns.id if ns.id is not None else cursor_id
    if artifact_id is None:
        raise UsageError("agentwrap artifact show needs an artifact ID (or a --cursor).",
                         suggested_fix="Copy the id from the envelope's `artifacts` list.")
    if cursor_id is not None and cursor_id != artifact_id:
        raise UsageError(f"--cursor belongs to artifact {cursor_id}, not {artifact_id}.",
                         suggested_fix="Pass the cursor without an ID, or with the ID it came from.")
    ref = ArtifactStore().get(artifact_id)
    if pos.offset > ref.bytes:
        raise UsageError(f"offset {pos.offset} is past the end of {ref.id} ({ref.bytes} bytes).")
    try:
        with open(ref.path, "rb") as fh:
            data, summary = _page(fh, ref, pos, limit)
    except FileNotFoundError as exc:  # pruned between lookup and open
        raise ArtifactNotFound(f"artifact {ref.id} has expired.") from exc
    return Outcome(build(request_id=ctx.request_id, summary=summary, data=data, artifacts=[ref.to_dict()]), 0)


def _position(ns: Any) -> tuple[Position, int, str | None]:
    limit = DEFAULT_LIMIT if ns.limit is None else int(ns.limit)
    if not MIN_LIMIT <= limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between {MIN_LIMIT} and {MAX_LIMIT} bytes, not {limit}.")
    if ns.cursor is not None:
        if ns.offset is not None or ns.lines is not None or ns.grep is not None:
            raise UsageError("--cursor already holds the position and filters; "
                             "do not combine it with --offset, --lines or --grep.")
        pos, cursor_id, cursor_limit = _decode_cursor(str(ns.cursor))
        return pos, limit if ns.limit is not None else cursor_limit, cursor_id
    if ns.offset is not None and (ns.lines is not None or ns.grep is not None):
        raise UsageError("--offset counts bytes; it cannot be combined with --lines or --grep.")
    if ns.offset is not None and ns.offset < 0:
        raise UsageError(f"--offset must be 0 or more, not {ns.offset}.")
    first, last = _parse_lines(ns.lines) if ns.lines is not None else (1, None)
    if ns.grep is not None:
        _compile(ns.grep)
        return Position("grep", last=last, pattern=ns.grep, seek=first), limit, None
    mode = "lines" if ns.lines is not None else "bytes"
    return Position(mode, offset=ns.offset or 0, last=last, seek=first), limit, None


def _parse_lines(spec: str) -> tuple[int, int | None]:
    match = re.fullmatch(r"(\d*)(:?)(\d*)", spec.strip())
    if match is None or not (match[1] or match[3]) or (match[3] and not match[2]):
        raise UsageError(f"--lines {spec!r} is not a range: use A:B, A:, :B or N (1-based, inclusive).")
    first = int(match[1]) if match[1] else 1
    last = int(match[3]) if match[3] else (None if match[2] else first)
    if first < 1 or (last is not None and last < first):
        raise UsageError(f"--lines {spec!r}: lines are numbered from 1 and A must not exceed B.")
    return first, last


def _compile(pattern: str) -> re.Pattern[str]:
    if len(pattern) > MAX_PATTERN:
        raise UsageError(f"--grep pattern is {len(pattern)} characters; at most {MAX_PATTERN} are accepted.")
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise UsageError(f"--grep {pattern!r} is not a valid regular expression: {exc}.") from exc


def _encode_cursor(artifact_id: str, pos: Position, limit: int) -> str:
    raw = {"v": 1, "id": artifact_id, "m": pos.mode, "o": pos.offset, "n": pos.line, "l": limit,
           **({"b": pos.last} if pos.last is not None else {}), **({"g": pos.pattern} if pos.pattern else {})}
    return base64.urlsafe_b64encode(orjson.dumps(raw)).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[Position, str, int]:
    bad = UsageError("--cursor is not a cursor from `agentwrap artifact show` (damaged or truncated).",
                     suggested_fix="Pass next_cursor exactly as the previous page returned it.")
    try:
        raw = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, orjson.JSONDecodeError) as exc:
        raise bad from exc
    ok = (isinstance(raw, dict) and raw.get("v") == 1 and isinstance(raw.get("id"), str)
          and ID_RE.fullmatch(raw["id"]) is not None and raw.get("m") in ("bytes", "lines", "grep")
          and all(type(raw.get(k)) is int for k in ("o", "n", "l"))
          and raw["o"] >= 0 and raw["n"] >= 1 and MIN_LIMIT <= raw["l"] <= MAX_LIMIT
          and (raw.get("b") is None or type(raw.get("b")) is int)
          and (raw.get("g") is None or isinstance(raw.get("g"), str))
          and (raw["m"] != "grep") == (raw.get("g") is None))
    if not ok:
        raise bad
    if raw.get("g") is not None:
        _compile(raw["g"])
    return Position(raw["m"], raw["o"], raw["n"], raw.get("b"), raw.get("g")), raw["id"], raw["l"]


def _utf8_cut(buf: bytes) -> int:
    """Length of the longest prefix of `buf` that does not end inside a multi-byte UTF-8 character."""
    i = len(buf) - 1
    while i >= 0 and len(buf) - i <= 3 and buf[i] & 0xC0 == 0x80:
        i -= 1
    lead = buf[i] if i >= 0 else 0  # only continuation bytes: not ours to repair, pass them through
    need = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
    return i if i + need > len(buf) else len(buf)


def _page(fh: BinaryIO, ref: ArtifactRef, pos: Position, limit: int) -> tuple[dict[str, Any], str]:
    if pos.seek > 1:
        pos.offset, pos.line = _seek_line(fh, 0, 1, pos.seek)
    start = pos.offset
    data: dict[str, Any] = {"id": ref.id, "media_type": ref.media_type, "total_bytes": ref.bytes,
                            "mode": pos.mode}
    if pos.mode == "grep":
        matches, nxt, eof = _grep(fh, pos, limit)
        returned = sum(len(m["text"].encode()) for m in matches)
        data.update(offset=start, returned_bytes=returned, scanned_bytes=nxt.offset - start, matches=matches)
        found = f"{len(matches)} matching line{'s' * (len(matches) != 1)} for /{pos.pattern}/"
        summary = f"{ref.id}: {found}" + ("" if eof else f" up to line {nxt.line - 1}; more with --cursor")
    else:
        fh.seek(start)
        head = fh.read(4)  # a byte offset may fall inside a character: start at the next whole one
        start += next((k for k, b in enumerate(head[:3]) if b & 0xC0 != 0x80), min(3, len(head)))
        fh.seek(start)
        buf = fh.read(limit)
        eof = start + len(buf) >= ref.bytes
        cut = len(buf) if eof else _utf8_cut(buf)
        if pos.mode == "lines":
            cut, eof = _line_cut(buf, cut, eof, pos)
        buf = buf[:cut]
        newlines = buf.count(b"\n")
        nxt = Position(pos.mode, start + cut, pos.line + newlines, pos.last, None)
        data.update(offset=start, returned_bytes=cut, text=buf.decode("utf-8", "replace"))
        if pos.mode == "lines":
            last_line = pos.line + newlines - buf.endswith(b"\n") if buf else None
            data.update(first_line=pos.line if buf else None, last_line=last_line)
            shown = f"lines {pos.line}–{last_line}" if buf else f"no lines from line {pos.line}"
        else:
            shown = f"{cut} bytes at offset {start} of {ref.bytes}"
        summary = f"{ref.id}: {shown}" + ("" if eof else "; more with --cursor")
    data.update(next_cursor=None if eof else _encode_cursor(ref.id, nxt, limit), eof=eof)
    return data, summary


def _line_cut(buf: bytes, cut: int, eof: bool, pos: Position) -> tuple[int, bool]:
    """Where a --lines page ends: after line `pos.last`, else at the last whole line that fits."""
    if pos.last is not None:
        if pos.line > pos.last:
            return 0, True
        end = _after_lines(buf, pos.last - pos.line + 1)
        if end >= 0:
            return end, True
    if eof:
        return cut, True
    newline = buf.rfind(b"\n", 0, cut)
    return (newline + 1 if newline >= 0 else cut), False  # one overlong line is split at a character


def _seek_line(fh: BinaryIO, offset: int, line: int, target: int) -> tuple[int, int]:
    """The byte offset where line `target` starts (or the end of the file), counting from `offset`."""
    fh.seek(offset)
    while line < target and (block := fh.read(BLOCK)):
        end = _after_lines(block, target - line)
        if end < 0:
            line, offset = line + block.count(b"\n"), offset + len(block)
            continue
        return offset + end, target
    return offset, line


def _after_lines(buf: bytes, count: int) -> int:
    """The offset just past the `count`-th newline in `buf`, or -1 if it has fewer (no per-line objects)."""
    if buf.count(b"\n") < count:
        return -1
    match = re.match(rb"(?:[^\n]*\n){%d}" % count, buf)
    return match.end() if match else -1


def _line_blocks(fh: BinaryIO) -> Iterator[tuple[bytes, int]]:
    """(whole lines, file bytes they stand for) from the current position. An overlong line is cut
    to its first LINE_CAP bytes and its rest skipped, so memory stays bounded."""
    carry = b""
    while block := fh.read(BLOCK):
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        if cut:
            carry = data[cut:]
            yield data[:cut], cut
        elif len(data) <= LINE_CAP:
            carry = data
        else:
            skipped, carry = 0, b""
            while rest := fh.read(BLOCK):
                newline = rest.find(b"\n")
                if newline >= 0:
                    skipped, carry = skipped + newline + 1, rest[newline + 1 :]
                    yield data + b"\n", len(data) + skipped
                    break
                skipped += len(rest)
            else:
                yield data, len(data) + skipped
                return
    if carry:
        yield carry, len(carry)


def _grep(fh: BinaryIO, pos: Position, limit: int) -> tuple[list[dict[str, Any]], Position, bool]:
    """Matching lines from `pos` on, at most MAX_MATCHES and `limit` bytes of text per page."""
    assert pos.pattern is not None
    # The MULTILINE search over a whole block finds candidate lines fast; the plain pattern on the
    # line alone then decides, so `^`, `$` and lookarounds mean what they mean to grep.
    block_rx, line_rx = _compile(pos.pattern), re.compile(pos.pattern)
    matches: list[dict[str, Any]] = []
    offset, line, used = pos.offset, pos.line, 0
    fh.seek(offset)
    for chunk, advance in _line_blocks(fh):
        if pos.last is not None and line > pos.last:
            break
        end = _after_lines(chunk, pos.last - line + 1) if pos.last is not None else -1  # stop after `last`
        if (done := end >= 0) and end < len(chunk):
            advance, chunk = end, chunk[:end]
        # surrogateescape round-trips any bytes, so a line start maps back to an exact file offset
        text = chunk.decode("utf-8", "surrogateescape")
        at = counted = 0
        while (hit := block_rx.search(text, at)) is not None:
            line_start = text.rfind("\n", 0, hit.start()) + 1
            line_end = text.find("\n", line_start)
            line_end = len(text) if line_end < 0 else line_end
            line += text.count("\n", counted, line_start)
            counted, at = line_start, line_end + 1
            if line_rx.search(text[line_start:line_end]) is None:
                continue
            raw = text[line_start:line_end].encode("utf-8", "surrogateescape")
            room = min(MATCH_TEXT_BYTES, limit - used)
            # A line that would be clipped only for lack of room on this page opens the next one.
            if matches and (len(matches) >= MAX_MATCHES or room < min(len(raw), MATCH_TEXT_BYTES)):
                stop = offset + len(text[:line_start].encode("utf-8", "surrogateescape"))
                return matches, Position("grep", stop, line, pos.last, pos.pattern), False
            shown = raw[: _utf8_cut(raw[:room])] if len(raw) > room else raw
            matches.append({"line": line, "text": shown.decode("utf-8", "replace"),
                            **({"truncated": True} if len(shown) < len(raw) else {})})
            used += len(shown)
        line += text.count("\n", counted)
        offset += advance
        if done:
            break
    return matches, Position("grep", offset, line, pos.last, pos.pattern), True
