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

import contextlib
import json
import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agentwrap.state import state_dir, state_path

if TYPE_CHECKING:
    from pathlib import Path

LEDGER = "stats.jsonl"
OFF_MARKER = "stats.off"
ROTATE_BYTES = 2 * 1024 * 1024
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
        with contextlib.suppress(FileNotFoundError):
            marker.unlink()
    else:
        marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        marker.write_text("agentwrap stats are off; `agentwrap stats --on` turns them back on\n")
    return marker


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
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data)  # one write of a short line under O_APPEND: concurrent runs do not interleave
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > ROTATE_BYTES:
            os.replace(path, path + ".1")
    except OSError:
        pass


def read(since: float | None = None) -> Iterator[dict[str, Any]]:
    """Every line at or after `since` (epoch seconds), oldest first; unreadable lines are skipped."""
    path = ledger_path()
    for part in (path.with_name(LEDGER + ".1"), path):
        try:
            handle = part.open("rb")
        except OSError:
            continue
        with handle:
            for raw in handle:
                try:
                    line = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(line, dict):
                    continue
                if since is not None and _epoch(line.get("ts")) < since:
                    continue
                yield line


def _epoch(ts: Any) -> float:
    import calendar

    try:
        return float(calendar.timegm(time.strptime(str(ts), "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return 0.0
