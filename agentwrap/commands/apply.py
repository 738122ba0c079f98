"""`agentwrap apply PLAN_ID [--expect-hash H] [--env NAME=VALUE]...`: run a planned command only if the plan
still holds, with the plan's --env (secret values given again), then verify its postcondition (see
agentwrap.safety.plans)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from agentwrap import envelope, options
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.problem import CodeAction
from agentwrap.render import views
from agentwrap.safety import plans


def main(args: Sequence[str], ctx: CommandContext) -> envelope.Outcome:
    parser = Parser(prog="agentwrap apply", description="Run a plan made by `agentwrap plan`, if it still holds.")
    parser.add_argument("plan_id", metavar="PLAN_ID")
    parser.add_argument("--expect-hash", metavar="H", help="the plan's digest, as approved")
    parser.add_argument("--env", metavar="NAME=VALUE", action="append", default=[],
                        help="a secret --env of the plan again (its value is kept only as a digest)")
    ns = parser.parse_args(list(args))
    given = options.parse([part for value in ns.env for part in ("--env", value)], options.Options())[0].env
    plan = plans.load(ns.plan_id)
    replan = _replan(plan, ctx)
    if plan.get("applied_at"):
        raise plans.PlanApplied(f"plan {plan['plan_id']} was applied at {plan['applied_at']}; a plan runs once",
                                code_actions=(replan,))
    if time.time() >= float(plan["expires_epoch"]):
        raise plans.PlanExpired(f"plan {plan['plan_id']} expired at {plan['expires_at']}", code_actions=(replan,))
    if ns.expect_hash is not None and ns.expect_hash != plan["digest"]:
        raise plans.PlanHashMismatch(f"plan {plan['plan_id']} has digest {plan['digest']}, not the expected "
                                     f"{ns.expect_hash}: it is not the plan that was approved",
                                     code_actions=(replan,))
    run_env = plans.env_for_apply(plan, given)
    planner = plans.PLANNERS[plan["planner"]]
    with plans.probe_environment(run_env):
        now = planner.plan(plan["argv"], plan["cwd"])
    changes = planner.drift(plan["fingerprint"], now.fingerprint)
    if changes:
        raise plans.PlanDrift(f"plan {plan['plan_id']} no longer holds, nothing was run: " + "; ".join(changes),
                              code_actions=(replan,), extra={"changes": changes})
    from agentwrap.commands.run import execute

    opts = options.Options(agent=ctx.agent, max_inline_bytes=ctx.max_inline_bytes, cwd=plan["cwd"],
                           timeout=options.AGENT_TIMEOUT if ctx.agent else None, env=run_env)
    plans.mark_applied(plan, ctx.request_id)  # before the run: a crash mid-run must not allow a second apply
    outcome = execute(list(plan["argv"]), opts, request_id=ctx.request_id)
    with plans.probe_environment(run_env):
        verification = planner.verify(plan)
    env = views.project(outcome.answer, "concise" if ctx.detail == "concise" else "standard")
    observed = _observed(plan, verification)
    env = {**env, "plan_id": plan["plan_id"], "verification": verification,
           "effects": env.get("effects") or observed}  # the adapter's reading of the run, else what was verified
    if outcome.exit_code == 0 and not verification["passed"]:
        from agentwrap.problem import wrapper_problem

        problem = wrapper_problem("VERIFICATION_FAILED", f"{' '.join(plan['argv'])} exited 0 but "
                                  f"{verification['reason']}").with_instance(ctx.request_id)
        from agentwrap.failure_summary import failure_summary

        env.update(status="error", error=problem.to_dict(),
                   summary=failure_summary(problem, program=plan["argv"][0], subcommand=_subcommand(env)))
        return envelope.Outcome(env, 1)
    return envelope.Outcome(env, outcome.exit_code)


def _replan(plan: dict[str, Any], ctx: CommandContext) -> CodeAction:
    """`agentwrap plan` again with the plan's own options (its folder, its --env) and the caller's --agent:
    run literally, it plans the same command in the same repository, not the one apply was run from."""
    own = [str(o) for o in plan.get("rerun_options") or ["--cwd", plan["cwd"]]]
    agent = ["--agent"] if ctx.agent else []
    # a secret --env value is never kept in the plan: the caller fills it in again
    unfilled = any(o.endswith(">") and "=<" in o for o in own)
    return CodeAction(title="Plan again against the current state",
                      command=("agentwrap", *agent, "plan", *own, "--", *plan["argv"]),
                      applicability="has_placeholders" if unfilled else "machine_applicable", is_preferred=True)


def _observed(plan: dict[str, Any], verification: dict[str, Any]) -> list[dict[str, Any]]:
    """The planned effects that verification saw in place."""
    seen = []
    for effect, check in zip(plan["proposed_effects"], verification.get("checks", []), strict=False):
        if check.get("passed"):
            seen.append({**effect, "observed": True})
    return seen


def _subcommand(env: dict[str, Any]) -> str | None:
    command = env.get("command")
    return command.get("subcommand") if isinstance(command, dict) else None
