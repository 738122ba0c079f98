"""The problems of the concise view (CONTRACT section 2a): the deciding problem whole, a listed problem
lean, and agentwrap's own problem (a refusal, a usage error) by the same rules.

`deciding_problem(rec)` and `concise_problem(p, ...)` take a run's problems; `lean_problem_dict` takes the
problem dict of another command's envelope. Each leaves out what is empty, default, or said elsewhere (the
place the location gives, a member the detail repeats, a fix that says nothing new); agentwrap.render.views
places them in the concise envelope.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.outcome.lean import words
from agentwrap.outcome.record import RunRecord
from agentwrap.problem import CodeAction, Problem

# Problem members a model does not act on: ids and links it can derive (`agentwrap explain CODE`), how a
# prompt was found, which adapter said it.
_NOT_DECISIVE = {"tool", "fatal_on_success", "detection", "source", "process"}
_INTERNAL = {"tool", "fatal_on_success"}  # which adapter said it (the type names it), how the engine read it
EMPTY: tuple[Any, ...] = (None, [], {}, "")  # what counts as empty: left out of every concise form
_ALWAYS_KEPT = {"prompt", "input_kind"}  # CONTRACT 5: what a caller dispatches on when input is needed


def deciding_problem(rec: RunRecord) -> dict[str, Any]:
    """CONTRACT 2a: the deciding problem whole (RFC 9457 and its extensions), without null or empty
    members: it is what a caller dispatches on and acts on, so nothing of it is left to another level."""
    assert rec.error is not None
    problem = {k: v for k, v in rec.standard()["error"].items() if v not in EMPTY and k not in _INTERNAL}
    # Rules 1-3 of 2a: the request's id is no decision fact, the exit code is said once (in `exit`),
    # and an error's severity is the default one.
    problem.pop("instance", None)
    if "detail" in problem:  # rule 1: the place is the location's
        problem["detail"] = _without_location(problem["detail"], rec.error.location, rec.error.severity)
    if "location" in problem:
        problem["location"] = _lean_location(problem["location"])
    if problem.get("exit_code") == rec.exit.get("code"):
        problem.pop("exit_code", None)
    if problem.get("severity") == "error":
        problem.pop("severity")
    if rec.error.code_actions:  # rule 2 inside an action too: no default kind, applicability or preference
        problem["code_actions"] = [_concise_action(a) for a in rec.error.code_actions]
    # Rule 1: a remediation step that only names the problem's own members again (`provide_input` with
    # the `prompt` and `input_kind` beside it) and asks nothing of the user is said once, by them.
    steps = [r for r in rec.error.remediation if not _restates_members(r, problem)]
    if steps:
        problem["remediation"] = steps
    else:
        problem.pop("remediation", None)
    # Rule 1: an adapter's own member (its `extra`) that only repeats the detail or the code (pytest's
    # `nodeid`, gcc's `message`, ruff's `rule`, rustc's code) is said once, in the detail. Section 3's
    # members, the problem's fields, all stay.
    said = f"{rec.error.detail}\n{rec.error.code}"
    for key in [k for k in rec.error.extra or {} if k in problem and k not in _ALWAYS_KEPT]:
        if _restated(key, problem[key], said):
            del problem[key]
    return problem


def _restates_members(step: dict[str, Any], problem: dict[str, Any]) -> bool:
    args = step.get("args") or {}
    return not step.get("requires_user") and bool(args) and all(problem.get(k) == v for k, v in args.items())


def _restated(key: str, value: Any, said: str) -> bool:
    """A string member found word for word in `said`, or a count it gives (`recipe_status: 1` beside
    "status 1")."""
    if isinstance(value, str):
        # word for word: not inside a longer word (`call` is not said by "recall")
        return len(value) >= 2 and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", said) is not None
    if isinstance(value, int) and not isinstance(value, bool):
        return any(re.search(rf"\b{re.escape(w)} {value}\b", said) for w in key.split("_") if len(w) > 2)
    return False


def concise_problem(p: Problem, *, summary: str | None = None, known_fix: str | None = None) -> dict[str, Any]:
    """A listed problem (not the deciding one): code, location, the message, edits (a compiler's fix-it),
    the fix only when it says more than the deciding fix and its own message and location do, and retry
    facts only where a retry is on the table."""
    out: dict[str, Any] = {"code": p.code}
    detail = _without_location(p.detail, p.location, p.severity)
    if detail and (not summary or p.detail not in summary):
        out["detail"] = detail
    if p.location:
        out["location"] = _lean_location(p.location)
    if p.severity != "error":
        out["severity"] = p.severity
    if p.retryable:
        out["retryable"] = True
        out["safe_to_retry"] = p.safe_to_retry
        if p.retry_after is not None:
            out["retry_after"] = p.retry_after
    if p.suggested_fix and not _says_nothing_new(p, known_fix):
        out["suggested_fix"] = p.suggested_fix
    actions = [_concise_action(a) for a in p.code_actions if a.kind == "edit"]
    if actions:
        out["code_actions"] = actions
    asks_user = [r for r in p.remediation if r.get("requires_user")]
    if asks_user:
        out["remediation"] = asks_user
    said = " ".join(str(x) for x in (summary, p.code, p.detail, p.suggested_fix) if x)  # rustc_code: the code
    for key, value in (p.extra or {}).items():
        if key in _NOT_DECISIVE or value in EMPTY or value is False or key in out:
            continue
        if key not in _ALWAYS_KEPT and _restated(key, value, said):
            continue  # the summary, the detail or the fix already says it
        out[key] = value
    return out


def evidence_once(listed: list[dict[str, Any]], deciding: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Rule 1: a listed problem's `evidence` quoted already, for the same file and line, by the deciding
    problem or an earlier listed one (gcc's error and two warnings on one source line quote it three
    times) is said once, by the first."""
    def key(p: dict[str, Any]) -> tuple[Any, ...] | None:
        loc, quoted = p.get("location") or {}, p.get("evidence")
        return (loc.get("file"), loc.get("line"), json.dumps(quoted)) if quoted and loc.get("line") else None

    seen = {key(deciding)} if deciding is not None else set()
    out = []
    for p in listed:
        k = key(p)
        if k is not None and k in seen:
            p = {m: v for m, v in p.items() if m != "evidence"}
        seen.add(k)
        out.append(p)
    return out


def _lean_location(location: dict[str, Any]) -> dict[str, Any]:
    """A location without an `end_line` that is its `line` again (a span within one line)."""
    if "end_line" in location and location["end_line"] == location.get("line"):
        return {k: v for k, v in location.items() if k != "end_line"}
    return location


# `file:line:col: msg` (gcc, mypy), `file:line:col - msg` (tsc --pretty), `file(line,col): msg` (tsc, msbuild);
# the place ends where the message starts, so `src/b.ts:1:21 - error` is never read as `src/b.ts:1:` + `21 - …`
_PLACE = lazy(r"(?P<file>[^:(\n]+)(?::(?P<line>\d+)(?::(?P<column>\d+))?(?:: ?| - )|\((?P<pline>\d+)"
              r"(?:,(?P<pcolumn>\d+))?\): ?)")


def _without_location(detail: str, location: dict[str, Any] | None, severity: str = "error") -> str:
    """A compiler's `file:line:col: message` less the place `location` already gives: the same line and
    column, in the same file or in one `location` names from another folder (`make -C native` reports
    `window.c:19:63`, located at `native/window.c`), or by its absolute path (`/work/app/lib/a.js:1:5`,
    located at `lib/a.js`)."""
    m = _PLACE.match(detail)
    if not m or not location or "file" not in location or len(detail) == m.end():
        return detail
    file, here = str(location["file"]), m.group("file")
    tail = re.sub(r"^(?:\.\.?/)+", "", here)  # `../src/x.c` printed in build/, located at `src/x.c`
    # or an absolute path printed (eslint's `/work/app/lib/a.js`), located relative to the folder it ran in
    absolute = here.startswith("/") and not file.startswith("/") and here.endswith("/" + file)
    if file != here and file != tail and not file.endswith("/" + tail) and not absolute:
        return detail
    line, column = m.group("line") or m.group("pline"), m.group("column") or m.group("pcolumn")
    if line != str(location.get("line")) or column not in (None, str(location.get("column"))):
        return detail
    rest = detail[m.end():]
    # `warning: ` after the place is the severity, which the problem says (or leaves at its default)
    lean = rest.removeprefix(f"{severity}: ")
    return lean if len(lean) > 1 else rest


_CODE_SPAN = lazy(r"`([^`\n]+)`")


def _says_nothing_new(p: Problem, known_fix: str | None) -> bool:
    """A templated fix (`Fix the test at a.py:3`) repeated per problem: every word is in the deciding
    fix, the problem's message or its location."""
    if not known_fix or p.suggested_fix is None:
        return False
    known_text = " ".join([known_fix, p.detail, json.dumps(p.location or {})])
    # a command or name in backticks is one fact: `pip install types-six` is new though "types" and "six"
    # were both said, apart
    if any(span not in known_text for span in _CODE_SPAN.findall(p.suggested_fix)):
        return False
    return set(words(p.suggested_fix)) <= set(words(known_text))


def _concise_action(a: CodeAction) -> dict[str, Any]:
    return _lean_action_dict(a.to_dict())


def lean_problem_dict(problem: dict[str, Any]) -> dict[str, Any]:
    """agentwrap's own problem (a refusal, a usage error) by the rules a run's deciding problem keeps: no
    null or empty member, no default severity or action member, and no member an action already says
    (`read_only_alternative` beside the action that runs it)."""
    out = {k: v for k, v in problem.items() if v not in EMPTY and k != "instance"}
    if out.get("severity") == "error":
        del out["severity"]
    actions = [_lean_action_dict(a) for a in out.get("code_actions") or [] if isinstance(a, dict)]
    if actions:
        out["code_actions"] = actions
    if any(a.get("command") == out.get("read_only_alternative") for a in actions):
        out.pop("read_only_alternative", None)
    return out


_ACTION_DEFAULTS = {"kind": "command", "applicability": "unspecified", "is_preferred": False}


def _lean_action_dict(action: dict[str, Any]) -> dict[str, Any]:
    """An action without its default members (rule 2 inside an action: kind, applicability, preference)."""
    return {k: v for k, v in action.items() if v not in EMPTY and _ACTION_DEFAULTS.get(k, _NONE) != v}


_NONE = object()
