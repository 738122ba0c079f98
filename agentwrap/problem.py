"""RFC 9457 Problem Details with the agent extensions of CONTRACT section 3."""

from __future__ import annotations

from typing import Any, NamedTuple

from agentwrap import codes

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


class CodeAction(NamedTuple):
    title: str
    kind: str = "command"  # quickfix | command | edit
    command: tuple[str, ...] | None = None
    applicability: str = "unspecified"
    is_preferred: bool = False
    edit: dict[str, Any] | None = None

    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        """The RFC 9457 object. `compact` (the entries of `problems`) leaves out what is empty or null and
        what the envelope already says once (instance, exit_code): the deciding `error` stays whole."""
        out: dict[str, Any] = {"title": self.title, "kind": self.kind}
        if self.command is not None:
            out["command"] = list(self.command)
        if self.edit is not None:
            out["edit"] = self.edit
        out["applicability"] = self.applicability
        out["is_preferred"] = self.is_preferred
        return out


class Problem(NamedTuple):
    type: str
    title: str
    status: int
    detail: str
    code: str
    category: str
    retryable: bool
    safe_to_retry: bool
    exit_code: int | None = None
    instance: str | None = None
    retry_after: float | None = None
    suggested_fix: str | None = None
    docs_url: str | None = None
    code_actions: tuple[CodeAction, ...] = ()
    remediation: tuple[dict[str, Any], ...] = ()
    location: dict[str, Any] | None = None
    severity: str = "error"
    extra: dict[str, Any] | None = None  # e.g. prompt, input_kind
    matched: str = ""  # the output line a rule read this from: not serialised, never shown twice

    def with_instance(self, request_id: str) -> Problem:
        return self._replace(instance=f"urn:agentwrap:request:{request_id}")

    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        """The RFC 9457 object. `compact` (the entries of `problems`) leaves out what is empty or null and
        what the envelope already says once (instance, exit_code): the deciding `error` stays whole."""
        out: dict[str, Any] = {
            "type": self.type,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "instance": self.instance,
            "code": self.code,
            "category": self.category,
            "severity": self.severity,
            "exit_code": self.exit_code,
            "retryable": self.retryable,
            "safe_to_retry": self.safe_to_retry,
            "retry_after": self.retry_after,
            "suggested_fix": self.suggested_fix,
            "docs_url": self.docs_url,
            "code_actions": [a.to_dict() for a in self.code_actions],
            "remediation": list(self.remediation),
        }
        if self.location is not None:
            out["location"] = self.location
        if compact:
            for key in ("instance", "exit_code"):
                del out[key]
            for key in ("retry_after", "suggested_fix", "docs_url", "remediation"):
                if out[key] in (None, []):
                    del out[key]
        out.update(self.extra or {})
        return out


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
    return base._replace(**overrides) if overrides else base
