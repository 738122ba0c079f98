"""A `git rebase --continue`, `git merge --continue` or `git commit` refused because files still hold conflicts
(captured fixtures): each file is a located conflict with the operation's own resolve / continue / abort
steps, not "another operation is in progress" or a bare exit status, and git's lines that only say it
(`U\tf.txt`, `f.txt: needs merge`, its how-to) are not kept in the concise text; nor is git's how-to under a
missing remote; a `git bisect run` that prints nothing says why; a worktree refusal and a refused transport
are named; an unknown identity is one problem; staged changes block a rebase as unstaged ones do; an editor
refused with the operation begun is answered with the step that concludes it; a stash pop conflict keeps no
status line that only names the conflicted file; commits left on no branch are a warning."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.artifacts import ArtifactStore
from agentwrap.render import views

CASES = {c.name: c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "git"}


@pytest.mark.parametrize(("name", "conclude", "abort"), [
    ("rebase-continue-unresolved", ["git", "rebase", "--continue"], ["git", "rebase", "--abort"]),
    ("merge-continue-unresolved", ["git", "merge", "--continue"], ["git", "merge", "--abort"]),
    ("commit-unresolved", ["git", "commit", "-m", "done"], None),
])
def test_each_unresolved_file_is_a_conflict_with_the_steps_of_the_operation(
        name: str, conclude: list[str], abort: list[str] | None, tmp_path: Path) -> None:
    record = fixtures.replay_record(registry.builtin("git"), CASES[name], store=ArtifactStore(tmp_path))
    view = views.concise(record)
    error = view["error"]
    assert error["code"] == "GIT_MERGE_CONFLICT" and error["location"] == {"file": "f.txt"}
    assert [p["location"]["file"] for p in view["problems"]] == ["g.txt"]
    commands = [a["command"] for a in error["code_actions"]]
    assert commands[0] == ["git", "add", "--", "f.txt"]
    assert commands[1][-len(conclude):] == conclude
    assert (commands[2] if abort else None) == abort
    assert "GIT_OPERATION_IN_PROGRESS" not in str(view)
    assert "output" not in view, "git's own lines only restate the unresolved files"


@pytest.mark.parametrize("name", ["push-no-remote", "push-unknown-remote"])
def test_gits_how_to_under_a_missing_remote_is_not_kept_beside_the_problem(name: str, tmp_path: Path) -> None:
    record = fixtures.replay_record(registry.builtin("git"), CASES[name], store=ArtifactStore(tmp_path))
    view = views.concise(record)
    assert view["error"]["code"] in ("GIT_NO_REMOTE", "GIT_REMOTE_NOT_FOUND")
    assert ["git", "remote"] in [a["command"][:2] for a in view["error"]["code_actions"]], "git's how-to, as a step"
    assert "output" not in view, "git's how-to and boilerplate only restate the problem"


def test_a_bisect_run_that_prints_nothing_says_no_bisection_is_ready(tmp_path: Path) -> None:
    """git prints nothing and exits 1 when `git bisect run` has no bad and good commit to bisect between."""
    record = fixtures.replay_record(registry.builtin("git"), CASES["bisect-run-no-good"], store=ArtifactStore(tmp_path))
    error = views.concise(record)["error"]
    assert error["code"] == "GIT_BISECT_NOT_READY"
    assert [a["command"] for a in error["code_actions"]][0] == ["git", "bisect", "log"]
    assert "git bisect start <BAD> <GOOD>" in error["suggested_fix"]


@pytest.mark.parametrize(("name", "code", "first"), [
    ("worktree-path-exists", "GIT_ALREADY_EXISTS", ["git", "worktree", "list"]),
    ("worktree-branch-exists", "GIT_ALREADY_EXISTS", ["git", "worktree", "add", "../wt4", "w2"]),
    ("worktree-branch-checked-out", "GIT_BRANCH_IN_WORKTREE", ["git", "worktree", "list"]),
    ("branch-delete-in-worktree", "GIT_BRANCH_IN_WORKTREE", ["git", "worktree", "remove", "/tmp/g/wt1"]),
])
def test_a_worktree_refusal_is_named_with_a_step_that_keeps_this_worktree(
        name: str, code: str, first: list[str], tmp_path: Path) -> None:
    """`git worktree add PATH -b NAME` where NAME exists is not told to `git switch NAME` (that moves the
    worktree the agent is in); a branch checked out elsewhere says where, not COMMAND_FAILED."""
    record = fixtures.replay_record(registry.builtin("git"), CASES[name], store=ArtifactStore(tmp_path))
    view = views.concise(record)
    error = view["error"]
    assert error["code"] == code
    assert error["code_actions"][0]["command"] == first and error["code_actions"][0]["is_preferred"]
    assert not any(a["command"][:2] == ["git", "switch"] for a in error["code_actions"])
    assert "git switch" not in error.get("suggested_fix", "")
    assert "Preparing worktree" not in str(view.get("output"))


def test_a_refused_file_transport_is_named_and_its_override_is_not_preferred(tmp_path: Path) -> None:
    """`git submodule add ../sub sub` (git >= 2.38.1): the cause is `transport 'file' not allowed`, not the
    last line (`clone of ... failed`); lifting a security default is offered, never the preferred step."""
    record = fixtures.replay_record(registry.builtin("git"), CASES["submodule-file-transport"],
                                    store=ArtifactStore(tmp_path))
    error = views.concise(record)["error"]
    assert error["code"] == "GIT_TRANSPORT_NOT_ALLOWED"
    assert error["code_actions"][0]["command"][:3] == ["git", "-c", "protocol.file.allow=always"]
    assert not error["code_actions"][0].get("is_preferred")


def test_an_unknown_identity_is_one_problem_without_gits_how_to(tmp_path: Path) -> None:
    """The `*** Please tell me who you are.` block is one problem, detailed by git's own reason (`unable to
    auto-detect email address (got ...)`), and git's how-to (`git config --global ...`) is not kept beside
    the actions that set the identity for this repository."""
    record = fixtures.replay_record(registry.builtin("git"), CASES["commit-identity-unknown"],
                                    store=ArtifactStore(tmp_path))
    view = views.concise(record)
    assert view["error"]["code"] == "GIT_IDENTITY_UNKNOWN" and "problems" not in view
    assert "auto-detect email address" in view["error"]["detail"]
    assert "output" not in view


def test_a_rebase_blocked_by_staged_changes_offers_autostash(tmp_path: Path) -> None:
    """`git add y; git rebase -i HEAD~3`: `Your index contains uncommitted changes` is the precondition
    unstaged changes are, not COMMAND_FAILED, and git's `Please commit or stash them.` is not kept."""
    record = fixtures.replay_record(registry.builtin("git"), CASES["rebase-index-uncommitted"],
                                    store=ArtifactStore(tmp_path))
    view = views.concise(record)
    assert view["error"]["code"] == "GIT_UNSTAGED_CHANGES"
    assert view["error"]["code_actions"][0]["command"] == ["git", "rebase", "-i", "HEAD~3", "--autostash"]
    assert "output" not in view


@pytest.mark.parametrize(("name", "first", "then"), [
    ("revert-editor", ["agentwrap", "--env", "GIT_EDITOR=true", "--", "git", "commit"], ["git", "commit", "-m"]),
    ("rebase-interactive-editor", ["git", "rebase", "--abort"],
     ["agentwrap", "--env", "GIT_SEQUENCE_EDITOR=true", "--", "git", "rebase", "-i", "HEAD~3"]),
])
def test_an_editor_refused_with_the_operation_begun_is_not_answered_with_the_same_command_again(
        name: str, first: list[str], then: list[str], tmp_path: Path) -> None:
    """agentwrap ends git at a refused editor; `git revert HEAD` has then staged the revert (running it again
    fails: "your local changes would be overwritten"), `git rebase -i` has begun the rebase (again: "already
    a rebase-merge directory"). The first step concludes (or ends) what git began."""
    record = fixtures.replay_record(registry.builtin("git"), CASES[name], store=ArtifactStore(tmp_path))
    error = views.concise(record)["error"]
    commands = [a["command"] for a in error["code_actions"]]
    assert commands[0] == first and error["code_actions"][0]["is_preferred"]
    assert commands[1][:len(then)] == then
    assert ["git", "revert", "--no-edit", "HEAD"] not in commands


def test_a_stash_pop_conflict_keeps_no_status_line_that_only_names_the_conflicted_file(tmp_path: Path) -> None:
    """git prints its status after a conflicted pop; `both modified:   f` says the problem again, while
    `The stash entry is kept` is a fact the steps rely on."""
    record = fixtures.replay_record(registry.builtin("git"), CASES["stash-pop-conflict"], store=ArtifactStore(tmp_path))
    view = views.concise(record)
    assert view["error"]["location"] == {"file": "f"}
    text = view["output"]["stdout"]["text"]
    assert "both modified" not in text and "Unmerged paths" not in text
    assert "The stash entry is kept" in text


def test_leaving_commits_on_no_branch_is_a_warning_with_the_branch_that_keeps_them(tmp_path: Path) -> None:
    """`git checkout main` from a detached HEAD with its own commit succeeds, but that commit is now on no
    branch: a warning names it, with `git branch <BRANCH> SHA`, in place of git's how-to."""
    record = fixtures.replay_record(registry.builtin("git"), CASES["checkout-commits-left-behind"],
                                    store=ArtifactStore(tmp_path))
    view = views.concise(record)
    assert view["status"] == "success"
    warning = view["problems"][0]
    assert warning["code"] == "GIT_COMMITS_LEFT_BEHIND" and warning["severity"] == "warning"
    sha = warning["detail"].rsplit(" ", 1)[-1]
    assert f"git branch NAME {sha}" in warning["suggested_fix"]
    assert [list(a.command or ()) for a in record.problems[0].code_actions] == [["git", "branch", "<BRANCH>", sha]]
    assert "this may be a good time" not in str(view.get("output"))
