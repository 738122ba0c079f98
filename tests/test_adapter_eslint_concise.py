"""ESLint's own failures on captured runs (fixtures/eslint), as an agent reads them (concise): the problem
says the message, so ESLint's banner, the frames of its own code and of node's, and the migration paragraph
under a missing config are not kept beside it; a frame in the user's own config file is where it failed and
stays."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _view(name: str) -> dict[str, Any]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "eslint") if c.name == name)
    return views.concise(fixtures.replay_record(registry.builtin("eslint"), case))


def _text(view: dict[str, Any]) -> str:
    return "".join(s.get("text", "") for s in view.get("output", {}).values())


@pytest.mark.parametrize(("name", "code"), [("no-config", "ESLINT_CONFIG_NOT_FOUND"),
                                            ("rule-not-found", "ESLINT_RULE_NOT_FOUND"),
                                            ("plugin-missing", "ESLINT_PLUGIN_NOT_FOUND")])
def test_eslints_banner_and_its_own_frames_are_not_kept_beside_the_problem(name, code):
    view = _view(name)
    assert view["error"]["code"] == code
    assert _text(view) == ""  # was: `Oops! Something went wrong! :(`, `ESLint: 10.15.0`, node_modules frames...


def test_a_missing_config_fix_carries_the_migration_guide():
    view = _view("no-config")
    assert "configure/migration-guide" in view["error"]["suggested_fix"]


def test_a_config_that_throws_keeps_the_frame_in_the_config():
    text = _text(_view("config-throws"))
    assert "throw.config.mjs" in text and ":1:7" in text
    assert "node_modules" not in text and "node:internal" not in text and "Oops" not in text


def _fixable(cwd: str | None) -> Any:
    """The captured `eslint -c cfg/strict.mjs a.js` (ran in /tmp/jr/es, where stylish printed /tmp/jr/es/a.js)."""
    from agentwrap.capture import StreamResult
    from agentwrap.sdk import CapturedRun

    case = next(c for c in fixtures.cases(ROOT / "fixtures", "eslint") if c.name == "config-option-fixable")
    empty = StreamResult("", 0, 0, False, 0, None)
    run = CapturedRun(argv=tuple(case.meta()["argv"]), program="eslint", exit_code=1, signal=None, stdout=empty,
                      stderr=empty, stdout_text=case.path(".out").read_text(), cwd=cwd)
    return registry.builtin("eslint").interpret(run).error


def test_the_fix_of_one_file_keeps_the_callers_config():
    """`eslint --fix /abs/a.js` alone would look up the default config, not the -c the caller linted with:
    it fails (no eslint.config.*) or applies another config's fixes."""
    error = _fixable(None)
    preferred = next(a for a in error.code_actions if a.is_preferred)
    assert preferred.command == ("eslint", "--fix", "-c", "cfg/strict.mjs", "/tmp/jr/es/a.js")


def test_one_fix_action_when_the_caller_linted_that_one_file():
    error = _fixable("/tmp/jr/es")
    assert [a.command for a in error.code_actions] == [("eslint", "--fix", "-c", "cfg/strict.mjs", "/tmp/jr/es/a.js")]
    assert len(_fixable("/elsewhere").code_actions) == 2  # another folder's a.js is another file


def test_a_run_with_warnings_only_says_the_templated_fix_once():
    """ESLint passed with 3 warnings: no deciding problem, so each listed warning carried the same 170-byte
    fix; the first says it, the others only where they would add something."""
    view = _view("warnings-only-passes")
    assert view["status"] == "success" and len(view["problems"]) == 3
    assert [("suggested_fix" in p) for p in view["problems"]] == [True, False, False]
