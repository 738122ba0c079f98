"""Values of agentwrap's own options that used to mean something else than they said: durations in days
and weeks, an empty --cwd, and the name `describe` was given."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import aw

from agentwrap import options
from agentwrap.errors import UsageError


@pytest.mark.parametrize(("text", "seconds"), [("1d", 86400.0), ("2w", 14 * 86400.0), ("1.5d", 129600.0),
                                               ("90", 90.0), ("500ms", 0.5), ("2h", 7200.0)])
def test_durations_take_days_and_weeks(text, seconds):
    assert options.parse_duration(text) == seconds


def test_a_bad_duration_lists_every_unit():
    with pytest.raises(UsageError, match=r"1d, 2w"):
        options.parse_duration("1y")


def test_timeout_in_days_runs():
    assert aw("--timeout", "1d", "--", "true").env["status"] == "success"


def test_op_prune_reads_older_than_as_every_other_duration(tmp_path: Path):
    env = {"AGENTWRAP_STATE_DIR": str(tmp_path)}
    assert aw("op", "prune", "--older-than", "2w", env=env).env["status"] == "success"
    bad = aw("op", "prune", "--older-than", "2 fortnights", env=env)
    assert bad.error["code"] == "USAGE"  # type: ignore[index]
    assert "1d, 2w" in bad.error["detail"]  # type: ignore[index]


@pytest.mark.parametrize("form", [["--cwd", ""], ["--cwd="]])
def test_an_empty_cwd_is_a_usage_error_not_the_current_folder(form):
    answer = aw(*form, "--", "pwd")
    assert answer.error["code"] == "USAGE"  # type: ignore[index]
    assert "--cwd ''" in answer.error["detail"]  # type: ignore[index]
    assert answer.env["output"]["stdout"]["text"] == ""  # nothing ran


def test_describe_names_itself_for_an_unknown_adapter():
    answer = aw("describe", "gti")
    assert answer.error["code"] == "USAGE"  # type: ignore[index]
    assert answer.error["detail"].startswith("describe gti: no adapter is named 'gti'")  # type: ignore[index]
    assert "did you mean git" in answer.error["detail"]  # type: ignore[index]
    assert "--adapter" not in answer.error["detail"]  # type: ignore[index]
