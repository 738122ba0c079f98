from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from jsonschema import Draft202012Validator

from agentwrap import codes, envelope, schema_files
from agentwrap.problem import CodeAction, Problem, wrapper_problem

SHA = "0" * 64


def validator(kind: str) -> Draft202012Validator:
    schema = schema_files.load(kind)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def is_valid(kind: str, instance: Any) -> bool:
    return validator(kind).is_valid(instance)


def full_envelope(**kwargs: Any) -> dict[str, Any]:
    stream = {"text": "ok\n", "bytes": 3, "lines": 1, "truncated": False, "omitted_lines": 0,
              "artifact": None}
    return envelope.build(
        request_id="req_test",
        summary="ran",
        command={"argv": ["git", "push"], "program": "/usr/bin/git", "adapter": "git", "subcommand": "push"},
        context={"cwd": "/tmp", "pty": True, "env_set": {"GIT_PAGER": "cat"},
                 "started_at": "2026-01-02T03:04:05.678Z", "timeout_ms": 300000},
        exit_info={"code": 0, "signal": None, "timed_out": False, "duration_ms": 812},
        output={"stdout": stream, "stderr": {"text": "", "bytes": 0, "truncated": False}},
        effects=[{"resource": "refs/heads/main", "action": "update"}],
        verification={"passed": True, "reason": "exit 0", "checks": []},
        warnings=[{"code": "OUTPUT_TRUNCATED", "message": "cut"}],
        artifacts=[{"id": "art_01", "uri": "file:///tmp/a", "media_type": "text/plain", "bytes": 10,
                    "sha256": SHA, "expires_at": "2026-01-09T00:00:00Z"}],
        metrics={"duration_ms": 812, "cpu_ms": 20, "max_rss_bytes": 1024, "raw_bytes": 3, "inline_bytes": 3},
        **kwargs,
    )


def compile_problem(line: int) -> Problem:
    return Problem(
        type="urn:agentwrap:problem:gcc:compile-error", title="Compile error", status=422,
        detail=f"expected ';' at line {line}", code="GCC_COMPILE_ERROR", category="validation",
        retryable=False, safe_to_retry=True, exit_code=1,
        location={"file": "src/a.c", "line": line, "column": 5},
        code_actions=(CodeAction(title="Insert ';'", kind="edit", edit={"insert": ";"},
                                 applicability="machine_applicable", is_preferred=True),),
        remediation=({"action": "edit_file", "args": {"file": "src/a.c"}, "requires_user": False},),
    )


@pytest.mark.parametrize("kind", schema_files.KINDS)
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    schema = schema_files.load(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{kind}.schema.json")


def test_load_returns_a_fresh_copy() -> None:
    schema_files.load("problem")["title"] = "changed"
    assert schema_files.load("problem")["title"] != "changed"


def test_load_unknown_kind() -> None:
    with pytest.raises(ValueError, match="kinds: result, problem, event"):
        schema_files.load("nope")


def test_bundled_copies_agree_with_the_files() -> None:
    result = schema_files.load("result")
    event = schema_files.load("event")
    assert result["$defs"]["problem"] == schema_files.load("problem")
    assert event["$defs"]["result"] == result


def test_minimal_success_envelope_validates() -> None:
    env = envelope.build(request_id="req_test", summary="ok")
    validator("result").validate(env)


def test_full_success_envelope_validates() -> None:
    validator("result").validate(full_envelope(data={"pushed": 1}))


def test_error_envelope_validates() -> None:
    err = wrapper_problem("TIMEOUT", "still running after 90s", retry_after=5)
    env = full_envelope(error=err)
    assert env["status"] == "error"
    validator("result").validate(env)


def test_envelope_with_problems_validates() -> None:
    problems = [compile_problem(n) for n in range(1, 4)]
    err = wrapper_problem("COMMAND_FAILED", "gcc exited 1", exit_code=1)
    validator("result").validate(full_envelope(error=err, problems=problems))
    validator("result").validate(full_envelope(problems=problems))  # diagnostics on a success


def test_truncated_problems_validate() -> None:
    problems = [compile_problem(n) for n in range(1, envelope.MAX_PROBLEMS + 6)]
    env = envelope.build(request_id="req_test", summary="many", problems=problems)
    assert env["problems_omitted"] == 5
    validator("result").validate(env)


def test_replayed_envelope_validates() -> None:
    env = full_envelope()
    env["replayed"] = True
    assert is_valid("result", env)
    env["replayed"] = "yes"
    assert not is_valid("result", env)


@pytest.mark.parametrize("code", sorted(codes.BY_CODE))
def test_every_wrapper_problem_validates(code: str) -> None:
    extra = {"prompt": "Password: ", "input_kind": "password"} if code == "INPUT_REQUIRED" else {}
    problem = wrapper_problem(code, "detail", extra=extra).with_instance("req_test").to_dict()
    validator("problem").validate(problem)
    assert problem["category"] in codes.CATEGORIES


def test_input_required_needs_prompt_and_kind() -> None:
    problem = wrapper_problem("INPUT_REQUIRED", "asked").to_dict()
    assert not is_valid("problem", problem)
    problem.update(prompt=None, input_kind="editor", detection="editor-shim")
    assert is_valid("problem", problem)
    problem["input_kind"] = "telepathy"
    assert not is_valid("problem", problem)


def test_status_error_requires_an_error() -> None:
    env = full_envelope()
    env["status"] = "error"
    assert not is_valid("result", env)


def test_status_success_forbids_an_error() -> None:
    env = full_envelope(error=wrapper_problem("INTERNAL", "boom"))
    env["status"] = "success"
    assert not is_valid("result", env)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("error", "category"), "oops"),
        (("error", "severity"), "fatal"),
        (("error", "retry_after"), -1),
        (("error", "status"), 42),
        (("problems", 1, "code_actions", 0, "kind"), "magic"),
        (("problems", 1, "location", "line"), 0),
        (("schema_version",), "2.0"),
        (("request_id",), "abc"),
        (("artifacts", 0, "sha256"), "xyz"),
        (("context", "started_at"), "2026-01-02 03:04:05"),
        (("context", "env_set", "GIT_PAGER"), 1),
        (("exit", "duration_ms"), -1),
        (("metrics", "raw_bytes"), 1.5),
        (("output", "stdout", "bytes"), -1),
    ],
)
def test_bad_values_are_rejected(path: tuple[Any, ...], value: Any) -> None:
    err = wrapper_problem("COMMAND_FAILED", "x", exit_code=2)
    env = full_envelope(error=err, problems=[compile_problem(1)])
    assert is_valid("result", env)
    target: Any = env
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert not is_valid("result", env)


@pytest.mark.parametrize("missing", ["text", "bytes", "truncated"])
def test_stream_missing_fields_rejected(missing: str) -> None:
    env = full_envelope()
    del env["output"]["stdout"][missing]
    assert not is_valid("result", env)


@pytest.mark.parametrize("missing", ["status", "error", "problems", "output", "request_id", "schema_version"])
def test_envelope_missing_fields_rejected(missing: str) -> None:
    env = full_envelope()
    del env[missing]
    assert not is_valid("result", env)


def test_problem_missing_required_rejected() -> None:
    problem = wrapper_problem("USAGE", "bad flag").to_dict()
    for key in ("type", "title", "status", "detail", "code", "category", "retryable", "safe_to_retry"):
        broken = copy.deepcopy(problem)
        del broken[key]
        assert not is_valid("problem", broken), key


def event(type_: str, sequence: int = 1, **fields: Any) -> dict[str, Any]:
    return {"schema_version": "1.0", "type": type_, "operation_id": "op_01", "sequence": sequence,
            "timestamp": "2026-01-02T03:04:05.678Z", **fields}


def event_examples() -> list[dict[str, Any]]:
    err = wrapper_problem("TIMEOUT", "slow")
    return [
        event("operation_started", command={"argv": ["make"]}),
        event("output", 2, stream="stdout", text="building\n"),
        event("progress", 3, phase="download", percent=42.5),
        event("progress", 4, phase="download", completed=3, total=10),
        event("prompt_detected", 5, prompt="Continue? [y/N]", input_kind="confirmation"),
        event("warning", 6, code="OUTPUT_TRUNCATED", message="cut"),
        event("problem", 7, problem=err.to_dict()),
        event("operation_completed", 8, status="error",
              envelope=envelope.build(request_id="req_test", summary="timed out", error=err)),
        event("operation_completed", 9, status="success", envelope=full_envelope()),
    ]


@pytest.mark.parametrize("example", event_examples(), ids=lambda e: f"{e['type']}-{e['sequence']}")
def test_event_examples_validate(example: dict[str, Any]) -> None:
    validator("event").validate(example)


@pytest.mark.parametrize(
    "broken",
    [
        {k: v for k, v in event("output", stream="stdout", text="x").items() if k != "sequence"},
        event("output", 0, stream="stdout", text="x"),
        event("output", stream="stdin", text="x"),
        event("output", stream="stdout"),
        event("progress", phase="build"),
        event("progress", phase="build", percent=101),
        event("prompt_detected", prompt="Password:"),
        event("warning", code="X"),
        event("problem", problem={"title": "no type"}),
        event("operation_completed", status="success"),
        event("operation_completed", status="error",
              envelope=envelope.build(request_id="req_test", summary="ok")),
        event("finished"),
    ],
    ids=["no-sequence", "sequence-0", "bad-stream", "no-text", "no-progress-amount", "percent-over-100",
         "no-input-kind", "no-message", "bad-problem", "no-envelope", "status-mismatch", "unknown-type"],
)
def test_broken_events_rejected(broken: dict[str, Any]) -> None:
    assert not is_valid("event", broken)


def test_validation_error_is_raised_for_bad_envelope() -> None:
    with pytest.raises(jsonschema.ValidationError):
        validator("result").validate({"status": "success"})
