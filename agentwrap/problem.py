"""Problem types and the wrapper-level problems (CONTRACT section 3).

The records (`Problem`, `CodeAction`) live in `agentwrap.records` and are re-exported here for code that
imports them from this module; adapters build their problems with `agentwrap.sdk.problem`.
"""

from __future__ import annotations

from typing import Any

from agentwrap import codes
from agentwrap.records import CodeAction as CodeAction  # re-exported: the old import path
from agentwrap.records import Problem as Problem  # re-exported: the old import path

TYPE_PREFIX = "urn:agentwrap:problem:"
DOCS_URL = "https://github.com/agentwrap/agentwrap/blob/main/docs/problems.md#"
APPLICABILITY = ("machine_applicable", "maybe_incorrect", "has_placeholders", "unspecified")


def slug(code: str, tool: str) -> str:
    """The one slug rule: GIT_PUSH_REJECTED of tool git -> push-rejected (the type URI already names the
    tool, so the slug never repeats it)."""
    prefix = tool.upper().replace("-", "_").replace(".", "_") + "_"
    return (code[len(prefix):] if code.startswith(prefix) else code).lower().replace("_", "-")


def problem_type(tool: str, code: str) -> str:
    """The stable dispatch key of an adapter's problem: `urn:agentwrap:problem:TOOL:SLUG` (CONTRACT 3).
    Wrapper-level codes (codes.py) are every tool's and have no TOOL segment: `urn:agentwrap:problem:SLUG`."""
    return f"{TYPE_PREFIX}{tool}:{slug(code, tool)}"


def wrapper_problem(code: str, detail: str, *, exit_code: int | None = None, **overrides: Any) -> Problem:
    """Build a Problem for one of the wrapper-level codes; `overrides` replace the table's facts."""
    info = codes.BY_CODE[code]
    base = Problem(
        type=f"{TYPE_PREFIX}{info.slug}",
        title=info.title,
        status=info.status,
        detail=detail,
        code=info.code,
        category=info.category,
        retryable=info.retryable,
        safe_to_retry=info.safe_to_retry,
        exit_code=exit_code if exit_code is not None else info.exit_code,
        suggested_fix=info.fixes[0] if info.fixes else None,
        docs_url=DOCS_URL + info.slug,
    )
    return base.replace(**overrides) if overrides else base
