"""--read-only and the programs that only run another command (`timeout 30 git status`, `env FOO=1 git log`):
the command they run is judged as it would be alone, in a shell line and as PROGRAM ARGS alike; a wrapper
whose own words change something (`time -o FILE`, `flock FILE`, `nohup`, `sudo`) keeps the refusal, with a
reason that names it; the variables `env NAME=VALUE` sets meet the checks `NAME=VALUE git ...` meets."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Answer, aw

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("git") is None,
                                reason="needs bash and git")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of one commit whose one file is then modified."""
    work = tmp_path / "work"
    work.mkdir()
    git = ["git", "-c", "user.email=a@example.com", "-c", "user.name=A", "-C", str(work)]
    subprocess.run([*git, "init", "-q"], check=True)
    (work / "f").write_text("1\n")
    subprocess.run([*git, "add", "f"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (work / "f").write_text("2\n")
    return work


def _both(repo: Path, words: list[str], env: dict[str, str] | None = None) -> list[Answer]:
    """The read-only run of `words` as PROGRAM ARGS and as a shell line."""
    return [aw("--read-only", "--", *words, cwd=repo, env=env),
            aw("--read-only", "--shell", shlex.join(words), cwd=repo, env=env)]


@pytest.mark.parametrize("words", [
    "timeout 30 git status", "timeout -s KILL -k 5 30 git status", "env FOO=1 git status", "env -i git status",
    "nice -n 5 git status", "nice -5 git status", "stdbuf -oL git status", "time -p git status",
    "timeout 30 env FOO=1 nice git status", "setsid -w git status",
])
def test_a_wrapped_read_runs_and_answers_with_gits_data(repo: Path, words: str) -> None:
    argv = words.split()
    if shutil.which(argv[0]) is None:
        pytest.skip(f"no {argv[0]}")
    for answer in _both(repo, argv):
        assert answer.code == 0, answer.error
        assert answer.env["command"]["adapter"] == "git" and answer.env["command"]["subcommand"] == "status"
        assert answer.env["data"]["unstaged"] == [{"path": "f", "status": "modified"}]


def test_the_shells_own_wrappers_and_env_log_run(repo: Path) -> None:
    for line in ("command git status", "command -p git status", "time git status"):
        answer = aw("--read-only", "--shell", line, cwd=repo)
        assert answer.code == 0, answer.error
        assert answer.env["data"]["unstaged"] == [{"path": "f", "status": "modified"}]
    looked_up = aw("--read-only", "--shell", "command -v git", cwd=repo)  # a lookup runs nothing
    assert looked_up.code == 0, looked_up.error
    for answer in _both(repo, ["env", "FOO=1", "git", "log"]):
        assert answer.code == 0, answer.error
        assert answer.env["command"]["subcommand"] == "log" and "1 commit" in answer.env["summary"]


def test_env_chdir_reads_the_folder_it_goes_to(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for answer in _both(elsewhere, ["env", "-C", str(repo), "git", "status"]):
        assert answer.code == 0, answer.error
        assert answer.env["data"]["unstaged"] == [{"path": "f", "status": "modified"}]
    # ... and git's configuration there: a repository whose core.fsmonitor is a command is refused
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", f"touch {tmp_path / 'ran'}"], check=True)
    for answer in _both(elsewhere, ["env", "-C", str(repo), "git", "status"]):
        assert answer.code == 125 and answer.error is not None
        assert "core.fsmonitor" in answer.error["detail"]
    assert not (tmp_path / "ran").exists()


def _refused(answer: Answer, *reason: str) -> None:
    assert answer.code == 125 and answer.error is not None, answer.env["summary"]
    assert answer.error["code"] == "MUTATION_REFUSED"
    for part in reason:
        assert part in answer.error["detail"], answer.error["detail"]


@pytest.mark.parametrize(("words", "reason"), [
    ("time -o out git status", "`time -o out` writes out"),
    ("time --output=out git status", "`time --output=out` writes out"),
    ("time -a -o out git status", "`time -a` writes"),
    ("timeout 30 time -vo out git status", "`time -o out` writes out"),
])
def test_time_writing_its_report_to_a_file_is_refused(repo: Path, words: str, reason: str) -> None:
    if shutil.which("time") is None:
        pytest.skip("no /usr/bin/time")
    for answer in _both(repo, words.split()):
        _refused(answer, reason)
    assert not (repo / "out").exists()


@pytest.mark.parametrize(("words", "reason", "made"), [
    ("flock lk git status", "`flock lk` creates the lock file lk", "lk"),
    ("flock -w 5 lk git status", "`flock lk` creates the lock file lk", "lk"),
    ("nohup git status", "`nohup` writes the command's output to nohup.out", "nohup.out"),
    ("xargs git status", "`xargs` adds words read from its input", None),
    ("strace -o tr git status", "`strace` writes a trace", "tr"),
    ("env -S 'touch made' git status", "`env -S` is not an option of `env` known to change nothing", "made"),
    ("env --chd=. git status", "`env --chd=.` is not an option", None),  # an abbreviation is not read
    ("ionice -p 1 git status", "`ionice -p` is not an option", None),  # changes another process
])
def test_a_wrapper_that_acts_itself_keeps_the_refusal(repo: Path, words: str, reason: str,
                                                      made: str | None) -> None:
    for answer in _both(repo, shlex.split(words)):
        _refused(answer, reason)
    assert made is None or not (repo / made).exists()


def test_a_privilege_changer_is_refused_whatever_it_runs(repo: Path, tmp_path: Path) -> None:
    # A stand-in sudo on PATH that would run the command, and says so: it never starts.
    (tmp_path / "bin").mkdir()
    for name in ("sudo", "doas"):
        (tmp_path / "bin" / name).write_text(f'#!/bin/sh\ntouch {tmp_path / "ran"}\nexec "$@"\n')
        (tmp_path / "bin" / name).chmod(0o755)
    path = {"PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}
    for words in (["sudo", "git", "status"], ["sudo", "-n", "git", "status"], ["doas", "git", "status"],
                  ["runuser", "-u", "nobody", "--", "git", "status"], ["timeout", "5", "sudo", "git", "status"]):
        for answer in _both(repo, words, env=path):
            _refused(answer, "runs the command as another user")
    assert not (tmp_path / "ran").exists()


def test_variables_env_sets_meet_the_checks_a_shell_assignment_meets(repo: Path, tmp_path: Path) -> None:
    evil = tmp_path / "evil"
    evil.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\n")
    evil.chmod(0o755)
    for words, reason in ((["env", f"GIT_EXTERNAL_DIFF={evil}", "git", "diff"], "GIT_EXTERNAL_DIFF=… names a"),
                          (["env", f"PAGER={evil}", "git", "log"], "PAGER=… names a program"),
                          (["env", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=diff.external",
                            f"GIT_CONFIG_VALUE_0={evil}", "git", "diff"], "GIT_CONFIG_"),
                          (["env", "LD_PRELOAD=./x.so", "git", "status"], "LD_PRELOAD=… loads code"),
                          (["nice", "env", f"BASH_ENV={evil}", "bash", "-c", "true"], "BASH_ENV=… is a script")):
        argv, line = _both(repo, words)
        _refused(argv, reason, "(set by `")
        _refused(line, reason)
    assert not (tmp_path / "ran").exists()


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar")
def test_a_variable_that_gives_a_reader_options_is_refused_set_either_way(repo: Path) -> None:
    subprocess.run(["tar", "cf", "a.tar", "f"], cwd=repo, check=True)
    options = "TAR_OPTIONS=--to-command=touch made"
    for answer in (*_both(repo, ["env", options, "tar", "tf", "a.tar"]),
                   aw("--read-only", "--shell", f"{shlex.quote(options)} tar tf a.tar", cwd=repo)):
        _refused(answer, "TAR_OPTIONS=… gives `tar` options")
    assert not (repo / "made").exists()


def test_the_wrapped_command_decides_and_its_dry_run_is_offered_wrapped(repo: Path) -> None:
    argv, line = _both(repo, ["timeout", "30", "git", "push", "origin", "main"])
    for answer in (argv, line):
        _refused(answer, "`timeout 30` runs `git push origin main`, and the git adapter classes `git push`")
    assert argv.error is not None
    assert argv.error["code_actions"][0]["command"] == ["timeout", "30", "git", "push", "--dry-run", "origin", "main"]
    for answer in _both(repo, ["nice", "-n", "5", "pytest", "--collect-only"]):
        _refused(answer, "`nice -n 5` runs `pytest --collect-only`", "conftest.py")
    for answer in _both(repo, ["timeout", "30", "bash", "-c", "touch made"]):
        _refused(answer, "`timeout 30` runs `bash -c touch made`")
    assert not (repo / "made").exists()


def test_a_wrappers_word_the_shell_expands_is_not_read_as_written(repo: Path) -> None:
    answer = aw("--read-only", "--shell", "T='5 touch made'; timeout $T git status", cwd=repo)
    _refused(answer, "`timeout`'s word `$T` may be expanded by a shell")
    assert not (repo / "made").exists()
