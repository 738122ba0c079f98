"""The local stats ledger: one line of sizes per run, never a byte of output or arguments.

Each run appends one JSON line to `stats.jsonl` in the state folder (`agentwrap.state`): the program's
name (the basename of argv[0], nothing after it), the adapter, the status and problem code, byte counts,
token estimates and the duration. Nothing here opens a socket. The file is rotated at `ROTATE_BYTES`
(one older generation kept), so the ledger's size, and what `agentwrap stats` holds in memory while
reading it (one line at a time, one row per program and adapter), stay bounded.

`envelope_bytes` is what was written to the caller, so the line is written after the answer: the run
path `hold`s it and the edge that wrote the answer `settle`s it with the byte count. `run` says what the
call was (`RUNS`): a refused call never started its program but still cost the caller its answer.

Opt out with `AGENTWRAP_NO_STATS=1`, or once for good with `agentwrap stats --off` (a marker file,
checked with one stat() per run).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agentwrap.lazyre import lazy
from agentwrap.state import state_dir, state_path

if TYPE_CHECKING:
    from pathlib import Path

LEDGER = "stats.jsonl"
OFF_MARKER = "stats.off"
ROTATE_BYTES = 2 * 1024 * 1024
MAX_LINE = 64 * 1024  # a ledger line is a few hundred bytes: a longer one is damage, skipped unread
_TS = lazy(r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ\Z")
BYTES_PER_TOKEN = 4  # the usual estimate for English text and code; `bench/session.py` counts real tokens
FIELDS = ("ts", "program", "adapter", "run", "status", "code", "exit_code", "detail", "raw_bytes",
          "envelope_bytes", "raw_tokens_est", "envelope_tokens_est", "duration_ms")
# what a line's call was: the program ran here; ran in a detached supervisor (its answer is kept for
# `agentwrap op`, not written to a caller); the --detach call that started it (the acknowledgement);
# an idempotency key's replay (nothing ran); refused before the program started (usage, not found, --read-only)
RUNS = ("attached", "detached", "launch", "replay", "refused")
_held: list[tuple[str, dict[str, Any]]] = []  # this process's finished runs, waiting for their answer's size


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


def entry(*, program: str | None, adapter: str | None, status: str, code: str | None, exit_code: int, detail: str,
          raw_bytes: int, envelope_bytes: int, duration_ms: int, run: str = "attached") -> dict[str, Any]:
    """A ledger line from sizes and names only: the signature admits nothing else."""
    return {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "program": os.path.basename(program)[:80] if program else None, "adapter": adapter, "run": run,
            "status": status, "code": code, "exit_code": exit_code, "detail": detail, "raw_bytes": raw_bytes,
            "envelope_bytes": envelope_bytes, "raw_tokens_est": tokens(raw_bytes),
            "envelope_tokens_est": tokens(envelope_bytes), "duration_ms": duration_ms}


def hold(request_id: str, line: dict[str, Any]) -> None:
    """A finished run's line, kept until its answer is written (`settle`): the size recorded is the size
    of what the caller received, whatever format or projection wrote it."""
    _held.append((request_id, line))


def settle(request_id: str, returned_bytes: int, run: str | None = None) -> bool:
    """Append the held lines now that the answer is written; False when none was held. The run whose
    request this is gets `returned_bytes`; another run of the same call (capture's `--version` probe)
    wrote nothing to the caller. `run` restates what they were (the supervisor's runs are `detached`)."""
    held, _held[:] = list(_held), []
    paid = False
    for rid, line in held:
        mine = rid == request_id and not paid
        paid = paid or mine
        size = returned_bytes if mine else 0
        append({**line, "run": run or line["run"], "envelope_bytes": size, "envelope_tokens_est": tokens(size)})
    return bool(held)


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
            if os.fstat(fd).st_size > ROTATE_BYTES:
                _rotate(fd, path)
        finally:
            os.close(fd)
    except OSError:
        pass


def _rotate(fd: int, path: str) -> None:
    """Move the full ledger (open as `fd`) to its older generation, once. Every run that ends while it is
    full gets here: without the lock and the check, a second one would move the new, nearly empty ledger
    over the generation the first had just kept, and lose it. The lock is on the full file itself and
    never waited for (its holder is rotating it); a line written to the old file after the move is in
    the older generation, not lost. Only a run past the limit pays for this, never a plain one."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another run holds it: it is moving this very file
    try:
        if os.stat(path).st_ino == os.fstat(fd).st_ino:  # still the ledger: no one moved it before us
            os.replace(path, path + ".1")
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


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
    # the current file is opened first: a rotation between the two opens then makes both the same file
    # (read once) instead of hiding the generation it moved
    current = _open(path, reading)
    older = _open(path.with_name(LEDGER + ".1"), reading)
    if older is not None and current is not None and _same_file(older, current):
        older.close()
        older = None
    for part, handle in ((path.with_name(LEDGER + ".1"), older), (path, current)):
        if handle is None:
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


def _open(part: Path, reading: Reading) -> Any:
    try:
        return part.open("rb")
    except FileNotFoundError:
        return None
    except OSError:
        reading.unreadable.append(str(part))
        return None


def _same_file(a: Any, b: Any) -> bool:
    one, two = os.fstat(a.fileno()), os.fstat(b.fileno())
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


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
