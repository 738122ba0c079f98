"""--read-only against inherited variables the loader, an interpreter or less reads before the program does:
a relative LD_PRELOAD/LD_LIBRARY_PATH entry, NODE_OPTIONS under a node script, a PYTHONPATH folder holding
sitecustomize.py under a Python script, LESSOPEN naming a command. agentwrap runs in one folder with
`--cwd` another, so what a relative entry names is loaded by the program only, never by agentwrap itself.
The harmless values (the distributions' lesspipe, a memory limit for node) still run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, aw


def _in(work: Path, *argv: str, env: dict[str, str]) -> object:
    return aw("--read-only", "--cwd", str(work), *argv, cwd=work.parent, env=env)


def _refused(ans: object, made: Path) -> str:
    error = getattr(ans, "error", None)
    assert not made.exists(), f"{made} was made: the code ran"
    assert error is not None and error["code"] == "MUTATION_REFUSED", getattr(ans, "env", None)
    return str(error["detail"])


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "t.txt").write_text("hello\n")
    return folder


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler to build the preloaded library")
def test_a_relative_loader_entry_is_refused(work: Path) -> None:
    made = work.parent / "made"
    (work / "e.c").write_text('#include <stdio.h>\n__attribute__((constructor)) static void f(void) '
                              f'{{ FILE *x = fopen("{made}", "w"); if (x) fclose(x); }}\n')
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(work / "evil.so"), str(work / "e.c")], check=True)
    detail = _refused(_in(work, "ls", env={"LD_PRELOAD": "./evil.so"}), made)
    assert "the inherited LD_PRELOAD holds `./evil.so`, relative to the working folder" in detail
    assert "LD_LIBRARY_PATH holds `lib`" in _refused(_in(work, "ls", env={"LD_LIBRARY_PATH": "lib"}), made)
    assert "`(empty)`" in _refused(_in(work, "cat", "t.txt", env={"LD_LIBRARY_PATH": "/nowhere:"}), made)
    assert _in(work, "cat", "t.txt", env={"LD_LIBRARY_PATH": "/nowhere"}).code == 0


@pytest.mark.slow
def test_a_pythonpath_folder_holding_startup_code_is_refused(work: Path) -> None:
    made = work.parent / "made"
    (work / "a.py").write_text("x = 1\n")
    (work / "shadow").mkdir()
    (work / "shadow" / "sitecustomize.py").write_text(f"import pathlib\npathlib.Path({str(made)!r}).touch()\n")
    env = {"PYTHONPATH": f"{ROOT}:shadow"}
    detail = _refused(_in(work, "mypy", "a.py", env=env), made)  # mypy is a Python script: its #! line says so
    assert "PYTHONPATH folder `shadow` holds `sitecustomize`, which Python runs at start-up" in detail
    (work / "shadow" / "sitecustomize.py").rename(work / "shadow" / "json.py")
    assert "place of the standard module" in _refused(_in(work, "mypy", "a.py", env=env), made)
    (work / "shadow" / "json.py").rename(work / "shadow" / "mine.py")  # an ordinary module of the project
    assert _in(work, "mypy", "a.py", env=env).code == 0


@pytest.mark.skipif(shutil.which("eslint") is None, reason="eslint (a node script) is not installed")
def test_node_options_that_load_code_are_refused(work: Path) -> None:
    made = work.parent / "made"
    (work / "r.js").write_text(f'require("fs").writeFileSync({str(made)!r}, "")\n')
    detail = _refused(_in(work, "eslint", "--version", env={"NODE_OPTIONS": "--require ./r.js"}), made)
    assert "NODE_OPTIONS gives node `--require`" in detail
    ans = _in(work, "eslint", "--version", env={"NODE_OPTIONS": "--max-old-space-size=4096 --no-warnings"})
    assert ans.code == 0, ans.env["summary"]


def test_a_lessopen_command_is_refused(work: Path) -> None:
    made = work.parent / "made"
    detail = _refused(_in(work, "less", "t.txt", env={"LESSOPEN": f"|touch {made}; cat %s"}), made)
    assert "the inherited LESSOPEN=… is a command less runs on each file" in detail
    (work / "pre").write_text("#!/bin/sh\ncat \"$1\"\n")
    (work / "pre").chmod(0o755)
    assert "LESSOPEN" in _refused(_in(work, "less", "t.txt", env={"LESSOPEN": f"| {work / 'pre'} %s"}), made)
    ans = _in(work, "less", "t.txt", env={"LESSOPEN": f"| {shutil.which('cat')} %s"})  # an installed program
    assert ans.error is None or ans.error["code"] != "MUTATION_REFUSED", ans.env["summary"]
