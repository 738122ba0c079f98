"""`make -k` over three broken C files (captured): each fact once. gcc quotes a source line under every
diagnostic on it, so an error and its three warnings on one line quoted it four times; the concise
envelope quotes it with the first, and leaves gcc's `compilation terminated.` (the fatal error says it)."""

from __future__ import annotations

import json
from collections import Counter

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _concise() -> dict:
    case = next(c for c in fixtures.cases(ROOT / "fixtures")
                if c.adapter == "make" and c.name == "keep-going-errors-and-warnings")
    return views.concise(fixtures.replay_record(registry.builtin("make"), case))


def test_a_source_line_is_quoted_once_however_many_problems_stand_on_it() -> None:
    env = _concise()
    problems = [env["error"], *env["problems"]]
    quoted = Counter(json.dumps(p["evidence"]) for p in problems if "evidence" in p)
    assert quoted and max(quoted.values()) == 1, quoted
    lines = {(p["location"]["file"], p["location"]["line"]) for p in problems if "evidence" in p}
    on_lines = {(p["location"]["file"], p["location"]["line"]) for p in problems
                if p.get("location", {}).get("file", "").startswith("src/")}
    assert lines == on_lines  # every line a problem stands on is still quoted, once
    codes = Counter(p["code"] for p in problems)
    assert codes["GCC_WARNING"] == 5 and codes["GCC_ERROR"] == 3  # every diagnostic is still listed


def test_compilation_terminated_is_no_text() -> None:
    env = _concise()
    assert env["error"]["code"] == "GCC_MISSING_HEADER"
    assert "compilation terminated" not in json.dumps(env.get("output", {}))
