"""One folder per operation under the state directory, written so a reader never sees half a file.

    $AGENTWRAP_STATE_DIR (else the platformdirs user state folder)/operations/op_…/
        request.json   what was asked: wrapper options, argv, cwd           (written once, by the launcher)
        state.json     lifecycle: starting|running|succeeded|failed|cancelled|lost, supervisor pid + start time
        events.jsonl   the --format jsonl stream of the run, appended one whole line per write
        result.json    the final envelope (standard detail)                 (written once, at the end)
        cancel.json    present once someone asked to cancel

JSON files are written to a temporary name, fsynced, and renamed over the old one (os.replace is atomic
on POSIX), so a reader sees the old state or the new one, never a mix. events.jsonl is read line by line
and a last line without its newline (a write in progress) is left for the next read.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentwrap.errors import AgentwrapError
from agentwrap.lazyre import lazy
from agentwrap.state import state_dir

FINAL = ("succeeded", "failed", "cancelled", "lost")
RETENTION_SECONDS = 7 * 86400  # a finished operation is kept this long, then pruned
PRUNE_INTERVAL_SECONDS = 3600
ID_RE = lazy(r"op_[0-9a-hjkmnp-tv-z]{26}\Z")


class OperationNotFound(AgentwrapError):
    code = "OPERATION_NOT_FOUND"


def state_base() -> Path:
    return state_dir()


def root() -> Path:
    return state_base() / "operations"


def folder(op_id: str) -> Path:
    """The folder of an existing operation; OPERATION_NOT_FOUND for a malformed or unknown id."""
    if not ID_RE.match(op_id):
        raise OperationNotFound(f"{op_id!r} is not an operation id (they look like op_01j…, 29 characters)",
                                suggested_fix="Run `agentwrap op list` to see the operations kept here.")
    path = root() / op_id
    if not (path / "request.json").exists():
        raise OperationNotFound(f"no operation {op_id} here (finished ones are kept 7 days)",
                                suggested_fix="Run `agentwrap op list` to see the operations kept here.")
    return path


def create(op_id: str) -> Path:
    path = root() / op_id
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def write_json(path: Path, value: Any) -> None:
    """Crash-safe: temp file, fsync, rename over, fsync the folder."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        return None


def update_state(path: Path, **changes: Any) -> dict[str, Any]:
    state = read_json(path / "state.json") or {}
    state.update(changes)
    write_json(path / "state.json", state)
    return state


def record_final(path: Path, standard: dict[str, Any], concise: dict[str, Any], exit_code: int) -> dict[str, Any]:
    """The end of an operation: its envelope (standard, and the concise view an agent reads), then the state."""
    import time

    from agentwrap.ids import utc_now

    write_json(path / "result.concise.json", concise)
    write_json(path / "result.json", standard)
    cancelled = (path / "cancel.json").exists()
    final = "cancelled" if cancelled else ("succeeded" if standard.get("status") == "success" else "failed")
    return update_state(path, state=final, exit_code=exit_code, summary=standard.get("summary"),
                        ended_at=utc_now(), ended_epoch=time.time())


def read_result(path: Path, detail: str) -> dict[str, Any] | None:
    """The recorded envelope at `detail` (concise is what was projected from the live record)."""
    if detail == "concise":
        concise = read_json(path / "result.concise.json")
        if concise is not None:
            return dict(concise)
    result = read_json(path / "result.json")
    return dict(result) if result is not None else None


def read_events(path: Path, after: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
    """Events with a sequence above `after`, whole lines only."""
    out: list[dict[str, Any]] = []
    try:
        data = (path / "events.jsonl").read_bytes()
    except FileNotFoundError:
        return out
    end = data.rfind(b"\n")
    for line in data[:end + 1].splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if int(event.get("sequence", 0)) > after:
            out.append(event)
            if limit is not None and len(out) >= limit:
                break
    return out


def all_ids() -> Iterator[str]:
    try:
        names = sorted(os.listdir(root()), reverse=True)  # ids sort by time: newest first
    except FileNotFoundError:
        return
    for name in names:
        if ID_RE.match(name):
            yield name


def prune(now: float | None = None, older_than: float = RETENTION_SECONDS) -> list[str]:
    """Remove finished operations that ended more than `older_than` seconds ago; running ones stay."""
    now = time.time() if now is None else now
    removed = []
    for op_id in all_ids():
        path = root() / op_id
        state = read_json(path / "state.json") or {}
        if state.get("state") not in FINAL:
            continue
        ended = float(state.get("ended_epoch") or state.get("created_epoch") or now)
        if now - ended >= older_than:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(op_id)
    return removed


def prune_now_and_then() -> None:
    """prune() at most once an hour, from the launcher, so the folder never grows without bound."""
    mark = root() / ".last-prune"
    try:
        if time.time() - mark.stat().st_mtime < PRUNE_INTERVAL_SECONDS:
            return
    except FileNotFoundError:
        pass
    with contextlib.suppress(OSError):
        root().mkdir(parents=True, exist_ok=True, mode=0o700)
        mark.touch()
        prune()
