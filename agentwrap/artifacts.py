"""The artifact store of CONTRACT section 7: complete outputs kept on disk, private and expiring.

One artifact is two files in one private directory: the content (`ID.txt` or `ID.bin`) and a
small JSON sidecar (`ID.json`) holding its metadata. Content is written under a temporary name
and renamed into place, and the sidecar is renamed last, so a reader that finds a sidecar always
finds complete content beside it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from agentwrap.errors import AgentwrapError
from agentwrap.folders import cache_path
from agentwrap.ids import new_id, rfc3339
from agentwrap.lazyre import lazy
from agentwrap.percent import quoted

if TYPE_CHECKING:
    from pathlib import Path

# Paths are strings here: many runs keep an artifact, and pathlib (with urllib.parse and ipaddress) costs
# ~3 ms of every start. `root`, `cache_base` and `default_root` give a Path to the callers that want one.

DEFAULT_TTL_SECONDS = 7 * 86400
ID_RE = lazy(r"art_[0-9a-hjkmnp-tv-z]{26}")
# A crashed writer leaves a temporary file or content without a sidecar; after this long no live
# writer can still own it.
STALE_SECONDS = 86400
# prune() runs from create(); scanning the directory at most this often keeps create() cheap.
PRUNE_INTERVAL_SECONDS = 600
_PRUNE_MARK = ".last-prune"
_MAX_NAME = 200


class ArtifactError(AgentwrapError):
    """The store could not be written or read (unwritable cache directory, disk full, ...)."""

    code = "INTERNAL"


class ArtifactNotFound(AgentwrapError):
    """The id is malformed, unknown or expired (as OPERATION_NOT_FOUND and PLAN_NOT_FOUND are for theirs)."""

    code = "ARTIFACT_NOT_FOUND"


class ArtifactDamaged(AgentwrapError):
    """The content file is not what was published: shorter, longer or with other bytes (a full disk, an edit)."""

    code = "ARTIFACT_DAMAGED"


# Hashing the content on every page read is cheap up to this size (a few ms); beyond it only the size is checked.
HASH_CHECK_BYTES = 1 << 20


def cache_base() -> Path:
    """`cache_path` as a Path."""
    from pathlib import Path

    return Path(cache_path())


def default_folder() -> str:
    """Where artifacts are kept: `artifacts` in the cache folder."""
    return os.path.join(cache_path(), "artifacts")


def default_root() -> Path:
    """`default_folder` as a Path."""
    from pathlib import Path

    return Path(default_folder())


def file_uri(path: str) -> str:
    """The `file://` URI of an absolute path, as `Path(path).as_uri()` spells it (RFC 8089)."""
    return "file://" + quoted(os.fsencode(path))


class ArtifactRef(NamedTuple):
    id: str
    path: str  # the content file, absolute
    media_type: str
    bytes: int
    sha256: str
    created_at: str
    expires_at: str
    name: str = ""

    @property
    def uri(self) -> str:
        return file_uri(os.path.abspath(self.path))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "uri": self.uri,
            "media_type": self.media_type,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "expires_at": self.expires_at,
            "created_at": self.created_at,
            "name": self.name,
        }


def _content_name(artifact_id: str, media_type: str) -> str:
    # Only two suffixes, neither `.json`, so content can never be mistaken for a sidecar.
    return artifact_id + (".txt" if media_type.startswith("text/") else ".bin")


def _open_private(path: str) -> int:
    # O_EXCL: never write through a file or symlink someone else placed under our name.
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)


class ArtifactWriter:
    """Streams one artifact to disk, hashing as it goes, so memory stays constant."""

    def __init__(self, store: ArtifactStore, artifact_id: str, media_type: str, name: str) -> None:
        self._store = store
        self.id = artifact_id
        self._media_type = media_type
        self._name = name
        self._final = os.path.join(store.folder, _content_name(artifact_id, media_type))
        self._tmp = os.path.join(store.folder, f".{artifact_id}.tmp")
        try:
            self._fh = os.fdopen(_open_private(self._tmp), "wb")
        except OSError as exc:
            raise ArtifactError(f"cannot create an artifact in {store.folder}: {exc.strerror or exc}") from exc
        import hashlib

        self._hash = hashlib.sha256()
        self._bytes = 0
        self._created = time.time()
        self._ref: ArtifactRef | None = None
        self._aborted = False

    def write(self, data: bytes) -> None:
        if self._ref is not None or self._aborted:
            raise ArtifactError(f"artifact {self.id} is already closed")
        try:
            self._fh.write(data)
        except OSError as exc:
            self.abort()
            raise ArtifactError(f"cannot write artifact {self.id}: {exc.strerror or exc}") from exc
        self._hash.update(data)
        self._bytes += len(data)

    def close(self) -> ArtifactRef:
        """Publish the artifact; calling it again returns the same reference."""
        if self._ref is not None:
            return self._ref
        if self._aborted:
            raise ArtifactError(f"artifact {self.id} was abandoned after a write error")
        expires = self._created + self._store.ttl_seconds
        ref = ArtifactRef(
            id=self.id,
            path=self._final,
            media_type=self._media_type,
            bytes=self._bytes,
            sha256=self._hash.hexdigest(),
            created_at=rfc3339(self._created),
            expires_at=rfc3339(expires),
            name=self._name,
        )
        meta = {**ref.to_dict(), "v": 1, "file": os.path.basename(self._final), "expires_epoch": expires}
        del meta["uri"]  # derived from the directory at read time, so a moved cache still works
        sidecar = os.path.join(self._store.folder, f"{self.id}.json")
        sidecar_tmp = os.path.join(self._store.folder, f".{self.id}.json.tmp")
        try:
            self._fh.close()
            os.replace(self._tmp, self._final)
            fd = _open_private(sidecar_tmp)
            with os.fdopen(fd, "wb") as fh:
                fh.write(json.dumps(meta).encode())
            os.replace(sidecar_tmp, sidecar)
        except OSError as exc:
            self.abort()
            for leftover in (self._final, sidecar_tmp):
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
            raise ArtifactError(f"cannot publish artifact {self.id}: {exc.strerror or exc}") from exc
        self._ref = ref
        return ref

    def abort(self) -> None:
        """Discard a half-written artifact (best effort: this runs on error paths)."""
        self._aborted = True
        with contextlib.suppress(OSError):
            self._fh.close()
        with contextlib.suppress(OSError):
            os.unlink(self._tmp)

    def __enter__(self) -> ArtifactWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.abort()
        elif not self._aborted:
            self.close()


class ArtifactStore:
    def __init__(self, root: str | os.PathLike[str] | None = None, ttl_seconds: int = DEFAULT_TTL_SECONDS) -> None:
        self._folder = os.fspath(root) if root is not None else None
        self.ttl_seconds = ttl_seconds

    @property
    def folder(self) -> str:
        """The store's folder, worked out when first used: a run whose output fits inline never uses it."""
        if self._folder is None:
            self._folder = default_folder()
        return self._folder

    @property
    def root(self) -> Path:
        """`folder` as a Path."""
        from pathlib import Path

        return Path(self.folder)

    def _ensure_root(self) -> None:
        folder = self.folder
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            if os.stat(folder).st_mode & 0o077:
                os.chmod(folder, 0o700)  # an existing directory may predate us with looser bits
        except OSError as exc:
            raise ArtifactError(f"cannot use artifact directory {folder}: {exc.strerror or exc}") from exc

    def create(self, *, media_type: str = "text/plain", name: str = "") -> ArtifactWriter:
        self._ensure_root()
        self._maybe_prune()
        return ArtifactWriter(self, new_id("art"), media_type, name[:_MAX_NAME])

    def get(self, artifact_id: str) -> ArtifactRef:
        if not ID_RE.fullmatch(artifact_id):
            shown = artifact_id if len(artifact_id) <= 60 else artifact_id[:60] + "…"
            raise ArtifactNotFound(
                f"{shown!r} is not an artifact id (expected art_ followed by 26 base32 characters).",
                suggested_fix="Copy the id from the `artifacts` list or the `artifact` field of an envelope.",
            )
        ref = self._load(artifact_id)
        if isinstance(ref, str):
            raise ArtifactNotFound(
                f"artifact {artifact_id} expired at {ref} (artifacts are kept {self.ttl_seconds // 3600} hours).",
                suggested_fix="Run the command again to produce a fresh artifact.",
            )
        if ref is None:
            raise ArtifactNotFound(
                f"artifact {artifact_id} is unknown here, or expired and pruned (artifacts are kept "
                f"{self.ttl_seconds // 3600} hours in {self.folder}).",
                suggested_fix="Run the command again to produce a fresh artifact.",
            )
        return ref

    def _load(self, artifact_id: str) -> ArtifactRef | str | None:
        """The published, unexpired artifact with this (well-formed) id; its expiry time when it has
        expired but is not pruned yet; else None."""
        try:
            with open(os.path.join(self.folder, f"{artifact_id}.json"), "rb") as f:
                meta = json.loads(f.read())
            media_type = str(meta["media_type"])
            # The sidecar names its content file; accept only the name we would have given it,
            # so a tampered sidecar cannot point a reader outside the store.
            if meta["id"] != artifact_id or meta["file"] != _content_name(artifact_id, media_type):
                return None
            if float(meta["expires_epoch"]) <= time.time():
                return str(meta["expires_at"])
            ref = ArtifactRef(
                id=artifact_id,
                path=os.path.join(self.folder, str(meta["file"])),
                media_type=media_type,
                bytes=int(meta["bytes"]),
                sha256=str(meta["sha256"]),
                created_at=str(meta["created_at"]),
                expires_at=str(meta["expires_at"]),
                name=str(meta.get("name", "")),
            )
        except (OSError, KeyError, TypeError, ValueError):
            return None
        return ref if os.path.isfile(ref.path) else None


    def _maybe_prune(self) -> None:
        mark = os.path.join(self.folder, _PRUNE_MARK)
        now = time.time()
        try:
            if now - os.stat(mark).st_mtime < PRUNE_INTERVAL_SECONDS:
                return
        except OSError:
            pass
        try:
            os.close(os.open(mark, os.O_WRONLY | os.O_CREAT, 0o600))
            os.utime(mark, (now, now))
            self.prune(now)
        except OSError:
            pass  # pruning is housekeeping; it must never stop a run from keeping its output

    def prune(self, now: float | None = None) -> int:
        """Delete expired artifacts (and debris of crashed writers); return how many artifacts went."""
        now = time.time() if now is None else now
        try:
            entries = list(os.scandir(self.folder))
        except OSError:
            return 0
        removed = 0
        sidecars = {e.name for e in entries if e.name.endswith(".json") and not e.name.startswith(".")}
        for entry in entries:
            name = entry.name
            if name in sidecars:
                if self._expired(entry, now):
                    artifact_id = name[: -len(".json")]
                    for suffix in (".txt", ".bin", ".json"):
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(os.path.join(self.folder, artifact_id + suffix))
                    removed += 1
            elif name != _PRUNE_MARK and (name.startswith(".") or os.path.splitext(name)[0] + ".json" not in sidecars):
                try:
                    stale = now - entry.stat().st_mtime > STALE_SECONDS
                except OSError:
                    continue
                if stale and entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.path)
        return removed

    def _expired(self, entry: os.DirEntry[str], now: float) -> bool:
        try:
            with open(entry.path, "rb") as f:
                meta = json.loads(f.read())
            return float(meta["expires_epoch"]) <= now
        except (OSError, KeyError, TypeError, ValueError):
            # An unreadable sidecar is garbage once it is older than any live artifact could be.
            try:
                return now - entry.stat().st_mtime > self.ttl_seconds
            except OSError:
                return False


REWRITE_CHUNK = 1 << 20  # how much of an artifact a rewrite holds at a time, whatever its size


def rewrite_hidden(ref: ArtifactRef, values: Sequence[bytes], marker: bytes,
                   chunk: int = REWRITE_CHUNK) -> tuple[ArtifactRef, int]:
    """Publish `ref`'s content again with every occurrence of `values` replaced by `marker`: the reference
    with its new size and sha256 (so `artifact show` still verifies it), and how many were replaced.

    Streams in `chunk`-byte pieces, holding back the last `longest - 1` bytes of each piece, so a value
    that spans two pieces is still found whole; memory stays bounded whatever the artifact's size. The
    content is renamed into place first and the sidecar after it, as `ArtifactWriter.close` does. An
    artifact holding none of the values is left as it was."""
    import hashlib
    import re

    values = sorted({v for v in values if v}, key=len, reverse=True)  # the longest wins where two start
    if not values:
        return ref, 0
    pattern = re.compile(b"|".join(map(re.escape, values)))
    keep = len(values[0]) - 1
    folder = os.path.dirname(ref.path)
    tmp = os.path.join(folder, f".{ref.id}.rewrite.tmp")
    digest, size, count = hashlib.sha256(), 0, 0
    try:
        with open(ref.path, "rb") as src, os.fdopen(_open_private(tmp), "wb") as dst:
            carry = b""
            while True:
                piece = src.read(chunk)
                buf = carry + piece
                # what may be written now: all of it at the end, else all but what a value could still
                # continue into the next piece (a match that starts before the cut lies wholly in `buf`)
                cut = len(buf) if not piece else max(0, len(buf) - keep)
                out, pos = [], 0
                for m in pattern.finditer(buf):
                    if m.start() >= cut:
                        break
                    out += [buf[pos:m.start()], marker]
                    pos = m.end()
                    count += 1
                cut = max(cut, pos)
                out.append(buf[pos:cut])
                data = b"".join(out)
                dst.write(data)
                digest.update(data)
                size += len(data)
                carry = buf[cut:]
                if not piece:
                    break
        if not count:
            os.unlink(tmp)
            return ref, 0
        new = ref._replace(bytes=size, sha256=digest.hexdigest())
        sidecar = os.path.join(folder, f"{ref.id}.json")
        with open(sidecar, "rb") as fh:
            meta = json.loads(fh.read())
        meta.update(bytes=size, sha256=new.sha256)
        sidecar_tmp = os.path.join(folder, f".{ref.id}.json.tmp")
        with os.fdopen(_open_private(sidecar_tmp), "wb") as fh:
            fh.write(json.dumps(meta).encode())
        os.replace(tmp, ref.path)
        os.replace(sidecar_tmp, sidecar)
    except (OSError, ValueError) as exc:
        for leftover in (tmp, os.path.join(folder, f".{ref.id}.json.tmp")):
            with contextlib.suppress(OSError):
                os.unlink(leftover)
        raise ArtifactError(f"cannot rewrite artifact {ref.id}: {getattr(exc, 'strerror', None) or exc}") from exc
    return new, count


def check_intact(ref: ArtifactRef, fh: BinaryIO) -> None:
    """Raise ArtifactDamaged unless the open content file `fh` has the size (and, when small, the
    sha256) that was published: a short file would otherwise read as pages that never reach the end."""
    size = os.fstat(fh.fileno()).st_size
    fix = "Run the command again to produce a fresh artifact; check the free space of the cache folder."
    if size != ref.bytes:
        raise ArtifactDamaged(
            f"artifact {ref.id} holds {size} bytes but {ref.bytes} were stored "
            f"({'cut short' if size < ref.bytes else 'written to since'}); its content cannot be trusted.",
            suggested_fix=fix,
        )
    if size > HASH_CHECK_BYTES:
        return
    import hashlib

    digest = hashlib.sha256(fh.read()).hexdigest()
    fh.seek(0)
    if digest != ref.sha256:
        raise ArtifactDamaged(
            f"artifact {ref.id} has its stored size ({size} bytes) but not its sha256 "
            f"({digest[:12]}… instead of {ref.sha256[:12]}…): its content was changed.",
            suggested_fix=fix,
        )
