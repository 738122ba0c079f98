"""What `--detach` answers at launch (CONTRACT section 8): a run that cannot start is answered as the
attached run answers it, and a jsonl launcher prints only what is true then, the same first event that
`op events` returns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import aw


@pytest.mark.parametrize(("argv", "code", "problem"), [
    (["--cwd", "/no/such/dir", "--", "make"], 125, "USAGE"),
    (["--", "nosuchprog-4711"], 127, "PROGRAM_NOT_FOUND"),
])
def test_a_detached_run_that_cannot_start_is_answered_at_launch(argv: list[str], code: int,
                                                                 problem: str) -> None:
    attached = aw(*argv)
    detached = aw("--detach", *argv)
    assert detached.code == attached.code == code
    assert detached.error is not None and attached.error is not None
    assert detached.error["code"] == attached.error["code"] == problem
    assert detached.error["detail"] == attached.error["detail"]
    assert "operation_id" not in detached.env  # nothing was started


def test_not_executable_is_answered_at_launch(tmp_path: Path) -> None:
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\necho ran\n")
    attached, detached = aw("--", str(script)), aw("--detach", "--", str(script))
    assert attached.error is not None and detached.error is not None
    assert detached.error["code"] == attached.error["code"] == "NOT_EXECUTABLE"
    assert "operation_id" not in detached.env


def _lines(stdout: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.decode().splitlines()]


def test_a_jsonl_launch_prints_only_the_operations_first_event() -> None:
    line = "echo one; sleep 1; echo two"
    launched = aw("--detach", "--format", "jsonl", "--", "sh", "-c", line, check=False)
    assert launched.code == 0
    lines = _lines(launched.stdout)
    assert [e["type"] for e in lines] == ["operation_started"]  # not completed, not a success: it runs
    started = lines[0]
    op_id = str(started["operation_id"])
    assert started["sequence"] == 1 and started["detached"] is True
    assert started["argv"] == ["sh", "-c", line] and str(started["program"]).endswith("sh")
    assert aw("op", "wait", op_id, "--timeout", "30").code == 0
    replayed = aw("--format", "jsonl", "op", "events", op_id, check=False).stdout
    events = _lines(replayed)
    assert events[0] == started  # the launcher's line is the operation's own first event
    assert replayed.splitlines()[0] == launched.stdout.splitlines()[0]  # byte for byte (CONTRACT 8)
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events].count("operation_started") == 1
    assert events[-1]["type"] == "operation_completed" and events[-1]["status"] == "success"


def test_the_launch_summary_quotes_the_argv_as_a_shell_would() -> None:
    launched = aw("--detach", "--", "sh", "-c", "echo start; sleep 1")
    assert launched.env["summary"].endswith(": sh -c 'echo start; sleep 1'")
    aw("op", "wait", launched.env["operation_id"], "--timeout", "30")


def test_op_events_under_agent_carries_the_final_envelope_concise() -> None:
    """`agentwrap --agent op events` is read by an agent: the operation_completed event's envelope is the
    concise one `op wait` gives, not the audit record (jsonl keeps the events as written)."""
    launched = aw("--detach", "--", "sh", "-c", "echo done", detail="concise").env
    op_id = launched["data"]["operation_id"]
    assert aw("op", "wait", op_id, "--timeout", "30").code == 0
    events = aw("op", "events", op_id, detail="concise").env["data"]["events"]
    final = events[-1]
    assert final["type"] == "operation_completed"
    result = aw("op", "result", op_id, detail="concise").env
    assert final["envelope"] == {k: v for k, v in result.items() if k != "operation_id"}
    assert "request_id" not in final["envelope"] and "metrics" not in final["envelope"]
