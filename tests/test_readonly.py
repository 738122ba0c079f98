"""--read-only (CONTRACT section 9): mutating invocations are refused before they start, read-only ones run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import aw


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    _git(tmp_path, "init", "-q", "--bare", str(remote))
    work = tmp_path / "work"
    _git(tmp_path, "init", "-q", "-b", "main", str(work))
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    _git(work, "remote", "add", "origin", str(remote))
    return work


def test_git_push_is_refused_and_nothing_runs(repo: Path) -> None:
    ans = aw("--read-only", "git", "push", "origin", "main", cwd=repo)
    assert ans.code == 125
    error = ans.error
    assert error is not None and error["code"] == "MUTATION_REFUSED"
    assert error["read_only_alternative"] == ["git", "push", "--dry-run", "origin", "main"]
    assert error["code_actions"][0]["command"] == ["git", "push", "--dry-run", "origin", "main"]
    assert _git(repo, "ls-remote", "origin") == ""  # nothing was pushed


def test_git_status_runs(repo: Path) -> None:
    ans = aw("--read-only", "git", "status", cwd=repo)
    assert ans.code == 0, ans.env["summary"]
    assert ans.env["command"]["subcommand"] == "status"


def test_the_tools_own_dry_run_is_allowed(repo: Path) -> None:
    ans = aw("--read-only", "git", "push", "--dry-run", "origin", "main", cwd=repo)
    assert ans.code == 0, ans.env["summary"]
    assert _git(repo, "ls-remote", "origin") == ""


def test_unclassifiable_program_counts_as_mutating(tmp_path: Path) -> None:
    ans = aw("--read-only", "touch", "made", cwd=tmp_path)
    assert ans.code == 125 and ans.error is not None
    assert ans.error["code"] == "MUTATION_REFUSED"
    assert "counts as mutating" in ans.error["detail"]
    assert not (tmp_path / "made").exists()


def test_known_read_only_program_without_adapter_runs(tmp_path: Path) -> None:
    ans = aw("--read-only", "ls", "-a", cwd=tmp_path)
    assert ans.code == 0


@pytest.mark.parametrize(("line", "allowed"), [
    ("git status && ls | wc -l", True),
    ("cd . && ls 2>/dev/null", True),
    ("ls && rm -f keep", False),
    ("echo hi > keep", False),  # a redirection writes a file
    ("echo $(rm -f keep)", False),  # a substitution is not read: counts as mutating
])
def test_shell_lines_are_classified_command_by_command(repo: Path, line: str, allowed: bool) -> None:
    (repo / "keep").write_text("x")
    ans = aw("--read-only", "bash", "-c", line, cwd=repo)
    assert (ans.code == 0) is allowed, ans.env["summary"]
    assert (repo / "keep").read_text() == "x"


@pytest.mark.parametrize(("argv", "alternative"), [
    (["apt-get", "install", "-y", "cowsay"], ["apt-get", "install", "-s", "-y", "cowsay"]),
    (["terraform", "apply", "-auto-approve"], ["terraform", "plan"]),
    (["pip", "install", "requests"], ["pip", "install", "--dry-run", "requests"]),
    (["npm", "install", "left-pad"], ["npm", "install", "--dry-run", "left-pad"]),
    (["kubectl", "apply", "-f", "x.yaml"], ["kubectl", "apply", "--dry-run=server", "-f", "x.yaml"]),
])
def test_refusal_names_the_tools_dry_run(argv: list[str], alternative: list[str]) -> None:
    from agentwrap.safety import readonly

    verdict = readonly.classify(argv)
    assert not verdict.read_only
    assert verdict.alternative == alternative
    assert readonly.classify(alternative).read_only


@pytest.mark.parametrize(("argv", "allowed"), [
    (["find", ".", "-name", "*.py"], True),
    (["find", ".", "-name", "*.py", "-delete"], False),
    (["find", ".", "-exec", "rm", "{}", ";"], False),
    (["sed", "-n", "1,5p", "f"], True),
    (["sed", "-i.bak", "s/a/b/", "f"], False),
    (["sort", "f"], True),
    (["sort", "-o", "f", "f"], False),
    (["env", "X=1", "ls"], True),  # the command env runs decides (tests/test_readonly_wrappers.py)
    (["env", "X=1", "rm", "f"], False),
])
def test_programs_read_only_unless_given_a_writing_flag(argv: list[str], allowed: bool) -> None:
    from agentwrap.safety import readonly

    assert readonly.classify(argv).read_only is allowed


def test_a_redirection_into_a_file_is_refused_for_that_reason(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--read-only", "--shell", "echo hi > out.txt")
    assert answer.error["code"] == "MUTATION_REFUSED" and not (tmp_path / "out.txt").exists()
    assert "writes a file with a redirection" in answer.error["detail"]
