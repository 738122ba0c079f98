#!/usr/bin/env python3
"""Durable operations and safe mutation: what they cost, against references nobody here wrote.

    python3 bench/operations.py [--rounds N]

detach      wall time until `agentwrap --agent --detach -- sleep 30` has answered with its operation_id,
            against util-linux `setsid -f sleep 30` (detaches, records nothing) and against an attached
            `agentwrap --agent -- true` (the run path's own start-up)
wait        `agentwrap --detach -- true` then `agentwrap op wait ID`: launcher + supervisor + waiter, against
            the attached `agentwrap -- true`
replay      a second `--idempotency-key K -- sleep 1`: the recorded envelope, nothing run, against the 1 s run
refusal     `--read-only -- git push`: refused before anything starts
plan        `agentwrap plan -- git push` + `agentwrap apply` to a local bare remote, against a bare `git push`

Medians of interleaved rounds; nothing is asserted: the figures are for people, measured on this machine.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = Path(tempfile.mkdtemp(prefix="aw-bench-ops-"))
atexit.register(shutil.rmtree, SCRATCH, True)
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_STATE_DIR": str(SCRATCH / "state"),
       "AGENTWRAP_CACHE_DIR": str(SCRATCH / "cache")}
AW = [sys.executable, "-m", "agentwrap", "--agent"]


def _timed(argv: list[str], cwd: Path | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=ENV, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start, proc.stdout


def _median(rounds: int, *steps: Callable[[], float]) -> list[float]:
    samples: list[list[float]] = [[] for _ in steps]
    for _ in range(rounds):
        for i, step in enumerate(steps):
            samples[i].append(step())
    return [statistics.median(s) * 1000 for s in samples]


def _op_id(out: str) -> str:
    return str(json.loads(out)["operation_id"])


def detach(rounds: int) -> None:
    started: list[str] = []

    def ours() -> float:
        took, out = _timed([*AW, "--detach", "--", "sleep", "30"])
        started.append(_op_id(out))
        return took

    pidfiles: list[Path] = []

    def setsid() -> float:
        pidfile = SCRATCH / f"ref-{len(pidfiles)}.pid"
        pidfiles.append(pidfile)
        start = time.perf_counter()
        subprocess.run(["setsid", "-f", "sh", "-c", f"echo $$ > {pidfile}; exec sleep 30"], env=ENV,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start

    a, b, c = _median(rounds, ours, setsid, lambda: _timed([*AW, "--", "true"])[0])
    print(f"detach   agentwrap --detach answers in {a:.0f} ms; setsid -f {b:.0f} ms; "
          f"attached agentwrap true {c:.0f} ms")
    for op_id in started:
        subprocess.run([*AW, "op", "cancel", op_id], env=ENV, capture_output=True)
    time.sleep(0.2)
    for pidfile in pidfiles:  # the reference sleeps this bench started, by their own pid
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pidfile.read_text()), 15)


def wait(rounds: int) -> None:
    def ours() -> float:
        start = time.perf_counter()
        _, out = _timed([*AW, "--detach", "--", "true"])
        _timed([*AW, "op", "wait", _op_id(out), "--timeout", "60"])
        return time.perf_counter() - start

    a, b = _median(rounds, ours, lambda: _timed([*AW, "--", "true"])[0])
    print(f"wait     --detach true + op wait: {a:.0f} ms; attached agentwrap true: {b:.0f} ms")


def replay(rounds: int) -> None:
    keys = [f"bench-{uuid.uuid4()}" for _ in range(rounds)]
    first = [_timed([*AW, "--idempotency-key", k, "--", "sleep", "1"])[0] for k in keys]
    again = [_timed([*AW, "--idempotency-key", k, "--", "sleep", "1"])[0] for k in keys]
    print(f"replay   first run (sleep 1) {statistics.median(first) * 1000:.0f} ms; "
          f"replay {statistics.median(again) * 1000:.0f} ms, nothing run")


def refusal(rounds: int) -> None:
    (ms,) = _median(rounds, lambda: _timed([*AW, "--read-only", "--", "git", "push"])[0])
    print(f"refusal  --read-only git push refused in {ms:.0f} ms")


def plan(rounds: int) -> None:
    git_env = {**ENV, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
               "GIT_COMMITTER_EMAIL": "b@b"}
    remote, work = SCRATCH / "remote.git", SCRATCH / "work"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=work, check=True)

    def commit() -> None:
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=work, env=git_env, check=True)

    def ours() -> float:
        commit()
        start = time.perf_counter()
        _, out = _timed([*AW, "plan", "--", "git", "push", "origin", "main"], cwd=work)
        facts = json.loads(out)["data"]
        _, out = _timed([*AW, "apply", facts["plan_id"], "--expect-hash", facts["digest"]], cwd=work)
        assert json.loads(out)["verification"]["passed"] is True
        return time.perf_counter() - start

    def bare() -> float:
        commit()
        return _timed(["git", "push", "-q", "origin", "main"], cwd=work)[0]

    a, b = _median(rounds, ours, bare)
    print(f"plan     plan + apply + verify of git push: {a:.0f} ms; bare git push: {b:.0f} ms")


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 7
    for bench in (detach, wait, replay, refusal, plan):
        bench(rounds)


if __name__ == "__main__":
    main()
