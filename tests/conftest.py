"""Shared test set-up: a fixed locale and timezone, a private artifact cache, and `aw()` which runs the
real `agentwrap` in a child process and checks every envelope against the contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.update(TZ="UTC", LC_ALL="C.UTF-8", LANG="C.UTF-8")
os.environ.pop("NO_COLOR", None)


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["AGENTWRAP_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["AGENTWRAP_STATE_DIR"] = str(tmp_path_factory.mktemp("state"))  # operations, keys, plans, ledger


@pytest.fixture(scope="session")
def result_schema() -> dict[str, Any]:
    from agentwrap.schema_files import load

    return load("result")


@dataclass
class Answer:
    code: int
    stdout: bytes
    stderr: bytes
    env: dict[str, Any]
    wall: float

    @property
    def error(self) -> dict[str, Any] | None:
        return self.env.get("error")

    def text(self, stream: str = "stdout") -> str:
        return str(self.env["output"][stream]["text"])


def check_envelope(env: dict[str, Any], code: int) -> None:
    """The invariants every envelope keeps: schema-valid, and exit code, status and error agree."""
    from agentwrap.schema_files import load

    jsonschema.validate(env, load("result"))
    assert (code == 0) == (env["status"] == "success"), (code, env["status"])
    assert (env.get("error") is None) == (env["status"] == "success")
    if env.get("error") is not None and "exit_code" in env["error"]:  # concise leaves it to exit.code
        assert env["error"]["exit_code"] == code, (env["error"]["exit_code"], code)


def aw(*args: str, timeout: float = 60, input: bytes | None = None, env: dict[str, str] | None = None,
       cwd: str | Path | None = None, agent: bool = True, check: bool = True, detail: str = "standard") -> Answer:
    """Run `python -m agentwrap [--agent --detail DETAIL] ARGS` as a real process and parse its one JSON
    value. Tests read the complete (standard) envelope unless they ask for another level; a `--detail`
    in ARGS comes later and wins."""
    import time

    argv = [sys.executable, "-m", "agentwrap", *(["--agent", "--detail", detail] if agent else []), *args]
    child_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    start = time.monotonic()
    proc = subprocess.run(argv, input=input, capture_output=True, timeout=timeout, env=child_env,
                          cwd=cwd, stdin=None if input is not None else subprocess.DEVNULL)
    wall = time.monotonic() - start
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    parsed: dict[str, Any] = {}
    if check:
        assert b"\x1b" not in proc.stdout and b"\r" not in proc.stdout
        parsed = json.loads(proc.stdout)
        check_envelope(parsed, proc.returncode)
    return Answer(proc.returncode, proc.stdout, proc.stderr, parsed, wall)
