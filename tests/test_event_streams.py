"""Real jsonl streams against `agentwrap schema event` (CONTRACT section 8): every type a run emits is in
the schema, prompt_answered included."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema

from tests.conftest import aw


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    from agentwrap.schema_files import load

    schema = load("event")
    validator: jsonschema.protocols.Validator = jsonschema.validators.validator_for(schema)(schema)
    return validator


def _stream(*args: str) -> list[dict[str, Any]]:
    answer = aw("--format", "jsonl", *args, check=False)
    events = [json.loads(line) for line in answer.stdout.decode().splitlines()]
    for event in events:
        _validator().validate(event)
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    return events


def test_a_prompt_answered_run_streams_schema_valid_events() -> None:
    events = _stream("--answer", "x\\?=yes", "--", "python3", "-c", "print(input('x? '))")
    answered = [e for e in events if e["type"] == "prompt_answered"]
    assert len(answered) == 1 and answered[0]["pattern"] == "x\\?"
    assert events[-1]["type"] == "operation_completed" and events[-1]["status"] == "success"


def test_a_timeout_streams_schema_valid_events() -> None:
    events = _stream("--timeout", "1", "--", "sh", "-c", "echo waiting; sleep 5")
    assert events[-1]["type"] == "operation_completed"
    assert events[-1]["envelope"]["error"]["code"] == "TIMEOUT"


def test_a_detached_launch_and_its_op_events_are_schema_valid() -> None:
    launch = _stream("--detach", "--", "sh", "-c", "echo hi")
    op_id = launch[0]["operation_id"]
    aw("op", "wait", op_id, "--timeout", "30")
    events = _stream("op", "events", op_id)
    assert events[0] == launch[0] and events[-1]["type"] == "operation_completed"
