"""`ruff format --diff` exits 1 when a file would change, printing the change and no `unformatted:` line: each
file in the diff is the RUFF_UNFORMATTED problem `--check` would give, not a COMMAND_FAILED that nobody explained,
and the diff keeps its `--- FILE` headers, which say which file each hunk changes (fixtures/ruff/format-diff).
`ruff check --fix --diff` alike: each file in its diff is a fixable violation (fixtures/ruff/check-fix-diff)."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def test_format_diff_is_an_unformatted_file_with_its_diff() -> None:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "ruff") if c.name == "format-diff")
    concise = views.concise(fixtures.replay_record(registry.builtin("ruff"), case))
    assert concise["summary"] == "ruff format: 1 file would be reformatted"
    error = concise["error"]
    assert (error["code"], error["location"], error["safe_to_retry"]) == ("RUFF_UNFORMATTED", {"file": "app.py"}, True)
    assert error["code_actions"][0]["command"] == ["ruff", "format", "app.py"]
    text = concise["output"]["stdout"]["text"]
    assert text.startswith("--- app.py\n+++ app.py\n@@ ") and '+    return {"a": x, "b": os.sep}' in text
    assert "stderr" not in concise["output"]  # `1 file would be reformatted, ...`: the summary and data say it


def test_check_fix_diff_is_the_files_ruff_would_fix() -> None:
    # `ruff check --fix --diff` exits 1 with the fixes as diffs and `Would fix 2 errors.`, no diagnostics
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "ruff") if c.name == "check-fix-diff")
    concise = views.concise(fixtures.replay_record(registry.builtin("ruff"), case))
    assert concise["summary"] == "ruff: would fix 2 errors in 2 files"
    found = [concise["error"], *concise["problems"]]
    assert sorted((p["code"], p["location"]["file"]) for p in found) == [("RUFF_VIOLATION", "m.py"),
                                                                        ("RUFF_VIOLATION", "n.py")]
    first = concise["error"]["location"]["file"]
    assert concise["error"]["code_actions"][0]["command"] == ["ruff", "check", "--fix", first]
    text = concise["output"]["stdout"]["text"]
    assert "--- n.py\n+++ n.py\n" in text and "--- m.py\n+++ m.py\n" in text and "Would fix" not in text
