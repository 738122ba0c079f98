"""The problem codes pip.py's Python emits, declared once (the rules are data: pip.spec.toml)."""

from __future__ import annotations

from agentwrap.sdk import ProblemCode

DOCS = "https://pip.pypa.io/en/stable/"

#: The codes of the problems pip.py's diagnostics build.
FACTS: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="PIP_NETWORK_ERROR", title="pip: package index unreachable", category="network", status=503,
                retryable=True),
    ProblemCode(code="PIP_NO_MATCHING_DISTRIBUTION", title="pip: no matching distribution", category="not_found",
                status=404),
    ProblemCode(code="PIP_DEPENDENCY_CONFLICT", title="pip: dependency conflict (ResolutionImpossible)",
                category="conflict", status=409),
    ProblemCode(code="PIP_EXTERNALLY_MANAGED", title="pip: externally managed environment (PEP 668)",
                category="precondition", status=412),
    ProblemCode(code="PIP_PYPROJECT_INVALID", title="pip: pyproject.toml is not valid TOML",
                category="validation", status=422),
    ProblemCode(code="PIP_BUILD_FAILED", title="pip: building a package failed", category="dependency", status=502),
)}
