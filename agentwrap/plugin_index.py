"""The index of adapter plugins: program name -> entry point, as importlib.metadata would list them, cached.

`importlib.metadata.entry_points()` costs 10-25 ms a run, most of it importing and scanning every
distribution. Agentwrap answers the same question from a cache kept per sys.path folder (its mtime) and per
entry_points.txt (its mtime and size), and defers to importlib.metadata wherever it could differ (zip
files on sys.path, other finders).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from typing import Any

from agentwrap.folders import cache_path, write_cached
from agentwrap.lazyre import lazy

GROUP = "agentwrap.adapters"  # the unversioned group of earlier releases (still read)
GROUP_V1 = "agentwrap.adapters.v1"  # = agentwrap.sdk.ENTRY_POINT_GROUP
V1_MARK = "v1:"  # how the index marks a v1 entry's value
_SEPARATORS = lazy(r"[-_.]+")

_INDEX: dict[str, str] | None = None
_CACHE_VERSION = 3  # 3: the v1 group is indexed too
_CACHE_MAX_FOLDERS = 32
_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_RACY_NS = 2_000_000_000


def by_program() -> dict[str, str]:
    """program name -> 'module:attr' (a v1 entry's marked `v1:`) of every installed distribution, once a run."""
    global _INDEX
    if _INDEX is None:
        _INDEX = read_entry_points()
    return _INDEX


def _cache_file() -> str:
    """Beside the artifacts (AGENTWRAP_CACHE_DIR, else the user cache folder), without platformdirs on Linux."""
    return os.path.join(cache_path(), "entry-points.json")


def _normalize(name: str) -> str:
    """A distribution name as importlib.metadata compares them (PEP 503, dashes as underscores)."""
    return _SEPARATORS.sub("-", name).lower().replace("-", "_")


def _settled(mtime_ns: int) -> int:
    """An mtime to remember, or -1 (look again next time) when it is too recent to be trusted: a change
    within the same clock tick would leave it unchanged (the racy-timestamp problem git's index has)."""
    return mtime_ns if time.time_ns() - mtime_ns > _RACY_NS else -1


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [_settled(st.st_mtime_ns), st.st_size]


def _unchanged(cached: list[int] | None, now: list[int] | None) -> bool:
    return cached == now and (now is None or now[0] != -1)


def _group_entries(path: str) -> list[list[str]]:
    """The `[agentwrap.adapters]` and `[agentwrap.adapters.v1]` pairs of one entry_points.txt (the format
    importlib.metadata reads); a v1 value carries the `v1:` mark."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, ValueError):
        return []
    if GROUP not in text:
        return []
    pairs, section = [], None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section in (GROUP, GROUP_V1) and "=" in line:
            name, _, value = line.partition("=")
            pairs.append([name.strip(), (V1_MARK if section == GROUP_V1 else "") + value.strip()])
    return pairs


def _metadata_children(folder: str) -> list[tuple[str, str]]:
    """(child, normalized distribution name) for every distribution in a folder, in importlib.metadata's order."""
    infos: dict[str, list[str]] = {}
    eggs: list[tuple[str, str]] = []
    base = os.path.basename(folder).lower()
    for child in os.listdir(folder):
        low = child.lower()
        if low.endswith(_METADATA_SUFFIXES):
            infos.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(child)
        elif low == "egg-info" and base.endswith(".egg"):  # an unpacked .egg folder on sys.path
            eggs.append((child, _normalize(base.rpartition(".")[0].partition("-")[0])))
    return [(child, norm) for norm, children in infos.items() for child in children] + eggs


def _scan_folder(folder: str, mtime: int, old: dict[str, Any] | None) -> dict[str, Any]:
    """A folder's record: its mtime and, per distribution, [child, name, entry_points.txt stamp, pairs]."""
    known = {d[0]: d for d in old["dists"]} if old else {}
    dists = []
    for child, norm in _metadata_children(folder):
        ep_file = os.path.join(folder, child, "entry_points.txt")
        stamp = _stamp(ep_file)
        prior = known.get(child)
        if prior is not None and prior[1] == norm and _unchanged(prior[2], stamp):
            dists.append(prior)
        else:
            dists.append([child, norm, stamp, _group_entries(ep_file) if stamp else []])
    return {"mtime": _settled(mtime), "dists": dists}


def _uses_other_finders() -> bool:
    """True when a finder other than the path finder can list distributions (zip files on sys.path, custom
    finders): those are left to importlib.metadata."""
    try:
        from _frozen_importlib_external import PathFinder  # what importlib.machinery re-exports, already loaded
    except ImportError:
        from importlib.machinery import PathFinder

    return any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path)


def read_entry_points() -> dict[str, str]:
    """The index, computed as importlib.metadata.entry_points() would, without importing it (~10-25 ms).

    Each sys.path folder's distributions are cached with the folder's mtime (installing or removing a
    distribution changes it) and each entry_points.txt's mtime and size (an in-place rewrite, as
    setuptools' egg_info does). A folder that holds no distribution (the working directory of `-c` and `-m`
    runs, a venv's bin folder) changing costs a listdir, never a rewrite of the cache.
    """
    if _uses_other_finders():
        return _read_with_importlib()
    cache_path = _cache_file()
    try:
        with open(cache_path, encoding="utf-8") as f:
            cached = json.loads(f.read())
        folders: dict[str, Any] = cached["folders"] if cached["version"] == _CACHE_VERSION else {}
    except (OSError, ValueError, KeyError, TypeError):
        folders = {}
    try:
        found = _index(folders)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):  # a damaged cache: start afresh
        folders = {}
        found = _index(folders)
    if found is None:
        return _read_with_importlib()
    index, changed = found
    if changed:
        _write_cache(cache_path, folders)
    return index


def _index(folders: dict[str, Any]) -> tuple[dict[str, str], bool] | None:
    """Merge the folders of sys.path in order, rescanning the ones that changed (updating `folders`);
    None when sys.path holds something other than folders."""
    changed = False
    index: dict[str, str] = {}
    seen: set[str] = set()
    for entry in sys.path:
        if not isinstance(entry, str):
            continue
        folder = os.path.abspath(entry) if entry else os.getcwd()
        try:
            st = os.stat(folder)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            return None  # a zip file or a zipped egg
        record = folders.get(folder)
        if not isinstance(record, dict) or record.get("mtime") != st.st_mtime_ns:
            old = record if isinstance(record, dict) else None
            try:
                record = _scan_folder(folder, st.st_mtime_ns, old)
            except OSError:
                continue
            folders[folder] = record
            # Written when distributions are or were there; a folder with none (the working directory, a
            # venv's bin) is remembered only along with such a change, so a busy one never causes a write.
            changed = changed or bool(record["dists"] or (old and old["dists"]))
        else:
            for dist in record["dists"]:  # a rewrite in place leaves the folder's mtime alone
                ep_file = os.path.join(folder, dist[0], "entry_points.txt")
                ep_stamp = _stamp(ep_file)
                if not _unchanged(dist[2], ep_stamp):
                    dist[2], dist[3] = ep_stamp, _group_entries(ep_file) if ep_stamp else []
                    changed = True
        for _child, norm, _ep_stamp, pairs in record["dists"]:
            if norm in seen:  # the first distribution of a name on sys.path hides the others
                continue
            seen.add(norm)
            for name, value in pairs:
                if value.startswith(V1_MARK) or not index.get(name, "").startswith(V1_MARK):
                    index[name] = value
    return index, changed


def _write_cache(path: str, folders: dict[str, Any]) -> None:
    if len(folders) > _CACHE_MAX_FOLDERS:  # keep the folders of this sys.path, drop the oldest others
        current = {os.path.abspath(p) for p in sys.path if isinstance(p, str) and p}
        others = [f for f in folders if f not in current]
        for f in others[: len(folders) - _CACHE_MAX_FOLDERS]:
            del folders[f]
    write_cached(path, json.dumps({"version": _CACHE_VERSION, "folders": folders}))


def _read_with_importlib() -> dict[str, str]:
    from importlib.metadata import entry_points

    index = {ep.name: ep.value for ep in entry_points(group=GROUP)}
    index.update({ep.name: V1_MARK + ep.value for ep in entry_points(group=GROUP_V1)})
    return index
