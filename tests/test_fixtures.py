"""Every captured fixture, replayed through its adapter: the adapters' spec is their fixtures."""

from __future__ import annotations

import jsonschema
import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.adapters import INDEX
from agentwrap.schema_files import load

CASES = fixtures.cases(ROOT / "fixtures")


@pytest.mark.parametrize("case", CASES, ids=[f"{c.adapter}/{c.name}" for c in CASES])
def test_fixture(case):
    expected = case.expected()
    assert expected is not None, f"{case.path('.expected.json')} is missing"
    env, code = fixtures.replay(registry.builtin(case.adapter), case)
    assert fixtures.mismatches(expected, env) == []
    jsonschema.validate(env, load("result"))
    assert (code == 0) == (env["status"] == "success")


@pytest.mark.parametrize("stem", sorted(set(INDEX.values())))
def test_index_agrees_with_each_adapter(stem):
    adapter = registry.builtin(stem)
    assert adapter.name == stem
    assert sorted(adapter.matches()) == sorted(p for p, s in INDEX.items() if s == stem)
    descriptor = adapter.descriptor()
    for key in ("purpose", "use_when", "do_not_use_when", "returns", "limitations"):
        assert descriptor.get(key), f"{stem}: descriptor.{key} is empty"


@pytest.mark.parametrize("stem", sorted(set(INDEX.values())))
def test_each_builtin_has_fixtures(stem):
    assert [c for c in CASES if c.adapter == stem], f"{stem} has no fixtures"


@pytest.mark.parametrize("stem", [*sorted(set(INDEX.values())), "generic"])
def test_each_builtin_spec_is_valid(stem):
    """Built-ins skip validation at run time (start-up cost); here every one is checked as a user's would be."""
    from agentwrap.adapter import generic_spec
    from agentwrap.spec_check import check

    spec = generic_spec() if stem == "generic" else registry.builtin(stem).spec
    assert spec is not None
    check(spec.data, spec.source)
    for rule in spec.rules:
        assert rule.pattern.pattern  # compiles
