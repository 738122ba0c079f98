"""`agentwrap describe NAME`: one adapter's descriptor, effects and problem codes (discovery, step two)."""

from __future__ import annotations

from collections.abc import Sequence

from agentwrap import envelope, prevention, registry
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap describe", description="Describe one adapter.")
    parser.add_argument("name", metavar="NAME", help="an adapter name (see `agentwrap capabilities`)")
    ns = parser.parse_args(list(args))
    data = registry.describe(ns.name)  # an unknown name is a USAGE problem naming the close ones
    data["prevention_env"] = prevention.listed(data.get("env"))  # set on every run of this adapter
    return Outcome(envelope.build(request_id=ctx.request_id, data=data,
                                  summary=f"{ns.name}: {data['purpose']}"), 0)
