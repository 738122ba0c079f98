"""--idempotency-key (CONTRACT section 9): one key, one run; replays, conflicts, runs in progress, and
parallel first callers, with real processes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.conftest import ROOT, aw, check_envelope


def _key() -> str:
    return f"key-{uuid.uuid4()}"


def _append(target: Path, text: str = "line") -> list[str]:
    return ["sh", "-c", f"echo {text} >> {target}; echo ran"]


def test_the_same_key_twice_runs_once_and_replays(tmp_path: Path) -> None:
    key, target = _key(), tmp_path / "log"
    first = aw("--idempotency-key", key, "--", *_append(target))
    assert first.code == 0 and "replayed" not in first.env
    second = aw("--idempotency-key", key, "--", *_append(target))
    assert second.code == 0 and second.env["replayed"] is True
    assert target.read_text() == "line\n"  # the program ran once
    assert second.env["output"] == first.env["output"]
    assert second.env["request_id"] == first.env["request_id"]  # the recorded envelope, not a new one
    concise = aw("--idempotency-key", key, "--", *_append(target), detail="concise")
    assert concise.env["replayed"] is True and "request_id" not in concise.env


def test_a_failed_run_replays_its_failure_and_exit_code(tmp_path: Path) -> None:
    key = _key()
    argv = ["sh", "-c", f"echo x >> {tmp_path / 'log'}; exit 4"]
    assert aw("--idempotency-key", key, "--", *argv).code == 4
    again = aw("--idempotency-key", key, "--", *argv)
    assert again.code == 4 and again.env["replayed"] is True
    assert (tmp_path / "log").read_text() == "x\n"


def test_other_inputs_with_the_key_are_a_conflict(tmp_path: Path) -> None:
    key, target = _key(), tmp_path / "log"
    aw("--idempotency-key", key, "--", *_append(target))
    changed = aw("--idempotency-key", key, "--", *_append(target, "other"))
    assert changed.code == 125 and changed.error is not None
    assert changed.error["code"] == "IDEMPOTENCY_CONFLICT" and "argv was" in changed.error["detail"]
    elsewhere = aw("--idempotency-key", key, "--cwd", str(tmp_path), "--", *_append(target))
    assert elsewhere.error is not None and "cwd was" in elsewhere.error["detail"]
    assert target.read_text() == "line\n"


def test_stdin_is_part_of_the_binding(tmp_path: Path) -> None:
    key = _key()
    one = tmp_path / "one"
    one.write_text("a\n")
    two = tmp_path / "two"
    two.write_text("b\n")
    assert aw("--idempotency-key", key, "--stdin", str(one), "--", "cat").text().strip() == "a"
    assert aw("--idempotency-key", key, "--stdin", str(one), "--", "cat").env["replayed"] is True
    other = aw("--idempotency-key", key, "--stdin", str(two), "--", "cat")
    assert other.error is not None and "stdin_sha256" in other.error["detail"]
    piped = aw("--idempotency-key", _key(), "--no-pty", "--stdin", "-", "--", "cat", input=b"piped\n")
    assert piped.text().strip() == "piped"


def test_a_key_whose_first_run_is_going_answers_with_its_operation(tmp_path: Path) -> None:
    key = _key()
    started = aw("--idempotency-key", key, "--detach", "--", "sleep", "2")
    op_id = started.env["operation_id"]
    busy = aw("--idempotency-key", key, "--", "sleep", "2")
    assert busy.code == 125 and busy.error is not None
    assert busy.error["code"] == "IDEMPOTENCY_IN_PROGRESS" and busy.error["operation_id"] == op_id
    assert busy.error["code_actions"][0]["command"][:4] == ["agentwrap", "op", "wait", op_id]
    assert aw("op", "wait", op_id, "--timeout", "30").code == 0
    replay = aw("--idempotency-key", key, "--", "sleep", "2")
    assert replay.code == 0 and replay.env["replayed"] is True and replay.env["operation_id"] == op_id


def test_parallel_first_callers_run_the_program_once(tmp_path: Path) -> None:
    key, target = _key(), tmp_path / "log"
    argv = [sys.executable, "-m", "agentwrap", "--agent", "--detail", "standard", "--idempotency-key", key,
            "--", "sh", "-c", f"echo line >> {target}; sleep 1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                              stdin=subprocess.DEVNULL) for _ in range(6)]
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert b"Traceback" not in err, err
        env_ = json.loads(out)
        check_envelope(env_, proc.returncode)
        answers.append(env_)
    assert target.read_text() == "line\n"
    ran = [a for a in answers if a["status"] == "success" and not a.get("replayed")]
    assert len(ran) == 1
    others = [a.get("error", {}).get("code") if a["status"] == "error" else "replayed" for a in answers if a not in ran]
    assert set(others) <= {"IDEMPOTENCY_IN_PROGRESS", "replayed"}


def _operation_of(pid: int) -> str | None:
    """The operation a process supervises (an attached keyed run is its own supervisor)."""
    root = Path(os.environ["AGENTWRAP_STATE_DIR"]) / "operations"
    for state_file in root.glob("op_*/state.json"):
        with contextlib.suppress(ValueError, OSError):
            if json.loads(state_file.read_text()).get("supervisor", {}).get("pid") == pid:
                return state_file.parent.name
    return None


def test_a_killed_keyed_run_is_lost_not_running_forever(tmp_path: Path) -> None:
    key = _key()
    argv = [sys.executable, "-m", "agentwrap", "--agent", "--idempotency-key", key, "--", "sleep", "300.125"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while _operation_of(proc.pid) is None and time.monotonic() < deadline:  # it has taken the key
        time.sleep(0.05)
    busy = aw("--idempotency-key", key, "--", "sleep", "300.125")
    assert busy.error is not None and busy.error["code"] == "IDEMPOTENCY_IN_PROGRESS"
    assert busy.error["operation_id"] == _operation_of(proc.pid)
    op_id = busy.error["operation_id"]
    proc.send_signal(signal.SIGKILL)  # the launcher dies mid-run, with no chance to record anything
    proc.wait(timeout=10)
    assert aw("op", "status", op_id).env["data"]["state"] == "lost"
    after = aw("--idempotency-key", key, "--", "sleep", "300.125")
    assert after.code == 125 and after.error is not None and after.error["code"] == "OPERATION_LOST"
    aw("op", "cancel", op_id)  # ends any of its tree that survived


def test_a_run_that_never_started_leaves_the_key_free(tmp_path: Path) -> None:
    key = _key()
    missing = aw("--idempotency-key", key, "--", "no-such-program-xyz")
    assert missing.code == 127
    target = tmp_path / "log"
    missing2 = aw("--idempotency-key", key, "--", "no-such-program-xyz")
    assert missing2.code == 127 and "replayed" not in missing2.env
    assert not target.exists()


def test_read_only_refusal_is_not_recorded() -> None:
    key = _key()
    assert aw("--read-only", "--idempotency-key", key, "--", "touch", "x").error["code"] == "MUTATION_REFUSED"  # type: ignore[index]
    assert aw("--idempotency-key", key, "--", "true").code == 0


def test_an_attached_keyed_run_records_its_events(tmp_path: Path) -> None:
    key = _key()
    first = aw("--idempotency-key", key, "--", "echo", "recorded")
    op_id = aw("--idempotency-key", key, "--", "echo", "recorded").env["operation_id"]
    events = aw("op", "events", op_id).env["data"]["events"]
    assert [e["type"] for e in events][0] == "operation_started"
    assert events[-1]["type"] == "operation_completed"
    assert events[-1]["envelope"]["request_id"] == first.env["request_id"]
    assert "recorded" in "".join(e.get("text", "") for e in events)
    streamed = aw("--format", "jsonl", "--idempotency-key", _key(), "--", "echo", "x", check=False)
    lines = [json.loads(line) for line in streamed.stdout.decode().splitlines()]
    assert lines[0]["type"] == "operation_started" and lines[-1]["type"] == "operation_completed"
