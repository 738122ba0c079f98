"""The edge: parse, dispatch, and turn every failure into a Problem. Nothing below here exits."""

from __future__ import annotations

import os
import sys
from typing import Any

from agentwrap import __version__, envelope, options
from agentwrap.commands import CommandContext
from agentwrap.environment import Environment, ExitStatus
from agentwrap.errors import AgentwrapError, HelpRequested, NotAvailableYet, UsageError
from agentwrap.ids import new_id
from agentwrap.problem import Problem, wrapper_problem

USAGE = """\
usage: agentwrap [OPTIONS] [--] PROGRAM [ARGS...]     run PROGRAM under the wrapper
       agentwrap run [OPTIONS] [--] PROGRAM [ARGS...]
       agentwrap capabilities | describe NAME | schema KIND | explain [CODE]
       agentwrap artifact show ID [--offset N] [--limit BYTES] [--lines A:B] [--grep REGEX] [--cursor C]
       agentwrap adapter list | test [NAME|PATH] | new NAME [--toml] [--force]
       agentwrap capture [--name CASE] [--dir DIR] [OPTIONS] -- PROGRAM [ARGS...]
       agentwrap op status|wait [--timeout DUR]|cancel|result|events [--after SEQ]|list|prune ID
       agentwrap plan [--ttl DUR] [--env NAME=VALUE] -- PROGRAM ARGS
       agentwrap apply PLAN_ID [--expect-hash H] [--env NAME=VALUE]   (a secret --env of the plan, again)
       agentwrap --shell 'LINE' | -- bash -c 'LINE'      a shell command line, read per command
       agentwrap hook HOST                   an agent host's command hook (its JSON on stdin)
       agentwrap normalize [--adapter NAME|auto] [--format json|jsonl|sarif|github|problem] [--root DIR] [FILE|-]
       agentwrap init HOST [--project|--user] [--dry-run] [--uninstall]      agentwrap mcp      agentwrap stats

options (they end at PROGRAM; use `--` when PROGRAM is named like a subcommand):
  --agent                   agent contract: JSON, never prompt, no colour, bounded, default timeout 10m
  --format pretty|json|jsonl|problem
  --timeout DUR             wall-clock limit (90, 90s, 5m, 500ms, 1d; 0 = none); ends the whole process tree
  --grace DUR               time between SIGTERM and SIGKILL when ending the tree (default 3s)
  --answer REGEX=REPLY      authorise a reply to a prompt matching REGEX (repeatable; \\= for a literal =)
  --max-inline-bytes N      inline budget per output stream (agent default 4096); the rest goes to an artifact
  --detail concise|standard|detailed, --fields a,b.c
  --no-pty                  run on pipes instead of pseudo-terminals
  --adapter NAME | --no-adapter
  --cwd DIR, --env K=V, --stdin FILE|-
  --detach                  start as a durable operation and answer with its operation_id at once
  --idempotency-key KEY     run once per KEY (bound to argv, cwd, adapter, stdin, --env, --answer, --no-pty);
                            a repeat replays the result
  --input FILE|-            the whole request as JSON (`agentwrap schema request`); with `run`
  --read-only               refuse, before it starts, anything its adapter classes as mutating (or cannot classify)
  --version, --help
exit: 0 success, the program's code on its failure, 1 when it exited 0 but failed, 124 timeout,
      125 agentwrap refused or failed (usage, input required), 126 not executable, 127 not found, 128+N signal
"""

_COMMANDS = {name: f"agentwrap.commands.{name}" for name in ("explain", "schema", "artifact", "capabilities",
                                                             "describe", "adapter", "capture", "normalize", "op",
                                                             "plan", "apply", "stats", "init", "mcp")}


def _problem_outcome(problem: Problem, request_id: str, argv: list[str] | None,
                     subcommand: str | None = None) -> envelope.Outcome:
    from agentwrap.outcome.decide import exit_status  # the run's own table (CONTRACT 4), loaded on a failure only

    code = exit_status(problem, program_exit=None, signal=None)
    env = envelope.build(request_id=request_id, summary=problem.detail[:300], error=problem,
                         command={"argv": argv, "program": None, "adapter": None, "subcommand": subcommand}
                         if argv else None)
    return envelope.Outcome(env, code)


def _dispatch(args: list[str], opts: options.Options, fmt: str, request_id: str,
              emit: Any) -> envelope.Outcome:
    if opts.version:
        return envelope.Outcome(envelope.build(request_id=request_id, summary=f"agentwrap {__version__}",
                                               data={"version": __version__}), 0)
    if opts.shell is not None and not opts.help:
        if args:
            raise UsageError("--shell takes the whole command line: put the program and its arguments inside it",
                             suggested_fix="agentwrap --shell 'PROGRAM ARGS | ...'")
        args, opts.shell = ["bash", "-c", opts.shell], None  # one run path for both spellings of a line
    if opts.help or not args:
        if not args and not opts.help:
            raise UsageError("no program given: agentwrap [OPTIONS] [--] PROGRAM [ARGS...]",
                                     suggested_fix="See `agentwrap --help`.")
        return envelope.Outcome(envelope.build(request_id=request_id, summary="agentwrap usage",
                                               data={"usage": USAGE}), 0, raw_text=USAGE)
    name = args[0]
    if name in options.SUBCOMMANDS and not opts.explicit_program:
        rest = args[1:]
        if name == "run":
            opts, rest = options.parse(rest, opts)
            options.validate(opts)
        elif name not in _COMMANDS:
            raise NotAvailableYet(f"`agentwrap {name}`")
        else:
            if opts.read_only and (name == "apply" or (name == "op" and rest[:1] in (["cancel"], ["prune"]))):
                from agentwrap.safety.readonly import MutationRefused

                what = " ".join(["agentwrap", name, *rest[:1]])
                raise MutationRefused(f"--read-only: `{what}` changes something (it runs a planned command, "
                                      "ends processes or removes records); nothing was done",
                                      suggested_fix="Drop --read-only if the change is intended; `agentwrap plan` "
                                                    "and `op status|wait|result|events|list` are read-only.")
            ctx = CommandContext(request_id=request_id, format=fmt, agent=opts.agent,
                                 max_inline_bytes=opts.inline_budget(), detail=opts.detail)
            import importlib

            from agentwrap import stop_signals

            stop_signals.release()  # not a run: Ctrl-C and SIGTERM act as Python's defaults from here
            module = importlib.import_module(_COMMANDS[name])
            outcome: envelope.Outcome = module.main(rest, ctx)
            return outcome
        args = rest
    return _run(args, opts, request_id, emit)


def _run(args: list[str], opts: options.Options, request_id: str, emit: Any) -> envelope.Outcome:
    """The one run path for PROGRAM ARGS and shell lines: detached, keyed, then attached."""
    from agentwrap.runpath import attached

    if opts.detach:
        from agentwrap.operations.detach import detached

        return detached(args, opts, request_id)
    if opts.idempotency_key is not None:
        from agentwrap.safety.idempotency import keyed

        return keyed(args, opts, request_id, emit=emit,
                     run=lambda o, e: attached(args, o, request_id, e))
    return attached(args, opts, request_id, emit)


def main(argv: list[str] | None = None, env: Environment | None = None) -> ExitStatus:
    """The testable edge: run one agentwrap call in `env` (the real process by default) and return its
    exit status; nothing here raises or exits."""
    environment = env or Environment()
    with environment.applied():
        return ExitStatus(_main(sys.argv[1:] if argv is None else list(argv), environment))


def _main(args: list[str], environment: Environment) -> int:
    if args[:1] == ["hook"]:  # the host reads its own format, never an envelope; it always fails open
        from agentwrap import stop_signals
        from agentwrap.commands.hook import run as run_hook

        stop_signals.release()

        return run_hook(args[1:])
    request_id = new_id("req")
    opts = options.Options()
    fmt: str | None = None
    program_argv: list[str] | None = None
    refused = False
    from agentwrap.render.output import Writer

    writer = Writer(environment.stdout, is_tty=environment.is_tty())
    try:
        opts, rest = options.parse(args, opts)
        if rest[:1] == ["run"] and not opts.explicit_program and "--input" in rest:
            opts, rest = options.parse(rest[1:], opts)  # `run --input`: the request decides the output too
            opts.explicit_program = True
        if opts.input is not None:
            from agentwrap import request

            opts, rest = request.load(opts.input, opts, rest)
            opts.explicit_program = True
        options.validate(opts)
        fmt = options.resolve_format(opts, writer.is_tty)
        program_argv = rest if rest and (rest[0] not in options.SUBCOMMANDS or opts.explicit_program) else None
        writer.configure(fmt, opts)
        outcome = _dispatch(rest, opts, fmt, request_id, writer.event if fmt == "jsonl" else None)
    except AgentwrapError as exc:
        refused = True
        outcome = _problem_outcome(exc.to_problem(), request_id, program_argv, exc.subcommand)
    except HelpRequested as exc:
        outcome = envelope.Outcome(envelope.build(request_id=request_id, summary="usage",
                                                  data={"usage": exc.text}), 0, raw_text=exc.text)
    except KeyboardInterrupt as exc:  # Ctrl-C, or a stop signal held while agentwrap started (stop_signals)
        signum = getattr(exc, "signum", 2)
        safe = {"safe_to_retry": True} if getattr(exc, "nothing_ran", False) else {}
        outcome = _problem_outcome(wrapper_problem("INTERRUPTED", getattr(exc, "detail", "agentwrap was interrupted"),
                                                   exit_code=128 + signum, **safe), request_id, program_argv)
        outcome.exit_code = 128 + signum
    except Exception as exc:  # the edge: a bug must still answer as a Problem, never a traceback
        if os.environ.get("AGENTWRAP_DEBUG"):
            import traceback

            traceback.print_exc()
        outcome = _problem_outcome(wrapper_problem("INTERNAL", f"{type(exc).__name__}: {exc}"[:1000]),
                                   request_id, program_argv)
    if fmt is None:  # the options themselves were wrong: answer in the format asked for, unprojected
        fmt = opts.format if opts.format and not (opts.agent and opts.format == "pretty") else (
            "json" if opts.agent or not writer.is_tty else "pretty")
        writer.configure(fmt, options.Options(agent=opts.agent, detail=options.resolve_detail(opts)))
    writer.finish(outcome)
    _account(outcome, request_id, opts, program_argv or _after_dashes(args), refused, writer)
    return outcome.exit_code


def _account(outcome: envelope.Outcome, request_id: str, opts: options.Options, program_argv: list[str] | None,
             refused: bool, writer: Any) -> None:
    """The stats ledger's line for this call, now that its answer is written and its size known. A run
    held its line (`ledger.hold`, which imported the ledger: a call that ran nothing pays no import);
    a call that ran nothing here still cost the caller its answer when it named a program."""
    try:
        held = sys.modules.get("agentwrap.ledger")
        if held is not None and held.settle(request_id, writer.written):
            return
        run = "refused" if refused else "launch" if opts.detach else "replay" if opts.idempotency_key else None
        if not program_argv or run is None:
            return  # a subcommand, --help, --version: not a run
        from agentwrap import ledger

        if ledger.opted_out():
            return
        env = outcome.envelope
        ledger.append(ledger.entry(program=program_argv[0], adapter=None, run=run, status=str(env.get("status")),
                                   code=(env.get("error") or {}).get("code"), exit_code=outcome.exit_code,
                                   detail=writer.opts.detail, raw_bytes=0, envelope_bytes=writer.written,
                                   duration_ms=0))
    except Exception:  # noqa: BLE001 - the answer is written: bookkeeping must not turn it into a traceback
        if os.environ.get("AGENTWRAP_DEBUG"):
            import traceback

            traceback.print_exc()


def _after_dashes(args: list[str]) -> list[str] | None:
    """PROGRAM ARGS of a call whose options could not be read (`agentwrap --bogus -- make`): its program."""
    return (args[args.index("--") + 1:] or None) if "--" in args else None
