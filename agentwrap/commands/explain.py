"""`agentwrap explain [CODE]`: what a problem or warning code means and how to fix it, offline."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agentwrap import advice, codes, envelope
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome
from agentwrap.errors import UsageError

if TYPE_CHECKING:
    from agentwrap import catalog
from agentwrap.problem import DOCS_URL, TYPE_PREFIX, CodeAction, problem_type

_BY_SLUG = {info.slug: info.code for info in codes.BY_CODE.values()}


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap explain",
                    description="Explain a problem or warning code; with no CODE, list every code.")
    parser.add_argument("code", nargs="?", metavar="CODE",
                        help="a code (TIMEOUT), its slug (timeout) or its problem type URI")
    ns = parser.parse_args(list(args))
    if ns.code is None:
        return _list_all(ctx)
    code = _normalise(str(ns.code))
    info = codes.BY_CODE.get(code)
    if info is not None:
        return _explain_problem(ctx, info)
    if code in codes.WARNINGS:
        return _explain_warning(ctx, code)
    from agentwrap import catalog  # loads the built-in adapters: only for a code that is not the wrapper's

    found = catalog.find(str(ns.code))
    if found:
        return _explain_adapter_code(ctx, found, str(ns.code).strip())
    raise _unknown(str(ns.code), code, [e.declared.code for e in catalog.entries()])


def _normalise(raw: str) -> str:
    """Accept `TIMEOUT`, `timeout`, `program-not-found` and `urn:agentwrap:problem:program-not-found`."""
    text = raw.strip()
    if text.lower().startswith(TYPE_PREFIX):
        text = text[len(TYPE_PREFIX):]
    if text.lower() in _BY_SLUG:
        return _BY_SLUG[text.lower()]
    return text.upper().replace("-", "_")


def _explain_problem(ctx: CommandContext, info: codes.CodeInfo) -> Outcome:
    data: dict[str, Any] = {
        "code": info.code,
        "kind": "problem",
        "type": TYPE_PREFIX + info.slug,
        "title": info.title,
        "meaning": info.meaning,
        "category": info.category,
        "status": info.status,
        "retryable": info.retryable,
        "safe_to_retry": info.safe_to_retry,
        "fixes": advice.usable(info.fixes),
        "docs_url": DOCS_URL + info.slug,
    }
    if info.exit_code is not None or ctx.detail != "concise":  # null: the program's own (or 128+N)
        data["exit_code"] = info.exit_code
    summary = f"{info.code}: {info.title} (category {info.category})"
    return _answer(ctx, summary, data)


def _explain_adapter_code(ctx: CommandContext, found: list[catalog.Entry], raw: str) -> Outcome:
    first = found[0].declared
    member = first.pattern is not None and raw != first.code and first.covers(raw)  # rustc's E0308
    code = raw if member else first.code
    data: dict[str, Any] = {
        "code": code,
        "kind": "problem",
        "type": problem_type(found[0].tool, code),
        "title": first.title,
        "category": first.category,
        "status": first.status,
        "retryable": first.retryable,
        "safe_to_retry": first.safe_to_retry,
        "fixes": advice.usable([_filled(first.suggested_fix, code if member else None)] if first.suggested_fix
                               else []),
        "tools": sorted({e.tool for e in found}),
    }
    if first.pattern:
        data["family"], data["pattern"] = first.code, first.pattern
    if first.docs_url:
        data["docs_url"] = first.docs_url
    tools = ", ".join(data["tools"])
    return _answer(ctx, f"{code}: {first.title} (category {first.category}; {tools})", data)


def _filled(fix: str, member: str | None) -> str:
    """A family's fix names its member as the word CODE (`rustc --explain CODE`): the member asked about
    (E0308) fills it; asked about the family itself, the placeholder stays."""
    return re.sub(r"\bCODE\b", member, fix) if member else fix


def _explain_warning(ctx: CommandContext, code: str) -> Outcome:
    meaning = codes.WARNINGS[code]
    data = {"code": code, "kind": "warning", "meaning": meaning}
    summary = f"{code}: warning (never decides the run): {meaning}"
    return _answer(ctx, summary, data)


def _list_all(ctx: CommandContext) -> Outcome:
    data = {
        "codes": [{"code": i.code, "title": i.title, "category": i.category} for i in codes.BY_CODE.values()],
        "warnings": [{"code": code, "meaning": meaning} for code, meaning in codes.WARNINGS.items()],
    }
    summary = (f"{len(codes.BY_CODE)} problem codes and {len(codes.WARNINGS)} warning codes; "
               "run `agentwrap explain CODE` for one.")
    return _answer(ctx, summary, data)


def _answer(ctx: CommandContext, summary: str, data: dict[str, Any]) -> Outcome:
    env = envelope.build(request_id=ctx.request_id, summary=summary, data=data)
    return Outcome(envelope=env, exit_code=0)


def _unknown(raw: str, code: str, adapter_codes: list[str]) -> UsageError:
    known = list(dict.fromkeys([*codes.BY_CODE, *codes.WARNINGS, *adapter_codes]))  # one code, many tools
    wanted = code.replace(":", "_")  # `git:push-rejectd`, a type's tail, reads as GIT_PUSH_REJECTD
    started = _starting(wanted, known)
    matches = started or closest(wanted, known)
    if started:
        shown = ", ".join(started[:_SHOWN]) + (f" and {len(started) - _SHOWN} more" if len(started) > _SHOWN else "")
        hint = f"{len(started)} code{'s' * (len(started) != 1)} start with {wanted.rstrip('_')}_: {shown}."
    else:
        hint = f"did you mean {', '.join(matches)}?" if matches else "no code is close to it."
    actions = tuple(
        CodeAction(title=f"Explain {m}", kind="command", command=("agentwrap", "explain", m),
                   applicability="maybe_incorrect", is_preferred=(n == 0))
        for n, m in enumerate(matches[:3])
    ) + (CodeAction(title="List every code", kind="command", command=("agentwrap", "explain"),
                    applicability="machine_applicable"),)
    return UsageError(
        f"unknown code {raw!r}: {hint} Run `agentwrap explain` to list every code.",
        suggested_fix=f"Run `agentwrap explain {matches[0]}`." if matches else "Run `agentwrap explain`.",
        code_actions=actions,
        extra={"close_matches": matches[:_LISTED]},
    )


_SHOWN = 6  # codes a prefix's answer names in its detail; `close_matches` lists up to _LISTED
_LISTED = 50


def _starting(prefix: str, known: Sequence[str]) -> list[str]:
    """The codes a prefix begins (`GIT_`, `RUFF`, `GIT_PUSH`: a tool's or a family's codes), whole words only:
    `GIT` is the start of GIT_USAGE, not of GITLAB_X."""
    stem = prefix.rstrip("_")
    if len(stem) < 2:
        return []
    return sorted(k for k in known if k.startswith(stem + "_"))


def closest(code: str, known: Sequence[str], n: int = 3) -> list[str]:
    """The codes nearest a misspelt one: those a few edits away (a letter left out, doubled, swapped), the
    nearest first and none much farther than it; else those holding all its words (`VIOLATION`,
    `NOT_FOUND`), shortest first; else what difflib finds alike."""
    scored = sorted((_edits(code, k), k) for k in known)
    if scored and scored[0][0] <= max(1, len(code) // 4):
        best = scored[0][0]
        return [k for d, k in scored if d <= best + 1 and d <= max(1, len(code) // 3)][:n]
    words = {w for w in code.split("_") if w}
    having = sorted((k for k in known if words and words <= set(k.split("_"))), key=lambda k: (len(k), k))
    return having[:n] or difflib.get_close_matches(code, known, n=n, cutoff=0.6)


def _edits(a: str, b: str) -> int:
    """Edits from `a` to `b`: letters put in, left out, changed, or two side by side swapped."""
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        above, row = row, [i]
        for j, y in enumerate(b, 1):
            cost = min(above[j] + 1, row[j - 1] + 1, above[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, before[j - 2] + 1)
            row.append(cost)
        before = above
    return row[-1]
