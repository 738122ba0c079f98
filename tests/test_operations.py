"""Durable operations (CONTRACT section 8): --detach answers at once; `op ...` from later processes."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import aw


def _detach(*argv: str, **kw: object) -> str:
    ans = aw("--detach", "--", *argv, **kw)  # type: ignore[arg-type]
    assert ans.code == 0, ans.env
    op_id = ans.env["operation_id"]
    assert op_id == ans.env["data"]["operation_id"] and op_id.startswith("op_")
    return str(op_id)


def _folder(op_id: str) -> Path:
    return Path(os.environ["AGENTWRAP_STATE_DIR"]) / "operations" / op_id


def _sleeps(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if proc.info["cmdline"] == ["sleep", marker]:
            found.append(proc)
    return found


def test_detach_answers_at_once_and_wait_returns_the_final_envelope() -> None:
    op_id = _detach("sh", "-c", "sleep 2; echo finished")
    status = aw("op", "status", op_id)
    assert status.code == 0 and status.env["data"]["state"] in ("starting", "running")
    done = aw("op", "wait", op_id, "--timeout", "30")  # a new process, long after the launcher exited
    assert done.code == 0, done.env
    assert done.env["operation_id"] == op_id
    assert done.text().strip() == "finished"
    assert done.env["command"]["argv"] == ["sh", "-c", "sleep 2; echo finished"]
    assert aw("op", "status", op_id).env["data"]["state"] == "succeeded"
    assert aw("op", "result", op_id).env == done.env


@pytest.mark.slow  # a long real run: the `-m slow` step
def test_the_launcher_returns_before_the_program_ends() -> None:
    op_id = _detach("sleep", "5")
    state = aw("op", "status", op_id).env["data"]
    assert state["state"] == "running"  # the 5 s program is still going after the launcher answered
    assert aw("op", "wait", op_id, "--timeout", "30").code == 0


def test_a_failed_program_keeps_its_exit_code() -> None:
    op_id = _detach("sh", "-c", "echo bad >&2; exit 3")
    done = aw("op", "wait", op_id, "--timeout", "30")
    assert done.code == 3 and done.env["status"] == "error"
    assert aw("op", "status", op_id).env["data"]["state"] == "failed"


def test_status_says_each_state_in_english() -> None:
    """Not "operation … is succeeded" / "is cancelled": a finished state is a verb, a live one "is running"."""
    done = _detach("true")
    assert aw("op", "wait", done, "--timeout", "30").code == 0
    assert aw("op", "status", done).env["summary"].startswith(f"operation {done} succeeded")
    bad = _detach("sh", "-c", "exit 3")
    aw("op", "wait", bad, "--timeout", "30")
    assert aw("op", "status", bad).env["summary"].startswith(f"operation {bad} failed")
    running = _detach("sleep", "30.75")
    deadline = time.monotonic() + 20
    while aw("op", "status", running).env["data"]["state"] != "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert aw("op", "status", running).env["summary"].startswith(f"operation {running} is running")
    assert aw("op", "cancel", running).code == 0
    assert aw("op", "status", running).env["summary"].startswith(f"operation {running} was cancelled")


def test_wait_that_times_out_says_still_running() -> None:
    op_id = _detach("sleep", "30.5")
    ans = aw("op", "wait", op_id, "--timeout", "200ms")
    assert ans.code == 125 and ans.error is not None
    assert ans.error["code"] == "OPERATION_RUNNING" and ans.error["safe_to_retry"] is True
    assert aw("op", "result", op_id).error["code"] == "OPERATION_RUNNING"  # type: ignore[index]
    assert aw("op", "cancel", op_id).code == 0


def test_cancel_ends_the_tree_and_says_what_remains() -> None:
    op_id = _detach("sh", "-c", "sleep 300.25 & sleep 300.25; wait")
    deadline = time.monotonic() + 20
    while len(_sleeps("300.25")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_sleeps("300.25")) == 2
    ans = aw("op", "cancel", op_id)
    assert ans.code == 0, ans.env
    data = ans.env["data"]
    assert data["state"] == "cancelled" and data["already_finished"] is False
    assert data["mutating"] is True and data["effects_uncertain"]  # sh -c with an unknown effect
    assert _sleeps("300.25") == []  # no sleep remains
    result = aw("op", "result", op_id)
    assert result.error is not None and result.error["code"] == "INTERRUPTED"
    again = aw("op", "cancel", op_id)
    assert again.env["data"]["already_finished"] is True


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_events_resume_after_a_sequence_number() -> None:
    op_id = _detach("sh", "-c", "echo one; sleep 0.3; echo two; sleep 0.3; echo three")
    assert aw("op", "wait", op_id, "--timeout", "30").code == 0
    every = aw("op", "events", op_id).env["data"]
    assert every["complete"] is True
    seqs = [e["sequence"] for e in every["events"]]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= 3
    assert every["events"][0]["type"] == "operation_started"
    assert every["events"][-1]["type"] == "operation_completed"
    assert all(e["operation_id"] == op_id for e in every["events"])
    later = aw("op", "events", op_id, "--after", "2").env["data"]
    assert [e["sequence"] for e in later["events"]] == seqs[2:]
    assert later["next_after"] == seqs[-1]
    texts = "".join(e.get("text", "") for e in every["events"] if e["type"] == "output")
    assert "one" in texts and "three" in texts


def test_events_are_the_jsonl_stream(result_schema: dict[str, object]) -> None:
    import jsonschema

    from agentwrap.schema_files import load

    op_id = _detach("echo", "hello")
    aw("op", "wait", op_id, "--timeout", "30")
    raw = aw("--format", "jsonl", "op", "events", op_id, check=False)
    lines = [json.loads(line) for line in raw.stdout.decode().splitlines()]
    schema = load("event")
    for event in lines:
        jsonschema.validate(event, schema)
    assert lines[-1]["type"] == "operation_completed"


@pytest.mark.slow  # ~10 s each: kept out of the default suite's 5-minute budget, run by -m slow
def test_killed_supervisor_leaves_an_operation_reported_lost() -> None:
    op_id = _detach("sleep", "300.5")
    state = json.loads((_folder(op_id) / "state.json").read_text())
    os.kill(state["supervisor"]["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while psutil.pid_exists(state["supervisor"]["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    status = aw("op", "status", op_id).env["data"]
    assert status["state"] == "lost" and "supervisor" in status["lost_reason"]
    result = aw("op", "wait", op_id, "--timeout", "5")
    assert result.code == 125 and result.error["code"] == "OPERATION_LOST"  # type: ignore[index]
    assert result.error["safe_to_retry"] is False  # type: ignore[index]
    aw("op", "cancel", op_id)  # ends whatever of its tree is left
    assert _sleeps("300.5") == []


def test_state_files_are_whole_json_and_private() -> None:
    op_id = _detach("echo", "x")
    aw("op", "wait", op_id, "--timeout", "30")
    folder = _folder(op_id)
    for name in ("request.json", "state.json", "result.json"):
        json.loads((folder / name).read_text())
        assert (folder / name).stat().st_mode & 0o077 == 0
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_list_and_unknown_ids() -> None:
    op_id = _detach("echo", "listed")
    aw("op", "wait", op_id, "--timeout", "30")
    listed = aw("op", "list").env["data"]["operations"]
    assert op_id in [o["operation_id"] for o in listed]
    missing = aw("op", "status", "op_00000000000000000000000000")
    assert missing.code == 125 and missing.error["code"] == "OPERATION_NOT_FOUND"  # type: ignore[index]
    bad = aw("op", "status", "nonsense")
    assert bad.error["code"] == "OPERATION_NOT_FOUND"  # type: ignore[index]
    assert aw("op", "frobnicate", "x").error["code"] == "USAGE"  # type: ignore[index]


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_prune_keeps_running_operations_and_removes_old_finished_ones() -> None:
    done = _detach("echo", "old")
    aw("op", "wait", done, "--timeout", "30")
    running = _detach("sleep", "30.75")
    removed = aw("op", "prune", "--older-than", "0").env["data"]["removed"]
    assert done in removed and running not in removed
    assert aw("op", "status", running).env["data"]["state"] == "running"
    aw("op", "cancel", running)


def test_detach_with_read_only_refuses_before_starting() -> None:
    ans = aw("--read-only", "--detach", "--", "touch", "x")
    assert ans.code == 125 and ans.error["code"] == "MUTATION_REFUSED"  # type: ignore[index]


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_events_wait_for_the_next_ones() -> None:
    op_id = _detach("sh", "-c", "sleep 1; echo late")
    first = aw("op", "events", op_id).env["data"]
    start = first["next_after"]
    later = aw("op", "events", op_id, "--after", str(start), "--wait", "30s").env["data"]
    assert later["events"] and later["events"][0]["sequence"] == start + 1
    aw("op", "wait", op_id, "--timeout", "30")


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_a_detached_run_is_not_held_to_the_agent_default_timeout() -> None:
    op_id = _detach("true")
    done = aw("op", "wait", op_id, "--timeout", "30")
    assert done.env["context"]["timeout_ms"] == 24 * 3600 * 1000
    op_id = str(aw("--timeout", "90s", "--detach", "--", "true").env["operation_id"])
    assert aw("op", "wait", op_id, "--timeout", "30").env["context"]["timeout_ms"] == 90_000


def test_read_only_refuses_cancel_and_prune_and_allows_status() -> None:
    op_id = _detach("sleep", "30.875")
    refused = aw("--read-only", "op", "cancel", op_id)
    assert refused.code == 125 and refused.error["code"] == "MUTATION_REFUSED"  # type: ignore[index]
    assert aw("--read-only", "op", "status", op_id).env["data"]["state"] == "running"
    assert aw("--read-only", "op", "prune").error["code"] == "MUTATION_REFUSED"  # type: ignore[index]
    assert aw("op", "cancel", op_id).env["data"]["state"] == "cancelled"


def test_a_launcher_killed_before_its_supervisor_started_leaves_a_lost_operation() -> None:
    from agentwrap.ids import new_id
    from agentwrap.operations import store

    op_id = new_id("op")  # what a launcher killed between recording the request and the fork leaves
    folder = _folder(op_id)
    folder.mkdir(parents=True)
    store.write_json(folder / "request.json", {"argv": ["true"], "cwd": "/", "options": {}})
    store.write_json(folder / "state.json", {"operation_id": op_id, "state": "starting", "argv": ["true"],
                                             "created_epoch": time.time() - 60})
    status = aw("op", "status", op_id).env["data"]
    assert status["state"] == "lost"
    assert aw("op", "wait", op_id, "--timeout", "5").error["code"] == "OPERATION_LOST"  # type: ignore[index]
