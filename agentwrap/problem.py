"""Problem types and the wrapper-level problems (CONTRACT section 3).

The records (`Problem`, `CodeAction`) live in `agentwrap.records` and are re-exported here for code that
imports them from this module; adapters build their problems with `agentwrap.sdk.problem`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from agentwrap import codes
from agentwrap.lazyre import lazy
from agentwrap.records import CodeAction as CodeAction  # re-exported: the old import path
from agentwrap.records import Problem as Problem  # re-exported: the old import path
from agentwrap.records import ProblemCode

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


def adapter_problem(tool: str, declared: ProblemCode, detail: str, *, code: str | None = None,
                    extra: dict[str, Any] | None = None, **fields: Any) -> Problem:
    """The one factory of an adapter's problems (`agentwrap.sdk.problem`): the facts come from the code's
    declaration, the `type` URI from `problem_type`, so no adapter writes either by hand. `code` names one
    member of a declared family (rustc's E0308); `fields` are this occurrence's facts (location, exit_code,
    code_actions, ...) and may override a declared one (a title that names the occurrence)."""
    name = code or declared.code
    if not declared.covers(name):
        raise ValueError(f"{name} is not the declared code {declared.code}")
    facts: dict[str, Any] = {
        "title": declared.title, "status": declared.status, "category": declared.category,
        "retryable": declared.retryable, "safe_to_retry": declared.safe_to_retry,
        "suggested_fix": declared.suggested_fix, "docs_url": declared.docs_url, **fields,
    }
    return Problem(type=problem_type(tool, name), detail=detail[:1000], code=name,
                   extra={"tool": tool, **(extra or {})}, **facts)


_NOT_A_PATH = lazy(r"[<-]|[A-Za-z]:[\\/]")  # `<stdin>`, `-`, a Windows drive


def with_files(problem: Problem, change: Callable[[str], str]) -> Problem:
    """`problem` with `change` applied to every `file` it names: its location, its edits, its notes."""
    def fix(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: change(v) if k == "file" and isinstance(v, str) and v else fix(v) for k, v in node.items()}
        if isinstance(node, list | tuple):
            return type(node)(fix(v) for v in node)
        return node

    actions = tuple(a._replace(edit=fix(a.edit)) if a.edit else a for a in problem.code_actions)
    return problem._replace(location=fix(problem.location), extra=fix(problem.extra), code_actions=actions)


def rebased(problem: Problem, folder: str) -> Problem:
    """`problem` with every relative `file` read as relative to `folder` (a `cd`, make's `Entering directory`)."""
    def moved(file: str) -> str:
        if os.path.isabs(file) or _NOT_A_PATH.match(file):
            return file
        return os.path.normpath(os.path.join(folder, file))

    return with_files(problem, moved)
