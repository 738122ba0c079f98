"""mypy's `note: Hint: "python3 -m pip install types-X"` under the deciding missing-stubs error: the error's fix
and its code action say it, so the concise envelope says it there only, not again as a line of text
(fixtures/mypy/missing-stubs-hint, captured with PyYAML installed and types-PyYAML not)."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def test_the_stub_hint_is_said_by_the_fix_and_action_only() -> None:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "mypy") if c.name == "missing-stubs-hint")
    concise = views.concise(fixtures.replay_record(registry.builtin("mypy"), case))
    error = concise["error"]
    assert error["code_actions"][0]["command"] == ["python3", "-m", "pip", "install", "types-PyYAML"]
    assert "types-PyYAML" in error["suggested_fix"]
    assert "Hint:" not in concise.get("output", {}).get("stdout", {}).get("text", "")
