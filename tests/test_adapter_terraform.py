"""terraform through agentwrap, end to end, offline: only the built-in terraform_data resource and local modules.

The Done-when checks: the problem an expert would name (init required, missing variable, state lock, approval),
a fix an agent can apply (the code action runs and the next run succeeds), and locations equal to terraform's own
machine-readable output (`validate -json`, `plan -json`).
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("terraform") is None, reason="terraform is not installed")

RESOURCE = ('resource "terraform_data" "example" {\n  input = "hello"\n}\n\n'
            'output "id" {\n  value = terraform_data.example.output\n}\n')
VARIABLE = 'variable "region" {\n  type = string\n}\n\noutput "region" {\n  value = var.region\n}\n'
SYNTAX = "locals {\n  a = 1\n  b =\n}\n"


def _config(path: Path, text: str, init: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "main.tf").write_text(text)
    if init:
        subprocess.run(["terraform", "init", "-input=false", "-no-color"], cwd=path, capture_output=True, check=True)
    return path


def _tool_json(path: Path, *args: str) -> list[dict]:
    out = subprocess.run(["terraform", *args], cwd=path, capture_output=True, text=True).stdout
    try:
        return [json.loads(out)]
    except ValueError:
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_plan_reports_counts_and_resource_actions(tmp_path):
    work = _config(tmp_path / "tf", RESOURCE)
    answer = aw("--cwd", str(work), "--", "terraform", "plan")
    assert answer.env["status"] == "success"
    assert answer.env["data"]["changes"] == {"add": 1, "change": 0, "destroy": 0}
    assert answer.env["data"]["resources"] == [{"address": "terraform_data.example", "action": "create"}]
    assert answer.env["summary"] == "terraform plan: 1 to add, 0 to change, 0 to destroy"
    json_summary = [v for v in _tool_json(work, "plan", "-json") if v.get("type") == "change_summary"][0]
    assert json_summary["changes"]["add"] == answer.env["data"]["changes"]["add"]


def test_syntax_error_location_equals_validate_json(tmp_path):
    work = _config(tmp_path / "tf", SYNTAX, init=False)
    answer = aw("--cwd", str(work), "--", "terraform", "validate")
    error = answer.error
    assert error["code"] == "TERRAFORM_SYNTAX_ERROR" and error["category"] == "validation"
    own = _tool_json(work, "validate", "-json")[0]["diagnostics"][0]["range"]
    assert error["location"] == {"file": own["filename"], "line": own["start"]["line"]}
    as_json = aw("--cwd", str(work), "--", "terraform", "validate", "-json").error
    assert as_json["location"] == {"file": own["filename"], "line": own["start"]["line"],
                                   "column": own["start"]["column"]}


def test_missing_variable_names_it_and_offers_var(tmp_path):
    work = _config(tmp_path / "tf", VARIABLE)
    error = aw("--cwd", str(work), "--", "terraform", "plan").error
    assert error["code"] == "TERRAFORM_VARIABLE_REQUIRED"
    assert error["retryable"] is False and error["safe_to_retry"] is True
    diag = [v["diagnostic"] for v in _tool_json(work, "plan", "-json") if v.get("type") == "diagnostic"][0]
    assert error["location"] == {"file": diag["range"]["filename"], "line": diag["range"]["start"]["line"]}
    action = error["code_actions"][0]
    assert action["command"] == ["terraform", "plan", "-var", "region=<VALUE>"]
    assert action["applicability"] == "has_placeholders"
    filled = [w.replace("<VALUE>", "eu-west-1") for w in action["command"]]
    assert aw("--cwd", str(work), "--", *filled).env["status"] == "success"


def test_init_required_fix_is_machine_applicable_and_works(tmp_path):
    work = tmp_path / "tf"
    (work / "mod").mkdir(parents=True)
    (work / "mod" / "main.tf").write_text('output "x" {\n  value = 1\n}\n')
    _config(work, 'module "child" {\n  source = "./mod"\n}\n', init=False)
    error = aw("--cwd", str(work), "--", "terraform", "plan").error
    assert error["code"] == "TERRAFORM_INIT_REQUIRED" and error["category"] == "precondition"
    assert error["location"] == {"file": "main.tf", "line": 1}
    fix = error["code_actions"][0]
    assert fix["applicability"] == "machine_applicable" and fix["command"] == ["terraform", "init", "-input=false"]
    assert aw("--cwd", str(work), "--", *fix["command"]).env["data"]["initialized"] is True
    assert aw("--cwd", str(work), "--", "terraform", "plan").env["status"] == "success"


def test_apply_without_approval_offers_the_saved_plan_workflow(tmp_path):
    work = _config(tmp_path / "tf", RESOURCE)
    error = aw("--cwd", str(work), "--stdin", "/dev/null", "--", "terraform", "apply").error
    assert error["code"] == "TERRAFORM_APPROVAL_REQUIRED" and error["category"] == "input_required"
    save, apply_saved, auto = error["code_actions"]
    assert save["applicability"] == "machine_applicable" and "-out=tfplan" in save["command"]
    assert apply_saved["command"][-1] == "tfplan" and apply_saved["applicability"] == "maybe_incorrect"
    assert auto["command"][-1] == "-auto-approve" and auto["applicability"] == "maybe_incorrect"
    assert not (work / "terraform.tfstate").exists() or "example" not in (work / "terraform.tfstate").read_text()
    assert aw("--cwd", str(work), "--", *save["command"]).env["data"]["changes"]["add"] == 1
    applied = aw("--cwd", str(work), "--", *apply_saved["command"]).env
    assert applied["status"] == "success" and applied["data"]["applied"]["added"] == 1
    assert aw("--cwd", str(work), "--", "terraform", "output", "-json").env["data"]["outputs"]["id"] == "hello"


@pytest.mark.parametrize(("argv", "read_only", "destructive"), [
    (["terraform", "plan"], True, False),
    (["terraform", "-chdir=infra", "validate"], True, False),
    (["terraform", "output", "-json"], True, False),
    (["terraform", "state", "list"], True, False),
    (["terraform", "apply", "-auto-approve"], False, None),
    (["terraform", "destroy"], False, True),
    (["terraform", "state", "rm", "x.y"], False, True),
    (["tofu", "import", "a.b", "id"], False, False),
])
def test_effects_per_subcommand(argv, read_only, destructive):
    from agentwrap import registry

    adapter, _ = registry.find(argv[0])
    assert adapter.name == "terraform"
    effects = adapter.effects(argv)
    assert (effects.read_only, effects.destructive) == (read_only, destructive)


@pytest.mark.slow
def test_state_lock_names_the_lock_and_never_force_unlocks_blindly(tmp_path):
    work = _config(tmp_path / "tf", RESOURCE)
    pid, fd = pty.fork()
    if pid == 0:  # the lock holder: an apply waiting at its approval prompt
        os.chdir(work)
        os.execvp("terraform", ["terraform", "apply", "-no-color"])
    try:
        info = work / ".terraform.tfstate.lock.info"
        deadline = time.monotonic() + 20
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        lock_id = json.loads(info.read_text())["ID"]
        error = aw("--cwd", str(work), "--", "terraform", "plan").error
        assert error["code"] == "TERRAFORM_STATE_LOCKED"
        assert error["category"] == "conflict" and error["retryable"] is True and error["safe_to_retry"] is True
        assert lock_id in error["detail"]
        wait, unlock = error["code_actions"]
        assert wait["command"][-1] == "-lock-timeout=5m"
        assert unlock["command"][-1] == lock_id and unlock["applicability"] != "machine_applicable"
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


@pytest.mark.slow
def test_live_approval_prompt_is_input_required(tmp_path):
    """terraform (Go) reads the approval on a thread other than the main one: every thread is inspected."""
    work = _config(tmp_path / "tf", RESOURCE)
    answer = aw("--timeout", "8", "--cwd", str(work), "--", "terraform", "apply")
    assert answer.error["code"] == "INPUT_REQUIRED"
    assert any(a.get("command", [])[-1:] == ["-auto-approve"] for a in answer.error["code_actions"])


def test_approval_prompt_help_keeps_the_callers_options():
    from agentwrap import registry

    adapter = registry.builtin("terraform")
    fix, actions = adapter.prompt_help(["terraform", "apply", "-var", "a=b"], "  Enter a value:", "text")
    assert fix is not None and "-auto-approve" in fix
    commands = [a.command for a in actions]
    assert commands[0] == ("terraform", "plan", "-var", "a=b", "-input=false", "-out=tfplan")
    assert commands[1] == ("terraform", "apply", "-input=false", "tfplan")
    assert commands[2] == ("terraform", "apply", "-var", "a=b", "-auto-approve")
    assert [a.applicability for a in actions] == ["machine_applicable", "maybe_incorrect", "maybe_incorrect"]
    _, destroy = adapter.prompt_help(["tofu", "destroy"], "  Enter a value:", "confirmation")
    assert destroy[0].command == ("tofu", "plan", "-destroy", "-input=false", "-out=tfplan")
