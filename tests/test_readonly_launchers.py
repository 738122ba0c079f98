"""--read-only judges what a launcher runs by the launched program's own adapter: a launcher its adapter
calls read-only (`tidy run`, a TOML `[launcher]`) still may not run `rm`. Each command is attempted for real
and the file it would remove or make must be as it was."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import aw

_LAUNCHER_TOML = """\
name = "tidy"
matches = ["tidy"]

[effects.default]
read_only = true
destructive = false
idempotent = true
open_world = false

[effects.fix]
read_only = false
destructive = true
idempotent = false

[launcher]
subcommands = ["run"]
options_with_value = ["--jobs"]
"""


@pytest.fixture
def launcher(tmp_path: Path) -> dict[str, str]:
    """A `tidy` that runs `tidy run [--jobs N] [--] CMD...`, and a TOML adapter calling it read-only."""
    bin_dir, adapters = tmp_path / "bin", tmp_path / "adapters"
    bin_dir.mkdir()
    adapters.mkdir()
    tool = bin_dir / "tidy"
    tool.write_text('#!/bin/sh\n[ "$1" = run ] || exit 0\nshift\n[ "$1" = --jobs ] && shift 2\n'
                    '[ "$1" = -- ] && shift\necho "tidy: running $*"\nexec "$@"\n')
    tool.chmod(0o755)
    (adapters / "tidy.toml").write_text(_LAUNCHER_TOML)
    return {"AGENTWRAP_ADAPTER_DIR": str(adapters), "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def _refused(ans: object) -> str:
    error = getattr(ans, "error", None)
    assert error is not None and error["code"] == "MUTATION_REFUSED", getattr(ans, "env", None)
    return str(error["detail"])


@pytest.mark.parametrize("argv", [
    ["tidy", "run", "rm", "victim"],
    ["tidy", "run", "--jobs", "2", "--", "rm", "victim"],
    ["tidy", "run", "tidy", "run", "rm", "victim"],  # a launcher launching a launcher
    ["tidy", "run", "sh", "-c", "rm victim"],
])
def test_a_read_only_launcher_may_not_run_a_mutating_program(tmp_path: Path, launcher: dict[str, str],
                                                             argv: list[str]) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    detail = _refused(aw("--read-only", "--", *argv, cwd=tmp_path, env=launcher))
    assert victim.read_text() == "keep"
    assert "counts as mutating" in detail and "`tidy` runs `" in detail


def test_the_launched_programs_adapter_decides_its_subcommand(tmp_path: Path, launcher: dict[str, str]) -> None:
    """`tidy run tidy fix` is refused by tidy's own [effects.fix], though `tidy run` itself reads only."""
    detail = _refused(aw("--read-only", "--", "tidy", "run", "tidy", "fix", "a.py", cwd=tmp_path, env=launcher))
    assert "the tidy adapter classes `tidy fix` as mutating" in detail


def test_a_read_only_launcher_running_a_read_only_program_runs(tmp_path: Path, launcher: dict[str, str]) -> None:
    work = tmp_path / "work"  # the launcher's own file is outside the working folder, as an installed one is
    work.mkdir()
    (work / "seen").write_text("x")
    ans = aw("--read-only", "--", "tidy", "run", "ls", cwd=work, env=launcher)
    assert ans.code == 0, ans.env["summary"]
    assert "seen" in ans.env["output"]["stdout"]["text"]


@pytest.mark.skipif(shutil.which("npx") is None or shutil.which("npm") is None, reason="npm is not installed")
@pytest.mark.parametrize("argv", [["npx", "--yes", "rm", "victim"], ["npm", "exec", "--", "rm", "victim"],
                                  ["npm", "run", "clean"], ["npm", "test"]])
def test_npm_launchers_may_not_run_a_mutating_program(tmp_path: Path, argv: list[str]) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    scripts = {"clean": "rm victim", "test": "rm victim"}
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0", "scripts": scripts}))
    _refused(aw("--read-only", "--", *argv, cwd=tmp_path))
    assert victim.read_text() == "keep"
