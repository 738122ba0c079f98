"""Checked adapter specs, kept as JSON beside the artifacts, so a run does not parse and check TOML again.

Every git, pytest or pip run loads its adapter's spec: importing tomllib, parsing the file and checking
it (each rule's pattern compiled once to prove it valid) cost 12-20 ms of a git run, more than the rest
of its start-up beyond a bare `agentwrap --agent true`. The checked data is kept keyed by the file's
path, modification time and size, by agentwrap's version and by the checker's own file, so an edited
spec or a changed checker is parsed and checked again. A file changed in the last two seconds is not
kept (an edit within the same clock tick would leave its time unchanged, the racy-timestamp problem
git's index has). A cache that cannot be read or written costs only the parse: it never fails a run. A
kept file is read only when it and its folder are the user's own and writable by nobody else.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import zlib
from typing import Any

from agentwrap import __version__
from agentwrap.folders import cache_path, write_cached

VERSION = 1
_RACY_NS = 2_000_000_000
MAX_KEPT = 256  # files in specs/: a few install locations' specs; past it the oldest go


def _checker_stamp() -> list[int]:
    st = os.stat(os.path.join(os.path.dirname(__file__), "spec_check.py"))
    return [st.st_mtime_ns, st.st_size]


def _entry(path: str) -> tuple[str, dict[str, Any]] | None:
    """Where the spec at `path` is kept, and what must match for the kept copy to be used."""
    try:
        st = os.stat(path)
        checker = _checker_stamp()
    except OSError:
        return None
    name = f"{zlib.crc32(path.encode('utf-8', 'surrogateescape')):08x}-{os.path.basename(path)[:80]}.json"
    key = {"v": VERSION, "agentwrap": __version__, "path": path, "mtime_ns": st.st_mtime_ns,
           "size": st.st_size, "checker": checker}
    return os.path.join(cache_path(), "specs", name), key


def _private(st: os.stat_result) -> bool:
    """Ours and writable by us alone (a cache folder on a shared disk must not let another user's file in)."""
    return st.st_uid == os.geteuid() and not st.st_mode & 0o022


def load(path: str) -> dict[str, Any] | None:
    """The checked data of the spec at `path` (absolute), if a kept copy matches the file as it is now."""
    entry = _entry(path)
    if entry is None:
        return None
    where, key = entry
    try:
        if not (_private(os.stat(os.path.dirname(where))) and _private(os.stat(where))):
            return None  # what someone else could have written may not stand for a spec's rules and fixes
        with open(where, encoding="utf-8") as f:
            kept = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("key") != key or not isinstance(kept.get("data"), dict):
        return None
    data: dict[str, Any] = kept["data"]
    return data


def keep(path: str, data: dict[str, Any]) -> None:
    """Keep the checked data of the spec at `path` (best effort: a failure only means parsing next time)."""
    entry = _entry(path)
    if entry is None or time.time_ns() - entry[1]["mtime_ns"] <= _RACY_NS:
        return
    where, key = entry
    try:
        text = json.dumps({"key": key, "data": data})
    except (TypeError, ValueError):  # a TOML date or time has no JSON form: such a spec is parsed each time
        return
    if write_cached(where, text):
        _prune(os.path.dirname(where))


def _prune(folder: str) -> None:
    """Keep at most MAX_KEPT files, the newest: only a miss writes, so this runs when a spec is new or changed."""
    try:
        entries = [e for e in os.scandir(folder) if e.is_file(follow_symlinks=False)]
        if len(entries) <= MAX_KEPT:
            return
        entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime_ns)
        for entry in entries[: len(entries) - MAX_KEPT]:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    except OSError:
        pass  # housekeeping: never a reason to fail a run
