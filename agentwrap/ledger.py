"""The local stats ledger: one line of sizes per run, never a byte of output or arguments.

Each run appends one JSON line to `stats.jsonl` in the state folder (`agentwrap.state`): the program's
name (the basename of argv[0], nothing after it), the adapter, the status and problem code, byte counts,
token estimates and the duration. Nothing here opens a socket. The file is rotated at `ROTATE_BYTES`
(one older generation kept), so the ledger's size, and what `agentwrap stats` holds in memory while
reading it (one line at a time, one row per program and adapter), stay bounded.

Opt out with `AGENTWRAP_NO_STATS=1`, or once for good with `agentwrap stats --off` (a marker file,
checked with one stat() per run).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agentwrap.state import state_dir, state_path

if TYPE_CHECKING:
    from pathlib import Path

LEDGER = "stats.jsonl"
OFF_MARKER = "stats.off"
ROTATE_BYTES = 2 * 1024 * 1024
MAX_LINE = 64 * 1024  # a ledger line is a few hundred bytes: a longer one is damage, skipped unread
_TS = re.compile(r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ\Z")
BYTES_PER_TOKEN = 4  # the usual estimate for English text and code; `bench/session.py` counts real tokens
FIELDS = ("ts", "program", "adapter", "status", "code", "exit_code", "detail", "raw_bytes", "envelope_bytes",
          "raw_tokens_est", "envelope_tokens_est", "duration_ms")


def ledger_path() -> Path:
    return state_dir() / LEDGER


def opted_out() -> bool:
    if os.environ.get("AGENTWRAP_NO_STATS", "").strip().lower() not in ("", "0", "false", "no"):
        return True
    return os.path.exists(os.path.join(state_path(), OFF_MARKER))  # every run: strings, not pathlib


def set_enabled(enabled: bool) -> Path:
    """`agentwrap stats --on|--off`: remove or write the marker file; returns its path."""
    marker = state_dir() / OFF_MARKER
    if enabled:
        if os.path.lexists(marker):  # already on is no change: a read-only folder would refuse even the unlink
            marker.unlink()
    else:
        marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        marker.write_text("agentwrap stats are off; `agentwrap stats --on` turns them back on\n")
    return marker


def writable() -> bool:
    """Whether a run can append to the ledger now (a read-only state folder or ledger drops the lines)."""
    path = ledger_path()
    if path.exists():
        return os.access(path, os.W_OK) and not path.is_dir()
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # append makes the missing folders: the nearest existing one decides
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def tokens(nbytes: int) -> int:
    return -(-nbytes // BYTES_PER_TOKEN)


def entry(*, program: str, adapter: str, status: str, code: str | None, exit_code: int, detail: str,
          raw_bytes: int, envelope_bytes: int, duration_ms: int) -> dict[str, Any]:
    """A ledger line from sizes and names only: the signature admits nothing else."""
    return {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "program": os.path.basename(program)[:80],
            "adapter": adapter, "status": status, "code": code, "exit_code": exit_code, "detail": detail,
            "raw_bytes": raw_bytes, "envelope_bytes": envelope_bytes, "raw_tokens_est": tokens(raw_bytes),
            "envelope_tokens_est": tokens(envelope_bytes), "duration_ms": duration_ms}


def append(line: dict[str, Any]) -> None:
    """Append one line; a ledger that cannot be written never fails the run."""
    folder = state_path()
    path = os.path.join(folder, LEDGER)
    data = (json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8", "replace")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            end = os.fstat(fd).st_size
            if end and _last_byte(fd, end) != b"\n":
                data = b"\n" + data  # a torn last line (a run killed mid-write, a full disk) must not swallow this one
            os.write(fd, data)  # one write of a short line under O_APPEND: concurrent runs do not interleave
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > ROTATE_BYTES:
            os.replace(path, path + ".1")
    except OSError:
        pass


class Reading:
    """What `read` could not use, counted while it reads: lines that are not ledger lines (garbage, a torn
    write, one longer than `MAX_LINE`) and generations that exist but cannot be opened."""

    def __init__(self) -> None:
        self.skipped_lines = 0
        self.unreadable: list[str] = []


def _last_byte(fd: int, size: int) -> bytes:
    try:
        return os.pread(fd, 1, size - 1)
    except OSError:
        return b"\n"  # cannot tell: append as before rather than lose the line


def read(since: float | None = None, reading: Reading | None = None) -> Iterator[dict[str, Any]]:
    """Every ledger line at or after `since` (epoch seconds), oldest first. A line is used only when it is
    a JSON object with a well-formed `ts`; the others are counted in `reading`. Memory stays flat however
    long a line is: it is read in pieces of at most `MAX_LINE` bytes."""
    reading = reading if reading is not None else Reading()
    after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since)) if since is not None else None
    path = ledger_path()
    for part in (path.with_name(LEDGER + ".1"), path):
        try:
            handle = part.open("rb")
        except FileNotFoundError:
            continue
        except OSError:
            reading.unreadable.append(str(part))
            continue
        with handle:
            try:
                for raw in _lines(handle):
                    if raw is not None and not raw.strip():
                        continue  # an empty line is no damage (a torn line's mend leaves none)
                    line = _parse(raw)
                    if line is None:
                        reading.skipped_lines += 1
                    elif after is None or line["ts"] >= after:  # one format, UTC: text order is time order
                        yield line
            except OSError:  # a directory in its place, an I/O error part-way
                reading.unreadable.append(str(part))


def _lines(handle: Any) -> Iterator[bytes | None]:
    """The file's lines; None for one longer than MAX_LINE (its rest is read in pieces and dropped)."""
    while True:
        raw = handle.readline(MAX_LINE)
        if not raw:
            return
        if len(raw) < MAX_LINE or raw.endswith(b"\n"):
            yield raw
            continue
        while raw and not raw.endswith(b"\n"):
            raw = handle.readline(MAX_LINE)
        yield None


def _parse(raw: bytes | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        line = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(line, dict) or not isinstance(line.get("ts"), str) or not _TS.match(line["ts"]):
        return None
    return line
