"""What a plain run imports (never how long it takes: that is `bench/run.py startup`). Each module named
here cost a measured share of every start and is kept off the run path; a change that brings one back
fails here, in a real child process, instead of silently slowing every call."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# dataclasses imports inspect (with ast, dis, tokenize): ~8 ms of a 3.11 start, and each decorated class
# compiles its own methods; the records are `records.Frozen` classes instead. tomllib compiles its regexes
# (and imports datetime, string) at import, ~10M instructions: only a TOML-shaped output needs it.
NEVER_ON_A_PLAIN_RUN = ("dataclasses", "inspect", "tomllib")


def _imported(tmp_path: Path, cwd: Path, *args: str) -> set[str]:
    """The modules a real `agentwrap --agent ARGS` imported (`-X importtime` lists each one once)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_CACHE_DIR": str(tmp_path / "cache"),
           "AGENTWRAP_ADAPTER_DIR": str(tmp_path / "adapters")}
    env.pop("AGENTWRAP_ADAPTERS", None)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentwrap", "--agent", *args],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def _at_start(tmp_path: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def _skip_what_the_interpreter_imports_anyway(tmp_path: Path) -> None:
    already = _at_start(tmp_path) & set(NEVER_ON_A_PLAIN_RUN)
    if already:
        pytest.skip(f"this interpreter imports {sorted(already)} at start-up (a .pth file)")


def test_a_plain_run_imports_no_dataclasses(tmp_path):
    _skip_what_the_interpreter_imports_anyway(tmp_path)
    imported = _imported(tmp_path, tmp_path, "true")
    assert "agentwrap.commands.run" in imported and "agentwrap.records" in imported  # it did run
    assert imported & set(NEVER_ON_A_PLAIN_RUN) == set()


def test_an_adapters_run_imports_no_dataclasses(tmp_path):
    """`git status`: the git adapter, its spec's rules (`spec.Rule`) and its presentation."""
    _skip_what_the_interpreter_imports_anyway(tmp_path)
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _imported(tmp_path, repo, "git", "status")  # the first run reads the spec's TOML and fills the spec cache
    imported = _imported(tmp_path, repo, "git", "status")
    assert "agentwrap.adapters.git.parse" in imported and "agentwrap.spec" in imported
    assert imported & set(NEVER_ON_A_PLAIN_RUN) == set()
