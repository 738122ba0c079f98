"""Plan, apply, verify on git push to a local bare remote (real git, real processes)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.conftest import aw
from tests.conftest import git as _git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    _git(tmp_path, "init", "-q", "--bare", str(remote))
    work = tmp_path / "work"
    _git(tmp_path, "init", "-q", "-b", "main", str(work))
    _git(work, "commit", "-q", "--allow-empty", "-m", "one")
    _git(work, "remote", "add", "origin", str(remote))
    _git(work, "push", "-q", "-u", "origin", "main")
    _git(work, "commit", "-q", "--allow-empty", "-m", "two")
    return work


def _remote_main(repo: Path) -> str:
    return _git(repo, "ls-remote", "origin", "refs/heads/main").split("\t")[0]


def test_plan_then_apply_pushes_and_verifies(repo: Path) -> None:
    head, before = _git(repo, "rev-parse", "HEAD"), _remote_main(repo)
    plan = aw("plan", "--", "git", "push", "origin", "main", cwd=repo)
    assert plan.code == 0, plan.env
    facts = plan.env["data"]
    assert facts["plan_id"].startswith("plan_") and facts["digest"].startswith("sha256:")
    assert facts["expires_at"].endswith("Z")
    assert facts["proposed_effects"] == [{"resource": "git-ref:origin:refs/heads/main", "action": "update",
                                          "from": before, "to": head}]
    assert facts["fingerprint"]["refs"][0] == {"local": "main", "local_sha": head, "remote_ref": "refs/heads/main",
                                               "remote_sha": before}
    assert plan.env["effects"] == []  # planning changed nothing
    assert _remote_main(repo) == before
    applied = aw("apply", facts["plan_id"], "--expect-hash", facts["digest"], cwd=repo)
    assert applied.code == 0, applied.env
    assert applied.env["verification"]["passed"] is True
    assert applied.env["verification"]["checks"][0]["actual"] == head
    assert applied.env["effects"]
    assert _remote_main(repo) == head
    again = aw("apply", facts["plan_id"])
    assert again.code == 125 and again.error["code"] == "PLAN_ALREADY_APPLIED"  # type: ignore[index]


def test_a_push_between_plan_and_apply_is_drift(repo: Path, tmp_path: Path) -> None:
    plan = aw("plan", "--", "git", "push", cwd=repo).env["data"]
    other = tmp_path / "other"
    _git(tmp_path, "clone", "-q", "-b", "main", str(tmp_path / "remote.git"), str(other))
    _git(other, "commit", "-q", "--allow-empty", "-m", "theirs")
    _git(other, "push", "-q", "origin", "main")
    theirs = _git(other, "rev-parse", "HEAD")
    refused = aw("apply", plan["plan_id"], "--expect-hash", plan["digest"])
    assert refused.code == 125 and refused.error is not None
    assert refused.error["code"] == "PLAN_DRIFT" and refused.error["category"] == "precondition"
    assert "refs/heads/main" in refused.error["detail"] and theirs[:12] in refused.error["detail"]
    assert refused.error["code_actions"][0]["command"] == ["agentwrap", "--agent", "plan", "--cwd", str(repo),
                                                           "--", "git", "push"]  # the plan's own folder
    assert _remote_main(repo) == theirs  # nothing was pushed


def test_a_local_commit_after_the_plan_is_drift(repo: Path) -> None:
    plan = aw("plan", "--", "git", "push", cwd=repo).env["data"]
    _git(repo, "commit", "-q", "--allow-empty", "-m", "three")
    refused = aw("apply", plan["plan_id"])
    assert refused.error is not None and refused.error["code"] == "PLAN_DRIFT"
    assert "local main moved" in refused.error["detail"]


def test_the_approved_hash_must_match(repo: Path) -> None:
    plan = aw("plan", "--", "git", "push", cwd=repo).env["data"]
    wrong = aw("apply", plan["plan_id"], "--expect-hash", "sha256:" + "0" * 64)
    assert wrong.error is not None and wrong.error["code"] == "PLAN_HASH_MISMATCH"


def test_an_expired_plan_is_refused(repo: Path) -> None:
    plan = aw("plan", "--ttl", "1s", "--", "git", "push", cwd=repo).env["data"]
    time.sleep(1.2)
    expired = aw("apply", plan["plan_id"])
    assert expired.error is not None and expired.error["code"] == "PLAN_EXPIRED"


def test_a_rejected_dry_run_is_the_plans_answer(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    _git(tmp_path, "clone", "-q", "-b", "main", str(tmp_path / "remote.git"), str(other))
    _git(other, "commit", "-q", "--allow-empty", "-m", "theirs")
    _git(other, "push", "-q", "origin", "main")
    ans = aw("plan", "--", "git", "push", cwd=repo)  # non-fast-forward: the dry run says so
    assert ans.code != 0 and ans.error is not None and ans.error["code"].startswith("GIT_")


def test_commands_without_a_planner_and_unknown_plans() -> None:
    ans = aw("plan", "--", "touch", "x")
    assert ans.code == 125 and ans.error["code"] == "PLAN_UNSUPPORTED"  # type: ignore[index]
    assert "git push" in ans.error["detail"]  # type: ignore[index]
    assert aw("apply", "plan_00000000000000000000000000").error["code"] == "PLAN_NOT_FOUND"  # type: ignore[index]
    assert aw("apply", "nonsense").error["code"] == "PLAN_NOT_FOUND"  # type: ignore[index]


def test_plans_are_private_files(repo: Path) -> None:
    plan = aw("plan", "--", "git", "push", cwd=repo).env["data"]
    path = Path(os.environ["AGENTWRAP_STATE_DIR"]) / "plans" / f"{plan['plan_id']}.json"
    assert json.loads(path.read_text())["digest"] == plan["digest"]
    assert path.stat().st_mode & 0o077 == 0


def test_read_only_refuses_apply_and_allows_plan(repo: Path) -> None:
    plan = aw("--read-only", "plan", "--", "git", "push", cwd=repo)
    assert plan.code == 0, plan.env
    refused = aw("--read-only", "apply", plan.env["data"]["plan_id"], cwd=repo)
    assert refused.code == 125 and refused.error["code"] == "MUTATION_REFUSED"  # type: ignore[index]
    assert aw("apply", plan.env["data"]["plan_id"], cwd=repo).code == 0  # the plan is still there to apply
