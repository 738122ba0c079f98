"""The problem type URI is the stable dispatch key (CONTRACT 3): one form for every problem of every fixture."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from agentwrap import catalog, codes, fixtures, registry
from agentwrap.artifacts import ArtifactStore
from agentwrap.problem import problem_type, slug

CASES = fixtures.cases(ROOT / "fixtures")
DOC = (ROOT / "docs" / "problems.md").read_text()
_ADAPTER_TYPE = re.compile(r"urn:agentwrap:problem:(?P<tool>[a-z0-9][a-z0-9.-]*):(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\Z")
_WRAPPER_TYPES = {f"urn:agentwrap:problem:{info.slug}" for info in codes.BY_CODE.values()}


def check_type(problem: dict[str, object]) -> None:
    kind = str(problem["type"])
    if kind in _WRAPPER_TYPES:
        assert codes.BY_CODE[str(problem["code"])].slug == kind.rsplit(":", 1)[1]
        return
    match = _ADAPTER_TYPE.match(kind)
    assert match, kind
    # no stutter (`docker:docker-x`); `docker:dockerfile-not-found` starts with another word
    assert not f"{match['slug']}-".startswith(f"{match['tool']}-"), kind
    assert kind == problem_type(match["tool"], str(problem["code"])), (kind, problem["code"])


def fixture_problems(tmp_path):
    for case in CASES:
        adapter = registry.builtin(case.adapter)
        env = fixtures.replay_record(adapter, case, store=ArtifactStore(tmp_path)).standard()
        for problem in [env["error"], *env["problems"]]:
            if problem:
                yield adapter, problem


def test_every_fixture_problem_has_the_one_type_form(tmp_path):
    seen = 0
    for _adapter, problem in fixture_problems(tmp_path):
        check_type(problem)
        seen += 1
    assert seen > 100  # the corpus holds problems of every adapter


def _declaring(adapter, problem):
    """Who declares a problem: the case's adapter, or a launcher's (npx, `npm run`) the one of the tool it
    ran, whose reading the run's is (agentwrap.outcome.interpret); the problem's type names that tool."""
    tool = _ADAPTER_TYPE.match(str(problem["type"]))["tool"]
    launcher = adapter.spec is not None and adapter.spec.launcher is not None
    return registry.builtin(tool) if launcher and tool != adapter.name and tool in registry.names() else adapter


def test_every_fixture_problem_is_declared_by_its_adapter(tmp_path):
    """What a run can emit is declared: describe, explain and docs/problems.md read the declarations."""
    for adapter, problem in fixture_problems(tmp_path):
        if problem["code"] in codes.BY_CODE:
            continue
        declared = [d for d in _declaring(adapter, problem).declarations() if d.covers(problem["code"])]
        assert declared, f"{adapter.name} emits {problem['code']} without declaring it"
        if not declared[0].pattern:  # the declaration's facts are the problem's (an occurrence may retitle)
            assert (problem["category"], problem["status"]) == (declared[0].category, declared[0].status), problem


@pytest.mark.parametrize("entry", catalog.entries(), ids=lambda e: f"{e.tool}:{e.declared.code}")
def test_every_declared_code_explains_and_is_documented(entry):
    from agentwrap.commands import CommandContext, explain

    ctx = CommandContext(request_id="req_test", format="json", agent=True, max_inline_bytes=4096)
    data = explain.main([entry.declared.code], ctx).envelope["data"]
    assert (data["code"], data["title"], data["category"]) == (
        entry.declared.code,
        entry.declared.title,
        entry.declared.category,
    )
    assert entry.tool in data["tools"]
    assert f"`{entry.type.removeprefix('urn:agentwrap:problem:')}`" in DOC


@pytest.mark.parametrize("name", registry.names())
def test_describe_lists_the_declared_codes(name):
    described = registry.describe(name)["problem_codes"]
    assert described == sorted({d.code for d in registry.builtin(name).declarations()})


@pytest.mark.parametrize(
    ("code", "tool", "expected"),
    [
        ("MYPY_MISSING_IMPORT", "mypy", "missing-import"),
        ("GIT_MERGE_CONFLICT", "git", "merge-conflict"),
        ("PYTHON_SYNTAX_ERROR", "pytest", "python-syntax-error"),
        ("CONFIG_INVALID", "mypy", "config-invalid"),
        ("KUBECTL_FORBIDDEN", "kubectl", "forbidden"),
    ],
)
def test_one_slug_rule(code: str, tool: str, expected: str) -> None:
    assert slug(code, tool) == expected
    assert problem_type(tool, code) == f"urn:agentwrap:problem:{tool}:{expected}"


def test_no_adapter_writes_a_type_uri_by_hand():
    for path in (ROOT / "agentwrap" / "adapters").rglob("*"):
        if path.suffix in (".py", ".toml"):
            assert "urn:agentwrap:problem" not in path.read_text(), path


def _literal_codes():
    """Codes the package writes as literals: `Note("CODE", ...)`, `wrapper_problem("CODE", ...)` and
    `{"code": "CODE", ...}` (warnings built as dicts)."""
    import ast

    for path in (ROOT / "agentwrap").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("Note", "wrapper_problem")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                yield path, node.args[0].value
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value == "code"
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, str)
                        and value.value.isupper()
                    ):
                        yield path, value.value


def test_every_code_written_in_the_package_is_known_to_explain():
    declared = {e.declared.code for e in catalog.entries()}
    found = list(_literal_codes())
    assert len(found) > 10
    for path, code in found:
        assert code in codes.BY_CODE or code in codes.WARNINGS or code in declared, (path, code)
