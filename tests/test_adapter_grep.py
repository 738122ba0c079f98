"""grep (a data-only TOML built-in): no match is a successful empty result, as the contract says."""

from __future__ import annotations

from conftest import aw


def test_no_match_is_an_empty_success(tmp_path):
    (tmp_path / "f.txt").write_text("alpha\n")
    a = aw("--cwd", str(tmp_path), "grep", "omega", "f.txt")
    assert a.code == 0 and a.env["status"] == "success"
    assert a.env["exit"]["code"] == 1 and a.text() == ""


def test_a_missing_file_is_not_found_and_a_directory_suggests_recursion(tmp_path):
    (tmp_path / "d").mkdir()
    missing = aw("--cwd", str(tmp_path), "grep", "x", "nope.txt")
    assert missing.code == 2 and missing.error["code"] == "GREP_NO_SUCH_FILE"
    directory = aw("--cwd", str(tmp_path), "grep", "x", "d")
    assert directory.error["code_actions"][0]["command"] == ["grep", "-r", "x", "d"]
    applied = aw("--cwd", str(tmp_path), *directory.error["code_actions"][0]["command"])
    assert applied.code == 0  # the fix runs: a recursive search with no match is a success
