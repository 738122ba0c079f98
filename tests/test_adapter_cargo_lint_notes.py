"""rustc and clippy warnings on captured runs (fixtures/cargo): a note that only says the lint's level is its
default (`#[warn(clippy::ptr_arg)]` on by default) is not kept beside the `lint` member that names it; a note
saying where the level was set (`-D clippy::ptr-arg` implied by `-D warnings`) is a fact and stays."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry


def _problems(name: str) -> list[dict]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "cargo") if c.name == name)
    env, _ = fixtures.replay(registry.builtin("cargo"), case)
    return env["problems"]


def test_a_default_level_note_goes_with_the_lint_it_names():
    problems = _problems("clippy-warnings")
    assert "clippy::ptr_arg" in [p.get("lint") for p in problems]
    assert not [n for p in problems for n in p.get("notes", []) if "on by default" in n]


def test_a_note_saying_where_the_level_was_set_stays():
    notes = [n for p in _problems("clippy-deny-warnings") for n in p.get("notes", [])]
    assert any("implied by `-D warnings`" in n for n in notes)
