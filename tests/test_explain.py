from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from agentwrap import advice, codes, options, schema_files
from agentwrap.commands import CommandContext, explain, schema
from agentwrap.errors import UsageError

CTX = CommandContext(request_id="req_test", format="json", agent=True, max_inline_bytes=4096)
RESULT = Draft202012Validator(schema_files.load("result"))


@pytest.mark.parametrize("code", sorted(codes.BY_CODE))
def test_each_code_explains(code: str) -> None:
    info = codes.BY_CODE[code]
    out = explain.main([code], CTX)
    assert out.exit_code == 0
    env = out.envelope
    RESULT.validate(env)
    assert env["status"] == "success"
    assert env["request_id"] == "req_test"
    data = env["data"]
    assert data["code"] == code
    assert data["category"] == info.category
    assert data["title"] == info.title
    assert data["meaning"] == info.meaning
    assert data["fixes"] == advice.usable(info.fixes)
    assert data["type"] == f"urn:agentwrap:problem:{info.slug}"
    assert data["docs_url"].endswith(info.slug)
    assert {"status", "exit_code", "retryable", "safe_to_retry"} <= data.keys()


@pytest.mark.parametrize("spelling", ["timeout", "Timeout", " TIMEOUT ", "urn:agentwrap:problem:timeout"])
def test_code_spellings(spelling: str) -> None:
    assert explain.main([spelling], CTX).envelope["data"]["code"] == "TIMEOUT"


def test_slug_spelling() -> None:
    assert explain.main(["program-not-found"], CTX).envelope["data"]["code"] == "PROGRAM_NOT_FOUND"


@pytest.mark.parametrize("code", sorted(codes.WARNINGS))
def test_each_warning_explains(code: str) -> None:
    env = explain.main([code.lower()], CTX).envelope
    RESULT.validate(env)
    assert env["data"] == {"code": code, "kind": "warning", "meaning": codes.WARNINGS[code]}


def test_no_code_lists_all() -> None:
    env = explain.main([], CTX).envelope
    RESULT.validate(env)
    listed = env["data"]["codes"]
    assert [c["code"] for c in listed] == list(codes.BY_CODE)
    assert all(c["category"] == codes.BY_CODE[c["code"]].category for c in listed)
    assert {w["code"] for w in env["data"]["warnings"]} == set(codes.WARNINGS)


def test_unknown_code_names_close_matches() -> None:
    with pytest.raises(UsageError, match="TIMEOUT") as info:
        explain.main(["TIMEOUTT"], CTX)
    problem = info.value.to_problem().to_dict()
    assert problem["code"] == "USAGE"
    assert problem["close_matches"][0] == "TIMEOUT"
    assert problem["code_actions"][0]["command"] == ["agentwrap", "explain", "TIMEOUT"]


def _close(raw: str) -> tuple[list[str], str]:
    with pytest.raises(UsageError) as info:
        explain.main([raw], CTX)
    problem = info.value.to_problem().to_dict()
    return problem.get("close_matches", []), problem["detail"]


@pytest.mark.parametrize(("raw", "meant"), [
    ("RUFF_VIOLATON", "RUFF_VIOLATION"), ("ruff_violaton", "RUFF_VIOLATION"), ("RUFF_VOILATION", "RUFF_VIOLATION"),
    ("timout", "TIMEOUT"), ("KUBECTL_NOTFOUND", "KUBECTL_NOT_FOUND"), ("git-push-rejectd", "GIT_PUSH_REJECTED"),
    ("urn:agentwrap:problem:git:push-rejectd", "GIT_PUSH_REJECTED")])
def test_a_typo_is_answered_with_the_code_it_misspells_alone(raw: str, meant: str) -> None:
    """One letter off: the code meant, not two others that only look alike (ESLINT_RULE_VIOLATION, RUFF_IO_ERROR
    were offered beside RUFF_VIOLATION)."""
    assert _close(raw)[0] == [meant]


def test_a_lowercase_code_is_the_code() -> None:
    assert explain.main(["ruff_violation"], CTX).envelope["data"]["code"] == "RUFF_VIOLATION"


def test_a_prefix_lists_the_codes_it_starts() -> None:
    """`GIT_` answered GIT_USAGE alone, one of git's 37 codes."""
    from agentwrap import catalog

    git = sorted({e.declared.code for e in catalog.entries()} | set(codes.BY_CODE))
    git = [c for c in git if c.startswith("GIT_")]
    for prefix in ("GIT_", "git", "GIT"):
        matches, detail = _close(prefix)
        assert matches == git, prefix
        assert f"{len(git)} codes start with GIT_: {git[0]}" in detail
    assert _close("GIT_PUSH")[0] == [c for c in git if c.startswith("GIT_PUSH_")]


def test_a_word_of_codes_names_the_codes_that_hold_it() -> None:
    matches, _ = _close("VIOLATION")
    assert matches and all("VIOLATION" in m.split("_") for m in matches)


def test_unknown_code_without_matches() -> None:
    with pytest.raises(UsageError, match="agentwrap explain"):
        explain.main(["ZZZZZZZZ"], CTX)


@pytest.mark.parametrize("argv", [["--bogus"], ["TIMEOUT", "EXTRA"]])
def test_bad_explain_arguments_raise_usage_not_exit(argv: list[str]) -> None:
    with pytest.raises(UsageError, match="agentwrap explain"):
        explain.main(argv, CTX)


@pytest.mark.parametrize("kind", schema_files.KINDS)
def test_schema_command_returns_the_schema(kind: str) -> None:
    out = schema.main([kind], CTX)
    assert out.exit_code == 0
    assert out.envelope == schema_files.load(kind)
    assert out.envelope["$schema"].endswith("/2020-12/schema")


def test_schema_kind_is_case_insensitive() -> None:
    assert schema.main(["Result"], CTX).envelope == schema_files.load("result")


@pytest.mark.parametrize("argv", [["nope"], [], ["--bogus"], ["result", "extra"]])
def test_schema_bad_arguments_raise_usage(argv: list[str]) -> None:
    with pytest.raises(UsageError) as info:
        schema.main(argv, CTX)
    problem = info.value.to_problem()
    assert problem.code == "USAGE"
    assert problem.exit_code == 125


@pytest.mark.parametrize("argv", [["nope"], []])
def test_schema_usage_error_lists_kinds(argv: list[str]) -> None:
    with pytest.raises(UsageError, match="result.*problem.*event"):
        schema.main(argv, CTX)


def test_every_code_has_the_documentation_its_docs_url_names():
    from pathlib import Path

    from agentwrap import codes

    doc = (Path(__file__).resolve().parent.parent / "docs" / "problems.md").read_text()
    for info in codes.BY_CODE.values():
        assert f"## {info.slug}\n" in doc, info.code
        assert info.meaning in doc, info.code
    for code in codes.WARNINGS:
        assert f"`{code}`" in doc, code


def test_problems_page_is_generated_from_the_tables() -> None:
    from pathlib import Path

    from agentwrap import problem_docs

    doc = (Path(__file__).resolve().parent.parent / "docs" / "problems.md").read_text()
    assert doc == problem_docs.render(), "run `python3 -m agentwrap.problem_docs > docs/problems.md`"


@pytest.mark.parametrize("code", sorted(codes.BY_CODE))
def test_advice_names_no_option_this_version_lacks(code: str) -> None:
    for fix in explain.main([code], CTX).envelope["data"]["fixes"]:
        assert advice.missing_options(fix) == [], (code, fix)
    # The fix a Problem carries (the first) names only options of the contract, never a made-up one.
    first = codes.BY_CODE[code].fixes[0]
    assert all(name in options.OPTION_NAMES for name in advice.option_names(first))


def test_timeout_advises_detach_exactly_when_it_is_available() -> None:
    fixes = explain.main(["TIMEOUT"], CTX).envelope["data"]["fixes"]
    assert any("--detach" in fix for fix in fixes) == options.available("--detach")
    assert options.available("--timeout")
    assert not options.available("--no-such-option")


def test_concise_explain_says_nothing_null_and_fills_a_familys_code() -> None:
    """Rule 2 inside explain's data: a code whose exit code is the program's own has no `exit_code: null` at
    the concise level (standard keeps the member); a rustc family's fix names the code asked about."""
    concise = CTX._replace(detail="concise")
    assert "exit_code" not in explain.main(["COMMAND_TIMED_OUT"], concise).envelope["data"]
    assert explain.main(["TIMEOUT"], concise).envelope["data"]["exit_code"] == 124
    assert explain.main(["COMMAND_TIMED_OUT"], CTX).envelope["data"]["exit_code"] is None
    fixes = explain.main(["E0308"], concise).envelope["data"]["fixes"]
    assert fixes == ["Run `rustc --explain E0308` for the rule and examples."]
