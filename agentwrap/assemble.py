"""From a finished run (live, or replayed from a fixture) to the envelope: adapter, verdict, warnings.

Pure: no process is touched here, so `agentwrap run`, `agentwrap adapter test` and the fixture suite
all turn the same bytes into the same envelope.
"""

from __future__ import annotations

from typing import Any

from agentwrap import envelope
from agentwrap.adapter import Adapter, CapturedRun
from agentwrap.capture import StreamResult
from agentwrap.pipeline import Pipeline
from agentwrap.runner.session import RunResult
from agentwrap.shrink import shrink
from agentwrap.verdict import decide

EXPLAINED_SHARE = 4  # an explained stream keeps a quarter of the inline budget (1 KiB for an agent)


def captured_run(argv: list[str], program: str, adapter: Adapter, result: RunResult,
                 streams: dict[str, StreamResult], pipeline: Pipeline, cwd: str | None = None) -> CapturedRun:
    out_text, out_complete = pipeline.analysis_text("stdout")
    err_text, err_complete = pipeline.analysis_text("stderr")
    return CapturedRun(tuple(argv), program, result.returncode, result.signal, streams["stdout"],
                       streams["stderr"], result.duration_ms, out_text, err_text,
                       out_complete and err_complete, adapter.subcommand(argv), cwd)


def assemble(*, request_id: str, argv: list[str], program: str, adapter: Adapter, result: RunResult,
             pipeline: Pipeline, context: dict[str, Any] | None,
             warnings: list[dict[str, str]] | None = None) -> tuple[dict[str, Any], int]:
    """The envelope and agentwrap's exit code for a run whose output went through `pipeline`."""
    streams = pipeline.finish()
    captured = captured_run(argv, program, adapter, result, streams, pipeline, (context or {}).get("cwd"))
    try:
        interp = adapter.interpret(captured)
    except Exception as exc:  # noqa: BLE001 - an adapter bug must not lose the run's output
        from agentwrap.adapter import BaseAdapter

        interp = BaseAdapter().interpret(captured)
        warnings = [*(warnings or []), {"code": "ADAPTER_FAILED",
                                         "message": f"{adapter.name}: {type(exc).__name__}: {exc}"[:500]}]
    error, code = decide(argv, result, captured, interp, adapter)
    all_warnings = list(warnings or []) + pipeline.warnings()
    if interp.problems or interp.data is not None:  # the facts are out: the text is a reference now
        budget = max(256, pipeline.max_inline_bytes // EXPLAINED_SHARE)
        streams = {name: shrink(s, budget, pipeline.store) for name, s in streams.items()}
    if interp.data is not None and not captured.complete:
        all_warnings.append({"code": "DATA_PARTIAL", "message": "the output was too long to parse whole: data comes "
                             "from its first 384 KiB and last 128 KiB, so counts are lower bounds"})
    data, cut = envelope.bound_data(interp.data, pipeline.max_inline_bytes * 2)
    if cut:
        all_warnings.append({"code": "DATA_TRUNCATED", "message": f"{cut} items of data were left out to keep the "
                             "envelope bounded; the full output is in the artifact"})
    for name, stream in streams.items():
        if stream.truncated:
            where = f"; full text in artifact {stream.artifact.id}" if stream.artifact else ""
            all_warnings.insert(0, {"code": "OUTPUT_TRUNCATED", "message":
                                    f"{name}: {stream.omitted_lines} of {stream.lines} lines not inline{where}"})
    if result.tree_ended:
        all_warnings.append({"code": "TREE_ENDED", "message": f"{result.tree_ended} descendants were still "
                             "running after the program exited and were ended"})
    if result.answered:
        all_warnings.append({"code": "PROMPT_ANSWERED", "message":
                             f"{len(result.answered)} prompts were answered by --answer rules"})
    own = interp.error is not None and error is not None and (error.code, error.detail) == (
        interp.error.code, interp.error.detail)
    summary = interp.summary if error is None or own else error.detail
    inline = sum(len(s.text.encode()) for s in streams.values())
    env = envelope.build(
        request_id=request_id, summary=summary[:300], error=error, problems=list(interp.problems),
        data=data,
        command={"argv": argv, "program": program, "adapter": adapter.name, "subcommand": captured.subcommand},
        context=context,
        exit_info={"code": result.returncode, "signal": result.signal, "timed_out": result.timed_out,
                   "duration_ms": result.duration_ms},
        output={name: s.to_dict() for name, s in streams.items()},
        effects=list(interp.effects), warnings=all_warnings,
        artifacts=[s.artifact.to_dict() for s in streams.values() if s.artifact is not None],
        metrics={"duration_ms": result.duration_ms, "cpu_ms": result.cpu_ms,
                 "max_rss_bytes": result.max_rss_bytes, "raw_bytes": sum(s.bytes for s in streams.values()),
                 "inline_bytes": inline})
    return env, code
