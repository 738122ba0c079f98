"""What a log says about its steps besides diagnostics: the last lines each printed, and the ones the runner
marked failed (`##[error]Process completed with exit code N.`).

A failed step whose output named no diagnostic is a problem of its own, carrying those last lines
(`Permission denied (publickey).`): a reader is told what the step said, not only that it failed. A step
whose warnings explain it is judged at the end (`normalize`'s verdict), without one more problem.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from agentwrap.logs import ci
from agentwrap.problem import Problem, wrapper_problem

TAIL = 5  # lines kept
WIDTH = 200  # characters kept of each


def last_lines(data: bytes, n: int = TAIL) -> list[str]:
    """The last `n` non-blank lines of `data` (whole lines), each cut to WIDTH characters."""
    pieces = data.rstrip(b"\n").rsplit(b"\n", 4 * n)
    lines = [piece.decode("utf-8", "replace").strip() for piece in pieces]
    return [line[:WIDTH] for line in lines if line][-n:]


def quoted(lines: list[str]) -> str:
    return "\n".join(f"  {line}" for line in lines)


class Steps:
    def __init__(self) -> None:
        self.name = ""
        self.failures: list[dict[str, Any]] = []
        self._header = False  # in a `Run …` step's header (its script and env, not its output)
        self._tail: deque[str] = deque(maxlen=TAIL)
        self._log_tail: deque[str] = deque(maxlen=TAIL)
        self._errors = 0  # errors and warnings kept in the step

    def start(self, name: str) -> None:
        self.name = name
        self._header = ci.is_run_step(name)
        self._tail.clear()
        self._errors = 0

    def body(self) -> None:
        self._header = False

    def output(self, data: bytes) -> None:
        if self._header:
            return
        lines = last_lines(data)
        self._tail.extend(lines)
        self._log_tail.extend(lines)

    def kept(self, severity: str) -> None:
        if severity in ("error", "warning"):
            self._errors += 1

    def log_tail(self) -> list[str]:
        return list(self._log_tail)

    def failed(self, code: int) -> Problem | None:
        """The runner marked the step failed: a problem when nothing in it was an error or warning already."""
        self.failures.append({"step": self.name or None, "exit_code": code})
        if self._errors:
            return None
        which = f"step `{self.name}`" if self.name else "the step"
        detail = f"{which} failed with exit status {code} and no diagnostic was found in its log"
        if self._tail:
            detail += f"; its last lines:\n{quoted(list(self._tail))}"
        extra = {"step": self.name} if self.name else None
        return wrapper_problem("COMMAND_FAILED", detail, exit_code=code, extra=extra)
