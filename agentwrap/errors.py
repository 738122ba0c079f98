"""agentwrap's own failures. Each knows its problem code; the CLI edge turns them into Problems."""

from __future__ import annotations

from typing import Any

from agentwrap.problem import Problem, wrapper_problem


class AgentwrapError(Exception):
    code = "INTERNAL"
    subcommand: str | None = None  # the program's subcommand it is about, when known (`git push` refused)

    def __init__(self, detail: str, **problem_fields: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.problem_fields = problem_fields

    def to_problem(self) -> Problem:
        return wrapper_problem(self.code, self.detail, **self.problem_fields)


class UsageError(AgentwrapError):
    code = "USAGE"


class ProgramNotFound(AgentwrapError):
    code = "PROGRAM_NOT_FOUND"


class NotExecutable(AgentwrapError):
    code = "NOT_EXECUTABLE"


class NotAvailableYet(UsageError):
    """A part of the contract that a later release provides."""

    def __init__(self, feature: str) -> None:
        super().__init__(
            f"{feature} is part of the agentwrap contract but is not available in this version yet.",
            suggested_fix=f"Run the command without {feature}; see `agentwrap capabilities` for what is available.",
        )


class HelpRequested(Exception):  # noqa: N818 - not an error: the CLI answers it with the usage text
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text
