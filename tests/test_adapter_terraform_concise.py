"""terraform's envelopes as an agent reads them (the concise view), replayed from captured fixtures: no secret
the configuration marked sensitive, no JSON cut into something that is no longer JSON, each diagnostic's
source line kept once in its problem, and fixes that fit the command that ran."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.adapters import terraform
from agentwrap.render import views

CASES = {c.name: c for c in fixtures.cases(ROOT / "fixtures", "terraform")}


def _concise(name: str) -> dict:
    return views.concise(fixtures.replay_record(registry.builtin("terraform"), CASES[name]))


def _problems(env: dict) -> list[dict]:
    return [p for p in [env.get("error"), *env.get("problems", [])] if p]


def _texts(env: dict) -> dict[str, str]:
    return {name: s["text"] for name, s in env.get("output", {}).items() if s.get("text")}


def test_output_json_never_shows_a_sensitive_value():
    raw = CASES["output-json-sensitive"].path(".out").read_text()
    assert "Zq9xLmW2pR7t" in raw  # terraform's -json prints it
    env = _concise("output-json-sensitive")
    assert env["data"]["outputs"] == {"db_pw": "<sensitive>", "plain": "hello"}
    assert "Zq9xLmW2pR7t" not in json.dumps(env)
    assert env["summary"] == "terraform output: 2 outputs"


@pytest.mark.parametrize("name", ["output-json-sensitive", "validate-json-undeclared-references"])
def test_json_output_is_data_never_a_partial_json_text(name):
    env = _concise(name)
    assert "stdout" not in _texts(env)  # the data (and problems) say it; the text is in the artifact
    assert env.get("data") is not None


@pytest.mark.parametrize("name", ["validate-undeclared-references", "validate-json-undeclared-references"])
def test_every_diagnostic_keeps_its_source_line_as_evidence(name):
    env = _concise(name)
    evidence = {p["location"]["line"]: p.get("evidence") for p in _problems(env)}
    assert evidence == {2: ["2:   a = var.missing"], 6: ["6:   value = local.zzz"]}
    assert {p["location"]["line"]: p.get("context") for p in _problems(env)} == {2: "locals", 6: 'output "o"'}
    # said once, in the problems: no source line, and no `on FILE line N` line without its source, stays
    assert not any("main.tf line" in t or "var.missing" in t for t in _texts(env).values())


def test_destroy_at_its_prompt_reads_the_plan_and_offers_a_destroy_plan():
    env = _concise("destroy-at-prompt")
    assert env["data"]["resources"] == [{"address": "terraform_data.a", "action": "delete"},
                                        {"address": "terraform_data.b", "action": "delete"}]
    assert env["data"]["changes"]["destroy"] == 2
    stdout = _texts(env)["stdout"]
    assert "Refreshing state" not in stdout and "not shown" not in stdout
    approval = [p for p in _problems(env) if p["code"] == "TERRAFORM_APPROVAL_REQUIRED"]
    assert approval and all("plan -destroy -out=tfplan" in p["suggested_fix"] for p in approval)


def test_destroy_with_stdin_closed_fix_and_actions_are_a_destroy_plan():
    error = _concise("destroy-approval-stdin-closed")["error"]
    assert error["code"] == "TERRAFORM_APPROVAL_REQUIRED"
    assert "plan -destroy -out=tfplan" in error["suggested_fix"]
    assert error["code_actions"][0]["command"] == ["terraform", "plan", "-destroy", "-input=false", "-out=tfplan"]


def test_apply_at_its_prompt_keeps_the_plain_saved_plan_fix():
    error = _concise("apply-approval-stdin-closed")["error"]
    assert "`terraform plan -out=tfplan`" in error["suggested_fix"]


def test_a_read_only_commands_error_is_safe_to_retry_and_blames_no_apply():
    error = _concise("show-missing-file")["error"]
    assert error["code"] == "TERRAFORM_ERROR" and error["safe_to_retry"] is True
    assert "apply" not in error["suggested_fix"]


def test_a_missing_output_is_not_found_and_lists_the_outputs():
    error = _concise("output-not-found")["error"]
    assert (error["code"], error["category"], error["status"]) == ("TERRAFORM_OUTPUT_NOT_FOUND", "not_found", 404)
    assert error["safe_to_retry"] is True
    assert error["code_actions"][0]["command"] == ["terraform", "output"]


def test_a_warning_carries_no_fix_that_says_nothing():
    env = _concise("output-json")
    warnings = [p for p in _problems(env) if p["code"] == "TERRAFORM_WARNING"]
    assert warnings and all("suggested_fix" not in p for p in warnings)
    assert "stderr" not in _texts(env)  # its heading went with the box the problem holds


@pytest.mark.parametrize(("argv", "fix"), [
    (["terraform", "fmt", "-check", "-recursive"], ("terraform", "fmt", "-recursive")),
    (["terraform", "fmt", "-check", "sub"], ("terraform", "fmt", "sub")),
    (["terraform", "-chdir=infra", "fmt", "-check=true", "-diff", "-list=false", "-write=false", "mod/a.tf"],
     ("terraform", "-chdir=infra", "fmt", "mod/a.tf")),
])
def test_the_fmt_fix_keeps_the_callers_targets(argv, fix):
    assert terraform._fmt_command(argv) == fix


@pytest.mark.parametrize(("name", "summary"), [
    ("state-list", "terraform state list: 2 resources"),
    ("output-json", "terraform output: 3 outputs"),
    ("plan-create", "terraform plan: 1 to add, 0 to change, 0 to destroy"),
])
def test_read_commands_summarise_what_they_read(name, summary):
    assert _concise(name)["summary"] == summary
