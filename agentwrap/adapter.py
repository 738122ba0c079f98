"""The adapter seam: what a per-tool adapter receives and returns (CONTRACT section 6).

Adapters are pure: they read a finished, captured run and return facts. They never start a process.
`BaseAdapter` holds the defaults, so an adapter declares only what differs for its tool.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from agentwrap.lazyre import lazy
from agentwrap.problem import Problem, wrapper_problem

if TYPE_CHECKING:
    from agentwrap.capture import StreamResult


class CapturedRun(NamedTuple):
    argv: tuple[str, ...]
    program: str
    exit_code: int | None
    signal: int | None
    stdout: StreamResult
    stderr: StreamResult
    duration_ms: int = 0


class Interpretation(NamedTuple):
    summary: str
    error: Problem | None = None
    problems: tuple[Problem, ...] = ()
    data: Any = None
    effects: tuple[dict[str, Any], ...] = ()


class Effects(NamedTuple):
    read_only: bool | None = None  # None: unknown
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


class Adapter(Protocol):
    @property
    def name(self) -> str: ...

    def environment(self, argv: list[str]) -> dict[str, str]: ...
    def subcommand(self, argv: list[str]) -> str | None: ...
    def effects(self, argv: list[str]) -> Effects: ...
    def interpret(self, run: CapturedRun) -> Interpretation: ...


def program_name(argv0: str) -> str:
    return os.path.basename(argv0)


_ERROR_LINE = lazy(r"\b(error|fatal|failed|failure|exception|denied|refused|not found|cannot|panic)\b",
                         re.IGNORECASE)


def last_error_line(run: CapturedRun) -> str | None:
    """The line most likely to say why a run failed: the last error-looking line, else the last line."""
    for stream in (run.stderr, run.stdout):
        candidates = [*(text for _, text in stream.salient), *stream.tail]
        for line in reversed(candidates):
            if _ERROR_LINE.search(line) and line.strip():
                return line.strip()
    for stream in (run.stderr, run.stdout):
        for line in reversed(stream.tail):
            if line.strip():
                return line.strip()
    return None


class BaseAdapter:
    """Defaults for every adapter: no extra environment, no subcommands, the exit code decides."""

    name = "generic"
    env: dict[str, str] = {}  # noqa: RUF012 - read-only by convention; subclasses replace it

    def environment(self, argv: list[str]) -> dict[str, str]:
        return dict(self.env)

    def subcommand(self, argv: list[str]) -> str | None:
        return None

    def effects(self, argv: list[str]) -> Effects:
        return Effects()

    def interpret(self, run: CapturedRun) -> Interpretation:
        prog = program_name(run.argv[0])
        if run.signal is None and run.exit_code == 0:
            lines = run.stdout.lines
            return Interpretation(summary=f"{prog} succeeded ({lines} line{'s' * (lines != 1)} of output)")
        if run.signal is not None:
            return Interpretation(summary=f"{prog} was killed by signal {run.signal}")
        reason = last_error_line(run)
        detail = f"{prog} exited with status {run.exit_code}" + (f": {reason}" if reason else " and printed nothing")
        error = wrapper_problem("COMMAND_FAILED", detail[:1000], exit_code=run.exit_code)
        return Interpretation(summary=detail[:200], error=error)
