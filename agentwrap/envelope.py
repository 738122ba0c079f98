"""The result envelope of CONTRACT section 2, and the exit-code table of section 4.

Every agentwrap answer (a wrapped run, `explain`, `artifact show`, a usage error) is one of these
dicts, so a caller parses one shape whatever it asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentwrap import SCHEMA_VERSION
from agentwrap.problem import Problem

if TYPE_CHECKING:
    from agentwrap.outcome.record import RunRecord

MAX_PROBLEMS = 50


def empty_stream() -> dict[str, Any]:
    return {"text": "", "bytes": 0, "lines": 0, "truncated": False, "omitted_lines": 0, "artifact": None}


class Outcome:
    """What a command hands back to the CLI edge: its answer and agentwrap's exit code. A wrapped run
    answers with its `RunRecord` (projected at the edge); other commands with an envelope dict."""

    def __init__(self, envelope: dict[str, Any] | None, exit_code: int, raw_text: str | None = None,
                 raw_output: str | None = None, record: RunRecord | None = None, shown_live: bool = False) -> None:
        self.record = record
        self.shown_live = shown_live  # the run's command line and output went to the person's terminal as it ran
        self._envelope = envelope
        self.exit_code = exit_code
        self.raw_text = raw_text  # what a person should see instead (help text), in pretty format
        self.raw_output = raw_output  # printed as is in every format (SARIF, workflow commands), redacted

    @property
    def envelope(self) -> dict[str, Any]:
        """The standard envelope."""
        if self._envelope is None:
            self._envelope = self.record.standard() if self.record is not None else {}
        return self._envelope

    @property
    def answer(self) -> RunRecord | dict[str, Any]:
        return self.record if self.record is not None else self.envelope


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
    """Assemble an envelope; `status` follows from `error` so the two can never disagree, and a failure's
    summary never restates its error's detail (`failure_summary`: CONTRACT 2a rule 1)."""
    if error is not None:
        summary = _failure_summary(summary, error, command)
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


def _failure_summary(summary: str, error: Problem, command: dict[str, Any] | None) -> str:
    from agentwrap.failure_summary import failure_summary, restates

    if not restates(summary, error.detail):
        return summary
    argv = [str(a) for a in (command or {}).get("argv") or []]
    return failure_summary(error, program=argv[0] if argv else None, subcommand=(command or {}).get("subcommand"))
