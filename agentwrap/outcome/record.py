"""The built record of a run: one frozen value that every projection (concise, standard, detailed,
--fields) is a view of. Built once by `agentwrap.outcome.build`; never changed afterwards."""

from __future__ import annotations

from typing import Any

from agentwrap import SCHEMA_VERSION
from agentwrap.problem import Problem
from agentwrap.records import Frozen, field


class Note(Frozen, kw_only=False):
    """A warning of the envelope (`warnings[]`): something the caller should know, not a failure."""

    code: str
    message: str
    more: tuple[tuple[str, Any], ...] = ()  # further members a warning may carry (`stream`)

    @classmethod
    def of(cls, warning: dict[str, Any]) -> Note:
        rest = tuple((k, v) for k, v in warning.items() if k not in ("code", "message"))
        return cls(str(warning["code"]), str(warning["message"]), rest)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **dict(self.more)}


class Stream(Frozen, kw_only=False):
    """One output stream. `text` is the bounded inline text of the complete record; `lean` is what a
    model reads (`--detail concise`): `text` less the lines that carry no fact (noise rules) and the
    lines that data or problems already say. `lean_cut` tells whether `lean` lost facts to the budget."""

    text: str
    bytes: int
    lines: int
    truncated: bool = False
    omitted_lines: int = 0
    artifact: str | None = None
    lean: str = ""
    lean_cut: bool = False
    noise_lines: int = 0  # lines the adapter's noise rules dropped from `lean`
    restated_lines: int = 0  # lines of `text` that data or problems hold, dropped from `lean`

    def to_dict(self) -> dict[str, Any]:
        """The contract's STREAM object."""
        return {"text": self.text, "bytes": self.bytes, "lines": self.lines, "truncated": self.truncated,
                "omitted_lines": self.omitted_lines, "artifact": self.artifact}


class RunRecord(Frozen, kw_only=False):
    """Everything a wrapped run's envelope can say, at its most detailed."""

    request_id: str
    summary: str
    exit_code: int  # agentwrap's own exit code (CONTRACT section 4)
    command: dict[str, Any]
    context: dict[str, Any] | None
    exit: dict[str, Any]
    output: dict[str, Stream]
    metrics: dict[str, Any]
    error: Problem | None = None
    problems: tuple[Problem, ...] = ()
    problems_omitted: int = 0
    data: Any = None
    lean_data: Any = None  # `data` less what problems restate and what is empty or default
    lean_data_cut: int = 0  # items `lean_data` lost to its bound
    lean_data_dropped: tuple[str, ...] = ()  # members its items lost to the bound (`commits.date`)
    effects: tuple[dict[str, Any], ...] = ()
    warnings: tuple[Note, ...] = ()
    artifacts: tuple[dict[str, Any], ...] = ()
    env_set: dict[str, str] = field(default_factory=dict)  # the prevention environment (detailed only)
    noise_fired: tuple[str, ...] = ()  # the noise rules that dropped lines (detailed only)

    @property
    def status(self) -> str:
        return "error" if self.error is not None else "success"

    def standard(self) -> dict[str, Any]:
        """The complete envelope of CONTRACT section 2."""
        instance = f"urn:agentwrap:request:{self.request_id}"
        env: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "status": self.status,
            "summary": self.summary,
            "request_id": self.request_id,
            "command": self.command,
            "context": self.context,
            "exit": self.exit,
            "data": self.data,
            "output": {name: s.to_dict() for name, s in self.output.items()},
            "effects": list(self.effects),
            "verification": {"passed": None, "reason": "not_run", "checks": []},
            "warnings": [w.to_dict() for w in self.warnings],
            "artifacts": list(self.artifacts),
            "error": self.error._replace(instance=instance).to_dict() if self.error else None,
            "problems": [p.to_dict(compact=True) for p in self.problems],
            "metrics": self.metrics,
        }
        if self.problems_omitted:
            env["problems_omitted"] = self.problems_omitted
        return env
