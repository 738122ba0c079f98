"""pytest's short summary lines for tests that did not fail (`-rA`, `-rp`): printed because the caller asked,
each one test's outcome. A passing case of a parametrized test shares its words with the failing case's
problem, and must not be dropped as if that problem said it (fixtures/pytest/ra-passed-beside-failed)."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def test_ra_keeps_the_passing_case_beside_the_failing_one() -> None:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "pytest") if c.name == "ra-passed-beside-failed")
    concise = views.concise(fixtures.replay_record(registry.builtin("pytest"), case))
    text = concise["output"]["stdout"]["text"].splitlines()
    assert "PASSED test_add.py::test_add[1-2-3]" in text  # the failing test_add[2-2-5] is not this one
    assert "XFAIL test_add.py::test_add_floats - rounding" in text
    assert not any(line.startswith("FAILED ") for line in text)  # the problem says that one
