"""What every planner shares: the plan errors, what a planner returns, and the probes it reads state with
(read-only commands, prompts off, a time limit)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

from agentwrap.errors import AgentwrapError

PROBE_TIMEOUT = 60.0


class PlanError(AgentwrapError):
    code = "PLAN_UNSUPPORTED"


class PlanNotFound(AgentwrapError):
    code = "PLAN_NOT_FOUND"


class PlanExpired(AgentwrapError):
    code = "PLAN_EXPIRED"


class PlanDrift(AgentwrapError):
    code = "PLAN_DRIFT"


class PlanHashMismatch(AgentwrapError):
    code = "PLAN_HASH_MISMATCH"


class PlanApplied(AgentwrapError):
    code = "PLAN_ALREADY_APPLIED"


class PlanEnvMismatch(AgentwrapError):
    code = "PLAN_ENV_MISMATCH"


class Planned(NamedTuple):
    fingerprint: dict[str, Any]
    proposed_effects: list[dict[str, Any]]


class Planner(NamedTuple):
    plan: Callable[[list[str], str], Planned]  # (argv, cwd) -> what it would do, and the state it reads
    verify: Callable[[dict[str, Any]], dict[str, Any]]  # plan -> verification {passed, reason, checks}
    drift: Callable[[dict[str, Any], dict[str, Any]], list[str]]  # (planned, now) fingerprints -> changes


@contextmanager
def probe_environment(env: Mapping[str, str]) -> Iterator[None]:
    """The plan's --env for the probes too (they inherit os.environ): a GIT_SSH_COMMAND, a PIP_INDEX_URL or a
    url.*.insteadOf given with --env decides which remote or index the state is read from."""
    before = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def git(cwd: str, *args: str) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "SSH_ASKPASS": "true",
           "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes"), "LC_ALL": "C"}
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlanError(f"could not read the state for the plan: git {' '.join(args)}: {exc}") from None
    if proc.returncode != 0:
        raise PlanError(f"could not read the state for the plan: git {' '.join(args)}: "
                        f"{proc.stderr.strip()[:500] or f'exit {proc.returncode}'}")
    return proc.stdout.strip()


def run(argv: list[str], cwd: str) -> str:
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LC_ALL": "C"}
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=PROBE_TIMEOUT * 5,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlanError(f"could not read the state for the plan: {' '.join(argv)}: {exc}") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise PlanError(f"could not read the state for the plan: {' '.join(argv[:4])} ...: {last[:500]}")
    return proc.stdout
