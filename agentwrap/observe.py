"""What a finished run leaves behind outside its envelope: a line in the stats ledger and, when the user
configured OpenTelemetry, a span. The run path calls `begin` before the program starts and `end` with
its record; everything else about the ledger and telemetry lives in `ledger` and `telemetry`."""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentwrap.options import Options
    from agentwrap.outcome.record import RunRecord
    from agentwrap.telemetry import RunSpan


class Observation:
    def __init__(self, span: RunSpan | None) -> None:
        self.span = span


def begin(program: str, child_env: MutableMapping[str, str]) -> Observation:
    """Before the program starts: a span when telemetry is configured (its context into `child_env`)."""
    if not (os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")):
        return Observation(None)  # the common case pays one lookup: not even agentwrap.telemetry is imported
    from agentwrap import telemetry

    if not telemetry.configured(os.environ):
        return Observation(None)
    return Observation(telemetry.start(os.path.basename(program), child_env))


def end(obs: Observation, record: RunRecord, opts: Options) -> None:
    """After the record is built: the ledger line (sizes only) and the span's attributes. Neither can
    change the run's answer: a failure here is dropped (and shown with AGENTWRAP_DEBUG)."""
    try:
        _end(obs, record, opts)
    except Exception:  # noqa: BLE001 - bookkeeping must never turn a finished run into INTERNAL
        if os.environ.get("AGENTWRAP_DEBUG"):
            import traceback

            traceback.print_exc()


def _end(obs: Observation, record: RunRecord, opts: Options) -> None:
    from agentwrap import ledger

    keep = not ledger.opted_out()
    if not keep and obs.span is None:
        return
    program = os.path.basename(str(record.command.get("program") or (record.command.get("argv") or [""])[0]))
    code = record.error.code if record.error is not None else None
    raw = int(record.metrics.get("raw_bytes", 0))
    if keep:  # written by the edge once the answer is (ledger.settle), with the size the caller received
        ledger.hold(record.request_id, ledger.entry(
            program=program, adapter=str(record.command.get("adapter")), status=record.status, code=code,
            exit_code=record.exit_code, detail=opts.detail, raw_bytes=raw, envelope_bytes=0,
            duration_ms=int(record.metrics.get("duration_ms", 0))))
    if obs.span is not None:
        obs.span.finish(_span_attributes(record, program, raw, _envelope_bytes(record, opts)), code)


def _envelope_bytes(record: RunRecord, opts: Options) -> int:
    """The size of the answer as the caller reads it (its detail level and fields)."""
    from agentwrap.render import views

    return len(views.dumps(views.project(record, opts.detail, opts.fields)))


def _span_attributes(record: RunRecord, program: str, raw: int, envelope_bytes: int) -> dict[str, Any]:
    exit_info = record.exit or {}
    code = exit_info.get("code")
    if code is None and exit_info.get("signal"):
        code = 128 + int(exit_info["signal"])  # no exit status: the shell's convention, as agentwrap's own
    return {
        "process.executable.name": program,
        "process.exit.code": code,
        "agentwrap.adapter": record.command.get("adapter"),
        "agentwrap.status": record.status,
        "agentwrap.exit_code": record.exit_code,
        "agentwrap.problem.code": record.error.code if record.error is not None else None,
        "agentwrap.problems": len(record.problems),
        "agentwrap.raw_bytes": raw,
        "agentwrap.inline_bytes": record.metrics.get("inline_bytes"),
        "agentwrap.envelope_bytes": envelope_bytes,
        "agentwrap.timed_out": bool(exit_info.get("timed_out")),
    }
