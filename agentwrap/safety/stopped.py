"""A mutating program that agentwrap stopped part-way (timeout, signal, interruption) may have changed
some, all or none of what it was asked to: the error says so, with the
effects observed, those that may have happened, the read-only command that finds out, and any known
leftover (a lock file, a half-configured package) with the command that cleans it up. Such an error is
`retryable` (it may succeed later) but never `safe_to_retry` (repeating it may repeat a change)."""

from __future__ import annotations

import dataclasses
from typing import Any

from agentwrap.adapter import Adapter
from agentwrap.outcome.record import RunRecord
from agentwrap.problem import CodeAction, Problem

# A refused prompt (INPUT_REQUIRED) is left out: the prompt is where the program stopped, and the adapter's
# prompt rules already say what its own non-interactive form is (apt's confirmation comes before any change).
STOPPED = frozenset(("TIMEOUT", "INTERRUPTED", "KILLED_BY_SIGNAL"))


def annotate(record: RunRecord, argv: list[str], adapter: Adapter, cwd: str) -> RunRecord:
    error = record.error
    if error is None or error.code not in STOPPED:
        return record
    from agentwrap.safety.readonly import classify

    if classify(argv, adapter).read_only:  # what --read-only would run changes nothing when repeated
        if error.safe_to_retry:
            return record
        safe = error._replace(safe_to_retry=True)
        return dataclasses.replace(record, error=safe,
                                   problems=tuple(safe if _same(p, error) else p for p in record.problems))
    from agentwrap.safety.remaining import after_stop

    facts = after_stop(argv, {"effects": list(record.effects)}, cwd)
    actions = list(error.code_actions)
    if facts.get("check_command"):
        actions.append(CodeAction(title="Find out what it changed (read-only)", command=tuple(facts["check_command"]),
                                  applicability="machine_applicable", is_preferred=not actions))
    for leftover in facts.get("leftovers", []):
        actions.append(CodeAction(title=f"Clean up: {leftover['detail']}"[:200],
                                  command=tuple(leftover["cleanup_command"]), applicability="maybe_incorrect"))
    extra: dict[str, Any] = {**(error.extra or {}),
                             **{k: v for k, v in facts.items() if k != "mutating" and v not in ([], None)}}
    changed = error._replace(extra=extra, code_actions=tuple(actions), safe_to_retry=False, retryable=True)
    problems = tuple(changed if _same(p, error) else p for p in record.problems)
    return dataclasses.replace(record, error=changed, problems=problems)


def _same(a: Problem, b: Problem) -> bool:
    return a.code == b.code and a.detail == b.detail
