"""The artifact store: private files, atomic publication, expiry, and ids that cannot escape the store."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentwrap import artifacts
from agentwrap.artifacts import ArtifactError, ArtifactNotFound, ArtifactStore, default_root, file_uri


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ArtifactStore:
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path))
    return ArtifactStore()


def _put(store: ArtifactStore, content: bytes, **kw: str) -> artifacts.ArtifactRef:
    writer = store.create(**kw)
    for i in range(0, len(content), 1000):
        writer.write(content[i : i + 1000])
    return writer.close()


def test_default_root_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path))
    assert default_root() == tmp_path / "artifacts"
    monkeypatch.delenv("AGENTWRAP_CACHE_DIR")
    assert default_root().name == "artifacts"
    assert "agentwrap" in str(default_root())


def test_round_trip_keeps_content_size_and_sha256(store):
    content = ("héllo wörld 😀\n" * 5000).encode()
    ref = _put(store, content, media_type="text/plain; charset=utf-8", name="stdout")
    assert ref.id.startswith("art_")
    assert artifacts.ID_RE.fullmatch(ref.id)
    assert Path(ref.path).read_bytes() == content
    assert ref.bytes == len(content)
    assert ref.sha256 == hashlib.sha256(content).hexdigest()
    assert ref.created_at.endswith("Z")
    assert ref.expires_at.endswith("Z")
    assert ref.expires_at > ref.created_at
    again = store.get(ref.id)
    assert again == ref
    d = again.to_dict()
    assert {"id", "uri", "media_type", "bytes", "sha256", "expires_at", "created_at", "name"} <= set(d)
    assert d["uri"] == Path(ref.path).absolute().as_uri()
    assert d["uri"].startswith("file://")
    assert d["name"] == "stdout"


def test_empty_artifact(store):
    ref = _put(store, b"")
    assert ref.bytes == 0
    assert ref.sha256 == hashlib.sha256(b"").hexdigest()
    assert Path(store.get(ref.id).path).read_bytes() == b""


def test_directory_is_0700_and_files_are_0600(store):
    ref = _put(store, b"secret output\n")
    assert stat.S_IMODE(store.root.stat().st_mode) == 0o700
    assert stat.S_IMODE(Path(ref.path).stat().st_mode) == 0o600
    assert stat.S_IMODE((store.root / f"{ref.id}.json").stat().st_mode) == 0o600


def test_a_loose_existing_directory_is_tightened(store):
    store.root.mkdir(parents=True, mode=0o755)
    os.chmod(store.root, 0o755)
    _put(store, b"x")
    assert stat.S_IMODE(store.root.stat().st_mode) == 0o700


def test_binary_media_type_gets_its_own_suffix(store):
    ref = _put(store, b"\x00\x01", media_type="application/octet-stream")
    assert Path(ref.path).suffix == ".bin"
    assert store.get(ref.id).media_type == "application/octet-stream"


def test_nothing_is_visible_until_close(store):
    writer = store.create()
    writer.write(b"partial")
    with pytest.raises(ArtifactNotFound):
        store.get(writer.id)
    assert not any(p.name.startswith("art_") for p in store.root.iterdir())
    ref = writer.close()
    assert store.get(writer.id) == ref
    assert writer.close() == ref  # idempotent
    assert not any(p.name.endswith(".tmp") for p in store.root.iterdir())


def test_abort_and_exception_discard_the_temporary_file(store):
    writer = store.create()
    writer.write(b"x")
    writer.abort()
    with pytest.raises(ArtifactError):
        writer.close()

    def fail_midway() -> None:
        with store.create() as other:
            other.write(b"y")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail_midway()
    assert [p.name for p in store.root.iterdir() if not p.name.startswith(".last")] == []


def test_a_write_error_becomes_artifact_error_and_cleans_up(store, monkeypatch):
    writer = store.create()

    def full(data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer._fh, "write", full)
    with pytest.raises(ArtifactError, match="No space left"):
        writer.write(b"data")
    assert not (store.root / f".{writer.id}.tmp").exists()


def test_an_unwritable_root_raises_artifact_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = ArtifactStore(blocker / "artifacts")
    with pytest.raises(ArtifactError) as info:
        store.create()
    assert info.value.to_problem().code == "INTERNAL"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_a_read_only_root_raises_artifact_error(tmp_path):
    root = tmp_path / "ro"
    root.mkdir(mode=0o500)
    with pytest.raises(ArtifactError):
        ArtifactStore(root).create()


@pytest.mark.parametrize(
    "bad",
    ["../../etc/passwd", "art_../../../../etc/passwd", "", "art_", "art_" + "0" * 25, "art_" + "0" * 27,
     "art_" + "i" * 26, "ART_" + "0" * 26, "art_" + "0" * 25 + "/", "art_" + "0" * 26 + "\n",
     "/tmp/art_" + "0" * 26, "art_" + "0" * 26 + ".json"],
)
def test_malformed_ids_are_refused_before_touching_the_disk(store, bad):
    with pytest.raises(ArtifactNotFound) as info:
        store.get(bad)
    problem = info.value.to_problem()
    assert problem.code == "ARTIFACT_NOT_FOUND"
    assert "not an artifact id" in problem.detail


def test_unknown_id_is_artifact_not_found(store):
    with pytest.raises(ArtifactNotFound) as info:
        store.get("art_" + "0" * 26)
    assert info.value.to_problem().code == "ARTIFACT_NOT_FOUND"
    assert "unknown here, or expired and pruned" in info.value.detail


def test_a_tampered_sidecar_cannot_point_outside_the_store(store, tmp_path):
    ref = _put(store, b"x")
    sidecar = store.root / f"{ref.id}.json"
    meta = orjson.loads(sidecar.read_bytes())
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    for evil in ("../outside.txt", str(outside), f"{ref.id}.json"):
        sidecar.write_bytes(orjson.dumps({**meta, "file": evil}))
        with pytest.raises(ArtifactNotFound):
            store.get(ref.id)
    sidecar.write_bytes(b"{not json")
    with pytest.raises(ArtifactNotFound):
        store.get(ref.id)


def test_expired_artifacts_are_refused_and_pruned(tmp_path):
    store = ArtifactStore(tmp_path / "a", ttl_seconds=100)
    old = _put(store, b"old")
    fresh_store = ArtifactStore(tmp_path / "a", ttl_seconds=10_000)
    fresh = _put(fresh_store, b"fresh")
    now = time.time()
    assert store.prune(now + 50) == 0
    assert store.prune(now + 200) == 1
    assert not Path(old.path).exists()
    assert not (store.root / f"{old.id}.json").exists()
    with pytest.raises(ArtifactNotFound):
        store.get(old.id)
    assert Path(store.get(fresh.id).path).read_bytes() == b"fresh"


def test_get_refuses_an_expired_artifact_even_before_pruning(tmp_path):
    store = ArtifactStore(tmp_path, ttl_seconds=0)
    ref = _put(store, b"x")
    with pytest.raises(ArtifactNotFound, match="expired"):
        store.get(ref.id)


def test_prune_removes_debris_of_crashed_writers_only_when_stale(store):
    store.root.mkdir(parents=True)
    stale_tmp = store.root / ".art_0000000000000000000000000.tmp"
    orphan = store.root / ("art_" + "1" * 26 + ".txt")
    fresh_tmp = store.root / ".art_2222222222222222222222222.tmp"
    for p in (stale_tmp, orphan, fresh_tmp):
        p.write_bytes(b"x")
    long_ago = time.time() - 3 * 86400
    for p in (stale_tmp, orphan):
        os.utime(p, (long_ago, long_ago))
    assert store.prune() == 0  # debris is not counted as artifacts
    assert not stale_tmp.exists()
    assert not orphan.exists()
    assert fresh_tmp.exists()


def test_create_prunes_at_most_once_per_interval(store, monkeypatch):
    calls: list[float | None] = []
    monkeypatch.setattr(ArtifactStore, "prune", lambda self, now=None: calls.append(now) or 0)
    _put(store, b"a")
    _put(store, b"b")
    assert len(calls) == 1
    mark = store.root / ".last-prune"
    past = time.time() - artifacts.PRUNE_INTERVAL_SECONDS - 1
    os.utime(mark, (past, past))
    _put(store, b"c")
    assert len(calls) == 2


def test_the_cache_folder_is_where_platformdirs_puts_it(monkeypatch, tmp_path):
    import platformdirs

    from agentwrap.artifacts import cache_base

    monkeypatch.delenv("AGENTWRAP_CACHE_DIR", raising=False)
    for xdg in (str(tmp_path / "xdg"), ""):
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
        assert cache_base() == Path(platformdirs.user_cache_dir("agentwrap"))


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
                        min_size=1, max_size=12), min_size=1, max_size=4))
def test_an_artifact_uri_is_the_one_pathlib_gives(parts: list[str]) -> None:
    """`file_uri` spells a path's URI as `Path.as_uri()` does: spaces, `%`, `#`, `?` and non-ASCII
    letters included (the run path does without pathlib, which costs ~3 ms to import)."""
    path = os.path.abspath("/" + "/".join(parts))  # as ArtifactRef.uri gives it: absolute, normalised
    assert file_uri(path) == Path(path).as_uri()
