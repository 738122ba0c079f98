"""One diagnostic read twice, by a tool's adapter and by a problem matcher (setup-node's `tsc.json`, an
eslint-stylish matcher a workflow adds), told apart from two diagnostics on one line.

The two forms name the same file and line, the same column where both have one, and one message holds
the other (an adapter's detail quotes the whole line, `src/a.ts(12,5): error TS2322: Type …`, a matcher's
message is the text after the severity). Which one is kept: the richer.
"""

from __future__ import annotations

from agentwrap.problem import Problem


def _words(text: str | None) -> str:
    return " ".join((text or "").split())


def same_diagnostic(a: Problem, b: Problem) -> bool:
    la, lb = a.location or {}, b.location or {}
    if not la.get("file") or la.get("file") != lb.get("file") or la.get("line") != lb.get("line"):
        return False
    if la.get("column") and lb.get("column") and la["column"] != lb["column"]:
        return False
    da, db = _words(a.detail), _words(b.detail)
    return bool(da and db) and (da in db or db in da)


def richness(p: Problem) -> tuple[bool, int, bool, int]:
    """A code of its own (not a format's catch-all TOOL_DIAGNOSTIC), then more of the location, a rule, a
    longer message."""
    extra = p.extra or {}
    own_code = not p.code.endswith("_DIAGNOSTIC")
    return (own_code, len(p.location or {}), bool(extra.get("rule")), len(p.detail or ""))


def one_per_line(found: list[tuple[Problem, str]]) -> list[tuple[Problem, str]]:
    """One problem per printed line when adapters of two tools read it (gcc's adapter reads mypy's
    `src/a.py:10:12: error:` as file `src/a.py:10`, line 12): the richer reading is kept."""
    kept: list[tuple[Problem, str]] = []
    by_line: dict[str, int] = {}
    for p, tool in found:
        line = _words(p.matched or p.detail)
        at = by_line.get(line) if p.location else None
        if at is None or kept[at][1] == tool:
            if p.location and line:
                by_line.setdefault(line, len(kept))
            kept.append((p, tool))
        elif richness(p) > richness(kept[at][0]):
            kept[at] = (p, tool)
    return kept
