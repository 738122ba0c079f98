"""--read-only against what surrounds a reading command rather than its arguments: the repository's git
configuration, a program file in the working folder, option-injecting variables inherited from the caller's
shell, a Makefile, Python code beside `python -m`, operators run together in a shell line. Each is run for
real through agentwrap; the victim file must survive and the refusal must say why. The plain reads still run."""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.conftest import aw


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _repo(work: Path, config: dict[str, str], attributes: str = "") -> Path:
    work.mkdir(exist_ok=True)
    _git(work, "init", "-q", "-b", "main")
    (work / "f").write_text("a\n")
    _git(work, "add", "f")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    for key, value in config.items():
        _git(work, "config", key, value)
    if attributes:
        (work / ".gitattributes").write_text(attributes)
    (work / "f").write_text("a\nb\n")  # a change for diff and status to read
    return work


def _refused(ans: object, victim: Path) -> str:
    error = getattr(ans, "error", None)
    assert victim.read_text() == "keep", "the victim was removed: the command ran"
    assert error is not None and error["code"] == "MUTATION_REFUSED", getattr(ans, "env", None)
    return str(error["detail"])


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim"
    path.write_text("keep")
    return path


@pytest.mark.parametrize(("args", "config", "attributes", "said"), [
    (["status"], {"core.fsmonitor": "rm -f {victim}"}, "", "core.fsmonitor = rm -f"),
    (["diff"], {"diff.external": "rm -f {victim};:"}, "", "diff.external = rm -f"),
    (["diff"], {"diff.t.textconv": "rm -f {victim};cat"}, "f diff=t\n", "diff.t.textconv"),
    (["diff"], {"filter.t.clean": "rm -f {victim};cat"}, "f filter=t\n", "filter.t.clean"),
])
def test_repository_config_naming_a_command_is_refused(tmp_path: Path, victim: Path, args: list[str],
                                                       config: dict[str, str], attributes: str, said: str) -> None:
    work = _repo(tmp_path / "work", {k: v.format(victim=victim) for k, v in config.items()}, attributes)
    assert said in _refused(aw("--read-only", "git", *args, cwd=work), victim)


def test_git_config_from_inherited_variables_is_refused(tmp_path: Path, victim: Path) -> None:
    work = _repo(tmp_path / "work", {})
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": f"rm -f {victim}"}
    assert "core.fsmonitor" in _refused(aw("--read-only", "git", "status", cwd=work, env=env), victim)


def test_a_shell_line_that_changes_folder_reads_that_repositorys_config(tmp_path: Path, victim: Path) -> None:
    _repo(tmp_path / "sub", {"core.fsmonitor": f"rm -f {victim}"})
    detail = _refused(aw("--read-only", "--shell", "cd sub && git status", cwd=tmp_path), victim)
    assert "in `git status`, git's configuration sets `core.fsmonitor" in detail
    assert _refused(aw("--read-only", "--shell", "cd $HOME && git status", cwd=tmp_path), victim)


def test_plain_git_reads_and_a_pager_in_the_config_still_run(tmp_path: Path, victim: Path) -> None:
    """GIT_PAGER=cat (agentwrap's) wins over core.pager and pager.log: these run, and run nothing else."""
    work = _repo(tmp_path / "work", {"core.pager": f"rm -f {victim}", "pager.log": f"rm -f {victim}",
                                     "core.fsmonitor": "false", "core.hooksPath": "hooks"})
    for argv in (["status"], ["log", "-n1"], ["diff"], ["-p", "log", "-n1"]):
        ans = aw("--read-only", "git", *argv, cwd=work)
        assert ans.code == 0, ans.env["summary"]
    assert aw("--read-only", "--shell", "cd work && git status && ls", cwd=tmp_path).code == 0
    assert victim.read_text() == "keep"


def _script(path: Path) -> None:
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\nrm -f {path.parent.parent / 'victim'}\n")
    path.chmod(0o755)


@pytest.mark.parametrize(("argv", "path_first", "said"), [
    (["./git", "status"], None, "in the working folder, not the installed program"),
    (["git", "status"], "{tmp}/bin", "in the working folder, not the installed program"),
    (["ls"], "{tmp}/bin", "in the working folder"),
    (["ls"], "bin", "relative PATH entry"),
])
def test_a_program_file_in_the_working_folder_is_not_the_tool(tmp_path: Path, victim: Path, argv: list[str],
                                                              path_first: str | None, said: str) -> None:
    _script(tmp_path / "bin" / "git")
    _script(tmp_path / "bin" / "ls")
    (tmp_path / "git").write_bytes((tmp_path / "bin" / "git").read_bytes())
    (tmp_path / "git").chmod(0o755)
    env = {"PATH": f"{path_first.format(tmp=tmp_path)}:{os.environ['PATH']}"} if path_first else None
    assert said in _refused(aw("--read-only", *argv, cwd=tmp_path, env=env), victim)


def test_inherited_option_variables_are_refused(tmp_path: Path, victim: Path) -> None:
    with tarfile.open(tmp_path / "x.tar", "w") as archive:
        archive.add(victim, arcname="victim")
    options = {"TAR_OPTIONS": f"--checkpoint=1 --checkpoint-action=exec=rm\\ -f\\ {victim}"}
    assert "TAR_OPTIONS" in _refused(aw("--read-only", "tar", "tf", "x.tar", cwd=tmp_path, env=options), victim)
    less = {"LESS": f"+!rm -f {victim}\n"}
    assert "LESS" in _refused(aw("--read-only", "less", "victim", cwd=tmp_path, env=less), victim)
    func = {"BASH_FUNC_ls%%": f"() {{ rm -f {victim}; }}"}
    assert "BASH_FUNC_ls%%" in _refused(aw("--read-only", "bash", "-c", "ls", cwd=tmp_path, env=func), victim)
    (tmp_path / "e.sh").write_text(f"rm -f {victim}\n")
    bash_env = {"BASH_ENV": str(tmp_path / "e.sh")}
    assert "BASH_ENV" in _refused(aw("--read-only", "bash", "-c", "ls", cwd=tmp_path, env=bash_env), victim)
    ans = aw("--read-only", "tar", "tf", "x.tar", cwd=tmp_path)  # the plain listing still runs
    assert ans.code == 0 and "victim" in ans.text(), ans.env["summary"]


@pytest.mark.parametrize("makefile", ["X := $(shell rm -f {victim})\nall:\n\techo hi\n",
                                      "all:\n\t+rm -f {victim}\n"])
def test_make_dry_run_is_refused_for_what_it_still_runs(tmp_path: Path, victim: Path, makefile: str) -> None:
    (tmp_path / "Makefile").write_text(makefile.format(victim=victim))
    assert "$(shell" in _refused(aw("--read-only", "make", "-n", cwd=tmp_path), victim)
    assert aw("--read-only", "make", "--version", cwd=tmp_path).code == 0


def test_python_m_beside_python_code_is_refused(tmp_path: Path, victim: Path) -> None:
    (tmp_path / "j.json").write_text("{}\n")
    (tmp_path / "argparse.py").write_text(f"import os\nos.remove({str(victim)!r})\n")  # json.tool imports it
    detail = _refused(aw("--read-only", "python3", "-m", "json.tool", "j.json", cwd=tmp_path), victim)
    assert "argparse.py" in detail
    assert aw("--read-only", "python3", "-I", "-m", "json.tool", "j.json", cwd=tmp_path).code == 0
    (tmp_path / "argparse.py").unlink()
    assert aw("--read-only", "python3", "-m", "json.tool", "j.json", cwd=tmp_path).code == 0
    assert victim.read_text() == "keep"


@pytest.mark.parametrize("line", ["cat a >| victim", "ls;>victim", "ls|>victim"])
def test_operators_run_together_are_read_as_redirections(tmp_path: Path, victim: Path, line: str) -> None:
    (tmp_path / "a").write_text("other")
    assert "redirection" in _refused(aw("--read-only", "--shell", line, cwd=tmp_path), victim)
