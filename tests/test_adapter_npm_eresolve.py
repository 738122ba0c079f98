"""npm's ERESOLVE through agentwrap, offline: two local packages whose peer ranges conflict. The problem says
who needs which peer and what is in the tree; the concise envelope says each of npm's facts once, so npm's
own block is not kept as text beside it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, aw

from agentwrap import fixtures, registry
from agentwrap.adapter import CapturedRun
from agentwrap.adapters import _npm_parse
from agentwrap.capture import StreamResult

needs_npm = pytest.mark.skipif(not shutil.which("npm"), reason="npm not installed")


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


@needs_npm
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


@needs_npm
@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_concise_keeps_neither_npms_block_nor_members_the_detail_says(tmp_path):
    proj = _conflict(tmp_path)
    c = aw("--cwd", str(proj), "npm", "install", "--offline", "--no-audit", detail="concise").env
    text = (c.get("output") or {}).get("stderr", {}).get("text", "")
    assert "Could not resolve dependency" not in text and "Found: libx" not in text
    assert not {"package", "range", "required_by", "found_version", "peer", "found"} & set(c["error"])
    assert c["error"]["found_required_by"] == "the root project"


# `npm install --no-audit --no-fund typescript eslint@9 @eslint/js` against the registry of 2026-12: @eslint/js
# 10.0.1 (latest) needs peer eslint@^10.0.0, the caller pinned eslint@9
PINNED = next(c for c in fixtures.cases(ROOT / "fixtures") if (c.adapter, c.name) == ("npm", "eresolve-pinned-peer"))


def test_the_preferred_fix_keeps_the_version_the_caller_pinned():
    """`npm install eslint@^10.0.0` would undo the caller's explicit eslint@9: offered, never preferred. The
    preferred fix keeps the pin and asks for the @eslint/js that moves in step with it (@eslint/js@9)."""
    error = fixtures.replay_record(registry.builtin("npm"), PINNED).error
    assert error is not None and error.code == "NPM_PEER_CONFLICT"
    preferred = [a for a in error.code_actions if a.is_preferred]
    assert [a.command for a in preferred] == [
        ("npm", "install", "--no-audit", "--no-fund", "typescript", "eslint@9", "@eslint/js@9")]
    assert preferred[0].applicability == "maybe_incorrect"
    upgrade = next(a for a in error.code_actions if a.command == ("npm", "install", "eslint@^10.0.0"))
    assert not upgrade.is_preferred and "eslint@9" in upgrade.title
    assert "eslint@9" in (error.suggested_fix or "")
    # unpinned, meeting the peer range stays the preferred fix
    (found,) = _npm_parse.eresolve(_pinned_run("npm", "install", "--no-audit", "eslint", "@eslint/js"))
    assert [a.command for a in found.code_actions if a.is_preferred] == [("npm", "install", "eslint@^10.0.0")]


def _pinned_run(*argv: str) -> CapturedRun:
    """The captured ERESOLVE as if the caller had written `argv` (what npm printed does not depend on
    which of the named packages carried a version)."""
    empty = StreamResult("", 0, 0, False, 0, None)
    return CapturedRun(argv=argv, program="npm", exit_code=1, signal=None, stdout=empty, stderr=empty,
                       duration_ms=0, stdout_text=PINNED.path(".out").read_text(),
                       stderr_text=PINNED.path(".err").read_text(), complete=True, subcommand="install")


@pytest.mark.parametrize("argv", [("npm", "install", "eslint@9", "@eslint/js@10"),  # both pinned: the caller's
                                  ("npm", "install", "eslint@^9.1")])  # @eslint/js from package.json, not argv
def test_without_a_fix_that_keeps_every_pin_legacy_peer_deps_is_preferred(argv):
    """No action that overrides an argument the caller wrote is preferred: with no package to ask for in step
    (the caller pinned it too, or did not name it), the caller's own command with --legacy-peer-deps is."""
    (found,) = _npm_parse.eresolve(_pinned_run(*argv))
    preferred = [a.command for a in found.code_actions if a.is_preferred]
    assert preferred == [(*argv, "--legacy-peer-deps")]
    assert not any("@eslint/js@9" in a.command for a in found.code_actions)


def test_written_packages_reads_names_and_versions_not_option_values():
    argv = ("npm", "i", "--omit", "dev", "-w", "pkg-a", "typescript", "eslint@9", "@eslint/js", "@types/node@^20")
    assert _npm_parse.written_packages(argv) == {
        "i": (1, None), "typescript": (6, None), "eslint": (7, "9"), "@eslint/js": (8, None),
        "@types/node": (9, "^20")}
