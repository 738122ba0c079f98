"""Shared test set-up: a fixed locale and timezone, a private artifact cache and config folder (the user's
own adapters never load in a test), and `aw()` which runs the real `agentwrap` and checks every envelope
against the contract: in this process through `cli.main(argv, env)` when that is safe, else as a child."""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import settings

# .ci/run sets HYPOTHESIS_PROFILE=ci: the same examples on every run, so that a CI run is reproducible and
# a property test cannot fail only some of the time there; locally each run draws new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])

ROOT = Path(__file__).resolve().parent.parent
os.environ.update(TZ="UTC", LC_ALL="C.UTF-8", LANG="C.UTF-8")
os.environ.pop("NO_COLOR", None)
os.environ.pop("AGENTWRAP_ADAPTER_DIR", None)  # a test names its own folder, or gets an empty one
# The suite runs on pytest-xdist workers; a pytest a test runs under agentwrap must not think it is one
# (pytest-benchmark, where installed, then warns on stderr and the run's envelope changes).
for _name in [n for n in os.environ if n.startswith("PYTEST_XDIST_")]:
    del os.environ[_name]



GIT_ID = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(cwd: Path, *args: str) -> str:
    """Real git in `cwd` with a fixed identity (the plan tests' repositories); its stripped stdout."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ID}).stdout.strip()


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile the package once, before the workers start (the xdist controller, or the one process).

    `aw()` and many tests start `python -m agentwrap` as a child with PYTHONPATH at this checkout. Where
    PYTHONDONTWRITEBYTECODE is set (this project's sessions set it) no child ever writes a .pyc, so each
    one compiled the package from source again: 0.22 s for `--agent -- true` against 0.10 s with .pyc
    files, for each of the suite's children. A .pyc is still read under that variable, so compiling
    once here is enough. compileall skips what is current, and a file edited later is compiled in
    memory as before (its .pyc is stale by its mtime): no child runs old code."""
    if hasattr(config, "workerinput"):
        return  # a worker: the controller compiled before starting it
    import compileall

    compileall.compile_dir(ROOT / "agentwrap", quiet=1)


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["AGENTWRAP_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["AGENTWRAP_STATE_DIR"] = str(tmp_path_factory.mktemp("state"))  # operations, keys, plans, ledger
    # The user's adapter folder is $XDG_CONFIG_HOME/agentwrap/adapters: point it at an empty folder, so the
    # suite and the fixture replays see the built-ins only, whatever the person running them installed.
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))


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


@functools.cache
def result_validator() -> jsonschema.protocols.Validator:
    """One validator for the session: building one compiles the whole schema (most of a replay's cost)."""
    from agentwrap.schema_files import load

    schema = load("result")
    validator: jsonschema.protocols.Validator = jsonschema.validators.validator_for(schema)(schema)
    return validator


def check_envelope(env: dict[str, Any], code: int) -> None:
    """The invariants every envelope keeps: schema-valid, and exit code, status and error agree."""
    result_validator().validate(env)
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

    flags = ["--agent", "--detail", detail] if agent else []
    start = time.monotonic()
    if _in_process_safe(args, input=input, env=env, cwd=cwd):
        code, stdout, stderr = _in_process([*flags, *args], env or {})
    else:
        argv = [sys.executable, "-m", "agentwrap", *flags, *args]
        child_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        proc = subprocess.run(argv, input=input, capture_output=True, timeout=timeout, env=child_env,
                              cwd=cwd, stdin=None if input is not None else subprocess.DEVNULL)
        code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    wall = time.monotonic() - start
    assert b"Traceback" not in stderr, stderr.decode(errors="replace")
    parsed: dict[str, Any] = {}
    if check:
        assert b"\x1b" not in stdout and b"\r" not in stdout
        parsed = json.loads(stdout)
        check_envelope(parsed, code)
    return Answer(code, stdout, stderr, parsed, wall)


def own_command(command: list[str] | None) -> list[str] | None:
    """A suggested `agentwrap ...` rerun less the caller's options it carries (`aw` passes `--agent --detail
    standard`; a test's `--timeout`, `--cwd`): the remedy the action itself adds."""
    if not command or command[0] != "agentwrap":
        return command
    out, i = ["agentwrap"], 1
    while i < len(command) and command[i] != "--":
        if command[i] in ("--agent",):
            i += 1
        elif command[i] in ("--detail", "--timeout", "--cwd"):
            i += 2
        else:
            break
    return out + command[i:]


# Answers that start no program and read no terminal: the same whether in this process or a child.
_IN_PROCESS = {("explain",), ("schema",), ("describe",), ("capabilities",), ("adapter", "list"), ("--version",)}


def _in_process_safe(args: tuple[str, ...], *, input: bytes | None, env: dict[str, str] | None,
                     cwd: str | Path | None) -> bool:
    if input is not None or cwd is not None or os.environ.get("AGENTWRAP_TEST_SUBPROCESS"):
        return False
    if any(not k.startswith("AGENTWRAP_") for k in env or {}):
        return False  # PATH, PYTHONPATH, HOME...: only a child sees those as a real run would
    words = [a for a in args if a not in ("--agent",)]
    return bool(words) and (tuple(words[:1]) in _IN_PROCESS or tuple(words[:2]) in _IN_PROCESS)


def _in_process(argv: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    from agentwrap.cli import main
    from agentwrap.environment import Environment

    out, err = io.StringIO(), io.StringIO()
    code = main(argv, Environment(stdout=out, stderr=err, stdout_isatty=False, stdin_isatty=False,
                                  variables=env))
    return int(code), out.getvalue().encode(), err.getvalue().encode()
