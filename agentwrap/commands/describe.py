"""`agentwrap describe NAME`: one adapter's descriptor, effects and problem codes (discovery, step two)."""

from __future__ import annotations

from collections.abc import Sequence

from agentwrap import envelope, prevention, registry
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome
from agentwrap.errors import UsageError


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap describe", description="Describe one adapter.")
    parser.add_argument("name", metavar="NAME", help="an adapter name (see `agentwrap capabilities`)")
    ns = parser.parse_args(list(args))
    try:
        data = registry.describe(ns.name)
    except registry.NoSuchAdapter as exc:  # named as the caller wrote it: no --adapter was given
        raise UsageError(f"describe {ns.name}: no adapter is named {ns.name!r}{exc.hint}",
                         suggested_fix="Run `agentwrap capabilities` to list the adapters.") from None
    data["prevention_env"] = prevention.listed(data.get("env"))  # set on every machine run of this adapter
    # a person's run (pretty on a terminal) leaves these out: the program's colours are shown to them
    data["prevention_env_machine_only"] = prevention.colour_off(data["prevention_env"])
    return Outcome(envelope.build(request_id=ctx.request_id, data=data,
                                  summary=f"{ns.name}: {data['purpose']}"), 0)
