"""`agentwrap artifact show ID`: read a stored output back in bounded pages (CONTRACT section 7).

Every mode streams the file in blocks, so memory stays bounded by the page size however large the
artifact. Pages never end inside a UTF-8 character, and `next_cursor` resumes exactly where a
page ended, so concatenating the pages of a walk gives back the file.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from typing import Any, BinaryIO

import orjson

from agentwrap.artifacts import ID_RE, ArtifactDamaged, ArtifactNotFound, ArtifactRef, ArtifactStore, check_intact
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.commands._artifact_scan import (
    LINE_CAP,
    MATCH_TEXT_BYTES,
    MAX_MATCHES,
    Position,
    after_lines,
    grep,
    seek_line,
    utf8_cut,
)
from agentwrap.envelope import Outcome, build
from agentwrap.errors import UsageError

DEFAULT_LIMIT = 16384
MAX_LIMIT = 1 << 20
MIN_LIMIT = 4  # one UTF-8 character always fits, so every page makes progress
MAX_PATTERN = 1000

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
    show.add_argument("--grep", metavar="REGEX",
                      help=f"only lines matching REGEX (Python syntax), numbered; at most {MAX_MATCHES} a page, "
                           f"a long line as {MATCH_TEXT_BYTES} bytes around the match")
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
            check_intact(ref, fh)  # a short file would page forever; a changed one is not the output
            data, summary = _page(fh, ref, pos, limit)
    except FileNotFoundError as exc:  # pruned between lookup and open
        raise ArtifactNotFound(f"artifact {ref.id} has expired.") from exc
    if ctx.detail == "concise":  # the page and where to go on: the summary says which artifact and how much
        data = {k: v for k, v in data.items() if k in _CONCISE and v is not None}
        return Outcome(build(request_id=ctx.request_id, summary=summary, data=data), 0)
    return Outcome(build(request_id=ctx.request_id, summary=summary, data=data, artifacts=[ref.to_dict()]), 0)


# What an agent reading a page acts on; the rest (the id, sizes, mode, the artifact's file record) the summary
# says or `--detail standard` gives.
_CONCISE = ("text", "matches", "first_line", "last_line", "next_cursor")


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


def _page(fh: BinaryIO, ref: ArtifactRef, pos: Position, limit: int) -> tuple[dict[str, Any], str]:
    if pos.seek > 1:
        pos.offset, pos.line = seek_line(fh, 0, 1, pos.seek)
    data: dict[str, Any] = {"id": ref.id, "media_type": ref.media_type, "total_bytes": ref.bytes,
                            "mode": pos.mode}
    if pos.mode == "grep":
        nxt, more, summary = _grep_page(fh, ref, pos, limit, data)
    else:
        nxt, more, summary = _text_page(fh, ref, pos, limit, data)
    # eof is a fact about the file; next_cursor says whether more of what was asked is left, so a
    # --lines range that ends before the file does is eof false with no cursor.
    data.update(next_cursor=_encode_cursor(ref.id, nxt, limit) if more else None,
                eof=nxt.offset >= ref.bytes)
    return data, summary


def _grep_page(fh: BinaryIO, ref: ArtifactRef, pos: Position, limit: int,
               data: dict[str, Any]) -> tuple[Position, bool, str]:
    found = grep(fh, pos, limit)
    matches, nxt = found.matches, found.next
    returned = sum(len(m["text"].encode()) for m in matches)
    data.update(offset=pos.offset, returned_bytes=returned, scanned_bytes=nxt.offset - pos.offset,
                matches=matches)
    summary = f"{ref.id}: {len(matches)} matching line{'s' * (len(matches) != 1)} for /{pos.pattern}/"
    if found.windowed_lines:
        # Honest about the one approximation: a match longer than OVERLAP across two windows can be missed.
        data.update(windowed_lines=found.windowed_lines)
        summary += f" ({found.windowed_lines} line{'s' * (found.windowed_lines != 1)} over {LINE_CAP >> 20} MiB" \
                   " searched in overlapping windows)"
    if found.more:
        summary += f" up to line {nxt.line - 1}; more with --cursor"
    elif nxt.offset < ref.bytes:
        summary += f" up to line {nxt.line - 1}, the end of --lines (the file goes on)"
    return nxt, found.more, summary


def _text_page(fh: BinaryIO, ref: ArtifactRef, pos: Position, limit: int,
               data: dict[str, Any]) -> tuple[Position, bool, str]:
    start = pos.offset
    fh.seek(start)
    head = fh.read(4)  # a byte offset may fall inside a character: start at the next whole one
    start += next((k for k, b in enumerate(head[:3]) if b & 0xC0 != 0x80), min(3, len(head)))
    fh.seek(start)
    buf = fh.read(limit)
    at_end = start + len(buf) >= ref.bytes
    if not buf and not at_end:  # the file shrank after check_intact: never a page that makes no progress
        raise ArtifactDamaged(f"artifact {ref.id} ends at byte {start}, before its stored {ref.bytes} bytes.")
    cut = len(buf) if at_end else utf8_cut(buf)
    more = not at_end
    if pos.mode == "lines":
        cut, more = _line_cut(buf, cut, at_end, pos)
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
    if more:
        shown += "; more with --cursor"
    elif nxt.offset < ref.bytes:
        shown += "; the end of --lines, not of the file"
    return nxt, more, f"{ref.id}: {shown}"


def _line_cut(buf: bytes, cut: int, at_end: bool, pos: Position) -> tuple[int, bool]:
    """Where a --lines page ends, and whether the range goes on past it: after line `pos.last`, else at
    the last whole line that fits."""
    if pos.last is not None:
        if pos.line > pos.last:
            return 0, False
        end = after_lines(buf, pos.last - pos.line + 1)
        if end >= 0:
            return end, False
    if at_end:
        return cut, False
    newline = buf.rfind(b"\n", 0, cut)
    return (newline + 1 if newline >= 0 else cut), True  # one overlong line is split at a character
