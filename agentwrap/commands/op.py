"""`agentwrap op status|wait|cancel|result|events|list|prune`: durable operations from any later process
(CONTRACT section 8). Each answers with one envelope; `op wait` and `op result` answer with the run's own
recorded envelope and exit code."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome, build
from agentwrap.errors import AgentwrapError
from agentwrap.operations import liveness, store
from agentwrap.options import parse_duration
from agentwrap.problem import CodeAction

DEFAULT_WAIT = 600.0
MAX_EVENTS = 200


class OperationRunning(AgentwrapError):
    code = "OPERATION_RUNNING"


class OperationLost(AgentwrapError):
    code = "OPERATION_LOST"


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap op", description="Inspect and control durable operations (--detach).")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    actions.required = True
    for name, text in (("status", "the operation's state now"), ("result", "its final envelope, if finished"),
                       ("cancel", "end its whole process tree; say which effects remain")):
        actions.add_parser(name, help=text, description=text).add_argument("id", metavar="ID")
    wait = actions.add_parser("wait", help="wait for the end; answer with the final envelope")
    wait.add_argument("id", metavar="ID")
    wait.add_argument("--timeout", default=None, metavar="DUR", help="give up after DUR (default 10m; 0: never)")
    events = actions.add_parser("events", help="its jsonl events, resumable")
    events.add_argument("id", metavar="ID")
    events.add_argument("--after", type=int, default=0, metavar="SEQ", help="only events after sequence SEQ")
    events.add_argument("--limit", type=int, default=MAX_EVENTS, metavar="N", help=f"at most N (default {MAX_EVENTS})")
    events.add_argument("--wait", default=None, metavar="DUR",
                        help="when none are there yet, wait up to DUR for the next ones (or the end)")
    listing = actions.add_parser("list", help="operations kept here, newest first")
    listing.add_argument("--limit", type=int, default=50, metavar="N")
    prune = actions.add_parser("prune", help="remove finished operations older than the retention")
    prune.add_argument("--older-than", default="7d", metavar="DUR", help="default 7d (e.g. 1h, 2w, 0 for all)")
    ns = parser.parse_args(list(args))
    _check_counts(ns)
    handler = {"status": _status, "result": _result, "cancel": _cancel, "wait": _wait, "events": _events,
               "list": _list, "prune": _prune}[ns.action]
    return handler(ns, ctx)


def _check_counts(ns: Any) -> None:
    """A count or sequence that cannot mean anything is a usage error, not silently the nearest one."""
    from agentwrap.errors import UsageError

    if getattr(ns, "limit", 1) < 1:
        raise UsageError(f"op {ns.action} --limit {ns.limit}: give at least 1")
    if getattr(ns, "after", 0) < 0:
        raise UsageError(f"op events --after {ns.after}: a sequence is 0 (from the start) or more")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _answer(ctx: CommandContext, summary: str, data: Any, op_id: str | None = None) -> Outcome:
    env = build(request_id=ctx.request_id, summary=summary, data=data)
    if op_id:
        env["operation_id"] = op_id
    return Outcome(env, 0)


def _view(op_id: str, state: dict[str, Any], path: Path) -> dict[str, Any]:
    out = {"operation_id": op_id, "state": state.get("state"), "argv": state.get("argv"),
           "created_at": state.get("created_at"), "started_at": state.get("started_at"),
           "ended_at": state.get("ended_at"), "exit_code": state.get("exit_code"), "summary": state.get("summary")}
    if state.get("lost_reason"):
        out["lost_reason"] = state["lost_reason"]
        out["leftover_processes"] = liveness.leftovers(op_id)
    events = store.read_events(path)
    out["last_sequence"] = events[-1]["sequence"] if events else 0
    return {k: v for k, v in out.items() if v is not None}


#: Each state as the status summary says it: "operation op_… succeeded", "… was cancelled", "… is running".
_STATE_WORDS = {"starting": "is starting", "running": "is running", "succeeded": "succeeded", "failed": "failed",
                "cancelled": "was cancelled", "lost": "was lost"}


def _status(ns: Any, ctx: CommandContext) -> Outcome:
    path = store.folder(ns.id)
    state = liveness.current(path)
    view = _view(ns.id, state, path)
    said = _STATE_WORDS.get(str(view["state"]), f"is {view['state']}")
    return _answer(ctx, f"operation {ns.id} {said}" + (f": {view['summary']}" if "summary" in view else ""),
                   view, ns.id)


def _final(op_id: str, path: Path, state: dict[str, Any], detail: str) -> Outcome:
    if state.get("state") == "lost":
        raise OperationLost(f"operation {op_id} was lost: {state.get('lost_reason', 'no result was recorded')}",
                            code_actions=(CodeAction(title="See what it printed before it was lost",
                                                     command=("agentwrap", "op", "events", op_id),
                                                     applicability="machine_applicable", is_preferred=True),))
    result = store.read_result(path, detail)
    if result is None:  # cancelled before the supervisor could record anything
        raise OperationLost(f"operation {op_id} ended ({state.get('state')}) without a recorded result")
    result["operation_id"] = op_id
    return Outcome(result, int(state.get("exit_code", 1 if result.get("status") == "error" else 0)))


def _running(op_id: str, state: dict[str, Any], lead: str) -> OperationRunning:
    return OperationRunning(f"{lead}: operation {op_id} is still {state.get('state')}",
                            code_actions=(CodeAction(title="Wait for it",
                                                     command=("agentwrap", "op", "wait", op_id, "--timeout", "10m"),
                                                     applicability="machine_applicable", is_preferred=True),),
                            extra={"operation_id": op_id, "state": state.get("state")})


def _result(ns: Any, ctx: CommandContext) -> Outcome:
    path = store.folder(ns.id)
    state = liveness.current(path)
    if state.get("state") not in store.FINAL:
        raise _running(ns.id, state, "no result yet")
    return _final(ns.id, path, state, ctx.detail)


def _wait(ns: Any, ctx: CommandContext) -> Outcome:
    path = store.folder(ns.id)
    limit = DEFAULT_WAIT if ns.timeout is None else parse_duration(ns.timeout)
    deadline = time.monotonic() + limit if limit else None
    delay = 0.02
    while True:
        state = liveness.current(path)
        if state.get("state") in store.FINAL:
            return _final(ns.id, path, state, ctx.detail)
        if deadline is not None and time.monotonic() >= deadline:
            raise _running(ns.id, state, f"op wait gave up after {ns.timeout or '10m'}")
        time.sleep(delay if deadline is None else max(0.0, min(delay, deadline - time.monotonic())))
        delay = min(delay * 1.5, 0.25)


def _cancel(ns: Any, ctx: CommandContext) -> Outcome:
    from agentwrap.operations.cancel import cancel

    path = store.folder(ns.id)
    done = cancel(path)
    result = store.read_json(path / "result.json") or {}
    request = store.read_json(path / "request.json") or {}
    from agentwrap.safety import remaining

    data = {"operation_id": ns.id, "state": done["state"], "already_finished": done["already_finished"],
            **remaining.after_stop(request.get("argv") or [], result)}
    if done["leftovers_ended"]:
        data["leftovers_ended"] = done["leftovers_ended"]
    lead = "had already finished" if done["already_finished"] else "was cancelled; its process tree was ended"
    return _answer(ctx, f"operation {ns.id} {lead}", data, ns.id)


def _events(ns: Any, ctx: CommandContext) -> Outcome:
    path = store.folder(ns.id)
    limit = min(ns.limit, 10_000)
    state = liveness.current(path)
    events = store.read_events(path, after=ns.after, limit=limit)
    waited = parse_duration(ns.wait, "--wait") if ns.wait else None
    deadline = time.monotonic() + waited if waited else None
    while not events and deadline is not None and state.get("state") not in store.FINAL:
        if time.monotonic() >= deadline:
            break
        time.sleep(0.05)
        state = liveness.current(path)
        events = store.read_events(path, after=ns.after, limit=limit)
    complete = any(e.get("type") == "operation_completed" for e in events) or (
        state.get("state") in store.FINAL and len(events) < ns.limit)
    last = events[-1]["sequence"] if events else ns.after
    if ctx.format == "jsonl":
        import json

        # compact, as the events were written and as the launcher printed the first: the same bytes
        text = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
        return Outcome(None, 0, raw_output=text)
    if ctx.detail != "standard" and any(e.get("type") == "operation_completed" for e in events):
        # the final envelope inside operation_completed at the level asked for, as `op result` gives it
        final = store.read_result(path, ctx.detail)
        events = [{**e, "envelope": final} if final is not None and e.get("type") == "operation_completed" else e
                  for e in events]
    data = {"operation_id": ns.id, "state": state.get("state"), "after": ns.after, "next_after": last,
            "complete": complete, "events": events}
    return _answer(ctx, f"{_plural(len(events), 'event')} of {ns.id} after sequence {ns.after}", data, ns.id)


def _list(ns: Any, ctx: CommandContext) -> Outcome:
    found: list[dict[str, Any]] = []
    for op_id in store.all_ids():
        if len(found) >= ns.limit:
            break
        path = store.root() / op_id
        state = liveness.current(path)
        found.append({k: v for k, v in (("operation_id", op_id), ("state", state.get("state")),
                                        ("argv", state.get("argv")), ("created_at", state.get("created_at")),
                                        ("summary", state.get("summary"))) if v is not None})
    return _answer(ctx, _plural(len(found), "operation"), {"operations": found, "state_dir": str(store.root())})


def _prune(ns: Any, ctx: CommandContext) -> Outcome:
    older = parse_duration(ns.older_than, "--older-than") or 0.0
    removed = store.prune(older_than=older)
    return _answer(ctx, f"removed {_plural(len(removed), 'finished operation')}", {"removed": removed})
