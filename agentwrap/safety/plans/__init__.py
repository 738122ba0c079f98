"""Plan, apply, verify: a mutation bound to the state it was planned against.

`agentwrap plan -- PROGRAM ARGS` runs the tool's own dry run (dry_runs.toml) and asks the tool's
planner (below) for two things: the effects the real command would have, and a fingerprint of the state
those effects depend on (for git push: the local commit of each ref and the remote ref, read with
`git ls-remote`). The plan is kept in the state directory with an id, a digest and an expiry.

`agentwrap apply PLAN_ID [--expect-hash H]` runs the real command only while the plan is unexpired, its
digest is the one the caller approved, and the fingerprint read again is the same; otherwise it refuses
with a `precondition` problem naming what changed. After the run the planner's read-only check of the
postcondition fills `verification` (the remote ref now equals the planned commit) and `effects`.

The plan's `--env` is part of it (and of its digest): the planner's probes, the dry run and apply's run all
get it. A plain value is kept and used again; a secret-named one is kept only as a digest keyed with the
plan id (as idempotency keys keep theirs), so apply needs it passed again (`--env NAME=VALUE`) and checks it
is the planned value. An --env given to apply that the plan does not have, or with another value, is
refused with PLAN_ENV_MISMATCH before anything runs.

Planners read state with the tool itself (git rev-parse, git ls-remote): read-only commands, run with
prompts off and a time limit.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

from agentwrap.ids import new_id, rfc3339
from agentwrap.lazyre import lazy
from agentwrap.operations import store
from agentwrap.problem import CodeAction
from agentwrap.safety.plans import git_push, packages
from agentwrap.safety.plans.base import (
    PlanApplied,
    PlanDrift,
    PlanEnvMismatch,
    PlanError,
    PlanExpired,
    PlanHashMismatch,
    Planned,
    Planner,
    PlanNotFound,
    probe_environment,
)
from agentwrap.secret_names import is_secret_name

__all__ = ["PLANNERS", "PlanApplied", "PlanDrift", "PlanEnvMismatch", "PlanError", "PlanExpired",
           "PlanHashMismatch", "PlanNotFound", "Planned", "Planner", "digest_of", "env_for_apply", "env_to_pass_again",
           "load", "mark_applied", "probe_environment", "save"]

DEFAULT_TTL_SECONDS = 15 * 60
KEEP_EXPIRED_SECONDS = 86400  # an expired plan is kept a day (apply names it as expired), then pruned
ID_RE = lazy(r"plan_[0-9a-hjkmnp-tv-z]{26}\Z")


# --- storage ----------------------------------------------------------------------------------
def root() -> Path:
    return store.state_base() / "plans"


def digest_of(plan: dict[str, Any]) -> str:
    bound = {k: plan[k] for k in ("argv", "cwd", "adapter", "fingerprint", "proposed_effects")}
    if plan.get("env"):  # a plan without --env keeps the digest it had before --env was bound
        bound["env"] = plan["env"]
    return "sha256:" + hashlib.sha256(json.dumps(bound, sort_keys=True).encode()).hexdigest()


def save(argv: list[str], cwd: str, adapter: str, planner: str, planned: Planned,
         ttl: float = DEFAULT_TTL_SECONDS, rerun_options: list[str] | None = None,
         env: dict[str, str] | None = None) -> dict[str, Any]:
    """Keep a plan. `rerun_options` are the plan's own wrapper options as a suggested `agentwrap plan`
    again spells them (secret --env values as `NAME=<NAME>`); they are not part of the digest. `env` is
    the plan's --env, bound as _bound_env keeps it."""
    now = time.time()
    plan_id = new_id("plan")
    plan = {"plan_id": plan_id, "argv": argv, "cwd": cwd, "adapter": adapter, "planner": planner,
            "env": _bound_env(plan_id, env or {}),
            "rerun_options": rerun_options if rerun_options is not None else ["--cwd", cwd],
            "fingerprint": planned.fingerprint, "proposed_effects": planned.proposed_effects,
            "created_at": rfc3339(now), "expires_at": rfc3339(now + ttl), "expires_epoch": now + ttl}
    plan["digest"] = digest_of(plan)
    root().mkdir(parents=True, exist_ok=True, mode=0o700)
    _prune(now)
    store.write_json(root() / f"{plan['plan_id']}.json", plan)
    return plan


def _bound_env(plan_id: str, env: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each --env as the plan keeps it: a plain value as itself, a secret-named one only as a digest."""
    return {name: {"sha256": _keyed_digest(plan_id, value)} if is_secret_name(name) else {"value": value}
            for name, value in sorted(env.items())}


def _keyed_digest(plan_id: str, value: str) -> str:
    return hmac.new(plan_id.encode(), value.encode(), hashlib.sha256).hexdigest()


def env_to_pass_again(plan: dict[str, Any]) -> list[str]:
    """The --env names whose values the plan does not keep: apply must be given them again."""
    return [name for name, kept in (plan.get("env") or {}).items() if "value" not in kept]


def env_for_apply(plan: dict[str, Any], given: dict[str, str]) -> dict[str, str]:
    """The plan's whole --env, from its kept values and the secret ones `given` again; refuses (nothing has
    run yet) when one is missing, differs from the planned value, or was not planned at all."""
    kept: dict[str, dict[str, str]] = plan.get("env") or {}
    unplanned = sorted(set(given) - set(kept))
    missing = [name for name in env_to_pass_again(plan) if name not in given]
    differs = [name for name, value in sorted(given.items()) if name in kept and not _same(plan, kept[name], value)]
    said = [f"{label} {', '.join(names)}" for label, names in
            (("not given again:", missing), ("another value than planned for", differs),
             ("not in the plan:", unplanned)) if names]
    if said:
        again = " ".join(f"--env {name}=<{name}>" for name in env_to_pass_again(plan))
        secrets = [part for name in env_to_pass_again(plan) for part in ("--env", f"{name}=<{name}>")]
        # The same apply with the planned --env only: secret values are placeholders (the plan keeps digests)
        # and a plain value needs no --env at all. Not preferred blindly: a caller who meant another value
        # needs a new plan, which the suggested_fix says.
        retry = CodeAction(title="Apply again with the plan's --env",
                           command=("agentwrap", "apply", str(plan["plan_id"]), "--expect-hash",
                                    str(plan["digest"]), *secrets),
                           applicability="has_placeholders" if secrets else "maybe_incorrect", is_preferred=True)
        raise PlanEnvMismatch(
            f"plan {plan['plan_id']}'s --env does not match, nothing was run: " + "; ".join(said),
            suggested_fix=(f"Pass the planned secret values again: `agentwrap apply {plan['plan_id']} {again}`"
                           if again else "Apply without --env: the plan keeps its own --env values")
            + "; a different --env needs a new plan.",
            code_actions=(retry,), extra={"env_to_pass_again": env_to_pass_again(plan)})
    return {name: given[name] if name in given else held["value"] for name, held in kept.items()}


def _same(plan: dict[str, Any], kept: dict[str, str], value: str) -> bool:
    if "value" in kept:
        return kept["value"] == value
    return hmac.compare_digest(kept.get("sha256", ""), _keyed_digest(str(plan["plan_id"]), value))


def load(plan_id: str) -> dict[str, Any]:
    if not ID_RE.match(plan_id):
        raise PlanNotFound(f"{plan_id!r} is not a plan id (they look like plan_01j…)",
                           suggested_fix="Make a plan with `agentwrap plan -- PROGRAM ARGS`.")
    plan = store.read_json(root() / f"{plan_id}.json")
    if plan is None:
        raise PlanNotFound(f"no plan {plan_id} here (expired plans are kept a day)",
                           suggested_fix="Make a new plan with `agentwrap plan -- PROGRAM ARGS`.")
    return dict(plan)


def mark_applied(plan: dict[str, Any], request_id: str) -> None:
    store.write_json(root() / f"{plan['plan_id']}.json", {**plan, "applied_at": rfc3339(time.time()),
                                                           "applied_by": request_id})


def _prune(now: float) -> None:
    for path in root().glob("plan_*.json"):
        plan = store.read_json(path) or {}
        if now - float(plan.get("expires_epoch", 0)) > KEEP_EXPIRED_SECONDS:
            path.unlink(missing_ok=True)


PLANNERS: dict[str, Planner] = {
    "git_push": Planner(git_push.plan, git_push.verify, git_push.drift),
    "pip_install": Planner(packages.pip_install_plan, packages.pip_install_verify, packages.package_drift),
    "apt_install": Planner(packages.apt_install_plan, packages.apt_install_verify, packages.apt_install_drift),
}
