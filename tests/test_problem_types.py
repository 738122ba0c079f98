"""The problem type URI is the stable dispatch key (CONTRACT 3): one form for every problem of every fixture."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from agentwrap import codes, fixtures, registry
from agentwrap.artifacts import ArtifactStore
from agentwrap.problem import problem_type, slug

CASES = fixtures.cases(ROOT / "fixtures")
_ADAPTER_TYPE = re.compile(r"urn:agentwrap:problem:(?P<tool>[a-z0-9][a-z0-9.-]*):(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\Z")
_WRAPPER_TYPES = {f"urn:agentwrap:problem:{info.slug}" for info in codes.BY_CODE.values()}


def check_type(problem: dict[str, object]) -> None:
    kind = str(problem["type"])
    if kind in _WRAPPER_TYPES:
        assert codes.BY_CODE[str(problem["code"])].slug == kind.rsplit(":", 1)[1]
        return
    match = _ADAPTER_TYPE.match(kind)
    assert match, kind
    assert not match["slug"].startswith(match["tool"]), kind
    assert kind == problem_type(match["tool"], str(problem["code"])), (kind, problem["code"])


def test_every_fixture_problem_has_the_one_type_form(tmp_path):
    seen = 0
    for case in CASES:
        record = fixtures.replay_record(registry.builtin(case.adapter), case, store=ArtifactStore(tmp_path))
        env = record.standard()
        for problem in [env["error"], *env["problems"]]:
            if problem:
                check_type(problem)
                seen += 1
    assert seen > 100  # the corpus holds problems of every adapter


@pytest.mark.parametrize(("code", "tool", "expected"), [
    ("MYPY_MISSING_IMPORT", "mypy", "missing-import"),
    ("GIT_MERGE_CONFLICT", "git", "merge-conflict"),
    ("PYTHON_SYNTAX_ERROR", "pytest", "python-syntax-error"),
    ("CONFIG_INVALID", "mypy", "config-invalid"),
    ("KUBECTL_FORBIDDEN", "kubectl", "forbidden"),
])
def test_one_slug_rule(code: str, tool: str, expected: str) -> None:
    assert slug(code, tool) == expected
    assert problem_type(tool, code) == f"urn:agentwrap:problem:{tool}:{expected}"
