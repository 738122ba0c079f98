"""docker login on captured runs (fixtures/docker): the client's own last line decides over its info-level
log of each attempt, and the way past a password prompt keeps the caller's user name instead of adding a
second -u."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "docker") if c.name == name)
    record = fixtures.replay_record(registry.builtin("docker"), case)
    return record.standard(), views.concise(record)


def test_an_unreachable_registry_is_one_problem_from_the_last_line_and_safe_to_retry():
    env, view = _replay("login-registry-unreachable")
    assert [p["code"] for p in env["problems"]] == ["DOCKER_REGISTRY_UNREACHABLE"]
    error = env["error"]
    assert error["safe_to_retry"] is True and error["retryable"] is True
    assert "level=info" not in error["detail"] and "localhost:5000" in error["detail"]
    assert "level=info" not in "".join(s["text"] for s in view.get("output", {}).values())


def test_the_login_without_a_prompt_keeps_the_given_user_once():
    env, _ = _replay("login-password-prompt")
    command = env["error"]["code_actions"][0]["command"]
    assert command.count("-u") == 1
    assert command[command.index("-u") + 1] == "bob"
    assert command[-1] == "--password-stdin" and "localhost:5000" in command


def test_the_login_without_a_prompt_has_a_user_placeholder_only_when_none_was_given():
    adapter = registry.builtin("docker")
    _, actions = adapter.prompt_help(["docker", "login", "--password=x", "reg.example:5000"], "Username: ", "text")
    login = next(a for a in actions if "--password-stdin" in (a.command or ()))
    assert login.command is not None
    assert "--password=x" not in login.command
    assert login.command[-3:] == ("-u", "<USER>", "--password-stdin")
