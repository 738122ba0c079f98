"""`python -m agentwrap.operations.supervisor OPDIR`: run one detached operation to its end.

It runs the normal run path (`runpath.attached`) with the options recorded by the launcher, writes
the jsonl event stream to events.jsonl as it happens, then the final envelope to result.json and the
final state. SIGTERM (what `op cancel` sends) ends the program's whole tree the way it does for an
attached run, and the result is recorded as `cancelled`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentwrap import envelope, options
from agentwrap.errors import AgentwrapError
from agentwrap.ids import utc_now
from agentwrap.operations import liveness, store
from agentwrap.operations.recorded import options_from_json as options_from_json  # re-exported
from agentwrap.operations.recorded import options_to_json as options_to_json  # re-exported
from agentwrap.problem import Problem, wrapper_problem

if TYPE_CHECKING:
    from agentwrap.render.output import Writer


def run(path: Path) -> int:
    request = store.read_json(path / "request.json")
    op_id = path.name
    request_id = "req_" + op_id.split("_", 1)[1]
    os.environ[liveness.ENV_MARK] = op_id  # every process of the tree carries it: leftovers stay findable
    os.chdir(request["cwd"])
    from agentwrap.render.output import Writer

    fd = os.open(path / "events.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    events = open(fd, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run
    writer = Writer(events)
    opts = options.Options()
    argv: list[str] = request["argv"]
    store.update_state(path, started_at=utc_now())
    try:
        opts = options_from_json(request["options"])
        opts.format, opts.detail, opts.fields = "jsonl", "standard", None
        writer.configure("jsonl", opts)
        from agentwrap.runpath import attached

        outcome = attached(argv, opts, request_id, _after_launch(writer, path))
    except AgentwrapError as exc:
        outcome = _problem(exc.to_problem(), request_id, argv, exc.subcommand)
    except Exception as exc:  # noqa: BLE001 - the edge of a detached run: the result must say what happened
        outcome = _problem(wrapper_problem("INTERNAL", f"{type(exc).__name__}: {exc}"[:1000]), request_id, argv)
    writer.configure("jsonl", opts)
    writer.finish(outcome)
    events.close()
    if "agentwrap.ledger" in sys.modules:  # the run held its stats line: its answer goes to `op`, not a caller
        from agentwrap import ledger

        ledger.settle(request_id, 0, run="detached")
    from agentwrap.render import views

    result = writer.redactor.redact_obj(outcome.envelope)
    concise = writer.redactor.redact_obj(views.project(outcome.answer, "concise"))
    store.record_final(path, result, concise, outcome.exit_code)
    _record_idempotent(request, path, result, outcome.exit_code)
    return outcome.exit_code


def _after_launch(writer: Writer, path: Path) -> Callable[[dict[str, Any]], None]:
    """The run's events after the one the launcher wrote: the run's own operation_started (sequence 1) is
    that event again, so it is left out and the stream goes on from it; a run that fails before it starts
    completes the launcher's stream (the writer continues its numbering)."""
    from agentwrap.operations.launch import launch_event

    launched = launch_event(path)
    if launched is None:
        return writer.event
    writer.started, writer.last_event = True, launched

    def emit(event: dict[str, Any]) -> None:
        if event.get("type") == "operation_started" and event.get("sequence") == 1:
            return
        writer.event(event)

    return emit


def _problem(problem: Problem, request_id: str, argv: list[str], subcommand: str | None = None) -> envelope.Outcome:
    from agentwrap.outcome.decide import exit_status  # the run's own table (CONTRACT 4)

    code = exit_status(problem, program_exit=None, signal=None)
    env = envelope.build(request_id=request_id, summary=problem.detail[:300], error=problem,
                         command={"argv": argv, "program": None, "adapter": None, "subcommand": subcommand})
    return envelope.Outcome(env, code)


def _record_idempotent(request: dict[str, Any], path: Path, result: dict[str, Any], code: int) -> None:
    key = request.get("idempotency")
    if isinstance(key, dict):
        from agentwrap.safety import idempotency

        idempotency.record_done(key, path.name)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python -m agentwrap.operations.supervisor OPDIR", file=sys.stderr)
        return 2
    return run(Path(sys.argv[1]))


if __name__ == "__main__":
    sys.exit(main())
