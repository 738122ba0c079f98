"""Interpret: the adapter reads the captured run. An adapter that raises falls back to the generic
reading, with a warning, so an adapter bug never loses the run's output."""

from __future__ import annotations

from agentwrap.adapter import Adapter, BaseAdapter, CapturedRun, Interpretation
from agentwrap.capture import StreamResult
from agentwrap.outcome.record import Note
from agentwrap.pipeline import Pipeline
from agentwrap.runner.session import RunResult


def captured_run(argv: list[str], program: str, adapter: Adapter, result: RunResult,
                 streams: dict[str, StreamResult], pipeline: Pipeline, cwd: str | None = None) -> CapturedRun:
    out_text, out_complete = pipeline.analysis_text("stdout")
    err_text, err_complete = pipeline.analysis_text("stderr")
    return CapturedRun(argv=tuple(argv), program=program, exit_code=result.returncode, signal=result.signal,
                       stdout=streams["stdout"], stderr=streams["stderr"], duration_ms=result.duration_ms,
                       stdout_text=out_text, stderr_text=err_text, complete=out_complete and err_complete,
                       subcommand=adapter.subcommand(argv), cwd=cwd)


def interpret(adapter: Adapter, captured: CapturedRun) -> tuple[Interpretation, list[Note]]:
    try:
        return adapter.interpret(captured), []
    except Exception as exc:  # noqa: BLE001 - an adapter bug must not lose the run's output
        note = Note("ADAPTER_FAILED", f"{adapter.name}: {type(exc).__name__}: {exc}"[:500])
        return BaseAdapter().interpret(captured), [note]
