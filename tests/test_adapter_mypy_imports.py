"""The mypy adapter's missing-import facts on captured runs (fixtures/mypy): the right ignore code, the
better fix first, each fact once."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "mypy") if c.name == name)
    record = fixtures.replay_record(registry.builtin("mypy"), case)
    return record.standard(), views.concise(record)


def test_each_missing_import_is_silenced_with_the_code_mypy_printed():
    env, _ = _replay("missing-imports")
    fixes = {p["rule"]: p["suggested_fix"] for p in env["problems"]}
    assert "`# type: ignore[import-not-found]`" in fixes["import-not-found"]
    assert "import-untyped" not in fixes["import-not-found"]
    assert "`# type: ignore[import-untyped]`" in fixes["import-untyped"]


def test_the_stubs_mypy_names_come_first_and_a_missing_module_is_installed():
    env, _ = _replay("missing-imports")
    fixes = {p["rule"]: p["suggested_fix"] for p in env["problems"]}
    stubs = "Install the stubs mypy names: `python3 -m pip install types-six`"
    assert fixes["import-untyped"].startswith(stubs)
    assert fixes["import-not-found"].startswith("Install nonexistent_mod_xyz into the environment mypy")
    assert "`python3 -m pip install nonexistent_mod_xyz`" in fixes["import-not-found"]


def test_the_deciding_error_says_the_stub_hint_in_its_fix_and_action_not_again_in_a_note():
    _, view = _replay("type-errors")
    error = view["error"]
    stubs = "Install the stubs mypy names: `python3 -m pip install types-PyYAML`"
    assert error["suggested_fix"].startswith(stubs)
    assert error["code_actions"][0]["command"] == ["python3", "-m", "pip", "install", "types-PyYAML"]
    assert not any("Hint:" in note for note in error.get("notes", []))


def test_a_listed_import_error_keeps_its_hint():
    _, view = _replay("missing-imports")
    listed = next(p for p in view["problems"] if "six" in p["detail"])
    assert "types-six" in listed["suggested_fix"]


def test_the_closing_count_of_a_blocked_run_is_not_repeated_inline():
    _, view = _replay("syntax-error")
    lines = [line for s in view.get("output", {}).values() for line in s["text"].splitlines()]
    assert not any(line.startswith("Found ") for line in lines)
    assert view["summary"] == "mypy: 2 errors in 1 file"
