"""npm's ERESOLVE through agentwrap, offline: two local packages whose peer ranges conflict. The problem says
who needs which peer and what is in the tree; the concise envelope says each of npm's facts once, so npm's
own block is not kept as text beside it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("npm"), reason="npm not installed")


def _tarball(folder: Path, manifest: dict[str, object]) -> str:
    """A packed local package: npm knows its version (a `file:` folder would be linked, versionless)."""
    folder.mkdir()
    (folder / "package.json").write_text(json.dumps(manifest))
    subprocess.run(["npm", "pack", "--pack-destination", str(folder.parent)], cwd=folder, check=True,
                   capture_output=True)
    return f"file:{manifest['name']}-{manifest['version']}.tgz"


def _conflict(tmp_path: Path) -> Path:
    libx = _tarball(tmp_path / "libx", {"name": "libx", "version": "1.0.0"})
    plug = _tarball(tmp_path / "plug", {"name": "plug", "version": "1.0.0",
                                        "peerDependencies": {"libx": "^2.0.0"}})
    (tmp_path / "package.json").write_text(json.dumps({"name": "app", "version": "1.0.0",
                                                       "dependencies": {"libx": libx, "plug": plug}}))
    return tmp_path


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_peer_conflict_facts_are_members_once(tmp_path):
    proj = _conflict(tmp_path)
    a = aw("--cwd", str(proj), "npm", "install", "--offline", "--no-audit")
    assert a.error["code"] == "NPM_PEER_CONFLICT"
    assert a.error["detail"] == "plug@1.0.0 needs peer libx@^2.0.0, but libx@1.0.0 is in the tree " \
                                "(while resolving app@1.0.0)"
    members = ("package", "range", "required_by", "found_version", "found_required_by")
    assert {k: a.error[k] for k in members} == {
        "package": "libx", "range": "^2.0.0", "required_by": "plug@1.0.0", "found_version": "1.0.0",
        "found_required_by": "the root project"}
    assert a.error["report"].endswith("-eresolve-report.txt")
    assert not (proj / "node_modules").exists()


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_concise_keeps_neither_npms_block_nor_members_the_detail_says(tmp_path):
    proj = _conflict(tmp_path)
    c = aw("--cwd", str(proj), "npm", "install", "--offline", "--no-audit", detail="concise").env
    text = (c.get("output") or {}).get("stderr", {}).get("text", "")
    assert "Could not resolve dependency" not in text and "Found: libx" not in text
    assert not {"package", "range", "required_by", "found_version", "peer", "found"} & set(c["error"])
    assert c["error"]["found_required_by"] == "the root project"
