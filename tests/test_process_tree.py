"""Timeouts, signals and descendants: nothing outlives agentwrap, and the envelope still comes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest
from conftest import ROOT, aw, check_envelope

PY = sys.executable


def _marker() -> str:
    """A unique sleep duration, so we can find exactly our sleepers among the machine's processes."""
    return f"{300 + uuid.uuid4().int % 10_000 / 1000:.3f}"


def _survivors(marker: str) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["cmdline", "status"]):
        if marker in (p.info["cmdline"] or []) and p.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(p)
    return found


def test_timeout_ends_the_whole_tree():
    m = _marker()
    a = aw("--timeout", "1", "bash", "-c", f"sleep {m} & sleep {m}")
    assert a.code == 124
    assert a.error["code"] == "TIMEOUT"
    assert a.env["exit"]["timed_out"] is True
    assert a.error["retryable"] is True and a.error["safe_to_retry"] is True  # two sleeps change nothing
    assert a.wall < 8
    assert _survivors(m) == []


def test_timeout_ends_descendants_in_their_own_session():
    m = _marker()
    a = aw("--timeout", "1", "sh", "-c", f"setsid sleep {m} & nohup sleep {m} >/dev/null 2>&1 & sleep {m}")
    assert a.code == 124
    assert _survivors(m) == []


def test_descendants_left_after_exit_are_ended():
    m = _marker()
    a = aw("sh", "-c", f"nohup sleep {m} >/dev/null 2>&1 & sleep 0.3; echo started")
    assert a.code == 0
    assert any(w["code"] == "TREE_ENDED" for w in a.env["warnings"])
    assert _survivors(m) == []


def test_graceful_shutdown_output_is_kept():
    a = aw("--timeout", "1", "bash", "-c", "trap 'echo cleaned up; exit 0' TERM; sleep 100 & wait")
    assert a.code == 124
    assert "cleaned up" in a.text()


def test_sigkill_follows_when_sigterm_is_ignored():
    m = _marker()
    a = aw("--timeout", "0.5", "--grace", "0.5", "bash", "-c", f"trap '' TERM; sleep {m}")
    assert a.code == 124
    assert a.wall < 6
    assert _survivors(m) == []


def _wait_for(marker: str, count: int) -> None:
    """Until the program runs: a signal sent while agentwrap still starts is another case (a loaded machine
    can take longer than any fixed sleep to get there)."""
    deadline = time.monotonic() + 30
    while len([p for p in _survivors(marker) if p.info["cmdline"][0] == "sleep"]) < count:
        assert time.monotonic() < deadline, "the program never started"
        time.sleep(0.05)


def _start(*args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "agentwrap", "--agent", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)


def test_sigterm_to_agentwrap_ends_the_tree_and_still_answers():
    m = _marker()
    proc = _start("bash", "-c", f"sleep {m} & sleep {m}")
    _wait_for(m, 2)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=15)
    assert b"Traceback" not in err
    env = json.loads(out)
    check_envelope(env, proc.returncode)
    assert proc.returncode == 128 + signal.SIGTERM
    assert env["error"]["code"] == "INTERRUPTED"
    assert _survivors(m) == []


def test_sigint_to_agentwrap_is_130():
    m = _marker()
    proc = _start("sleep", m)
    _wait_for(m, 1)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=15)
    env = json.loads(out)
    check_envelope(env, proc.returncode)
    assert proc.returncode == 130
    assert env["error"]["code"] == "INTERRUPTED"


def _slow_start(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment in which agentwrap takes seconds to start: a user adapter whose module says when it
    is being loaded (before any run), then sleeps. A signal sent then comes while agentwrap starts."""
    folder = tmp_path / "adapters"
    folder.mkdir()
    ready = tmp_path / "loading"
    (folder / "slow.py").write_text(f"import pathlib, time\npathlib.Path({str(ready)!r}).touch()\ntime.sleep(3)\n"
                                    "from agentwrap.sdk import BaseAdapter\n"
                                    "class Slow(BaseAdapter):\n    name = 'slow'\nADAPTER = Slow()\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_ADAPTER_DIR": str(folder)}
    return env, ready


def _start_slowly(env: dict[str, str], victim: Path, ignored: tuple[int, ...]) -> subprocess.Popen[bytes]:
    """`agentwrap touch VICTIM` with the stop signals at their defaults but `ignored` (a shell's background
    job, CI's runner, starts its children with SIGINT ignored: the test must not depend on where it runs)."""
    def dispositions() -> None:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN if s in ignored else signal.SIG_DFL)
    return subprocess.Popen([sys.executable, "-m", "agentwrap", "--agent", "touch", str(victim)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                            preexec_fn=dispositions)


def _wait_until_loading(proc: subprocess.Popen[bytes], ready: Path) -> None:
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert time.monotonic() < deadline and proc.poll() is None, "agentwrap never loaded the adapter"
        time.sleep(0.02)


def test_a_stop_signal_the_caller_ignores_stays_ignored_while_agentwrap_starts(tmp_path: Path) -> None:
    """`nohup agentwrap …` or a background job: the caller said this signal must not stop it."""
    env, ready = _slow_start(tmp_path)
    victim = tmp_path / "victim"
    proc = _start_slowly(env, victim, ignored=(signal.SIGINT, signal.SIGHUP))
    _wait_until_loading(proc, ready)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert json.loads(out)["status"] == "success"
    assert victim.exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_signal_while_agentwrap_starts_answers_and_runs_nothing(tmp_path: Path, sig: int) -> None:
    env, ready = _slow_start(tmp_path)
    victim = tmp_path / "victim"
    proc = _start_slowly(env, victim, ignored=())
    _wait_until_loading(proc, ready)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err
    env_ = json.loads(out)
    check_envelope(env_, proc.returncode)
    assert proc.returncode == 128 + sig
    assert env_["error"]["code"] == "INTERRUPTED"
    assert "before touch started; nothing ran" in env_["error"]["detail"]
    assert env_["error"]["safe_to_retry"] is True
    assert not victim.exists()


def test_a_stop_signal_ends_a_wait_for_the_request_on_stdin(tmp_path: Path) -> None:
    """`--input -` from a caller that never closes stdin: a SIGTERM still gets an answer, at once."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "agentwrap", "--agent", "--input", "-"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.PIPE, env=env)
    time.sleep(1.5)  # any time: held before the read, or ending the read itself, the answer is the same
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err
    env_ = json.loads(out)
    assert proc.returncode == 128 + signal.SIGTERM
    assert env_["error"]["code"] == "INTERRUPTED"


def test_a_command_that_is_not_a_run_keeps_the_default_signals() -> None:
    """`agentwrap normalize -` (like `mcp`) waits on its caller as long as it takes: SIGTERM must end it as
    before (held signals are released for every subcommand)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "agentwrap", "normalize", "-"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.PIPE, env=env)
    time.sleep(1.5)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGTERM
