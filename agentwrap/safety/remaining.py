"""What a stopped program leaves behind (CONTRACT section 9): the effects observed, those that may have
happened, and the read-only command that finds out. Used by `op cancel` and by runs a timeout, a signal
or an interruption ended after a mutating program had started."""

from __future__ import annotations

from typing import Any

from agentwrap.adapter import Adapter
from agentwrap.safety import dry_run


def after_stop(argv: list[str], result: dict[str, Any], cwd: str | None = None) -> dict[str, Any]:
    if not argv:
        return {}
    from agentwrap import registry
    from agentwrap.safety import leftovers

    adapter, _ = registry.find(argv[0])
    observed = list(result.get("effects") or [])
    from agentwrap.safety.readonly import classify

    if classify(argv, adapter).read_only:
        return {"mutating": False, "effects_observed": observed, "effects_uncertain": []}
    argv, adapter = _deciding_command(argv, adapter)
    check = dry_run.check_command(adapter, argv)
    what = " ".join(argv)
    uncertain = [{"resource": "unknown" if check is None else f"what `{what}` changes",
                  "action": "may_have_changed",
                  "detail": f"`{what}` was stopped after it started: some, all or none of its changes may "
                            "have happened" + ("" if check is None else f"; `{' '.join(check)}` finds out")}]
    out: dict[str, Any] = {"mutating": True, "effects_observed": observed, "effects_uncertain": uncertain}
    if check is not None:
        out["check_command"] = check
    found = leftovers.find(adapter.name, argv, cwd or str(result.get("context", {}).get("cwd") or "."))
    if found:
        out["leftovers"] = found
    return out


def _deciding_command(argv: list[str], adapter: Adapter) -> tuple[list[str], Adapter]:
    """In a shell line, the first command that changes something: its adapter knows what may remain."""
    from agentwrap import registry
    from agentwrap.safety import shell_line
    from agentwrap.safety.readonly import classify

    line = shell_line.script_of(argv)
    for command in (shell_line.simple_commands(line) or []) if line is not None else []:
        found, _ = registry.find(command[0])
        if found.name != "generic" and not classify(command, found).read_only:
            return command, found
    return argv, adapter
