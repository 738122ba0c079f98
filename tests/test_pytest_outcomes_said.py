"""Each test's outcome said as what it is, on captured runs (fixtures/pytest).

pytest's short summary lines for tests that did not fail (`-rA`, `-rp`) are printed because the caller asked,
each one test's outcome: a passing case of a parametrized test shares its words with the failing case's
problem, and must not be dropped as if that problem said it. A strict xfail that passed is a failure of the
run, but not a broken test: its problem says it passed, and what to do about its mark. A run stopped from
outside (a timeout) names the test -v said was running (`data.running`). A long -vv diff keeps the lines that
say what differs, wherever they are in it. pytest-xdist's worker start lines are noise."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _concise(name: str) -> dict[str, Any]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "pytest") if c.name == name)
    return views.concise(fixtures.replay_record(registry.builtin("pytest"), case))


def test_a_strict_xfail_that_passed_says_it_passed_and_what_to_do() -> None:
    error = _concise("xpass-strict")["error"]
    assert error["detail"] == ("test_cache.py::test_missing_key_raises passed, but is marked xfail(strict=True): "
                               "issue 12: missing keys raise")
    assert "remove its xfail mark" in error["suggested_fix"]


def test_ra_keeps_the_passing_case_beside_the_failing_one() -> None:
    concise = _concise("ra-passed-beside-failed")
    text = concise["output"]["stdout"]["text"].splitlines()
    assert "PASSED test_add.py::test_add[1-2-3]" in text  # the failing test_add[2-2-5] is not this one
    assert "XFAIL test_add.py::test_add_floats - rounding" in text
    assert not any(line.startswith("FAILED ") for line in text)  # the problem says that one


def test_a_stopped_verbose_run_names_the_test_that_was_running() -> None:
    # captured with `--timeout 5`: -v printed the hanging test's id, then the run was ended (SIGTERM)
    concise = _concise("timeout-verbose-running")
    assert concise["data"]["running"] == "test_net.py::test_waits_for_server"


def test_pytest_ended_by_a_timeout_wrapper_is_read_by_pytests_adapter() -> None:
    # `timeout 4 pytest -v`: timeout's own 124 decides (COMMAND_TIMED_OUT); what pytest printed is pytest's
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "generic") if c.name == "timeout-wrapper-verbose")
    concise = views.concise(fixtures.replay_record(registry.builtin("generic"), case))
    assert concise["error"]["code"] == "COMMAND_TIMED_OUT"
    assert concise["data"]["running"] == "test_net.py::test_waits_for_server"
    text = concise.get("output", {}).get("stdout", {}).get("text", "")
    assert "=" * 8 not in text and "                [ 50%]" not in text  # pytest's layout, not 250 columns


def test_a_long_vv_diff_keeps_what_differs_not_its_last_equal_items() -> None:
    # pytest -vv prints all 120 items of both dicts; the one that differs is the 77th
    concise = _concise("vv-long-dict-diff")
    evidence = concise["error"]["evidence"]
    assert "E         {'option_77': '77'} != {'option_77': 77}" in evidence
    assert "E         -     'option_77': 77," in evidence and "E         +     'option_77': '77'," in evidence
    assert evidence[0].startswith(">       assert load_settings()")
    assert "output" not in concise  # no `?  +  +` mark line left over from the summary's copy of the diff


def test_xdist_worker_start_lines_are_not_sent() -> None:
    # `pytest -n 2`: `created: 2/2 workers` and `2 workers [4 items]` say nothing the counts do not
    concise = _concise("xdist-two-failures")
    assert concise["summary"] == "pytest: 2 failed, 2 passed in 11.07s"
    assert [p["detail"] for p in [concise["error"], *concise["problems"]]] == [
        "test_nums.py::test_even[1] failed: assert (1 % 2) == 0",
        "test_nums.py::test_even[3] failed: assert (3 % 2) == 0"]
    assert "output" not in concise
