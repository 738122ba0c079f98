"""Plan, apply, verify: a mutation bound to the state it was planned against.

`agentwrap plan -- PROGRAM ARGS` runs the tool's own dry run (dry_runs.toml) and asks the tool's
planner (below) for two things: the effects the real command would have, and a fingerprint of the state
those effects depend on (for git push: the local commit of each ref and the remote ref, read with
`git ls-remote`). The plan is kept in the state directory with an id, a digest and an expiry.

`agentwrap apply PLAN_ID [--expect-hash H]` runs the real command only while the plan is unexpired, its
digest is the one the caller approved, and the fingerprint read again is the same; otherwise it refuses
with a `precondition` problem naming what changed. After the run the planner's read-only check of the
postcondition fills `verification` (the remote ref now equals the planned commit) and `effects`.

Planners read state with the tool itself (git rev-parse, git ls-remote): read-only commands, run with
prompts off and a time limit.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from agentwrap.ids import new_id, rfc3339
from agentwrap.lazyre import lazy
from agentwrap.operations import store
from agentwrap.safety.plans import git_push, packages
from agentwrap.safety.plans.base import (
    PlanApplied,
    PlanDrift,
    PlanError,
    PlanExpired,
    PlanHashMismatch,
    Planned,
    Planner,
    PlanNotFound,
)

__all__ = ["PLANNERS", "PlanApplied", "PlanDrift", "PlanError", "PlanExpired", "PlanHashMismatch", "PlanNotFound",
           "Planned", "Planner", "digest_of", "load", "mark_applied", "save"]

DEFAULT_TTL_SECONDS = 15 * 60
KEEP_EXPIRED_SECONDS = 86400  # an expired plan is kept a day (apply names it as expired), then pruned
ID_RE = lazy(r"plan_[0-9a-hjkmnp-tv-z]{26}\Z")


# --- storage ----------------------------------------------------------------------------------
def root() -> Path:
    return store.state_base() / "plans"


def digest_of(plan: dict[str, Any]) -> str:
    bound = {k: plan[k] for k in ("argv", "cwd", "adapter", "fingerprint", "proposed_effects")}
    return "sha256:" + hashlib.sha256(json.dumps(bound, sort_keys=True).encode()).hexdigest()


def save(argv: list[str], cwd: str, adapter: str, planner: str, planned: Planned,
         ttl: float = DEFAULT_TTL_SECONDS, rerun_options: list[str] | None = None) -> dict[str, Any]:
    """Keep a plan. `rerun_options` are the plan's own wrapper options as a suggested `agentwrap plan`
    again spells them (secret --env values as `NAME=<NAME>`); they are not part of the digest."""
    now = time.time()
    plan = {"plan_id": new_id("plan"), "argv": argv, "cwd": cwd, "adapter": adapter, "planner": planner,
            "rerun_options": rerun_options if rerun_options is not None else ["--cwd", cwd],
            "fingerprint": planned.fingerprint, "proposed_effects": planned.proposed_effects,
            "created_at": rfc3339(now), "expires_at": rfc3339(now + ttl), "expires_epoch": now + ttl}
    plan["digest"] = digest_of(plan)
    root().mkdir(parents=True, exist_ok=True, mode=0o700)
    _prune(now)
    store.write_json(root() / f"{plan['plan_id']}.json", plan)
    return plan


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
    "apt_install": Planner(packages.apt_install_plan, packages.apt_install_verify, packages.package_drift),
}
