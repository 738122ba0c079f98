"""The pytest adapter's facts on captured runs (fixtures/pytest): each said right, and said once."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The standard envelope and the concise view of a captured pytest case."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "pytest") if c.name == name)
    record = fixtures.replay_record(registry.builtin("pytest"), case)
    return record.standard(), views.concise(record)


def _inline(view: dict[str, Any]) -> list[str]:
    return [line for stream in view.get("output", {}).values() for line in stream["text"].splitlines()]


def test_a_teardown_error_says_the_test_ran_and_points_at_the_teardown():
    env, _ = _replay("teardown-error")
    errors = {p["nodeid"]: p for p in env["problems"] if p["code"] == "PYTEST_TEST_ERROR"}
    passed, failed = errors["test_resources.py::test_query"], errors["test_resources.py::test_query_fails"]
    for problem in (passed, failed):
        assert "did not run" not in problem["suggested_fix"]
        assert "tear-down code in connection() at test_resources.py:7" in problem["suggested_fix"]
        assert problem["location"] == {"file": "test_resources.py", "line": 7}
    assert passed["suggested_fix"].startswith("The test ran and did not fail")
    assert failed["suggested_fix"].startswith("The test ran and failed too")


def test_a_setup_error_still_says_the_test_did_not_run():
    env, _ = _replay("failures")
    setup = next(p for p in env["problems"] if p["code"] == "PYTEST_TEST_ERROR")
    fix = "Fix the set-up code in broken() at tests/test_math.py:20; the test itself did not run."
    assert setup["suggested_fix"] == fix


def test_all_deselected_says_what_deselected_them_not_that_none_were_collected():
    env, view = _replay("all-deselected")
    assert env["error"]["code"] == "PYTEST_ALL_DESELECTED"
    assert view["summary"].startswith("pytest: 1 deselected by -k in ")
    assert "collected" not in view["summary"]
    assert env["error"]["detail"] == "-k nomatch deselected the 1 collected test"
    assert "-k matches" in env["error"]["suggested_fix"]
    # the names to compare the expression with: the same paths, without the selection
    command = env["error"]["code_actions"][0]["command"]
    assert command == ["pytest", "--collect-only", "-q", "tests/test_ok.py"]


def test_listing_after_a_quiet_run_adds_no_second_quiet():
    env, view = _replay("all-deselected-quiet-marker")
    command = env["error"]["code_actions"][0]["command"]
    assert command.count("-q") == 1 and "-m" not in command and "slow" not in command
    assert view["summary"].startswith("pytest: 3 deselected by -m in ")
    assert "-m matches the tests' markers" in env["error"]["suggested_fix"]


def test_nothing_collected_is_not_blamed_on_an_expression():
    env, view = _replay("no-tests")
    assert env["error"]["code"] == "PYTEST_NO_TESTS"
    assert "-k" not in env["error"]["suggested_fix"]
    assert not any("no tests ran" in line for line in _inline(view))  # the summary says it


def test_evidence_keeps_the_caret_line_once():
    env, _ = _replay("large-verbose-two-failures")
    evidence = next(p for p in env["problems"] if "parse_config" in p["detail"])["evidence"]
    carets = [line for line in evidence if line.strip().startswith("^")]
    assert len(carets) == 1, evidence


def test_inline_text_leaves_out_what_the_problems_say():
    _, collection = _replay("collection-errors")
    assert not any(line.startswith(("ERROR tests/", "!!!")) for line in _inline(collection))
    _, plugin = _replay("plugin-missing")
    assert not any("unrecognized arguments" in line or "usage:" in line for line in _inline(plugin))
    _, conftest = _replay("conftest-import-error")
    assert not any("while loading conftest" in line for line in _inline(conftest))


def test_a_collection_error_shows_the_users_frames_and_no_fix_that_restates_it():
    """pytest's importer, importlib and the standard library are no place to fix a test module: the evidence
    keeps the user's frames and source; a SyntaxError's detail and location say all, so it has no fix."""
    env, _ = _replay("collection-errors")
    problems = [env["error"], *env["problems"]]
    evidence = [line for p in problems for line in p.get("evidence") or []]
    assert evidence and not [line for line in evidence if "_pytest" in line or "importlib" in line
                             or "/lib/python3" in line]
    syntax = next(p for p in problems if p["code"] == "PYTEST_COLLECTION_ERROR")
    assert syntax.get("suggested_fix") is None
    assert "E       def test_b(:" in syntax["evidence"]


def test_two_test_files_of_one_basename_are_named_with_a_fix_that_adds_the_ways_out():
    env, _ = _replay("import-file-mismatch")
    error = env["error"]
    assert error["detail"].endswith("import file mismatch: module 'test_same' is already imported from a/test_same.py")
    assert "--import-mode=importlib" in error["suggested_fix"] and "__init__.py" in error["suggested_fix"]


def test_a_doctest_failure_says_the_example_expected_and_got_and_reruns_with_the_callers_options():
    env, view = _replay("doctest-failures")
    error = env["error"]
    assert error["detail"] == "mathy.py::mathy.add failed: `>>> add(1, 2)`: expected 4, got 3"
    assert error["location"] == {"file": "mathy.py", "line": 3}
    assert "--doctest-modules" in error["code_actions"][0]["command"]  # without it the id is "not found"
    raised = next(p for p in env["problems"] if p["nodeid"] == "calc.py::calc.div")
    assert raised["exception"] == "ZeroDivisionError" and raised["crash"] == {"file": "calc.py", "line": 17}
    assert "Expected:" not in "\n".join(_inline(view))  # said once: in the problems


def test_a_run_stopped_by_maxfail_in_addopts_says_so():
    env, view = _replay("maxfail-in-addopts")
    assert env["data"]["stopped"] == "after 1 failure (-x/--maxfail); later tests did not run"
    assert view["summary"].endswith("; stopped after 1 failure (-x/--maxfail); later tests did not run")


def test_collection_errors_say_no_tests_ran():
    _, view = _replay("collection-errors")
    assert view["summary"].endswith("; stopped by 2 collection errors; no tests ran")


def test_the_warnings_summary_keeps_which_tests_emitted_each_warning_once():
    _, view = _replay("warnings-summary-tests")
    warned = {w["message"]: w for w in view["data"]["warnings_summary"]}
    assert warned["old api"]["emitted_by"] == ["test_w.py::test_one", "test_w.py::test_two"]
    assert warned["old api"]["category"] == "DeprecationWarning"
    assert (warned["old api"]["file"], warned["old api"]["line"]) == ("test_w.py", 3)
    assert warned["user thing"]["emitted_by"] == ["test_w.py::test_three"]
    assert not [line for line in _inline(view) if "Warning:" in line]  # the data says them


def test_a_rerun_keeps_how_tests_are_found_and_drops_what_chose_or_stopped_them():
    from agentwrap.adapters.pytest import rerun_command

    argv = ("pytest", "-p", "no:cacheprovider", "-k", "slow", "--import-mode", "importlib", "tests/", "-x",
            "--maxfail=2", "-o", "xfail_strict=true", "--lf", "-c", "ci.ini", "--rootdir", "..", "--doctest-modules")
    assert rerun_command(argv, "tests/t.py::t") == (
        "pytest", "-p", "no:cacheprovider", "--import-mode", "importlib", "-o", "xfail_strict=true", "-c", "ci.ini",
        "--rootdir", "..", "--doctest-modules", "tests/t.py::t", "-q")
    assert rerun_command(("pytest", "-vv", "a.py"), "a.py::t") == ("pytest", "-vv", "a.py::t")


def test_a_quiet_runs_warnings_name_files_from_its_folder_and_each_test_once(tmp_path):
    # -q prints no rootdir; a test that warns twice is listed twice by pytest
    from conftest import aw

    (tmp_path / "test_w.py").write_text(
        "import warnings\n\ndef old():\n    warnings.warn('old api', DeprecationWarning)\n\n"
        "def test_one():\n    old()\n    old()\n\ndef test_two():\n    old()\n")
    env = aw("--cwd", str(tmp_path), "--", "python3", "-m", "pytest", "-q", "-p", "no:cacheprovider").env
    [warned] = env["data"]["warnings_summary"]
    assert warned["file"] == "test_w.py" and warned["line"] == 4
    assert warned["emitted_by"] == ["test_w.py::test_one", "test_w.py::test_two"]


def test_a_stop_the_caller_asked_for_is_not_said_back_and_one_from_addopts_is(tmp_path):
    from conftest import aw

    (tmp_path / "test_f.py").write_text("def test_a():\n    assert 0\n\ndef test_b():\n    assert 0\n")
    asked = aw("--cwd", str(tmp_path), "--", "python3", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider").env
    assert asked["summary"].startswith("pytest: 1 failed") and "stopped" not in asked["summary"]
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --maxfail=1\n")
    configured = aw("--cwd", str(tmp_path), "--", "python3", "-m", "pytest", "-q", "-p", "no:cacheprovider").env
    assert "stopped after 1 failure" in configured["summary"]
