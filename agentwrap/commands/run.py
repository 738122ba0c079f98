"""`agentwrap [run] [OPTIONS] [--] PROGRAM [ARGS...]`: run a program and answer with one envelope."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from agentwrap import envelope, observe, prevention, registry, stop_signals
from agentwrap.adapter import presentation_of
from agentwrap.artifacts import ArtifactStore
from agentwrap.errors import UsageError
from agentwrap.options import Options, working_dir
from agentwrap.outcome import Reading, build
from agentwrap.pipeline import Pipeline
from agentwrap.runner import run_folder, session
from agentwrap.runner.shims import ShimDir
from agentwrap.secret_names import is_secret_name, secret_values

if TYPE_CHECKING:
    from agentwrap.adapter import Adapter
    from agentwrap.events import EventStream
    from agentwrap.outcome.record import RunRecord
    from agentwrap.render.live import LiveView


def stdin_source(opts: Options) -> IO[bytes] | None:
    if opts.stdin is None:
        return None
    if opts.stdin == "-":
        return sys.stdin.buffer
    try:
        with stop_signals.interruptible():  # a FIFO nobody writes to blocks open(): a stop signal ends it
            return open(opts.stdin, "rb")  # noqa: SIM115 - closed by run() after the program ends
    except IsADirectoryError:
        raise UsageError(f"--stdin {opts.stdin}: is a directory") from None
    except OSError as exc:
        raise UsageError(f"--stdin {opts.stdin}: cannot read: {exc.strerror}") from None


def persons_window(opts: Options) -> tuple[int, int] | None:
    """A person reading the pretty view on a terminal gets the program laid out for that terminal (a
    250-column window would draw pytest's rules over three of their lines); an agent gets the wide one."""
    if opts.agent or opts.format not in (None, "pretty"):
        return None
    from agentwrap.runner.spawn import window_of

    try:
        return window_of(sys.stdout.fileno())  # None: stdout is not a terminal, the output is read by a program
    except (OSError, ValueError):
        return None


def live_view(argv: list[str], secrets: list[str], window: tuple[int, int] | None) -> LiveView | None:
    """A person at a terminal (`window` is theirs, from persons_window) sees the output while the program runs,
    headed by its command line, on agentwrap's stdout (render.live); the summary follows it at the end."""
    if window is None:
        return None
    from agentwrap.redact import Redactor
    from agentwrap.render.live import LiveView
    from agentwrap.render.pretty import command_line

    color = "NO_COLOR" not in os.environ
    header = command_line(Redactor(secrets).redact_obj(list(argv)), color=color, width=window[0])
    sys.stdout.flush()  # whatever agentwrap wrote before goes first
    return LiveView(sys.stdout.fileno(), header, secrets, cols=window[0], color=color)


def tees(*tees: Callable[[str, bytes], None] | None) -> Callable[[str, bytes], None] | None:
    """One tee for the pipeline from several (capture's, the live view's), or None when there is none."""
    chosen = [t for t in tees if t is not None]
    if len(chosen) < 2:
        return chosen[0] if chosen else None

    def both(stream: str, data: bytes) -> None:
        for tee in chosen:
            tee(stream, data)

    return both


def event_stream(emit: Callable[[dict[str, Any]], None] | None, request_id: str, opts: Options) -> EventStream | None:
    """The jsonl event stream of a run, for `--format jsonl` (`emit`); imported only then."""
    if emit is None:
        return None
    from agentwrap.events import EventStream

    return EventStream(emit, request_id.replace("req_", "op_", 1), opts.inline_budget() * 16)


def shown_env(env_set: dict[str, str], shim_root: str) -> dict[str, str]:
    """env_set as echoed: secret values hidden, per-run shim paths shortened (they recur ~10 times)."""
    prefix = f"{shim_root}/"
    return {k: "[REDACTED]" if is_secret_name(k) else v.replace(prefix, "$AGENTWRAP_SHIMS/")
            for k, v in sorted(env_set.items())}


def execute(argv: list[str], opts: Options, *, request_id: str,
            emit: Callable[[dict[str, Any]], None] | None = None,
            tee: Callable[[str, bytes], None] | None = None) -> envelope.Outcome:
    """Run `argv` under `opts`. `emit` receives jsonl events as they happen (--format jsonl);
    `tee` receives the raw bytes of each stream (agentwrap capture)."""
    if not argv:
        raise UsageError("no program given: agentwrap [OPTIONS] [--] PROGRAM [ARGS...]")
    cwd = working_dir(opts)
    adapter, adapter_warnings = registry.find(argv[0], forced=opts.adapter, disabled=opts.no_adapter)
    if opts.read_only:
        from agentwrap.safety import readonly

        readonly.check(argv, opts.env, cwd)  # raises MUTATION_REFUSED before anything starts
    stdin = stdin_source(opts)
    events = event_stream(emit, request_id, opts)
    store = ArtifactStore()
    shim_root = run_folder.make()
    try:
        shims = ShimDir(shim_root, opts.answers)
        # `timeout 30 git push` is git's run: its prevention, effects and secrets (registry.reader)
        reader, read_argv = registry.reader(argv, adapter, forced=opts.adapter, disabled=opts.no_adapter)
        run_env, run_effects = registry.launch(reader, read_argv, cwd)  # npx eslint's: npx's and eslint's
        env_set, child_env = child_environment(shims, run_env, opts)
        from agentwrap.runner.spawn import resolve_program

        program = resolve_program(argv[0], child_env.get("PATH", os.defpath), cwd)
        observation = observe.begin(program, child_env)  # the stats ledger and an OpenTelemetry span
        secrets = run_secrets(child_env, opts)
        window = persons_window(opts)
        names_secrets = presentation_of(reader, read_argv).names_secrets
        # a run whose adapter names secrets only after it ends is not shown live (they are not known yet)
        live = None if names_secrets else live_view(argv, secrets, window)
        pipeline = Pipeline(max_inline_bytes=opts.inline_budget(), store=store, secrets=secrets, events=events,
                            tee=tees(tee, live.output if live else None), window=window,
                            live_output=not names_secrets)
        spec = session.RunSpec(
            argv=argv, program=program, cwd=cwd, env=child_env, use_pty=not opts.no_pty, stdin=stdin,
            timeout=opts.timeout, grace=opts.grace, window=window,
            mutating=run_effects.read_only is False,
            answers=authorised_answers(opts), follow_window=sys.stdout.fileno() if live else None)
        if events:
            # a secret the adapter names after the run may be in the argv (kubectl's --from-literal=k=VALUE)
            events.emit("operation_started", **({} if names_secrets else {"argv": argv}), cwd=cwd, program=program)
        result = run_session(spec, pipeline, shims, cwd)
        if live:
            live.finish()
    finally:
        run_folder.remove(shim_root)
        close_input(stdin)
    shown = shown_env(env_set, shim_root)
    context = run_context(opts, cwd, stdin, result, shown)
    record = build(request_id=request_id, argv=argv, program=program, adapter=adapter, result=result,
                   pipeline=pipeline, context=context, warnings=adapter_warnings,
                   reading=_wrapped(argv, adapter, opts, result, pipeline, cwd),
                   env_set={**shown, "AGENTWRAP_SHIMS": shim_root})
    return finished(record, argv, adapter, cwd, opts, observation, events, shown_live=live is not None)


def _wrapped(argv: list[str], adapter: Adapter, opts: Options, result: session.RunResult, pipeline: Pipeline,
             cwd: str) -> Reading | None:
    """The reading of the command a wrapper ran (`timeout 30 git status`: git's adapter reads `git status`),
    or None when the run is read as a whole (no wrapper, or it ended with the wrapper's own status)."""
    reader, read_argv = registry.reader(argv, adapter, forced=opts.adapter, disabled=opts.no_adapter, ended=True,
                                        status=result.returncode)
    if read_argv is argv:
        return None
    from agentwrap.outcome.interpret import captured_run

    captured = captured_run(read_argv, read_argv[0], reader, result, pipeline.finish(), pipeline, cwd)
    return Reading(read_argv, reader, captured, result)


def child_environment(shims: ShimDir, adapter_env: dict[str, str],
                      opts: Options) -> tuple[dict[str, str], dict[str, str]]:
    """What agentwrap sets for the program (prevention, shims, the caller's --env), and its whole environment.
    A person at a terminal (persons_window) sees the program's colours: no colour-off variable is set for them."""
    env_set = prevention.environment(shims.paths, adapter_env, colour=persons_window(opts) is not None)
    env_set["AGENTWRAP_REQUEST_LOG"] = str(shims.log)
    if shims.answers_file:
        env_set["AGENTWRAP_ANSWERS"] = shims.answers_file
    env_set.update(opts.env)
    return env_set, {**os.environ, **env_set}


def run_secrets(child_env: dict[str, str], opts: Options) -> list[str]:
    """Values the output must never show: secret-named variables and the replies the caller authorised."""
    return secret_values(child_env) + [reply for _, reply in opts.answers if len(reply) >= 4]


def authorised_answers(opts: Options) -> tuple[session.Answer, ...]:
    return tuple(session.Answer(re.compile(p), r) for p, r in opts.answers)


def close_input(stdin: IO[bytes] | None) -> None:
    if stdin is not None and stdin is not sys.stdin.buffer:
        with contextlib.suppress(OSError):
            stdin.close()


def run_session(spec: session.RunSpec, sink: Any, shims: ShimDir, cwd: str) -> session.RunResult:
    """The program's run, and the git lock it left if it was stopped part-way (partial effects)."""
    from agentwrap.outcome.partial import git_locks, new_locks

    locks = git_locks(cwd)
    result = session.run(spec, sink, shims)
    result.left = new_locks(cwd, locks)
    return result


def run_context(opts: Options, cwd: str, stdin: Any, result: session.RunResult,
                shown: dict[str, str]) -> dict[str, Any]:
    """The envelope's `context`: where and how the run happened."""
    context = {"cwd": cwd, "pty": not opts.no_pty, "started_at": result.started_at,
               "timeout_ms": int(opts.timeout * 1000) if opts.timeout else None,
               "stdin": "terminal" if stdin is None and not opts.no_pty else ("file" if stdin else "pipe"),
               "answered": result.answered}
    if opts.env:
        context["env"] = {k: shown[k] for k in sorted(opts.env)}
    return context


def finished(record: RunRecord, argv: list[str], adapter: Adapter, cwd: str, opts: Options,
             observation: observe.Observation, events: EventStream | None, *,
             shown_live: bool = False) -> envelope.Outcome:
    """After the record: what a stopped mutation may have left, the ledger and span, the last event.
    `shown_live`: the person saw the command line and the output as it ran (live_view)."""
    if record.error is not None:
        from agentwrap.outcome.rerun import in_callers_terms
        from agentwrap.safety.stopped import annotate

        record = annotate(record, argv, adapter, cwd)  # a mutating program stopped part-way: what may remain
        record = in_callers_terms(record, opts)
    observe.end(observation, record, opts)
    if events:
        events.emit("operation_completed", status=record.status, exit_code=record.exit_code, envelope=record)
    return envelope.Outcome(None, record.exit_code, record=record, shown_live=shown_live)
