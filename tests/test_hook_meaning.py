"""A rewritten line does what the original does: each line below is rewritten by the real hook, run the
way the host runs it (its own bash, agentwrap on PATH), and what the agent is shown (the envelope's
stdout and exit status) is compared with what bash shows for the original line in the same folder (as
words: `ls` in agentwrap's terminal prints columns, in a pipe one name a line).

Globs, a leading `~`, braces, `!` and `time` are bash's work: quoting them into an argv
(`agentwrap --agent -- ls '*.sh'`) would run another command, so they go through `--shell`.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_hook import home, hook  # noqa: F401 - `home` keeps each host's settings private


@pytest.fixture
def folder(tmp_path: Path, home: Path) -> Path:  # noqa: F811 - the imported fixture, used here
    work = tmp_path / "work"
    work.mkdir()
    for name in ("a.sh", "b.sh", "c.txt"):
        (work / name).write_text(f"echo {name}\n")
    (work / "small1.txt").write_text("one\n")
    (work / "small2.txt").write_text("two\n")
    (work / "Makefile").write_text("all:\n\t@echo built\n")
    (home / "in-home.txt").write_text("")
    return work


@pytest.fixture
def shim(tmp_path: Path) -> Path:
    """A folder holding an `agentwrap` that starts this worktree's agentwrap, as PATH would."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "agentwrap").write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m agentwrap \"$@\"\n")
    (folder / "agentwrap").chmod(0o755)
    return folder


def rewritten(line: str, cwd: Path) -> str:
    data = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(cwd), "tool_input": {"command": line}}
    answer = hook("claude-code", data, env={"AGENTWRAP_HOOK_READS": "wrap"})[1]
    assert answer is not None, f"{line!r} was left alone"
    return str(answer["hookSpecificOutput"]["updatedInput"]["command"])


def run(command: str, cwd: Path, shim: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{shim}:{os.environ['PATH']}"}
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=120,
                          check=False)


LINES = ["ls *.sh", "cat small*.txt", "ls ~", "echo ~", "ls [ab].sh", "echo {a,b}.sh", "echo {1..3}",
         "! grep -q echo a.sh", "! grep -q nothing a.sh", "time ls", "echo a=~",
         "echo $HOME", "ls $HOME", "for f in a.sh; do ls $f; done"]  # a variable argument: the program is known


@pytest.mark.parametrize("line", LINES)
def test_the_rewritten_line_shows_what_bash_shows(line: str, folder: Path, shim: Path) -> None:
    command = rewritten(line, folder)
    assert " --shell " in command  # the real bash expands the words
    envelope = json.loads(run(command, folder, shim).stdout)
    expected = run(line, folder, shim)
    assert envelope.get("output", {}).get("stdout", {}).get("text", "").split() == expected.stdout.split()
    assert envelope.get("exit", {}).get("code", 0) == expected.returncode


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_time_make_runs_make_and_reports_its_time(folder: Path, shim: Path) -> None:
    command = rewritten("time make", folder)
    envelope = json.loads(run(command, folder, shim).stdout)
    assert envelope["status"] == "success"
    assert envelope["output"]["stdout"]["text"] == run("make", folder, shim).stdout == "built\n"
    assert "real" in envelope["output"]["stderr"]["text"]  # what `time` adds, as bash prints it


@pytest.mark.parametrize(("line", "argv"), [("ls 'a.sh'", "ls a.sh"), ('echo "*"', "echo '*'"),
                                           (r"echo \~", "echo '~'"), ("git status", "git status")])
def test_words_bash_passes_unchanged_keep_the_argv_form(line: str, argv: str, folder: Path) -> None:
    assert rewritten(line, folder) == f"agentwrap --agent --timeout 115s -- {argv}"


def hooked(line: str, cwd: Path) -> str:
    """The line the host runs once the hook has answered: its rewrite, or the line itself."""
    data = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(cwd), "tool_input": {"command": line}}
    answer = hook("claude-code", data, env={"AGENTWRAP_HOOK_READS": "wrap"})[1]
    updated = ((answer or {}).get("hookSpecificOutput") or {}).get("updatedInput") or {}
    return str(updated.get("command", line))


# (line, what the host shell shows afterwards): each changes or reads the host shell's own state, which a
# builtin run inside agentwrap's shell would change or read for another shell (none of them is on PATH)
SHELL_STATE = [("read x", 'echo "$x"'), ("read -r x y", 'echo "$y"'), ("mapfile -t lines", 'echo "${#lines[@]}"'),
               ("readarray lines", 'echo "${#lines[@]}"'), ("printf -v x %s set", 'echo "$x"'),
               ("let n=2+3", 'echo "$n"'), ("command cd /", "pwd"), ("builtin cd /", "pwd"),
               ("command -v git", ":"), ("type -t git", ":"), ("shift", 'echo "$1"'),
               ("getopts a: o -a1", 'echo "$o $OPTARG"')]


@pytest.mark.parametrize(("line", "after"), SHELL_STATE)
def test_a_builtin_of_the_host_shell_runs_in_the_host_shell(line: str, after: str, folder: Path, shim: Path) -> None:
    host = f"set -- one two; {hooked(line, folder)}; {after}"
    shown = subprocess.run(["bash", "-c", host], cwd=folder, input="first line\nsecond\n", capture_output=True,
                           text=True, timeout=60, env={**os.environ, "PATH": f"{shim}:{os.environ['PATH']}"})
    expected = subprocess.run(["bash", "-c", f"set -- one two; {line}; {after}"], cwd=folder,
                              input="first line\nsecond\n", capture_output=True, text=True, timeout=60)
    assert (shown.stdout, shown.returncode) == (expected.stdout, expected.returncode)


def test_command_before_a_program_runs_the_program(folder: Path, shim: Path) -> None:
    """`command` is no program on PATH: the rewrite lets bash run it (the argv form would find no `command`)."""
    command = rewritten("command git --version", folder)
    assert " --shell " in command
    envelope = json.loads(run(command, folder, shim).stdout)
    assert envelope["status"] == "success"
    assert envelope["output"]["stdout"]["text"].startswith("git version")
