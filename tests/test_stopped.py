"""A mutating program stopped part-way: the error names what may have happened, the read-only command
that finds out, and known leftovers with their cleanup; retryable, never safe_to_retry."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import aw


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path / "r")], check=True)
    return tmp_path / "r"


def test_a_timeout_of_a_mutating_program_is_uncertain_and_not_safe_to_retry(tmp_path: Path) -> None:
    ans = aw("--timeout", "500ms", "--", "sh", "-c", "touch made; sleep 30", cwd=tmp_path)
    assert ans.code == 124
    error = ans.error
    assert error is not None and error["code"] == "TIMEOUT"
    assert error["retryable"] is True and error["safe_to_retry"] is False
    assert error["effects_uncertain"][0]["action"] == "may_have_changed"


def test_a_timeout_of_a_read_only_program_stays_plain(tmp_path: Path) -> None:
    ans = aw("--timeout", "500ms", "--", "sleep", "30", cwd=tmp_path)
    assert ans.error is not None and "effects_uncertain" not in ans.error
    # what --read-only would run, a stopped run may repeat: `sleep`, `tail -f` change nothing
    assert ans.error["safe_to_retry"] is True
    tail = aw("--timeout", "500ms", "--", "tail", "-f", "/dev/null", cwd=tmp_path)
    assert tail.error is not None and tail.error["safe_to_retry"] is True


def test_a_stopped_git_names_the_check_and_its_index_lock(repo: Path, tmp_path: Path) -> None:
    # A stand-in for a git stopped while it holds the index lock (real git removes it on SIGTERM,
    # not on SIGKILL or a crash): the program is named git, so the git adapter reads the run.
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\ntouch "$(/usr/bin/git rev-parse --git-dir)/index.lock"\nexec sleep 30\n')
    fake.chmod(0o755)
    ans = aw("--timeout", "1s", "--", str(fake), "commit", "-m", "x", cwd=repo)
    error = ans.error
    assert error is not None and error["code"] == "TIMEOUT" and error["safe_to_retry"] is False
    assert error["check_command"] == [str(fake), "status", "--short", "--branch"]
    lock = os.path.realpath(repo / ".git" / "index.lock")
    assert [item["path"] for item in error["leftovers"]] == [lock]
    assert ["rm", "-f", lock] in [a["command"] for a in error["code_actions"]]


def test_the_check_for_a_push_is_its_dry_run() -> None:
    from agentwrap import registry
    from agentwrap.safety import dry_run

    adapter, _ = registry.find("git")
    assert dry_run.check_command(adapter, ["git", "push", "origin", "main"]) == [
        "git", "push", "--dry-run", "origin", "main"]
    apt, _ = registry.find("apt-get")
    assert dry_run.check_command(apt, ["apt-get", "install", "-y", "x"]) == ["dpkg", "--audit"]


def test_npm_partial_node_modules_is_named(tmp_path: Path) -> None:
    from agentwrap.safety import leftovers

    (tmp_path / "node_modules" / "left-pad").mkdir(parents=True)
    (tmp_path / "package-lock.json").write_text("{}")
    found = leftovers.find("npm", ["npm", "install"], str(tmp_path))
    assert found and found[0]["cleanup_command"] == ["npm", "ci"]
    (tmp_path / "node_modules" / ".package-lock.json").write_text("{}")
    assert leftovers.find("npm", ["npm", "install"], str(tmp_path)) == []


def test_a_stopped_apt_get_names_dpkgs_half_configured_packages(tmp_path: Path) -> None:
    # Stand-ins on PATH: an apt-get that is stopped mid-install, and the `dpkg --audit` a dpkg left
    # half-way would print (the real one is not broken on purpose in a test).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text("#!/bin/sh\necho 'Setting up cowsay (3.03) ...'\nexec sleep 30\n")
    (bin_dir / "dpkg").write_text(
        "#!/bin/sh\n[ \"$1\" = --audit ] || exit 2\n"
        "echo 'The following packages are only half configured, probably due to problems'\n"
        "echo 'configuring them the first time.  The configuration should be retried using'\n"
        "echo 'dpkg --configure <package> or the configure menu option in dselect:'\n"
        "echo ' cowsay               configurable talking cow'\n")
    for tool in ("apt-get", "dpkg"):
        (bin_dir / tool).chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    ans = aw("--timeout", "1s", "--", "apt-get", "install", "-y", "cowsay", env=env, cwd=tmp_path)
    error = ans.error
    assert error is not None and error["code"] == "TIMEOUT" and error["safe_to_retry"] is False
    assert error["check_command"] == ["dpkg", "--audit"]
    leftover = error["leftovers"][0]
    assert leftover["kind"] == "dpkg_interrupted" and "cowsay" in leftover["detail"]
    assert leftover["cleanup_command"] == ["dpkg", "--configure", "-a"]


def test_in_a_shell_line_the_mutating_command_names_the_check(repo: Path) -> None:
    from agentwrap.safety.remaining import after_stop

    facts = after_stop(["bash", "-c", "git status && git push origin main | tail -3"], {}, str(repo))
    assert facts["mutating"] is True
    assert facts["check_command"] == ["git", "push", "--dry-run", "origin", "main"]
