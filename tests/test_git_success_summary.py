"""A git command that succeeded says what it did in one short line of git's own facts (not `git succeeded`),
replayed from captured runs, and the envelope's text drops the lines that line restates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.adapters.git import success
from agentwrap.artifacts import ArtifactStore
from agentwrap.outcome import bound
from agentwrap.render import views

CASES = {c.name: c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "git"}


def concise(name: str, tmp_path: Path) -> dict:
    return views.concise(fixtures.replay_record(registry.builtin("git"), CASES[name], store=ArtifactStore(tmp_path)))


@pytest.mark.parametrize(("name", "said"), [
    ("fetch-updated", "fetched ../origin: 1 updated, 1 new branch"),
    ("rebase-success", "rebased main onto origin/main"),
    ("switch-ahead", "switched to branch 'feat2'"),
    ("checkout-detached", "switched to 'origin/feat' (detached HEAD); HEAD is now at "),
    ("worktree-add", "worktree ../wt added (checking out 'feat2'); HEAD is now at "),
    ("tag-create", "tag v1 created"),
    ("reset-hard", "HEAD is now at "),
])
def test_a_success_says_what_git_did(name, said, tmp_path):
    view = concise(name, tmp_path)
    assert view["status"] == "success"
    assert view["summary"].startswith(said), view["summary"]
    assert "data" not in view, "nothing was parsed: the empty data that marks the summary is not shown"


def test_lines_the_summary_restates_and_the_detached_advice_go(tmp_path):
    detached = concise("checkout-detached", tmp_path)
    assert "output" not in detached, json.dumps(detached)  # 600 bytes of git's how-to were kept
    for name in ("switch-ahead", "worktree-add", "reset-hard"):
        assert "output" not in concise(name, tmp_path), name


@pytest.mark.parametrize(("word", "args", "text", "said"), [
    ("fetch", ["-q"], "", None),  # quiet: git says nothing, so neither does the summary
    ("fetch", [], "", "fetch: nothing new"),
    ("tag", ["-a", "v2", "-m", "msg"], "", "tag v2 created"),
    ("tag", ["-l"], "v1\n", None),
    ("worktree", ["add", "-b", "nb", "../wt"], "Preparing worktree (new branch 'nb')\nHEAD is now at 1234567 s\n",
     "worktree ../wt added (new branch 'nb'); HEAD is now at 1234567 s"),
    ("worktree", ["remove", "../wt"], "", "worktree ../wt removed"),
    ("restore", ["--staged", "f1"], "", "unstaged f1"),
    ("restore", ["--source", "HEAD~1", "--", "f1"], "", "restored f1"),
    ("reset", [], "Unstaged changes after reset:\nM\tf1\n", "1 path unstaged after reset"),
    ("rebase", ["--onto", "main", "old"], "Successfully rebased and updated refs/heads/feat.\n",
     "rebased feat onto main"),
    ("cherry-pick", ["x"], "[main abc1234] subj\n 1 file changed\n", "cherry-picked: committed abc1234 on main: subj"),
    ("stash", ["push"], "Saved working directory and index state WIP on main: 1f53567 up2\n",
     "saved working directory and index state WIP on main: 1f53567 up2"),
    ("status", [], "weird\n", None),
])
def test_said_derives_only_from_gits_words_and_arguments(word, args, text, said):
    assert success.said(word, args, text) == said


def test_a_fast_forward_merge_says_each_fact_once(tmp_path):
    """Before: each file's `changes` (its insertions plus deletions), `fast_forward: true` beside the summary's
    "fast-forward", and git's `Updating OLD..NEW` and totals lines beside `old`, `new` and `insertions`."""
    view = concise("merge-fast-forward", tmp_path)
    assert view["summary"] == "merge (fast-forward): 3 files changed"
    data = view["data"]
    assert "fast_forward" not in data and {"old", "new", "insertions"} <= set(data)
    assert all(set(f) == {"path", "insertions"} for f in data["files"]), data["files"]
    assert "output" not in view, "git's lines say only what the data says"


def test_changes_stays_where_git_scaled_its_graph():
    files = [{"path": "a", "changes": 3, "insertions": 2, "deletions": 1},
             {"path": "big", "changes": 900, "insertions": None, "deletions": None}]
    lean = bound.lean_data({"files": files}, ())
    assert lean["files"] == [{"path": "a", "insertions": 2, "deletions": 1}, {"path": "big", "changes": 900}]


def test_a_pull_whose_autostash_conflicts_says_so_and_that_it_rebased(tmp_path):
    """Before: `pull (merged)` and no problem, while the working tree held conflict markers (exit 0)."""
    view = concise("pull-rebase-autostash-conflict", tmp_path)
    assert view["status"] == "success" and view["summary"] == "pull (rebased)"
    problems = view.get("problems", [])
    assert [p["code"] for p in problems] == ["GIT_AUTOSTASH_CONFLICT"], problems
    assert problems[0]["severity"] == "warning" and "git stash drop" in problems[0]["suggested_fix"]
