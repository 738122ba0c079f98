"""A command run through a wrapper that leaves its output and status its own (`command git status`,
`timeout 30 git status`, `env FOO=1 git status`) is read by that command's adapter, in a shell line and as
PROGRAM ARGS alike; a lookup (`command -v git`) and a status the wrapper set itself (timeout's 124) are not."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("git") is None,
                                reason="needs bash and git")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of one commit whose one file is then modified."""
    git = ["git", "-c", "user.email=a@example.com", "-c", "user.name=A", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "f").write_text("1\n")
    subprocess.run([*git, "add", "f"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (tmp_path / "f").write_text("2\n")
    return tmp_path


@pytest.mark.parametrize("line", [
    "command git status", "command -p git status", "exec git status", "env FOO=1 git status",
    "nice -n 5 git status", "timeout 30 git status", "stdbuf -oL git status", "/usr/bin/time git status",
])
def test_a_wrapped_git_status_is_read_as_git_status(repo: Path, line: str) -> None:
    if line.startswith("/") and not Path(line.split()[0]).exists():
        pytest.skip(f"no {line.split()[0]}")
    plain = aw("--cwd", str(repo), "--shell", "git status")
    answer = aw("--cwd", str(repo), "--shell", line)
    assert answer.env["command"]["adapter"] == "git" and answer.env["command"]["subcommand"] == "status"
    assert answer.env["summary"] == plain.env["summary"] and "1 unstaged" in plain.env["summary"]
    assert answer.env["data"] == plain.env["data"]
    assert plain.env["data"]["unstaged"] == [{"path": "f", "status": "modified"}]
    assert answer.env["command"]["decided_by"]["argv"] == line.split()  # the command as the caller wrote it


def test_command_v_is_a_lookup_not_a_run_of_the_program(repo: Path) -> None:
    ran = aw("--cwd", str(repo), "--shell", "command git status")
    assert ran.env["command"]["adapter"] == "git"
    for line in ("command -v git", "command -V git", "command -pv git"):
        answer = aw("--cwd", str(repo), "--shell", line)
        assert answer.env["status"] == "success" and answer.env["command"]["adapter"] == "generic"
        assert answer.env["summary"] == "command succeeded" and answer.env["data"] is None
        assert "git" in answer.text()  # git's path, which git's adapter would have read as a status


def test_nohup_is_not_seen_through_its_output_went_to_a_file(repo: Path) -> None:
    # On a terminal nohup appends git's output to nohup.out: git's adapter would read "nothing changed".
    answer = aw("--cwd", str(repo), "--shell", "nohup git status")
    assert answer.env["command"]["adapter"] == "generic" and answer.env["data"] is None
    ran = aw("--cwd", str(repo), "--shell", "env git status")
    assert ran.env["command"]["adapter"] == "git"


@pytest.mark.parametrize(("line", "code"), [
    ("command git push", "GIT_NO_REMOTE"),
    ("timeout 5 git checkout nosuchbranch", "GIT_PATHSPEC_NO_MATCH"),
    ("env GIT_PAGER=cat git checkout nosuchbranch", "GIT_PATHSPEC_NO_MATCH"),
])
def test_a_wrapped_git_failure_has_gits_problem(repo: Path, line: str, code: str) -> None:
    answer = aw("--cwd", str(repo), "--shell", line)
    assert answer.env["status"] == "error"
    assert answer.error["code"] == code
    assert answer.env["summary"].startswith("git ")


def test_the_direct_form_reads_the_wrapped_command_too(repo: Path) -> None:
    answer = aw("--cwd", str(repo), "--", "timeout", "30", "git", "status")
    command = answer.env["command"]
    assert command["argv"] == ["timeout", "30", "git", "status"]  # the run as the caller wrote it
    assert command["adapter"] == "git" and command["subcommand"] == "status"
    assert answer.env["data"]["unstaged"] == [{"path": "f", "status": "modified"}]
    failed = aw("--cwd", str(repo), "--", "env", "FOO=1", "git", "checkout", "nosuchbranch")
    assert failed.error["code"] == "GIT_PATHSPEC_NO_MATCH"


@pytest.mark.parametrize("form", ["shell", "argv"])
def test_timeouts_own_status_is_timeouts_not_the_commands(repo: Path, form: str) -> None:
    def run(*words: str) -> dict[str, Any]:
        args = ("--shell", shlex.join(words)) if form == "shell" else ("--", *words)
        return aw("--cwd", str(repo), *args).env

    assert run("timeout", "5", "git", "checkout", "nosuchbranch")["error"]["code"] == "GIT_PATHSPEC_NO_MATCH"
    # 124: the time ran out; git's adapter would read a git that stopped part-way as git's own ending
    ran_out = run("timeout", "0.5", "git", "-c", "alias.nap=!sleep 5", "nap")
    assert ran_out["exit"]["code"] == 124
    assert ran_out["command"]["adapter"] == "generic" and ran_out["summary"].startswith("timeout")
    # ... and the problem says so: which command, which limit; not "see what exit status 124 means"
    error = ran_out["error"]
    assert (error["code"], error["category"], error["retryable"]) == ("COMMAND_TIMED_OUT", "timeout", True)
    assert error["exit_code"] == 124 and not error["safe_to_retry"]
    assert "git -c 'alias.nap=!sleep 5' nap" in error["detail"] and "0.5s limit" in error["detail"]
    # a status of the command's own through timeout is no expiry
    own = run("timeout", "5", "sh", "-c", "exit 3")
    assert (own["exit"]["code"], own["error"]["code"]) == (3, "COMMAND_FAILED")


def _sudo(folder: Path, script: str) -> dict[str, str]:
    """A stand-in sudo on PATH (the suite may not run sudo)."""
    (folder / "bin").mkdir()
    (folder / "bin" / "sudo").write_text(f"#!/bin/sh\n{script}\n")
    (folder / "bin" / "sudo").chmod(0o755)
    return {"PATH": f"{folder / 'bin'}:{os.environ['PATH']}"}


def test_a_sudo_that_runs_the_command_is_the_commands_run_one_that_refuses_is_sudos(
        repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    allowed = _sudo(tmp_path_factory.mktemp("allowed"), '[ "$1" = -n ] && shift\nexec "$@"')
    for args in (("--shell", "sudo -n git status"), ("--", "sudo", "-n", "git", "status")):
        answer = aw("--cwd", str(repo), *args, env=allowed)
        assert answer.env["command"]["adapter"] == "git" and "1 unstaged" in answer.env["summary"]
    # sudo's own failure has the command's status: read as sudo's, by the generic adapter's sudo rule
    refused = _sudo(tmp_path_factory.mktemp("refused"), 'echo "sudo: a password is required" >&2; exit 1')
    for args in (("--shell", "sudo -n git status"), ("--", "sudo", "-n", "git", "status")):
        answer = aw("--cwd", str(repo), *args, env=refused)
        assert answer.env["command"]["adapter"] == "generic" and answer.env["summary"].startswith("sudo")
        assert "password" in answer.error["detail"]


@pytest.mark.parametrize(("argv", "runs"), [
    # changes only who or where the command runs: its output and status are its own
    ("setarch -R git status", "git status"),
    ("numactl -N 0 -m 0 git status", "git status"),
    ("runuser -u bob -- git status", "git status"),
    ("unshare -n git status", "git status"),
    # a trace or banner on the command's streams, a unit's journal, a shell line: read as the wrapper's run
    ("strace -fo /tmp/t git status", None),
    ("ltrace git status", None),
    ("valgrind --leak-check=full git status", None),
    ("systemd-run --user git status", None),
    ("runuser bob -c 'git status'", None),
    ("flock /tmp/l -c 'git status'", None),
])
def test_the_adapter_reads_through_a_wrapper_only_when_the_run_stays_the_commands(argv: str,
                                                                                  runs: str | None) -> None:
    """One table serves the hook's permission rules and the adapter choice; the choice sees through only
    the wrappers that leave the command's output and status as the command left them."""
    from agentwrap import wrappers

    through = wrappers.through(shlex.split(argv))
    assert (shlex.join(through.argv) if through else None) == runs
