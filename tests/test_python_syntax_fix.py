"""A Python syntax error's problem says where and what (location, column, source, detail); a fix that only
says those again ("Fix the SyntaxError at FILE:LINE: invalid syntax.") is not sent (fixtures/python/syntax-error)."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def test_a_syntax_error_carries_its_facts_and_no_restating_fix() -> None:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "python") if c.name == "syntax-error")
    error = views.concise(fixtures.replay_record(registry.builtin("python"), case))["error"]
    assert error["location"] == {"file": "/tmp/pyw/typo.py", "line": 3, "column": 13}
    assert error["detail"] == "SyntaxError: invalid syntax" and error["source"] == "value = (1 +* 2)"
    assert "suggested_fix" not in error
