"""The git adapter end to end: real git in scratch repositories, run through agentwrap.

Proves the issue's Done-when items for git: `git push` without a remote names the problem an expert
would (no remote configured) with fixes an agent can apply, and `git commit` without -m stops at once
with INPUT_REQUIRED whose first code action is git's own `-m` form. Parsed data is checked against
git's own machine-readable output (porcelain v2, --format=%H, --numstat).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from conftest import aw

from agentwrap import registry

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def genv(tmp_path: Path) -> dict[str, str]:
    """An identity and an empty global config, so the user's git settings cannot change the outcome."""
    cfg = tmp_path / "gitconfig"
    cfg.write_text("")
    return {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_COMMITTER_NAME": "Ada",
            "GIT_COMMITTER_EMAIL": "ada@example.com", "GIT_CONFIG_GLOBAL": str(cfg), "GIT_CONFIG_NOSYSTEM": "1"}


def git(genv: dict[str, str], cwd: Path, *args: str) -> str:
    import os

    done = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **genv}, capture_output=True, text=True,
                          check=True, stdin=subprocess.DEVNULL)
    return done.stdout


def repo(genv: dict[str, str], path: Path, files: dict[str, str] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(genv, path, "init", "-q", "-b", "main")
    for name, text in (files or {"a.txt": "a\n"}).items():
        (path / name).write_text(text)
    git(genv, path, "add", ".")
    git(genv, path, "commit", "-qm", "first")
    return path


def run(genv: dict[str, str], cwd: Path, *argv: str):
    return aw("--cwd", str(cwd), *argv, env=genv)


def apply(action: dict, **values: str) -> list[str]:
    """A code action's command with its <PLACEHOLDERS> filled, as an agent would."""
    return [values.get(word.strip("<>"), word) for word in action["command"]]


def test_push_without_remote_names_the_missing_remote_and_the_fix_works(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    answer = run(genv, work, "git", "push")
    assert answer.code == 128
    assert answer.env["command"]["adapter"] == "git"
    err = answer.error
    assert err["code"] == "GIT_NO_REMOTE"
    assert err["category"] == "precondition" and err["status"] == 412
    assert err["retryable"] is False and err["safe_to_retry"] is True
    assert "git remote add origin" in err["suggested_fix"]
    add, push = err["code_actions"]
    assert add["command"] == ["git", "remote", "add", "origin", "<URL>"]
    assert add["applicability"] == "has_placeholders" and add["is_preferred"]
    # the agent applies the fixes: a (local, bare) remote, then the push that publishes the branch
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", str(bare))
    assert run(genv, work, *apply(add, URL=str(bare))).code == 0
    pushed = run(genv, work, *apply(push))
    assert pushed.code == 0, pushed.env["error"]
    assert pushed.env["data"]["refs"][0]["status"] == "created"
    assert git(genv, bare, "rev-parse", "main") == git(genv, work, "rev-parse", "HEAD")


def test_commit_without_message_is_input_required_with_the_m_form_first(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    (work / "a.txt").write_text("changed\n")
    answer = run(genv, work, "git", "commit", "-a")
    assert answer.code == 125 and answer.wall < 30
    err = answer.error
    assert err["code"] == "INPUT_REQUIRED" and err["input_kind"] == "editor"
    first = err["code_actions"][0]
    assert first["command"] == ["git", "commit", "-m", "<MESSAGE>", "-a"]  # the user's -a is kept
    assert first["applicability"] == "has_placeholders" and first["is_preferred"]
    done = run(genv, work, *apply(first, MESSAGE="second"))
    assert done.code == 0
    assert done.env["data"]["subject"] == "second"
    assert done.env["effects"][0]["action"] == "create"


def test_editor_fixes_keep_global_options(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    git(genv, work, "tag", "v0")
    answer = run(genv, tmp_path, "git", "-C", str(work), "tag", "-a", "v1")
    assert answer.error["code"] == "INPUT_REQUIRED"
    assert answer.error["code_actions"][0]["command"] == ["git", "-C", str(work), "tag", "-m", "<MESSAGE>", "-a", "v1"]


@pytest.mark.parametrize("flag", ["--dry-run", "-n"])
def test_a_dry_run_push_claims_no_push_and_no_effect(tmp_path, genv, flag):
    work = repo(genv, tmp_path / "work")
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", str(bare))
    answer = run(genv, work, "git", "push", flag, str(bare), "HEAD:main")
    assert answer.code == 0, answer.env
    assert answer.env["status"] == "success"
    assert answer.env["summary"].startswith("dry run, nothing pushed")
    assert answer.env["data"]["dry_run"] is True and answer.env["data"]["refs"][0]["status"] == "created"
    assert not answer.env.get("effects")
    assert git(genv, bare, "for-each-ref") == ""  # and indeed nothing was pushed


def test_an_amend_that_would_empty_the_commit_names_both_ways_out(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    (work / "b.txt").write_text("b\n")
    git(genv, work, "add", "b.txt")
    git(genv, work, "commit", "-q", "-m", "add b")
    git(genv, work, "rm", "-q", "b.txt")
    answer = run(genv, work, "git", "commit", "--amend", "--no-edit")
    assert answer.code == 1
    err = answer.error
    assert err["code"] == "GIT_NOTHING_TO_COMMIT" and "would make\nit empty" in err["detail"]
    assert answer.env["summary"] == "git commit: Amending would leave the commit empty"
    keep, drop = err["code_actions"]
    assert keep["command"] == ["git", "commit", "--allow-empty", "--amend", "--no-edit"] and keep["is_preferred"]
    assert drop["command"] == ["git", "reset", "HEAD^"]
    # the preferred fix does what it says: the commit stays, now empty
    assert run(genv, work, *apply(keep)).code == 0
    assert git(genv, work, "show", "--stat", "--format=%s", "HEAD").strip() == "add b"


def test_push_without_upstream_offers_gits_own_command(tmp_path, genv):
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = repo(genv, tmp_path / "work")
    git(genv, work, "remote", "add", "origin", str(bare))
    git(genv, work, "switch", "-q", "-c", "topic")
    answer = run(genv, work, "git", "push")
    err = answer.error
    assert err["code"] == "GIT_NO_UPSTREAM"
    action = err["code_actions"][0]
    assert action["command"] == ["git", "push", "--set-upstream", "origin", "topic"]
    assert action["applicability"] == "machine_applicable"
    done = run(genv, work, *action["command"])
    assert done.code == 0
    assert done.env["data"]["upstream_set"] == {"branch": "topic", "upstream": "origin/topic"}


def test_push_rejected_then_pull_rebase_then_push(tmp_path, genv):
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    one = repo(genv, tmp_path / "one")
    git(genv, one, "remote", "add", "origin", str(bare))
    git(genv, one, "push", "-q", "-u", "origin", "main")
    git(genv, tmp_path, "clone", "-q", str(bare), "two")
    two = tmp_path / "two"
    (one / "b.txt").write_text("b\n")
    git(genv, one, "add", "b.txt")
    git(genv, one, "commit", "-qm", "from one")
    git(genv, one, "push", "-q")
    (two / "c.txt").write_text("c\n")
    git(genv, two, "add", "c.txt")
    git(genv, two, "commit", "-qm", "from two")
    answer = run(genv, two, "git", "push")
    err = answer.error
    assert err["code"] == "GIT_PUSH_REJECTED" and err["category"] == "conflict"
    assert err["retryable"] is True and err["safe_to_retry"] is True
    commands = [a["command"] for a in err["code_actions"]]
    assert commands == [["git", "pull", "--rebase"], ["git", "push"]]
    for command in commands:
        assert run(genv, two, *command).code == 0


def test_merge_conflict_lists_each_file_with_its_location(tmp_path, genv):
    work = repo(genv, tmp_path / "work", {"a.txt": "1\n2\n", "b.txt": "x\n"})
    git(genv, work, "switch", "-q", "-c", "other")
    (work / "a.txt").write_text("1\nOTHER\n")
    (work / "b.txt").write_text("y\n")
    git(genv, work, "commit", "-qam", "other")
    git(genv, work, "switch", "-q", "main")
    (work / "a.txt").write_text("1\nMAIN\n")
    (work / "b.txt").write_text("z\n")
    git(genv, work, "commit", "-qam", "main")
    answer = run(genv, work, "git", "merge", "other")
    problems = [p for p in answer.env["problems"] if p["code"] == "GIT_MERGE_CONFLICT"]
    porcelain = git(genv, work, "status", "--porcelain")
    assert [p["location"]["file"] for p in problems] == [line[3:] for line in porcelain.splitlines()]
    assert answer.error["code"] == "GIT_MERGE_CONFLICT"
    status = run(genv, work, "git", "status").env["data"]
    assert status["in_progress"] == "merge"
    assert [c["path"] for c in status["conflicted"]] == ["a.txt", "b.txt"]
    # resolve, mark resolved, conclude as the actions say
    for p in problems:
        (work / p["location"]["file"]).write_text("resolved\n")
        assert run(genv, work, *p["code_actions"][0]["command"]).code == 0
    assert run(genv, work, *answer.error["code_actions"][1]["command"]).code == 0
    assert run(genv, work, "git", "status").env["data"]["clean"] is True


def test_status_log_diff_data_agree_with_gits_machine_output(tmp_path, genv):
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = repo(genv, tmp_path / "work", {"a.txt": "a\n", "gone.txt": "g\n", "old.txt": "o\n"})
    git(genv, work, "remote", "add", "origin", str(bare))
    git(genv, work, "push", "-q", "-u", "origin", "main")
    (work / "a.txt").write_text("a\nmore\n")
    git(genv, work, "commit", "-qam", "ahead by one")
    (work / "a.txt").write_text("a\nmore\nunstaged\n")
    (work / "new file.txt").write_text("n\n")
    git(genv, work, "add", "new file.txt")
    git(genv, work, "rm", "-q", "gone.txt")
    git(genv, work, "mv", "old.txt", "renamed.txt")
    (work / "loose.txt").write_text("?\n")
    human = run(genv, work, "git", "status").env["data"]
    v2 = run(genv, work, "git", "status", "--porcelain=v2", "--branch").env["data"]
    short = run(genv, work, "git", "status", "-sb").env["data"]
    for data in (human, v2, short):
        assert data["branch"] == "main" and data["upstream"] == "origin/main"
        assert (data["ahead"], data["behind"]) == (1, 0)
        assert sorted(e["path"] for e in data["staged"]) == ["gone.txt", "new file.txt", "renamed.txt"]
        assert [e["path"] for e in data["unstaged"]] == ["a.txt"]
        assert data["untracked"] == ["loose.txt"]
        assert {"path": "renamed.txt", "status": "renamed", "from": "old.txt"} in data["staged"]
    log = run(genv, work, "git", "log").env["data"]
    assert [c["sha"] for c in log["commits"]] == git(genv, work, "log", "--format=%H").split()
    assert log["commits"][0]["subject"] == "ahead by one" and log["commits"][0]["author"] == "Ada"
    oneline = run(genv, work, "git", "log", "--oneline").env["data"]
    assert [c["subject"] for c in oneline["commits"]] == ["ahead by one", "first"]
    stat = run(genv, work, "git", "diff", "--stat", "HEAD").env["data"]
    numstat = run(genv, work, "git", "diff", "--numstat", "HEAD").env["data"]
    assert (stat["files_changed"], stat["insertions"], stat["deletions"]) == \
        (numstat["files_changed"], numstat["insertions"], numstat["deletions"])
    branches = run(genv, work, "git", "branch", "-vv").env["data"]
    assert branches["current"] == "main"
    assert branches["branches"][0]["upstream"] == "origin/main" and branches["branches"][0]["ahead"] == 1


def test_not_a_repository(tmp_path, genv):
    answer = run(genv, tmp_path, "git", "log")
    assert answer.error["code"] == "GIT_NOT_A_REPOSITORY"
    assert answer.error["code_actions"][0]["command"] == ["git", "-C", "<REPO_DIR>", "log"]


def test_credentials_are_never_prompted_for(tmp_path, genv):
    class Deny(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="x"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Deny)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        answer = run(genv, tmp_path, "git", "clone", f"http://127.0.0.1:{server.server_port}/r.git", "r")
    finally:
        server.shutdown()
    assert answer.wall < 30
    assert answer.error["code"] == "INPUT_REQUIRED" and answer.error["input_kind"] in ("credential", "password")
    assert answer.error["code_actions"][0]["command"][:3] == ["git", "config", "--global"]
    # git is held at the refused askpass and ended there (CONTRACT 5.1), so it never reaches its own
    # "Authentication failed", and it leaves no half-made clone behind
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("argv", "read_only", "destructive"), [
    (["git", "status"], True, False),
    (["git", "-C", "x", "log", "-5"], True, False),
    (["git", "branch"], True, False),
    (["git", "branch", "-D", "topic"], False, True),
    (["git", "reset", "--hard", "origin/main"], False, True),
    (["git", "reset", "HEAD~1"], False, False),
    (["git", "push"], False, False),
    (["git", "push", "--force-with-lease"], False, True),
    (["git", "clean", "-fd"], False, True),
    (["git", "clean", "-n"], True, False),
    (["git", "config", "user.name"], True, False),
    (["git", "config", "user.name", "Ada"], False, False),
    (["git", "stash", "list"], True, False),
    (["git", "stash", "drop"], False, True),
])
def test_effects_per_invocation(argv, read_only, destructive):
    effects = registry.builtin("git").effects(argv)
    assert (effects.read_only, effects.destructive) == (read_only, destructive)


def test_network_subcommands_are_open_world():
    adapter = registry.builtin("git")
    assert all(adapter.effects(["git", sub]).open_world for sub in ("push", "pull", "fetch", "clone", "ls-remote"))
    assert adapter.effects(["git", "reset", "HEAD~1"]).idempotent is False


def test_a_commits_summary_leaves_out_the_message_the_caller_just_wrote(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    (work / "b.txt").write_text("b\n")
    git(genv, work, "add", "b.txt")
    written = run(genv, work, "git", "commit", "-m", "Add b")
    sha = git(genv, work, "rev-parse", "--short", "HEAD").strip()
    assert written.env["summary"] == f"committed {sha} on main (1 file changed, 1 insertion)"
    assert written.env["data"]["subject"] == "Add b", "the record keeps the subject"
    (work / "d.txt").write_text("d\n")
    git(genv, work, "add", "d.txt")
    lean = aw("--cwd", str(work), "git", "commit", "-m", "Add d", env=genv, detail="concise").env
    assert "Add d" not in json.dumps(lean), "concise: neither the data nor the text repeats the caller's message"
    (work / "msg").write_text("Add c from a file\n")
    (work / "c.txt").write_text("c\n")
    git(genv, work, "add", "c.txt")
    from_file = run(genv, work, "git", "commit", "-F", "msg")
    assert from_file.env["summary"].endswith(": Add c from a file (1 file changed, 1 insertion)"), "not in argv"


@pytest.fixture
def answers(tmp_path, genv) -> Path:
    """A repository where each yes/no question has an answer either way: main is behind feature, a.txt
    is changed, build/ is ignored."""
    work = repo(genv, tmp_path / "work", {"a.txt": "a\n", ".gitignore": "build/\n"})
    git(genv, work, "switch", "-q", "-c", "feature")
    (work / "f.txt").write_text("f\n")
    git(genv, work, "add", "f.txt")
    git(genv, work, "commit", "-qm", "feature")
    git(genv, work, "switch", "-q", "main")
    (work / "a.txt").write_text("a\nchanged\n")
    return work


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.parametrize(("argv", "data", "summary"), [
    (["grep", "nomatchzzz"], {"matching_lines": 0}, "no match"),
    (["grep", "-q", "nomatchzzz"], {"matched": False}, "no match"),
    (["diff", "--quiet"], {"differs": True}, "differences found"),
    (["diff", "--exit-code", "--stat"], {"differs": True, "files_changed": 1, "insertions": 1, "deletions": 0},
     "1 file changed, 1 insertion"),
    (["merge-base", "--is-ancestor", "feature", "main"], {"is_ancestor": False},
     "feature is not an ancestor of main"),
    (["check-ignore", "a.txt"], {"ignored": []}, "no path is ignored"),
    (["config", "user.nosuchkey"], {"key": "user.nosuchkey", "set": False}, "user.nosuchkey is not set"),
    (["rev-parse", "--verify", "--quiet", "nosuch"], {"exists": False}, "nosuch does not exist"),
    (["show-ref", "--verify", "--quiet", "refs/heads/nosuch"], {"exists": False}, "no such ref"),
])
def test_exit_1_that_answers_no_is_a_success_that_says_the_answer(answers, genv, argv, data, summary):
    """git's exit 1 here is a "no" (as grep's no-match is, CONTRACT 2), not a failure: status success,
    agentwrap exits 0 (section 4), `exit.code` keeps git's 1, and the data and the summary give the answer."""
    raw = subprocess.run(["git", *argv], cwd=answers, capture_output=True, env={**os.environ, **genv})
    assert raw.returncode == 1, raw
    answer = run(genv, answers, "git", *argv)
    assert (answer.code, answer.env["status"], answer.env["exit"]["code"]) == (0, "success", 1)
    assert answer.error is None
    assert {k: answer.env["data"][k] for k in data} == data
    assert answer.env["summary"] == summary
    lean = aw("--cwd", str(answers), "git", *argv, env=genv, detail="concise").env
    assert lean["status"] == "success" and "error" not in lean and lean["summary"] == summary


@pytest.mark.parametrize(("argv", "data"), [
    (["grep", "-q", "changed"], {"matched": True}),
    (["diff", "--quiet", "HEAD", "HEAD"], {"differs": False}),
    (["merge-base", "--is-ancestor", "main", "feature"], {"is_ancestor": True}),
    (["check-ignore", "build/x.o"], {"ignored": ["build/x.o"]}),
])
def test_the_same_questions_answered_yes(answers, genv, argv, data):
    answer = run(genv, answers, "git", *argv)
    assert (answer.code, answer.env["exit"]["code"]) == (0, 0)
    assert answer.env["data"] == data


@pytest.mark.parametrize(("argv", "code"), [
    (["merge-base", "--is-ancestor", "main", "nosuch"], 128),
    (["diff", "--no-index", "a.txt", "missing.txt"], 1),
    (["grep", "-e"], 129),
])
def test_a_real_failure_of_those_commands_stays_an_error(answers, genv, argv, code):
    answer = run(genv, answers, "git", *argv)
    assert answer.env["status"] == "error" and answer.code == code
    assert "data" not in answer.env or not answer.env["data"]


@pytest.mark.parametrize("form", [[], ["-sb"], ["--porcelain=v2", "--branch"]])
def test_status_with_its_upstream_deleted_says_it_is_gone_not_up_to_date(tmp_path, genv, form):
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = repo(genv, tmp_path / "work")
    git(genv, work, "remote", "add", "origin", str(bare))
    git(genv, work, "switch", "-q", "-c", "topic")
    git(genv, work, "push", "-q", "-u", "origin", "topic")
    git(genv, work, "push", "-q", "origin", "--delete", "topic")
    git(genv, work, "fetch", "-q", "-p")
    answer = run(genv, work, "git", "status", *form)
    data = answer.env["data"]
    assert data["upstream_gone"] is True and data["upstream"] == "origin/topic"
    assert answer.env["summary"] == "on topic (upstream origin/topic is gone): working tree clean"
    git(genv, work, "push", "-q", "origin", "topic")  # the upstream is back: in step with it again
    git(genv, work, "fetch", "-q")
    back = run(genv, work, "git", "status", *form)
    assert back.env["data"]["upstream_gone"] is False
    assert back.env["summary"] == "on topic (up to date with origin/topic): working tree clean"


def test_status_detached_from_a_commit_head_has_left_does_not_call_it_head(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    for n in (2, 3):
        (work / "a.txt").write_text(f"{n}\n")
        git(genv, work, "commit", "-qam", f"c{n}")
    git(genv, work, "checkout", "-q", "HEAD~2")
    start = git(genv, work, "rev-parse", "HEAD").strip()
    at = run(genv, work, "git", "status").env
    assert start.startswith(at["data"]["head"]) and at["data"]["detached_at"] == at["data"]["head"]
    assert at["summary"] == f"HEAD detached at {at['data']['head']}: working tree clean"
    (work / "d.txt").write_text("d\n")
    git(genv, work, "add", "d.txt")
    git(genv, work, "commit", "-qm", "on a detached head")
    moved = run(genv, work, "git", "status").env
    assert moved["data"]["detached"] is True and moved["data"]["head"] is None, "git's line names where it was"
    assert start.startswith(moved["data"]["detached_from"])
    assert moved["summary"] == f"HEAD detached from {moved['data']['detached_from']}: working tree clean"
    v2 = run(genv, work, "git", "status", "--porcelain=v2", "--branch").env["data"]
    assert v2["head"] == git(genv, work, "rev-parse", "HEAD").strip()
    git(genv, work, "tag", "v0", start)
    git(genv, work, "checkout", "-q", "v0")
    tagged = run(genv, work, "git", "status").env["data"]  # git names the tag: no sha to call HEAD
    assert (tagged["detached_at"], tagged["head"]) == ("v0", None)


def _stashed_and_dirty(genv, tmp_path) -> Path:
    """A stash entry that changes f.txt's first line, and an uncommitted change to its last line."""
    work = repo(genv, tmp_path / "work", {"f.txt": "one\ntwo\nthree\nfour\nfive\n"})
    (work / "f.txt").write_text("ONE\ntwo\nthree\nfour\nfive\n")
    git(genv, work, "stash", "-q")
    (work / "f.txt").write_text("one\ntwo\nthree\nfour\nFIVE\n")
    return work


def test_a_stash_pop_blocked_by_local_changes_is_not_told_to_stash_and_pop_again(tmp_path, genv):
    """`git stash` then the same `git stash pop` would pop the entry just pushed: the fix commits the
    changes first, or names the entry the pop meant once another is pushed on top (stash@{1})."""
    work = _stashed_and_dirty(genv, tmp_path)
    answer = run(genv, work, "git", "stash", "pop")
    err = answer.error
    assert err["code"] == "GIT_LOCAL_CHANGES" and err["location"] == {"file": "f.txt"}
    assert err["detail"].endswith(": f.txt")
    assert "git stash pop stash@{1}" in err["suggested_fix"]
    commands = [a["command"] for a in err["code_actions"]]
    assert ["git", "stash"] in commands and ["git", "stash", "pop"] in commands
    assert commands.index(["git", "stash", "pop"]) < commands.index(["git", "stash"]), "pop again before any stash"
    preferred = next(a for a in err["code_actions"] if a["is_preferred"])
    assert preferred["command"][:2] == ["git", "commit"]
    # followed as written: commit, then pop again: the stashed change comes back, the stack is empty
    assert run(genv, work, *apply(preferred, MESSAGE="wip")).code == 0
    assert run(genv, work, "git", "stash", "pop").code == 0
    assert (work / "f.txt").read_text() == "ONE\ntwo\nthree\nfour\nFIVE\n"
    assert git(genv, work, "stash", "list") == ""


def test_the_stash_way_out_of_a_blocked_pop_pops_the_entry_meant(tmp_path, genv):
    work = _stashed_and_dirty(genv, tmp_path)
    err = run(genv, work, "git", "stash", "pop").error
    stash, pop = [a["command"] for a in err["code_actions"]][-2:]
    assert (stash, pop) == (["git", "stash"], ["git", "stash", "pop", "stash@{1}"])
    assert run(genv, work, *stash).code == 0 and run(genv, work, *pop).code == 0
    assert (work / "f.txt").read_text() == "ONE\ntwo\nthree\nfour\nfive\n", "the first entry, not the new one"
    assert git(genv, work, "stash", "show", "-p").count("+FIVE") == 1, "the local change waits in the new entry"


def test_untracked_files_in_the_way_are_named_and_stashed_with_include_untracked(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    git(genv, work, "switch", "-q", "-c", "feature")
    (work / "x.txt").write_text("theirs\n")
    git(genv, work, "add", "x.txt")
    git(genv, work, "commit", "-qm", "add x")
    git(genv, work, "switch", "-q", "main")
    (work / "x.txt").write_text("mine\n")
    for argv in (["merge", "feature"], ["switch", "feature"]):
        err = run(genv, work, "git", *argv).error
        assert err["code"] == "GIT_LOCAL_CHANGES" and err["title"] == "Untracked files would be overwritten"
        assert err["detail"].endswith("untracked files: x.txt") and err["location"] == {"file": "x.txt"}
        assert "--include-untracked" in err["suggested_fix"] and "`git stash`" not in err["suggested_fix"]
    stash, retry = err["code_actions"]
    assert stash["is_preferred"] and "--include-untracked" in stash["command"]
    assert run(genv, work, *stash["command"]).code == 0
    assert run(genv, work, *retry["command"]).code == 0, "the retry goes through once x.txt is stashed"
    assert "mine" in git(genv, work, "stash", "show", "-p", "--include-untracked")


def test_local_changes_in_the_way_are_named_in_the_detail_and_bounded(tmp_path, genv):
    names = [f"f{n:02}.txt" for n in range(12)]
    work = repo(genv, tmp_path / "work", dict.fromkeys(names, "a\n"))
    git(genv, work, "switch", "-q", "-c", "other")
    for name in names:
        (work / name).write_text("other\n")
    git(genv, work, "commit", "-qam", "other")
    git(genv, work, "switch", "-q", "main")
    (work / "f00.txt").write_text("mine\n")
    one = run(genv, work, "git", "switch", "other").error
    assert one["detail"].endswith(": f00.txt") and one["location"] == {"file": "f00.txt"}
    assert "git stash pop" in one["suggested_fix"], "a stash for the switch is popped after it"
    for name in names:
        (work / name).write_text("mine\n")
    many = run(genv, work, "git", "switch", "other").error
    assert many["detail"].endswith(", ".join(names[:10]) + " and 2 more") and "location" not in many
    stash, retry = many["code_actions"]
    assert stash["command"] == ["git", "stash"]
    assert run(genv, work, *stash["command"]).code == 0 and run(genv, work, *retry["command"]).code == 0


def test_a_name_that_is_taken_gets_the_fix_of_its_own_kind(tmp_path, genv):
    """GIT_ALREADY_EXISTS for a tag, a branch, a remote and a clone's directory: each fix names that kind's
    own way out (not `git remote set-url` for a tag), and the ones applied here work."""
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = repo(genv, tmp_path / "work")
    git(genv, work, "remote", "add", "origin", str(bare))
    git(genv, work, "push", "-q", "origin", "main")
    git(genv, work, "tag", "v1.0")
    git(genv, work, "branch", "feature")
    (work / "b.txt").write_text("b\n")
    git(genv, work, "add", "b.txt")
    git(genv, work, "commit", "-qm", "second")

    tag = run(genv, work, "git", "tag", "v1.0").error
    assert (tag["code"], tag["title"]) == ("GIT_ALREADY_EXISTS", "Tag already exists")
    assert "git tag -f v1.0" in tag["suggested_fix"] and "set-url" not in tag["suggested_fix"]
    look, force = tag["code_actions"]
    assert run(genv, work, *look["command"]).code == 0
    assert force["command"] == ["git", "tag", "-f", "v1.0"] and run(genv, work, *force["command"]).code == 0
    assert git(genv, work, "rev-parse", "v1.0^{commit}") == git(genv, work, "rev-parse", "HEAD")

    branch = run(genv, work, "git", "checkout", "-b", "feature", "main").error
    assert branch["title"] == "Branch already exists" and "git switch feature" in branch["suggested_fix"]
    switch, reset = branch["code_actions"]
    assert reset["command"] == ["git", "checkout", "-B", "feature", "main"]
    assert run(genv, work, *switch["command"]).code == 0
    assert git(genv, work, "branch", "--show-current").strip() == "feature"
    assert run(genv, work, "git", "switch", "-c", "feature").error["code_actions"][1]["command"] == \
        ["git", "switch", "-C", "feature"]
    elsewhere = run(genv, tmp_path, "git", "-C", "work", "switch", "-c", "feature").error["code_actions"]
    assert [a["command"] for a in elsewhere] == [["git", "-C", "work", "switch", "feature"],
                                                  ["git", "-C", "work", "switch", "-C", "feature"]]
    assert run(genv, work, "git", "branch", "feature").error["code_actions"][1]["command"] == \
        ["git", "branch", "-f", "feature"]

    remote = run(genv, work, "git", "remote", "add", "origin", str(tmp_path / "other.git")).error
    assert remote["title"] == "Remote already exists"
    assert remote["code_actions"][0]["command"] == ["git", "remote", "set-url", "origin", str(tmp_path / "other.git")]

    clone = run(genv, tmp_path, "git", "clone", str(bare), "work").error
    assert clone["title"] == "Destination directory already exists"
    assert "another directory" in clone["suggested_fix"] and "set-url" not in clone["suggested_fix"]
    elsewhere = clone["code_actions"][0]
    assert elsewhere["command"] == ["git", "clone", str(bare), "<DIRECTORY>"]
    assert run(genv, tmp_path, *apply(elsewhere, DIRECTORY="second")).code == 0
    assert (tmp_path / "second" / "a.txt").exists()


def test_pull_without_tracking_information_is_no_upstream_with_the_remote_git_named(tmp_path, genv):
    bare = tmp_path / "remote.git"
    git(genv, tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = repo(genv, tmp_path / "work")
    git(genv, work, "remote", "add", "origin", str(bare))
    git(genv, work, "push", "-q", "origin", "main")
    git(genv, work, "switch", "-q", "-c", "topic")
    err = run(genv, work, "git", "pull").error
    assert (err["code"], err["category"]) == ("GIT_NO_UPSTREAM", "precondition")
    assert "topic" in err["detail"] and "git push -u origin topic" in err["suggested_fix"]
    upstream, once = err["code_actions"]
    assert upstream["command"] == ["git", "branch", "--set-upstream-to=origin/<BRANCH>", "topic"]
    assert once["command"] == ["git", "pull", "origin", "<BRANCH>"]
    assert run(genv, work, *[w.replace("<BRANCH>", "main") for w in upstream["command"]]).code == 0
    assert run(genv, work, "git", "pull").code == 0, "with the upstream set, the pull goes through"


@pytest.mark.parametrize("argv", [["blame", "nosuch.txt"], ["show", "main:nosuch.txt"],
                                  ["cat-file", "-p", "HEAD:nosuch"]])
def test_a_path_missing_from_a_revision_is_not_found_and_safe_to_retry(tmp_path, genv, argv):
    work = repo(genv, tmp_path / "work")
    err = run(genv, work, "git", *argv).error
    assert (err["code"], err["category"], err["status"]) == ("GIT_PATH_NOT_IN_REVISION", "not_found", 404)
    assert err["safe_to_retry"] is True
    listing = run(genv, work, *err["code_actions"][0]["command"])
    assert listing.code == 0 and "a.txt" in listing.text()


def test_an_unexplained_failure_of_a_read_only_git_command_is_safe_to_retry(tmp_path, genv):
    work = repo(genv, tmp_path / "work")
    err = run(genv, work, "git", "-c", "alias.boom=!exit 3", "boom").error
    assert err["code"] == "COMMAND_FAILED" and err["safe_to_retry"] is False, "an alias may do anything"
    read = run(genv, work, "git", "describe").error  # no tag to describe HEAD by: no rule knows it
    assert read["code"] == "COMMAND_FAILED" and read["safe_to_retry"] is True
