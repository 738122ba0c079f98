"""Which command decided a line, and the reading of it by that command's own adapter.

bash's status is the truth about the line; the units say why. A non-zero status was set by the last
unit that ended with it. A zero status can still hide a failure: a pipeline stage that failed while the
last stage succeeded (`make | tail`), found by `PIPESTATUS` and confirmed by that stage's adapter (grep's
status 1 is "no match", not a failure). A writer ended by SIGPIPE, or told EPIPE, because its reader
stopped early (`| head`) did not fail. Conditions (`if`, `while`, the left of `||`, `!`) are expected
to fail sometimes, so they never decide.
"""

from __future__ import annotations

import copy
import os
from typing import Any, NamedTuple

from agentwrap import registry
from agentwrap.adapter import Adapter, CapturedRun, presentation_of
from agentwrap.capture import StreamResult
from agentwrap.outcome import Reading
from agentwrap.outcome.interpret import interpret
from agentwrap.outcome.lean import lean_text
from agentwrap.pipeline import Pipeline
from agentwrap.runner.session import RunResult
from agentwrap.shell.model import Command, Line, Unit
from agentwrap.shell.script import TAPPED_HEAD, TAPPED_PROGRAMS
from agentwrap.shell.trace import Execution

SIGPIPE_STATUS = 128 + 13
FOLLOWED_FILE_BYTES = 256 * 1024  # a redirected output file is read back this far (its tail) for its adapter
_EPIPE_WORDS = ("Broken pipe", "BrokenPipeError", "EPIPE", "write error")


class Decision(NamedTuple):
    execution: Execution
    unit: Unit
    stage: int
    command: Command | None
    status: int | None
    hidden: bool  # the stage failed but the line's status does not say so (a pipe hid it)


def adapter_for(command: Command | None, opts_adapter: str | None = None, no_adapter: bool = False, *,
                ended: bool = False, status: int | None = None) -> tuple[Adapter, list[str]]:
    """The adapter that reads `command` and the argv it reads: `timeout 30 git status` is read by git's
    adapter as `git status` (registry.reader), unless it `ended` with a `status` timeout set itself (124)."""
    if command is None or not command.words:
        return registry.find("bash", disabled=True)[0], ["bash"]
    argv = command.words
    adapter, _ = registry.find(argv[0], forced=opts_adapter, disabled=no_adapter)
    return registry.reader(argv, adapter, forced=opts_adapter, disabled=no_adapter, ended=ended, status=status)


def _reader_stopped(status: int, stage: int, stages: int, stderr: str) -> bool:
    if stage >= stages - 1:
        return False
    return status == SIGPIPE_STATUS or any(w in stderr for w in _EPIPE_WORDS)


def _followed(text: str, command: Command | None, stream: str, cwd: str) -> str:
    """A stream the command sent to a file (`> build.log`) is read back from the file for its adapter."""
    dest = command.redirects.get(stream, "") if command is not None else ""
    if not dest.startswith("file:") or dest == "file:?":
        return text
    path = os.path.join(cwd, os.path.expanduser(dest[5:]))
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if not os.path.isfile(path):
                return text
            handle.seek(max(0, size - FOLLOWED_FILE_BYTES))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return text


Tap = tuple[str, bool]  # what a `| tail` or `| head` stage read (cleaned), and whether that is all of it


def _captured(argv: list[str], adapter: Adapter, status: int | None, segment: Pipeline | None,
              whole: Pipeline, streams: dict[str, StreamResult], command: Command | None, cwd: str,
              duration_ms: int, tapped: Tap | None = None) -> CapturedRun:
    source = segment if segment is not None else whole
    own = source.finish()  # the command's own streams (the whole run's when it has no part of its own)
    out, out_done = tapped if tapped is not None else source.analysis_text("stdout")
    err, err_done = source.analysis_text("stderr")
    out, err = _followed(out, command, "stdout", cwd), _followed(err, command, "stderr", cwd)
    signal = status - 128 if status is not None and status > 128 and status != SIGPIPE_STATUS else None
    code = None if signal is not None else status
    return CapturedRun(argv=tuple(argv), program=argv[0], exit_code=code, signal=signal, stdout=own["stdout"],
                       stderr=own["stderr"], duration_ms=duration_ms, stdout_text=out, stderr_text=err,
                       complete=out_done and err_done, subcommand=adapter.subcommand(argv), cwd=cwd)


def _fails(adapter: Adapter, captured: CapturedRun) -> bool:
    """Whether the stage's own adapter calls its run a failure, as a run of it alone would be decided: grep's
    status 1 is "no match", a success, so `grep x f | head` hid nothing."""
    interp, _ = interpret(adapter, captured)
    return interp.error is not None or interp.success is False


def _cut_by_head(unit: Unit, stage: int, tapped: Tap | None) -> bool:
    """The `head` after `stage` stopped reading before the stage ended writing (its copy is cut): the stage
    was then told its reader closed the pipe, by EPIPE or SIGPIPE, and may have ended for that alone."""
    after = unit.stages[stage + 1] if stage + 1 < len(unit.stages) else None
    return tapped is not None and not tapped[1] and after is not None and after.program == TAPPED_HEAD


_STATUS_ONLY = {"COMMAND_FAILED"}  # what any program's non-zero status alone is read as


def _reads_a_failure(adapter: Adapter, captured: CapturedRun) -> bool:
    """Its adapter reads a failure in the output itself (`.FF`'s `___ test_add ___` block), not in the status."""
    interp, _ = interpret(adapter, captured)
    return any(p.severity == "error" and p.code not in _STATUS_ONLY for p in interp.problems)


UNKNOWN_STAGE = -1  # the pipeline failed, and no status says which of its stages did


def tap_of(execution: Execution, unit: Unit, stage: int, taps: dict[int, Tap]) -> Tap | None:
    """What the `tail` or `head` right after `stage` read from it (`pytest 2>&1 | tail -5`: all of pytest's
    output; `pytest | head -3`: what pytest wrote before head stopped reading, all of it when pytest ended first)."""
    if stage == UNKNOWN_STAGE:
        return None
    after = unit.stages[stage + 1] if stage + 1 < len(unit.stages) else None
    command = unit.stages[stage]
    if after is None or after.program not in TAPPED_PROGRAMS or command is None:
        return None
    if command.redirects.get("stdout", "").startswith(("file:", "append:")):
        return None  # its stdout went to a file, not to tail
    seq = execution.stage_seqs.get(stage + 1)
    return taps.get(seq) if seq is not None else None


def choose(line: Line, executions: list[Execution], exit_code: int | None, segments: dict[int, Pipeline],
           whole: Pipeline, streams: dict[str, StreamResult], stopped: bool,
           duration_ms: int, taps: dict[int, Tap] | None = None, asking: str | None = None) -> Decision | None:
    """The deciding unit and stage; None when no unit can be named (read the whole output generically)."""
    runs = [e for e in executions if not e.header and e.unit >= 0]
    if not runs:
        if len(line.units) == 1 and exit_code is not None:  # nothing was traced: the line is that one unit
            unit = line.units[0]
            return Decision(Execution(0, 0, ""), unit, len(unit.stages) - 1, unit.last, exit_code, False)
        return None
    if stopped:  # a timeout, a prompt, an interruption: the unit that was running
        last = runs[-1]
        unit = line.units[last.unit]
        stage = _asking_stage(unit, asking)  # `python3 -c "input()" | tail`: python3 asked, not tail
        return Decision(last, unit, stage, unit.stages[stage], last.status, False)
    if exit_code:
        for run in reversed(runs):
            if run.status == exit_code and not line.units[run.unit].tested:
                return _stage_of(line, run, segments, whole, streams, duration_ms, taps)
        if line.units[runs[-1].unit].negated:  # `! true`: the line failed because its command succeeded
            return None
        return _stage_of(line, runs[-1], segments, whole, streams, duration_ms, taps)
    for run in runs:  # status 0: a failure a pipe hid
        unit = line.units[run.unit]
        if unit.tested or unit.background or len(unit.stages) < 2:
            continue
        decision = _stage_of(line, run, segments, whole, streams, duration_ms, taps)
        if decision.hidden:
            return decision
    decided = [r for r in runs if not line.units[r.unit].tested and not line.units[r.unit].background]
    if not decided:  # only conditions ran (`if false; then ...; fi`, `! false`): their failing was the plan
        return None
    return _stage_of(line, decided[-1], segments, whole, streams, duration_ms, taps)


def negated_success(line: Line, executions: list[Execution], exit_code: int | None) -> Unit | None:
    """The `! cmd` whose command succeeded and so failed the line (`! grep -q TODO f` found a TODO)."""
    runs = [e for e in executions if not e.header and e.unit >= 0]
    if not exit_code or not runs or any(r.status == exit_code and not line.units[r.unit].tested for r in runs):
        return None
    unit = line.units[runs[-1].unit]
    return unit if unit.negated else None


def _asking_stage(unit: Unit, asking: str | None) -> int:
    """The stage whose program is the process that asked (by name); the last stage when none is."""
    last = len(unit.stages) - 1
    if not asking:
        return last
    named = [i for i, stage in enumerate(unit.stages)
             if stage is not None and stage.program and os.path.basename(stage.program) == asking]
    return named[0] if len(named) == 1 else last


def _stage_of(line: Line, run: Execution, segments: dict[int, Pipeline], whole: Pipeline,
              streams: dict[str, StreamResult], duration_ms: int, taps: dict[int, Tap] | None) -> Decision:
    unit = line.units[run.unit]
    last = len(unit.stages) - 1
    statuses = run.pipestatus if len(run.pipestatus) == len(unit.stages) else ()
    segment = segments.get(run.unit)
    stderr = (segment or whole).analysis_text("stderr")[0]
    for i, status in enumerate(statuses[:-1]):
        if status == 0 or _reader_stopped(status, i, len(unit.stages), stderr):
            continue
        command = unit.stages[i]
        adapter, argv = adapter_for(command, ended=True, status=status)
        tapped = tap_of(run, unit, i, taps or {})
        captured = _captured(argv, adapter, status, segment, whole, streams, command, run.cwd or os.getcwd(),
                             duration_ms, tapped)
        if _cut_by_head(unit, i, tapped) and not _reads_a_failure(adapter, captured):
            continue  # told the pipe was closed: its status may be that (pytest exits 1 on EPIPE)
        if _fails(adapter, captured):
            return Decision(run, unit, i, command, status, run.status == 0)
    final = statuses[-1] if statuses else run.status
    if not statuses and last > 0 and final:  # `set -eo pipefail` ended the shell: which stage failed is unknown
        return Decision(run, unit, UNKNOWN_STAGE, None, final, False)
    return Decision(run, unit, last, unit.last, final, False)


def reading(decision: Decision, segments: dict[int, Pipeline], whole: Pipeline,
            streams: dict[str, StreamResult], result: RunResult, cwd: str, *, opts_adapter: str | None,
            no_adapter: bool, taps: dict[int, Tap] | None = None,
            others: tuple[tuple[str, str, str], ...] = ()) -> Reading:
    """What the deciding command's adapter reads: its own output (all of it where a `| tail` or `| head`
    after it kept a copy of all of it), status and folder."""
    adapter, argv = adapter_for(decision.command, opts_adapter, no_adapter, ended=True, status=decision.status)
    where = decision.execution.cwd or cwd
    segment = segments.get(decision.execution.unit) if decision.execution.seq else None
    tapped = tap_of(decision.execution, decision.unit, decision.stage, taps or {})
    captured = _captured(argv, adapter, decision.status, segment, whole, streams, decision.command, where,
                         result.duration_ms, tapped)
    stage_result = copy.copy(result)
    stage_result.returncode, stage_result.signal = captured.exit_code, captured.signal
    if result.timed_out or result.interrupted is not None or result.prompt is not None:
        stage_result.returncode, stage_result.signal = result.returncode, result.signal
    # read whole, its counts are its own; cut (the copy's last bytes only), they are what the copy held
    whole_read = tapped is not None and tapped[1]
    return Reading(list(argv), adapter, captured, stage_result, "" if whole_read else _downstream(decision),
                   as_printed=_through_head(decision), others=others)


_PASS_ON = {"cat", "tee"}  # stages that pass every line on unchanged
_PASS_SOME = {*_PASS_ON, "tail", "head"}  # stages that pass on lines of what they read, unchanged


def laid_out(line: Line, executions: list[Execution], decision: Decision, segments: dict[int, Pipeline],
             opts_adapter: str | None = None, no_adapter: bool = False) -> tuple[tuple[str, str, str], ...]:
    """What the line's other units printed, (stream, text, lean text), where the program that printed it draws
    for a terminal (its adapter's `layout`: pytest's 250-column `=====` rules and padded `[100%]`): rules
    shortened and padding taken out. Its noise rules are not applied: they drop what its own problems and data
    would say (a failure's `___ test_add ___` header), and no problem of it is shown.
    `pytest -q; echo $?` is decided by echo, whose adapter knows nothing of pytest's layout."""
    out: list[tuple[str, str, str]] = []
    for execution in executions:
        if execution.header or execution.unit < 0 or execution.unit == decision.unit.index:
            continue
        segment = segments.get(execution.unit)
        unit = line.units[execution.unit] if execution.unit < len(line.units) else None
        if segment is None or unit is None:
            continue
        stage = len(unit.stages) - 1  # `pytest | tail -5` printed pytest's lines: read them as pytest's
        while stage > 0 and (later := unit.stages[stage]) is not None and (later.program or "") in _PASS_SOME:
            stage -= 1
        command = unit.stages[stage]
        if command is None or not command.words:
            continue
        shown = presentation_of(*adapter_for(command, opts_adapter, no_adapter))
        if not shown.layout:
            continue
        for stream in ("stdout", "stderr"):
            text = segment.analysis_text(stream)[0]
            lean = lean_text(text, (), None, True)[0]
            if lean != text and (stream, text, lean) not in out:
                out.append((stream, text, lean))
    return tuple(out)


def _downstream(decision: Decision) -> str:
    """The later stages of the pipeline that the deciding command's stdout went through, as written; ""
    when it went to the terminal or a file, or only through stages that change nothing (`| cat`)."""
    command, later = decision.command, decision.unit.stages[decision.stage + 1:]
    to_file = command is not None and command.redirects.get("stdout", "").startswith(("file:", "append:"))
    if decision.stage == UNKNOWN_STAGE or not later or to_file:
        return ""
    if all(stage is not None and stage.program in _PASS_ON and not any(w.startswith("-") for w in stage.words[1:])
           for stage in later):
        return ""
    return " | ".join(stage.text if stage is not None else "…" for stage in later)


def _through_head(decision: Decision) -> bool:
    """The deciding command's stdout reached the line's stdout through a `head`: the line's text is what head
    let through (`.FF` and a rule of pytest's first lines), what the caller asked to see."""
    command = decision.command
    to_file = command is not None and command.redirects.get("stdout", "").startswith(("file:", "append:"))
    if decision.stage == UNKNOWN_STAGE or to_file:
        return False
    later = decision.unit.stages[decision.stage + 1:]
    return any(stage is not None and stage.program == TAPPED_HEAD for stage in later)


def described(decision: Decision, line: Line) -> dict[str, Any]:
    """`command.decided_by`: the command that decided the line, where it ran and how it ended."""
    unit, command = decision.unit, decision.command
    out: dict[str, Any] = {
        "command": command.text if command is not None else unit.text,
        "argv": list(command.words) if command is not None else None,
        "index": command.index if command is not None else None,
        "stage": decision.stage + 1 if decision.stage != UNKNOWN_STAGE else None,
        "stages": len(unit.stages),
        "exit_code": decision.status,
        "cwd": decision.execution.cwd or None,
    }
    if len(decision.execution.pipestatus) > 1:
        out["pipestatus"] = list(decision.execution.pipestatus)
    if decision.hidden:
        out["hidden_by_pipe"] = True
    return out


def names_secrets(line: Line | None, opts_adapter: str | None = None, no_adapter: bool = False) -> bool:
    """Whether a command of the line prints secrets its adapter names only once it has read its output
    (`terraform output -json`, a Secret from kubectl): no live output may show the line's text before."""
    return any(presentation_of(*adapter_for(command, opts_adapter, no_adapter)).names_secrets
               for command in (line.commands if line else ()) if command.words)


def secrets_named(line: Line | None, executions: list[Execution], segments: dict[int, Pipeline],
                  whole: Pipeline, streams: dict[str, StreamResult], cwd: str, *, opts_adapter: str | None,
                  no_adapter: bool) -> tuple[str, ...]:
    """The secrets each such command's adapter names in what its unit printed (the whole line's output when
    no trace split it), whichever command decides: `kubectl get secret -o yaml | cat` is decided by `cat`,
    which names nothing, and its output is kubectl's."""
    found: list[str] = []
    for unit in line.units if line else ():
        ran = [e for e in executions if e.unit == unit.index]
        where = (ran[-1].cwd if ran else "") or cwd
        for command in unit.stages:
            if command is None or not command.words:
                continue
            adapter, argv = adapter_for(command, opts_adapter, no_adapter)
            if not presentation_of(adapter, argv).names_secrets:
                continue
            captured = _captured(argv, adapter, 0, segments.get(unit.index), whole, streams, command, where, 0)
            found += interpret(adapter, captured)[0].secrets
    return tuple(found)
