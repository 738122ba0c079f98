"""Interpret: the adapter reads the captured run. An adapter that raises falls back to the generic
reading, with a warning, so an adapter bug never loses the run's output.

A launcher's run (`npx tsc`, `npm run build` whose script runs tsc, `uv run pytest`) printed another
tool's output: that tool's adapter reads it too, and its reading is the run's when it recognised
something there; the launcher's stands otherwise (npm's E404, a missing script).
"""

from __future__ import annotations

from agentwrap.adapter import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    Interpretation,
    generic_spec,
    inner_adapter,
    launched_command,
    launched_commands,
    presentation_of,
    program_name,
)
from agentwrap.capture import StreamResult
from agentwrap.failure_summary import failure_summary, restates
from agentwrap.outcome.record import Note
from agentwrap.pipeline import Pipeline
from agentwrap.records import CodeAction, Problem
from agentwrap.runner.session import RunResult

_MAX_DEPTH = 3  # `npm run build` -> `npx tsc` -> tsc: launchers launch launchers, but never this deep
_LABEL_CHARS = 80


def captured_run(argv: list[str], program: str, adapter: Adapter, result: RunResult,
                 streams: dict[str, StreamResult], pipeline: Pipeline, cwd: str | None = None) -> CapturedRun:
    out_text, out_complete = pipeline.analysis_text("stdout")
    err_text, err_complete = pipeline.analysis_text("stderr")
    return CapturedRun(argv=tuple(argv), program=program, exit_code=result.returncode, signal=result.signal,
                       stdout=streams["stdout"], stderr=streams["stderr"], duration_ms=result.duration_ms,
                       stdout_text=out_text, stderr_text=err_text, complete=out_complete and err_complete,
                       subcommand=adapter.subcommand(argv), cwd=cwd, started_epoch=result.started_epoch)


def interpret(adapter: Adapter, captured: CapturedRun, depth: int = 0) -> tuple[Interpretation, list[Note]]:
    """The adapter's reading of the run, or the reading of the tool it launched when that one found
    something the launcher's did not (`_says_more`): the first such of the commands it ran."""
    interp, notes, _, _ = interpret_with_reader(adapter, captured, depth)
    return interp, notes


def interpret_with_reader(adapter: Adapter, captured: CapturedRun, depth: int = 0
                          ) -> tuple[Interpretation, list[Note], Adapter, list[str]]:
    """`interpret`, and which adapter's reading it is with the argv it read: its presentation (noise lines,
    what concise data leaves to the problems) is the one the text and data are shown by."""
    own, notes = _read(adapter, captured)
    if depth >= _MAX_DEPTH:
        return own, notes, adapter, list(captured.argv)
    if own.error is not None and own.error.code == "COMMAND_TIMED_OUT":
        stopped = _timed_out_reading(own, captured, depth)
        if stopped is not None:
            return stopped[0], notes + stopped[1], stopped[2], stopped[3]
    for argv in launched_commands(adapter, captured):
        launched = inner_adapter(argv[0]) if argv else None
        if launched is None:
            continue
        run = _launched_run(adapter, captured, argv).replace(subcommand=launched.subcommand(argv))
        reading, more, reader, read_argv = interpret_with_reader(launched, run, depth + 1)
        notes += more
        if _says_more(reading, own, run.failed):
            named = launched_command(adapter, list(captured.argv)) == argv  # `npx tsc`, not a script's
            said = reading.replace(summary=_own_summary(reading, run))
            return _said_both(said, list(captured.argv), argv, named), notes, reader, read_argv
    return own, notes, adapter, list(captured.argv)


def _timed_out_reading(own: Interpretation, captured: CapturedRun, depth: int
                       ) -> tuple[Interpretation, list[Note], Adapter, list[str]] | None:
    """`timeout 60 pytest -v` ended by its limit (124, timeout's own status): timeout's problem decides, and
    the command it ended is read by its own adapter as a run stopped by SIGTERM, which is what timeout sent:
    the failures it printed before, the test -v said was running, its text laid out as its own."""
    from agentwrap import wrappers

    found = wrappers.expired(captured.argv, captured.exit_code if captured.signal is None else None)
    inner = inner_adapter(found.argv[0]) if found is not None and found.argv else None
    if found is None or inner is None:
        return None
    run = captured.replace(argv=tuple(found.argv), exit_code=None, signal=15, subcommand=inner.subcommand(found.argv))
    reading, notes, reader, read_argv = interpret_with_reader(inner, run, depth + 1)
    seen = {(p.code, p.detail) for p in own.problems}
    problems = (*own.problems, *(p for p in reading.problems if (p.code, p.detail) not in seen))
    data = reading.data if reading.data is not None else own.data
    return own.replace(problems=problems, data=data), notes, reader, read_argv


def _launched_run(launcher: Adapter, captured: CapturedRun, argv: list[str]) -> CapturedRun:
    """The run as the launched tool printed it: less the launcher's own lines (its [[noise]], and a banner
    naming the launcher and the whole command, `tidy: running greet ada`), which its adapter would
    otherwise read as its output (`data.greeted = "tidy: running greet ada\nhello, ada"`)."""
    shown = presentation_of(launcher, list(captured.argv))
    command = " ".join(argv)
    launcher_name = program_name(captured.argv[0])

    def banner(line: str) -> bool:
        return command in line and line.lstrip().startswith(launcher_name) and not line.startswith(command)

    def tool_lines(text: str, stream: str) -> str:
        noise = shown.noise_for(stream)
        lines = text.splitlines(keepends=True)
        kept = [line for line in lines if not banner(line) and not any(p.search(line.rstrip("\n")) for p in noise)]
        return text if len(kept) == len(lines) else "".join(kept)

    return captured.replace(argv=tuple(argv), stdout_text=tool_lines(captured.stdout_text, "stdout"),
                            stderr_text=tool_lines(captured.stderr_text, "stderr"))


def _own_summary(reading: Interpretation, run: CapturedRun) -> str:
    """The launched tool's summary as its own run would have it: a failure its adapter summarised with the
    deciding problem's detail is said by the problem's title (`greet: the guest is not on the list`), so the
    launcher's words in front still leave the tool named (`tidy run greet: the guest is not on the list`)."""
    error = reading.error
    if error is None or not restates(reading.summary, error.detail):
        return reading.summary
    return failure_summary(error, program=run.argv[0], subcommand=run.subcommand, exit_code=run.exit_code,
                           signal=run.signal, problems=reading.problems)


def _read(adapter: Adapter, captured: CapturedRun) -> tuple[Interpretation, list[Note]]:
    try:
        return adapter.interpret(captured), []
    except Exception as exc:  # noqa: BLE001 - an adapter bug must not lose the run's output
        note = Note("ADAPTER_FAILED", f"{adapter.name}: {type(exc).__name__}: {exc}"[:500])
        return BaseAdapter().interpret(captured), [note]


def _says_more(reading: Interpretation, own: Interpretation, failed: bool) -> bool:
    """Whether a launched tool's adapter found something of its own that the launcher's did not: a problem
    the launcher did not find (npm reads node's errors itself) nor the generic rules made (which any failed
    run falls back to: `sh: tsc: not found`), or data of a run that succeeded (`npm test: pytest: 5 passed`;
    a failed one's is its problems, and some data comes from the argv alone: gcc's inputs)."""
    known = {*generic_spec().problem_codes(), *(p.code for p in own.problems)}
    if any(p.code not in known for p in reading.problems):
        return True
    return not failed and reading.data is not None and own.data is None


def _said_both(reading: Interpretation, argv: list[str], inner: list[str], named: bool) -> Interpretation:
    """The launched tool's reading in the launcher's words: `npm run build: tsc: 2 errors in 1 file` (a
    script's command), `npx tsc: 2 errors in 1 file` (`named` by argv: its fixes then run it the same way)."""
    if not (named and argv[-len(inner):] == inner):  # a script's, or one a Python launcher rewrote
        label = " ".join([program_name(argv[0]), *argv[1:]])[:_LABEL_CHARS]
        return reading.replace(summary=f"{label}: {reading.summary}"[:300])
    launcher = argv[:len(argv) - len(inner)]
    words = " ".join([program_name(argv[0]), *launcher[1:]])
    tool = program_name(inner[0])
    joint = " " if reading.summary.startswith((f"{tool}:", f"{tool} ")) else ": "  # `npx tsc: 2 errors`
    problems = tuple(_run_through(p, tool, launcher) for p in reading.problems)
    error = reading.error
    if error is not None:  # the same problem as in the list, or rewritten alike
        same = [p for p in problems if (p.code, p.detail) == (error.code, error.detail)]
        error = same[0] if same else _run_through(error, tool, launcher)
    return reading.replace(summary=f"{words}{joint}{reading.summary}"[:300], problems=problems, error=error)


def _run_through(problem: Problem, tool: str, launcher: list[str]) -> Problem:
    """A fix that runs the launched tool runs it through the launcher (`tsc --noEmit` -> `npx tsc --noEmit`):
    the tool may be on no PATH but the launcher's."""
    def through(action: CodeAction) -> CodeAction:
        if action.command and program_name(action.command[0]) == tool:
            return action.replace(command=(*launcher, *action.command))
        return action

    if not problem.code_actions:
        return problem
    return problem.replace(code_actions=tuple(through(a) for a in problem.code_actions))
