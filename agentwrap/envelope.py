"""The result envelope of CONTRACT section 2, and the exit-code table of section 4.

Every agentwrap answer (a wrapped run, `explain`, `artifact show`, a usage error) is one of these
dicts, so a caller parses one shape whatever it asked.
"""

from __future__ import annotations

from typing import Any

from agentwrap import SCHEMA_VERSION
from agentwrap.problem import Problem

MAX_PROBLEMS = 50


def empty_stream() -> dict[str, Any]:
    return {"text": "", "bytes": 0, "lines": 0, "truncated": False, "omitted_lines": 0, "artifact": None}


class Outcome:
    """What a command hands back to the CLI edge: the envelope and agentwrap's exit code."""

    def __init__(self, envelope: dict[str, Any], exit_code: int, raw_text: str | None = None,
                 raw_output: str | None = None) -> None:
        self.envelope = envelope
        self.exit_code = exit_code
        self.raw_text = raw_text  # what a person should see instead (help text), in pretty format
        self.raw_output = raw_output  # printed as is in every format (SARIF, workflow commands), redacted


def build(
    *,
    request_id: str,
    summary: str,
    error: Problem | None = None,
    problems: list[Problem] | None = None,
    data: Any = None,
    command: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    exit_info: dict[str, Any] | None = None,
    output: dict[str, Any] | None = None,
    effects: list[dict[str, Any]] | None = None,
    verification: dict[str, Any] | None = None,
    warnings: list[dict[str, Any]] | None = None,
    artifacts: list[dict[str, Any]] | None = None,
    metrics: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble an envelope; `status` follows from `error` so the two can never disagree."""
    error = error.with_instance(request_id) if error is not None else None
    all_problems = [p.with_instance(request_id) for p in (problems or [])]
    if error is not None and not any(p.code == error.code and p.detail == error.detail for p in all_problems):
        all_problems.insert(0, error)
    cut = max(0, len(all_problems) - MAX_PROBLEMS)
    env: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "status": "error" if error is not None else "success",
        "summary": summary,
        "request_id": request_id,
        "command": command,
        "context": context,
        "exit": exit_info,
        "data": data,
        "output": output or {"stdout": empty_stream(), "stderr": empty_stream()},
        "effects": effects or [],
        "verification": verification or {"passed": None, "reason": "not_run", "checks": []},
        "warnings": list(warnings or []),
        "artifacts": artifacts or [],
        "error": error.to_dict() if error is not None else None,
        "problems": [p.to_dict(compact=True) for p in all_problems[:MAX_PROBLEMS]],
        "metrics": metrics,
    }
    if cut:
        env["problems_omitted"] = cut
        env["warnings"].append({"code": "PROBLEMS_TRUNCATED", "message": f"{cut} more problems were left out."})
    return env


def bound_data(data: Any, budget: int) -> tuple[Any, int]:
    """`data` within about `budget` bytes of JSON: the longest lists are cut (their first items kept) and
    each cut is counted in a sibling `<key>_omitted`. Returns the data and how many items were left out."""
    import json

    if data is None or len(json.dumps(data, default=str)) <= budget:
        return data, 0
    data = json.loads(json.dumps(data, default=str))  # a private copy to cut
    omitted = 0
    for _ in range(64):
        lists = sorted(_lists(data), key=lambda found: -len(found[0][found[1]]))
        if not lists or len(json.dumps(data)) <= budget:
            break
        parent, key = lists[0]
        items = parent[key]
        keep = max(len(items) // 2, 0) if len(items) > 3 else 0
        if keep == len(items):
            break
        omitted += len(items) - keep
        parent[key] = items[:keep]
        if isinstance(parent, dict) and isinstance(key, str):
            parent[f"{key}_omitted"] = parent.get(f"{key}_omitted", 0) + len(items) - keep
    return data, omitted


def _lists(node: Any) -> list[tuple[Any, Any]]:
    found: list[tuple[Any, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, list) and value:
                found.append((node, key))
            found.extend(_lists(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_lists(item))
    return found


def exit_code_for(error: Problem | None, *, program_exit: int | None, signal: int | None) -> int:
    """CONTRACT section 4: the one place that turns a result into agentwrap's process exit code."""
    if error is None:
        return 0
    if error.code == "TIMEOUT":
        return 124
    if error.code in ("NOT_EXECUTABLE", "PROGRAM_NOT_FOUND") or error.exit_code in (125, 126, 127):
        return error.exit_code or 125
    if signal is not None:
        return 128 + signal
    if program_exit:
        return program_exit
    return 1  # the program exited 0 but its adapter found a failure
