"""A plan error's "plan again" action carries the plan's own options (CONTRACT section 9): run literally,
from wherever apply was run, it plans the same command in the same repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import aw
from tests.conftest import git as _git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q", "--bare", "remote.git")
    work = tmp_path / "repo"
    _git(tmp_path, "init", "-q", "-b", "master", str(work))
    _git(work, "commit", "-q", "--allow-empty", "-m", "one")
    _git(work, "remote", "add", "origin", "../remote.git")
    _git(work, "push", "-q", "-u", "origin", "master")
    _git(work, "commit", "-q", "--allow-empty", "-m", "two")
    return work


def _plan_action(error: dict[str, object] | None) -> list[str]:
    assert error is not None
    actions = error["code_actions"]
    assert isinstance(actions, list) and actions
    return list(actions[0]["command"])


def test_a_drifted_plans_action_plans_the_same_repository_again(repo: Path, tmp_path: Path) -> None:
    plan = aw("plan", "--cwd", "repo", "--env", "GIT_TRACE=0", "--", "git", "push", "origin", "master",
              cwd=tmp_path)
    assert plan.code == 0, plan.env
    _git(repo, "commit", "-q", "--allow-empty", "-m", "three")
    drift = aw("apply", plan.env["data"]["plan_id"], cwd=tmp_path)
    assert drift.error is not None and drift.error["code"] == "PLAN_DRIFT"
    command = _plan_action(drift.error)
    assert command[:3] == ["agentwrap", "--agent", "plan"]
    assert ["--cwd", str(repo)] == command[command.index("--cwd"):command.index("--cwd") + 2]
    assert "GIT_TRACE=0" in command and command[-5:] == ["--", "git", "push", "origin", "master"]
    assert drift.error["code_actions"][0]["applicability"] == "machine_applicable"  # type: ignore[index]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = aw(*command[1:], agent=False, cwd=elsewhere)  # the action as given, from another folder
    assert again.code == 0, again.env
    assert again.env["data"]["proposed_effects"][0]["to"] == _git(repo, "rev-parse", "HEAD")


def test_hash_mismatch_and_already_applied_carry_the_plan_options(repo: Path, tmp_path: Path) -> None:
    plan = aw("plan", "--cwd", "repo", "--env", "API_TOKEN=s3cr3t-4711", "--", "git", "push", "origin",
              "master", cwd=tmp_path)
    plan_id = plan.env["data"]["plan_id"]
    mismatch = aw("apply", plan_id, "--expect-hash", "sha256:0", cwd=tmp_path)
    assert mismatch.error is not None and mismatch.error["code"] == "PLAN_HASH_MISMATCH"
    command = _plan_action(mismatch.error)
    assert "--cwd" in command and "API_TOKEN=<API_TOKEN>" in command and "s3cr3t-4711" not in str(command)
    assert mismatch.error["code_actions"][0]["applicability"] == "has_placeholders"  # type: ignore[index]
    assert aw("apply", plan_id, "--env", "API_TOKEN=s3cr3t-4711", cwd=tmp_path).code == 0  # the secret again
    applied = aw("apply", plan_id, cwd=tmp_path)
    assert applied.error is not None and applied.error["code"] == "PLAN_ALREADY_APPLIED"
    assert str(repo) in _plan_action(applied.error)
