"""`npm test` whose script is mocha (fixtures/npm/test-script-mocha-*): mocha's spec reporter is read like
`node --test`'s: each numbered failure a located problem with the test's full title and its assertion, the
totals as data.tests and in the summary, the passing tests and totals lines not kept beside them."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "npm") if c.name == name)
    record = fixtures.replay_record(registry.builtin("npm"), case)
    return record.standard(), views.concise(record)


def test_each_failed_mocha_test_is_a_located_problem():
    env, view = _replay("test-script-mocha-fails")
    failed = [p for p in env["problems"] if p["code"] == "NODE_TEST_FAILED"]
    assert [(p["test"], p["location"]) for p in failed] == [
        ("math adds", {"file": "test/a.spec.js", "line": 3, "column": 29}),
        ("math deep", {"file": "test/a.spec.js", "line": 5, "column": 29})]
    assert failed[0]["detail"].endswith("Expected values to be strictly equal: 2 !== 3")
    assert "npx mocha --grep '^math adds$'" in failed[0]["suggested_fix"]
    assert view["summary"] == "npm test: 1 passed, 2 failed"  # was: `npm test: package.json script failed`
    assert view["data"]["tests"] == {"passed": 1, "failed": 2, "total": 3}
    text = view["output"]["stdout"]["text"]
    assert "2 !== 3" not in text and "passing" not in text and "✔" not in text


def test_a_passing_mocha_run_is_counted():
    _, view = _replay("test-script-mocha-passes")
    assert view["status"] == "success" and view["data"]["tests"] == {"passed": 3, "total": 3}


def test_mocha_titles_of_nested_suites_and_top_level_tests():
    text = ("  1 passing (9ms)\n  2 failing\n\n  1) outer\n       inner\n         does it:\n"
            "     Error: nope\n      at Context.<anonymous> (test/x.js:4:11)\n\n"
            "  2) top level:\n     TypeError: x is not a function\n      at f (src/y.js:2:3)\n"
            "      at Context.<anonymous> (test/x.js:9:5)\n")
    from agentwrap.adapters import js_mocha
    from agentwrap.adapters.js_test_results import TEST_FAILED

    found = js_mocha.failures(text, "npm", TEST_FAILED, 1)
    assert [(p.extra or {})["test"] for p in found] == ["outer inner does it", "top level"]
    assert [p.location for p in found] == [{"file": "test/x.js", "line": 4, "column": 11},
                                           {"file": "src/y.js", "line": 2, "column": 3}]
    assert js_mocha.counts(text) == {"passed": 1, "failed": 2, "total": 3}

