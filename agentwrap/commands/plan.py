"""`agentwrap plan [--ttl DUR] [RUN OPTIONS] -- PROGRAM ARGS`: the tool's own dry run, kept as a plan that
`agentwrap apply` runs only while the state it read still holds (see agentwrap.safety.plans)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from agentwrap import envelope, options, registry
from agentwrap.commands import CommandContext
from agentwrap.errors import UsageError
from agentwrap.render import views
from agentwrap.safety import dry_run, plans


def _parse(args: list[str], ctx: CommandContext) -> tuple[float, options.Options, list[str]]:
    ttl: float = plans.DEFAULT_TTL_SECONDS
    if args[:1] == ["--ttl"]:
        if len(args) < 2:
            raise UsageError("plan: --ttl needs a duration (e.g. 15m)")
        ttl = options.parse_duration(args[1], "--ttl") or plans.DEFAULT_TTL_SECONDS
        args = args[2:]
    opts, argv = options.parse(args, options.Options(agent=ctx.agent, max_inline_bytes=ctx.max_inline_bytes))
    options.validate(opts)
    if not argv:
        raise UsageError("plan: no program given: agentwrap plan [--ttl DUR] -- PROGRAM ARGS...")
    return ttl, opts, argv


def rerun_options(opts: options.Options, cwd: str) -> list[str]:
    """The plan's options as `agentwrap plan` again must be given them: its folder always (an apply may run
    anywhere), its --env and run options as the run's own reruns carry them; --agent is the caller's."""
    from agentwrap.operations.recorded import options_from_json, options_to_json
    from agentwrap.outcome.rerun import carried

    own = options_from_json(options_to_json(opts))
    own.agent, own.cwd, own.max_inline_bytes = False, cwd, None  # how much to show is the caller's
    return list(carried(own))


def supported() -> list[str]:
    return sorted({f"{e.adapter} {e.subcommand}" for e in dry_run.entries() if e.planner in plans.PLANNERS})


def main(args: Sequence[str], ctx: CommandContext) -> envelope.Outcome:
    ttl, opts, argv = _parse(list(args), ctx)
    adapter, _ = registry.find(argv[0], forced=opts.adapter, disabled=opts.no_adapter)
    entry = dry_run.entry_for(adapter, argv)
    if entry is None or entry.planner not in plans.PLANNERS:
        raise plans.PlanError(f"no planner for `{' '.join(argv[:3])}`: plans are made for "
                              f"{', '.join(supported())}",
                              suggested_fix="Run its read-only form yourself, or run it with --idempotency-key.")
    cwd = os.path.abspath(opts.cwd) if opts.cwd else os.getcwd()
    planner = plans.PLANNERS[entry.planner]
    with plans.probe_environment(opts.env):  # the state as the command with its --env would read it
        planned = planner.plan(argv, cwd)  # the state first: a dry run that passes on newer state proves nothing
    preview = dry_run.alternative(adapter, argv)
    assert preview is not None  # an entry with a planner always has a dry run
    from agentwrap.commands.run import execute

    outcome = execute(preview, opts, request_id=ctx.request_id)
    if outcome.exit_code != 0:
        return outcome  # the dry run itself failed (rejected, not found): its own problem says why
    plan = plans.save(argv, cwd, adapter.name, entry.planner, planned, ttl, rerun_options(opts, cwd), opts.env)
    again = plans.env_to_pass_again(plan)  # secret values are not kept: apply is given them again
    facts: dict[str, Any] = {
        "plan_id": plan["plan_id"], "digest": plan["digest"], "expires_at": plan["expires_at"],
        "argv": argv, "dry_run": preview, "proposed_effects": plan["proposed_effects"],
        "fingerprint": plan["fingerprint"],
        "apply": ["agentwrap", "apply", plan["plan_id"], "--expect-hash", plan["digest"],
                  *[part for name in again for part in ("--env", f"{name}=<{name}>")]]}
    if again:
        facts["env_to_pass_again"] = again
    env = views.project(outcome.answer, "concise" if ctx.detail == "concise" else "standard")
    env = {**env, "data": facts, "plan_id": plan["plan_id"], "summary": _summary(plan)}
    if "effects" in env:  # what the adapter read from the dry run's text: nothing happened yet
        env["effects"] = []
        if ctx.detail == "concise":
            del env["effects"]
    return envelope.Outcome(env, 0)


def _summary(plan: dict[str, Any]) -> str:
    effects = plan["proposed_effects"]
    if not effects:
        return f"plan {plan['plan_id']}: nothing would change"
    said = "; ".join(f"{e['action']} {e['resource']}" for e in effects[:4])
    more = f" (+{len(effects) - 4} more)" if len(effects) > 4 else ""
    return f"plan {plan['plan_id']}: would {said}{more}"[:300]
