"""`agentwrap schema KIND`: print one of the shipped JSON Schemas as the single JSON value."""

from __future__ import annotations

from collections.abc import Sequence

from agentwrap import schema_files
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome
from agentwrap.errors import UsageError
from agentwrap.problem import CodeAction

_KIND_HELP = {
    "result": "the result envelope (--format json)",
    "problem": "one RFC 9457 problem (--format problem, error, problems[])",
    "event": "one line of --format jsonl and `agentwrap op events`",
    "request": "the JSON request of `agentwrap run --input FILE|-`",
}


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    """Return the schema itself (not wrapped in an envelope): what `jsonschema` and agents consume."""
    parser = Parser(prog="agentwrap schema",
                    description="Print a JSON Schema (draft 2020-12) of agentwrap output.")
    parser.add_argument("kind", nargs="?", metavar="KIND", help="one of: " + ", ".join(schema_files.KINDS))
    ns = parser.parse_args(list(args))
    if ns.kind is None:
        raise _kind_error("agentwrap schema needs a KIND")
    kind = str(ns.kind).strip().lower()
    if kind not in schema_files.KINDS:
        raise _kind_error(f"unknown schema kind {ns.kind!r}")
    return Outcome(envelope=schema_files.load(kind), exit_code=0)


def _kind_error(lead: str) -> UsageError:
    kinds = "; ".join(f"{k} ({_KIND_HELP[k]})" for k in schema_files.KINDS)
    actions = tuple(
        CodeAction(title=f"Print the {k} schema", kind="command", command=("agentwrap", "schema", k),
                   applicability="maybe_incorrect", is_preferred=(k == "result"))
        for k in schema_files.KINDS
    )
    return UsageError(f"{lead}. Kinds: {kinds}.", suggested_fix="Run `agentwrap schema result`.",
                      code_actions=actions)
