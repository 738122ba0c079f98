"""agentwrap's folders are where platformdirs puts them, worked out without importing it."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from agentwrap import folders, registry


@pytest.mark.parametrize(("ours", "theirs", "override", "xdg"), [
    (folders.cache_path, platformdirs.user_cache_dir, "AGENTWRAP_CACHE_DIR", "XDG_CACHE_HOME"),
    (folders.state_path, platformdirs.user_state_dir, "AGENTWRAP_STATE_DIR", "XDG_STATE_HOME"),
    (folders.config_path, platformdirs.user_config_dir, None, "XDG_CONFIG_HOME"),
], ids=["cache", "state", "config"])
def test_each_folder_is_platformdirs_answer_unless_overridden(ours, theirs, override, xdg, monkeypatch, tmp_path):
    if override:
        monkeypatch.delenv(override, raising=False)
    for value in (str(tmp_path / "xdg"), "", "  "):
        monkeypatch.setenv(xdg, value)
        assert ours() == theirs("agentwrap")
    if override:
        monkeypatch.setenv(override, str(tmp_path / "mine"))
        assert ours() == str(tmp_path / "mine")


def test_the_user_adapters_are_in_the_config_folder_unless_named(monkeypatch, tmp_path):
    monkeypatch.delenv("AGENTWRAP_ADAPTER_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert registry.user_dir() == Path(platformdirs.user_config_dir("agentwrap")) / "adapters"
    monkeypatch.setenv("AGENTWRAP_ADAPTER_DIR", str(tmp_path / "a"))
    assert registry.user_folder() == str(tmp_path / "a")


def test_a_cache_file_is_written_whole_and_private(tmp_path):
    target = tmp_path / "c" / "f.json"
    assert folders.write_cached(str(target), "{}")
    assert target.read_text() == "{}" and target.stat().st_mode & 0o077 == 0
    assert os.stat(target.parent).st_mode & 0o077 == 0
    assert not folders.write_cached(str(tmp_path / "c" / "f.json" / "under-a-file"), "{}")
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]  # no temporary file left behind
