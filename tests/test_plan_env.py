"""A plan binds its --env (CONTRACT section 9): the planner's probes and apply's run get it; a secret value is
kept only as a digest, so apply must be given it again, and the planned value only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import aw
from tests.conftest import git as _git

# The remote is `fake:remote.git`, a URL only this --env resolves (url.<base>.insteadOf): a probe or a push
# run without the plan's --env cannot reach it.
_REWRITE = ("GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=url.{base}/.insteadOf", "GIT_CONFIG_VALUE_0=fake:")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q", "--bare", "remote.git")
    work = tmp_path / "repo"
    _git(tmp_path, "init", "-q", "-b", "master", str(work))
    _git(work, "commit", "-q", "--allow-empty", "-m", "one")
    _git(work, "remote", "add", "origin", "fake:remote.git")
    hook = work / ".git" / "hooks" / "pre-push"  # git runs it for the dry run and the push, with their env
    hook.write_text(f'#!/bin/sh\necho "$MARK $API_TOKEN" >> {tmp_path / "seen"}\n')
    hook.chmod(0o755)
    return work


def _env_args(tmp_path: Path, *extra: str) -> list[str]:
    return [part for value in (*_REWRITE, *extra) for part in ("--env", value.format(base=tmp_path))]


@pytest.mark.slow
def test_apply_runs_with_the_plans_env_and_the_secret_given_again(repo: Path, tmp_path: Path) -> None:
    plan = aw("plan", "--cwd", str(repo), *_env_args(tmp_path, "MARK=hello", "API_TOKEN=s3cret-value"),
              "--", "git", "push", "origin", "master")
    assert plan.code == 0, plan.env  # the planner's ls-remote reached fake:remote.git through the --env
    data = plan.env["data"]
    assert data["env_to_pass_again"] == ["API_TOKEN"]
    assert data["apply"][-2:] == ["--env", "API_TOKEN=<API_TOKEN>"]
    kept = Path(os.environ["AGENTWRAP_STATE_DIR"], "plans", f"{data['plan_id']}.json").read_text()
    assert "API_TOKEN" in kept and "s3cret-value" not in kept and '"hello"' in kept
    (tmp_path / "seen").unlink()

    missing = aw("apply", data["plan_id"])
    assert missing.error is not None and missing.error["code"] == "PLAN_ENV_MISMATCH", missing.env
    assert "not given again: API_TOKEN" in missing.error["detail"]
    (action,) = missing.error["code_actions"]  # the same apply, the secret left for the caller to fill in
    assert action["command"] == data["apply"] and action["applicability"] == "has_placeholders"
    wrong = aw("apply", data["plan_id"], "--env", "API_TOKEN=wrong-secret-9", "--env", "MARK=changed")
    assert wrong.error is not None and wrong.error["code"] == "PLAN_ENV_MISMATCH"
    assert "another value than planned for API_TOKEN, MARK" in wrong.error["detail"]
    assert "wrong-secret-9" not in wrong.error["detail"] and not (tmp_path / "seen").exists()  # nothing ran

    applied = aw("apply", data["plan_id"], "--expect-hash", data["digest"], "--env", "API_TOKEN=s3cret-value")
    assert applied.code == 0, applied.env
    assert applied.env["verification"]["passed"] is True  # verify's ls-remote had the --env too
    assert (tmp_path / "seen").read_text() == "hello s3cret-value\n"
    assert _git(tmp_path / "remote.git", "rev-parse", "master") == _git(repo, "rev-parse", "HEAD")


@pytest.mark.slow
def test_a_plain_env_is_kept_and_an_unplanned_one_is_refused(repo: Path, tmp_path: Path) -> None:
    plan = aw("plan", "--cwd", str(repo), *_env_args(tmp_path, "MARK=plain"), "--", "git", "push", "origin",
              "master")
    assert plan.code == 0, plan.env
    assert "env_to_pass_again" not in plan.env["data"] and "--env" not in plan.env["data"]["apply"]
    extra = aw("apply", plan.env["data"]["plan_id"], "--env", "API_TOKEN=x")
    assert extra.error is not None and "not in the plan: API_TOKEN" in extra.error["detail"]
    (action,) = extra.error["code_actions"]  # nothing to fill in: the plan keeps its plain value
    assert action["command"] == plan.env["data"]["apply"] and action["applicability"] == "maybe_incorrect"
    (tmp_path / "seen").unlink()
    applied = aw("apply", plan.env["data"]["plan_id"])
    assert applied.code == 0, applied.env
    assert (tmp_path / "seen").read_text() == "plain \n"
