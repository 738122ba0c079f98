"""`agentwrap --shell 'LINE'` and `agentwrap -- bash -c 'LINE' [ARG0 ARGS...]`: one terminal session,
the real bash, and a reading by the adapter of the command that decided the line (CONTRACT section 10).

What cannot be parsed, or what would show the trace (`set -x`), runs unchanged; a warning says how it
was read.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any

from agentwrap import envelope, observe, registry
from agentwrap.artifacts import ArtifactStore
from agentwrap.commands.run import (  # one run's set-up and ending, shared with PROGRAM ARGS runs
    authorised_answers,
    child_environment,
    close_input,
    event_stream,
    finished,
    live_view,
    persons_window,
    run_context,
    run_secrets,
    run_session,
    shown_env,
    stdin_source,
    tees,
)
from agentwrap.errors import UsageError
from agentwrap.options import Options, working_dir
from agentwrap.outcome import build
from agentwrap.pipeline import Pipeline
from agentwrap.runner import run_folder, session
from agentwrap.runner.shims import ShimDir
from agentwrap.runner.spawn import resolve_program
from agentwrap.shell import grammar, model, script, verdict
from agentwrap.shell.segments import TraceSink
from agentwrap.shell.trace import Execution


def _is_bash(path: str) -> bool:
    return os.path.basename(os.path.realpath(path)) == "bash"


# Linux passes no single argument longer than 128 KiB (MAX_ARG_STRLEN, the NUL counted): bash -c LINE
# would fail with E2BIG. The room left is for the trace's trailer, which follows the line in that argument.
ONE_ARGUMENT = 128 * 1024 - 1024

_TOO_DEEP = [{"code": "SHELL_NOT_PARSED", "message": "the line nests too deep to read command by command; "
              "it ran unchanged and was read with the generic adapter"}]


def _plan(line: str, dialect: str) -> tuple[model.Line | None, list[dict[str, str]]]:
    try:
        return _planned(line, dialect)
    except RecursionError:  # a thousand `&&` or `|` nest the tree deeper than a walk (or a JSON decoder) goes
        return None, list(_TOO_DEEP)


def _planned(line: str, dialect: str) -> tuple[model.Line | None, list[dict[str, str]]]:
    parsed = grammar.parse(line, dialect)
    if parsed.tree is None:
        return None, [{"code": "SHELL_NOT_PARSED", "message": f"{parsed.reason}; the line ran unchanged and "
                       "its output was read with the generic adapter"}]
    try:
        return model.build(line, parsed.tree), []
    except (KeyError, TypeError, ValueError) as exc:  # a tree shape this reader does not know
        return None, [{"code": "SHELL_NOT_PARSED", "message": f"the syntax tree could not be read ({exc}); "
                       "the line ran unchanged and was read with the generic adapter"}]


def _prevention(plan: model.Line | None) -> tuple[dict[str, str], bool]:
    """Every command's adapter's prevention environment, and whether any of them may change something."""
    env: dict[str, str] = {}
    mutating = False
    for command in plan.commands if plan else ():
        if not command.words:
            continue
        # `timeout 30 git push`: git's prevention (no credential prompt), and git's effects
        adapter, argv = registry.reader(command.words, registry.find(command.words[0])[0])
        env.update(adapter.environment(argv))
        mutating = mutating or adapter.effects(argv).read_only is False
    return env, mutating


def _lone_command(plan: model.Line) -> bool:
    units = plan.units
    return not plan.features and len(units) == 1 and len(units[0].stages) == 1 and units[0].stages[0] is not None


def execute(line: str, extra: list[str], opts: Options, *, request_id: str, shell: str = "bash",
            emit: Callable[[dict[str, Any]], None] | None = None) -> envelope.Outcome:
    if not line.strip():
        raise UsageError("--shell needs a command line (an empty one runs nothing)")
    if sys.platform.startswith("linux") and len(line.encode("utf-8", "surrogateescape")) > ONE_ARGUMENT:
        raise UsageError(f"--shell LINE is longer than {ONE_ARGUMENT // 1024} KiB, more than Linux passes to "
                         "bash -c in one argument: write it to a file and run `agentwrap -- bash FILE`")
    cwd = working_dir(opts)
    warnings: list[dict[str, str]] = []
    path_env = os.environ.get("PATH", os.defpath)
    program = resolve_program(shell, path_env, cwd)
    traceable = _is_bash(program)
    plan, notes = _plan(line, "bash" if traceable else "posix")
    warnings += notes
    traced = plan is not None and traceable and "trace-conflict" not in plan.features
    # A lone simple command is read by its adapter whether traced or not: a warning would cost tokens and say nothing.
    if plan is not None and not traced and not _lone_command(plan):
        why = f"{shell} is not bash and has no trace"
        if traceable:
            why = ("the line changes or shows what the trace is made of (set -x, a DEBUG trap, a listing of "
                   "functions or variables, descriptors 249-250)")
        warnings.append({"code": "SHELL_NOT_TRACED", "message": f"{why}: the line ran unchanged; only a line "
                         "of one command or pipeline is read by that command's adapter"})
    # A line ending in a backslash would join the trailer to its last word.
    instrumented = traced and not line.endswith("\\")
    events = event_stream(emit, request_id, opts)
    store = ArtifactStore()
    shim_root = run_folder.make()
    stdin = stdin_source(opts)
    argv = [shell, "-c", line, *extra]
    try:
        shims = ShimDir(shim_root, opts.answers)
        extra_env, mutating = _prevention(plan)
        env_set, child_env = child_environment(shims, extra_env, opts)
        run_argv = argv
        nonce = ""
        tap_dir = None
        if instrumented and plan is not None:
            tapped = _tapped(plan)
            tap_dir = _tap_dir(shim_root, tapped)
            built = script.build(line, user_bash_env=child_env.get("BASH_ENV"), traced=traced,
                                 terminals=not opts.no_pty, tap_dir=tap_dir, tapped=tapped)
            nonce = built.nonce
            startup = os.path.join(shim_root, "bash_env")
            with open(startup, "w") as f:
                f.write(built.startup)
            child_env["BASH_ENV"] = startup
            run_argv = [shell, "-c", built.command, *extra]
        observation = observe.begin(program, child_env)  # the stats ledger and an OpenTelemetry span
        secrets = run_secrets(child_env, opts)
        window = persons_window(opts)  # the cleaner's screen is the program's window, as for PROGRAM ARGS
        # a command whose adapter names secrets only after the run: nothing is shown live (they are not known)
        withheld = verdict.names_secrets(plan, opts.adapter, opts.no_adapter)
        live = None if withheld else live_view(argv, secrets, window)  # a person watching sees the output
        pipeline = Pipeline(max_inline_bytes=opts.inline_budget(), store=store, secrets=secrets, events=events,
                            window=window, tee=tees(live.output if live else None), live_output=not withheld)
        sink: Any = TraceSink(pipeline, plan, nonce, secrets) if instrumented and plan is not None else pipeline
        spec = session.RunSpec(
            argv=run_argv, program=program, cwd=cwd, env=child_env, use_pty=not opts.no_pty, stdin=stdin,
            timeout=opts.timeout, grace=opts.grace, window=window, mutating=mutating,
            answers=authorised_answers(opts), follow_window=sys.stdout.fileno() if live else None)
        if events:  # the line may hold a value its adapter names a secret (`--from-literal=k=VALUE`)
            events.emit("operation_started", **({} if withheld else {"argv": argv}), cwd=cwd, program=program)
        result = run_session(spec, sink, shims, cwd)
        if live:
            live.finish()
        taps = _taps(tap_dir, pipeline.max_inline_bytes, secrets) if tap_dir else {}
    finally:
        run_folder.remove(shim_root)
        close_input(stdin)
    shown = shown_env(env_set, shim_root)
    context = run_context(opts, cwd, stdin, result, shown)
    reading, extra_command, named = _read(plan, sink, pipeline, result, cwd, opts, warnings, taps)
    adapter = reading.adapter if reading else registry.find(shell, disabled=True)[0]
    record = build(request_id=request_id, argv=argv, program=program, adapter=adapter, result=result,
                   pipeline=pipeline, context=context, warnings=warnings, reading=reading, secrets=named,
                   command_extra=extra_command, env_set={**shown, "AGENTWRAP_SHIMS": shim_root})
    return finished(record, argv, adapter, cwd, opts, observation, events, shown_live=live is not None)


def _tapped(plan: model.Line) -> tuple[str, ...]:
    """The programs whose pipeline stages keep a copy of what they read (`| tail`, `| head`): those that
    follow another command in the line, unless the line asks what one of them is (`type tail` would show
    the tap's function). A `head` is copied only when every `head` of the line is such a stage: one in a
    group, a loop's body, a function or `$( )` shares its input with the commands after it."""
    if any(_asks_what_tail_is(c.words) for c in plan.commands):
        return ()
    staged = [stage for unit in plan.units for stage in unit.stages[1:] if stage is not None]
    out = tuple(name for name in script.TAPPED_PROGRAMS if any(stage.program == name for stage in staged))
    if script.TAPPED_HEAD in out and not _heads_are_stages(plan, staged):
        out = tuple(name for name in out if name != script.TAPPED_HEAD)
    return out


_NESTS = {"compound-stage", "function", "subshell", "cmdsubst", "procsubst", "eval", "coproc"}
_HEAD_WORD = re.compile(r"(?<![\w./-])head(?![\w.-])")


def _heads_are_stages(plan: model.Line, staged: list[model.Command]) -> bool:
    """Every `head` the line can run is a pipeline stage after another command: nothing nests commands that
    no unit names, no program is known only at run time, and the word `head` is written nowhere else."""
    if plan.features & _NESTS or any(f.startswith("other:") for f in plan.features):
        return False
    if any(not command.program_literal for command in plan.commands):
        return False
    heads = sum(1 for stage in staged if stage.program == script.TAPPED_HEAD)
    return len(_HEAD_WORD.findall(plan.text)) == heads


def _tap_dir(shim_root: str, tapped: tuple[str, ...]) -> str | None:
    """A folder for what `| tail` and `| head` stages read, when the line has one after another command."""
    if not tapped:
        return None
    path = os.path.join(shim_root, "taps")
    os.mkdir(path, 0o700)
    return path


def _asks_what_tail_is(words: list[str]) -> bool:
    name, args = (words[0], words[1:]) if words else ("", [])
    if name == "command" and args[:1] in (["-v"], ["-V"]) or name in ("type", "declare", "typeset", "unset"):
        return any(program in args for program in script.TAPPED_PROGRAMS)
    return False


def _taps(tap_dir: str, budget: int, secrets: list[str]) -> dict[int, verdict.Tap]:
    """What each `| tail` or `| head` read, by its stage's trace number, cleaned as the terminal's output is
    (escapes, redraws, secrets). `False`: not all the writer wrote: tail -c kept only the last TAP_BYTES of
    it, or head stopped reading before the writer ended (or head -c kept only the first TAP_BYTES)."""
    taps: dict[int, verdict.Tap] = {}
    for name in os.listdir(tap_dir):
        if not name.isdigit():
            continue
        try:
            with open(os.path.join(tap_dir, name), "rb") as handle:
                data = handle.read(script.TAP_BYTES + 1)
        except OSError:
            continue
        ended = _tee_status(os.path.join(tap_dir, name + ".end"))  # None: tail's copy, which reads to the end
        cleaner = Pipeline(max_inline_bytes=budget, store=None, secrets=secrets)
        cleaner.output("stdout", data)
        cleaner.finish()
        text, done = cleaner.analysis_text("stdout")
        taps[int(name)] = (text, done and len(data) < script.TAP_BYTES and ended in (None, "0"))
    return taps


def _tee_status(path: str) -> str | None:
    try:
        with open(path) as handle:
            return handle.read().strip()
    except FileNotFoundError:
        return None
    except OSError:
        return ""


def _read(plan: model.Line | None, sink: Any, pipeline: Pipeline, result: session.RunResult, cwd: str,
          opts: Options, warnings: list[dict[str, str]],
          taps: dict[int, verdict.Tap] | None = None) -> tuple[Any, dict[str, Any], tuple[str, ...]]:
    """The deciding command's reading and `command.decided_by` ((None, {...}) for a generic reading), and the
    secrets the adapters of the line's commands name in their output."""
    extra: dict[str, Any] = {"shell": {"parsed": plan is not None, "traced": isinstance(sink, TraceSink)}}
    if plan is None:
        return None, extra, ()
    segments: dict[int, Pipeline] = {}
    executions: list[Execution] = []
    if isinstance(sink, TraceSink):
        executions = sink.finish(result.returncode)
        for index, (_, seg) in sink.segments.items():
            seg.finish()
            segments[index] = seg
        silent = Pipeline(max_inline_bytes=pipeline.max_inline_bytes, store=None, secrets=[])
        for execution in executions:  # a unit that printed nothing is read as printing nothing
            segments.setdefault(execution.unit, silent)
        if sink.ended is None and result.returncode is not None and not executions:
            warnings.append({"code": "SHELL_NOT_TRACED", "message": "no trace came back from the shell; "
                             "the output was read with the generic adapter"})
    streams = pipeline.finish()
    named = verdict.secrets_named(plan, executions, segments, pipeline, streams, cwd, opts_adapter=opts.adapter,
                                  no_adapter=opts.no_adapter)
    stopped = result.timed_out or result.prompt is not None or result.interrupted is not None
    asking = result.prompt.process if result.prompt is not None else None
    decision = verdict.choose(plan, executions, result.returncode, segments, pipeline, streams, stopped,
                              result.duration_ms, taps, asking)
    if decision is None:
        if (negated := verdict.negated_success(plan, executions, result.returncode)) is not None:
            warnings.append({"code": "SHELL_NEGATED_SUCCESS", "message": f"`{negated.text[:200]}` failed "
                             "because its command succeeded: the `!` in front of it turns success into status 1"})
        return None, extra, named
    if decision.status == 0 and decision.command is not None and decision.command.redirects.get("stdout") == "null":
        return None, extra, named  # `git log > /dev/null`: what it printed was thrown away, not "no commits"
    warnings += _hidden_failures(plan, executions, decision)
    extra["decided_by"] = verdict.described(decision, plan)
    others = verdict.laid_out(plan, executions, decision, segments, opts.adapter, opts.no_adapter)
    return verdict.reading(decision, segments, pipeline, streams, result, cwd, opts_adapter=opts.adapter,
                           no_adapter=opts.no_adapter, taps=taps, others=others), extra, named


def _hidden_failures(plan: model.Line, executions: list[Execution], decision: verdict.Decision) -> list[dict[str, str]]:
    """Failures bash's own status does not show: a pipeline stage's, and an earlier command's in `a; b`."""
    notes = []
    if decision.hidden:
        stage = decision.command.text if decision.command else decision.unit.text
        notes.append({"code": "PIPE_HID_FAILURE", "message": f"stage {decision.stage + 1} of "
                      f"{len(decision.unit.stages)} (`{stage}`) exited {decision.status}; the line's own "
                      "status did not say so, because a pipeline's status is its last stage's"})
    for earlier in executions:
        if earlier is decision.execution:
            break
        unit = plan.units[earlier.unit] if 0 <= earlier.unit < len(plan.units) else None
        if unit is not None and not unit.tested and not earlier.header and earlier.status not in (0, None):
            notes.append({"code": "SHELL_EARLIER_FAILURE", "message": f"`{unit.text[:200]}` exited "
                          f"{earlier.status}; the line went on, and its status is a later command's"})
    return notes
