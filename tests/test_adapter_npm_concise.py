"""npm on captured runs (fixtures/npm), as an agent reads them (`--agent`, concise): a problem read from one of
npm's `npm error` lines stands for the whole block, so the block and the debug log's path are not kept again
in the text; `npm audit` against a registry without the advisories endpoint names the registry's answer, never
the debug log line; `npm outdated`'s column header and `npm init`'s banner go with what the data and the
prompt already say."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "npm") if c.name == name)
    record = fixtures.replay_record(registry.builtin("npm"), case)
    return record.standard(), views.concise(record)


def _text(view: dict[str, Any]) -> str:
    return "".join(s.get("text", "") for s in view.get("output", {}).values())


def test_a_missing_package_is_one_problem_and_npms_block_is_not_kept_beside_it():
    env, view = _replay("e404-install")
    assert env["error"]["code"] == "NPM_PACKAGE_NOT_FOUND"
    assert "lodahs-typo-pkg-xyz" in view["error"]["detail"]
    assert _text(view) == ""  # was: `npm error code E404`, the 404 note lines and the debug log's path


def test_an_audit_the_registry_refuses_names_the_registrys_answer():
    env, view = _replay("audit-endpoint-error")
    error = view["error"]
    assert error["code"] == "NPM_AUDIT_ENDPOINT_ERROR"
    assert "405 Method Not Allowed" in error["detail"] and "complete log" not in error["detail"]
    assert error["safe_to_retry"] is True and error["retryable"] is False
    assert view["summary"] == "npm audit: The registry's audit endpoint returned an error"
    assert [p["code"] for p in env["problems"]] == ["NPM_AUDIT_ENDPOINT_ERROR"]
    assert _text(view) == ""


def test_a_fallback_npm_error_keeps_the_debug_log_its_fix_points_at():
    _, view = _replay("unknown-error-code")
    assert view["error"]["code"] == "NPM_ERROR" and "debug log" in view["error"]["suggested_fix"]
    assert "A complete log of this run can be found in" in _text(view)


def test_outdated_keeps_no_lone_column_header():
    _, view = _replay("outdated")
    assert view["data"]["outdated"] and "Depended by" not in _text(view)


def test_init_prompt_keeps_the_question_not_the_wizards_banner():
    _, view = _replay("init-prompt")
    assert view["error"]["code"] == "INPUT_REQUIRED"
    assert "walk you through" not in _text(view) and "Press ^C" not in _text(view)
    assert view["error"]["code_actions"][0]["command"] == ["npm", "init", "-y"]


def test_a_script_whose_program_is_not_installed_says_so_and_how_to_install_it():
    """`npm run lint` whose script is `eslintx .`: sh says `eslintx: not found` (exit 127)."""
    _, view = _replay("run-script-command-not-found")
    error = view["error"]
    assert error["code"] == "NPM_SCRIPT_FAILED"
    assert "`eslintx` is not installed" in error["detail"]
    assert "npm install --save-dev" in error["suggested_fix"] and "eslintx" in error["suggested_fix"]
    assert _text(view) == ""  # the shell's line is the detail's now


def test_npx_consent_is_offered_never_preferred():
    """npx stopped before downloading and running a package it does not have: `npx --yes ...` is offered (the
    caller may consent), never the preferred action an agent would take unasked (a misspelt name would run
    someone else's code)."""
    for name in ("npx-needs-consent", "npx-install-prompt"):
        env, _ = _replay(name)
        consent = [a for a in env["error"]["code_actions"] if "--yes" in (a.get("command") or [])]
        assert consent and not any(a["is_preferred"] for a in consent), name
