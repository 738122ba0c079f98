"""`agentwrap mcp [--text-content summary|envelope]`: serve the agentwrap contract over the Model Context
Protocol on stdin/stdout (`agentwrap.mcp_server`); needs the `mcp` extra."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from agentwrap import envelope
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome
from agentwrap.errors import AgentwrapError


class ExtraNotInstalled(AgentwrapError):
    code = "EXTRA_NOT_INSTALLED"


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap mcp", description="Serve agentwrap's tools over the Model Context Protocol "
                    "(stdio). Configure a host to start `agentwrap mcp`; see docs/integrations.md.")
    parser.add_argument("--text-content", choices=("summary", "envelope"), default="summary",
                        help="the text beside structuredContent: the summary (default) or the whole envelope, "
                             "for hosts that show a model only the text")
    ns = parser.parse_args(list(args))
    try:
        from agentwrap import mcp_server
    except ImportError as exc:
        raise ExtraNotInstalled(
            f"`agentwrap mcp` needs the Model Context Protocol SDK, which is not installed ({exc})",
            suggested_fix="Install the extra: pip install 'agentwrap[mcp]'") from None
    if sys.stdin.isatty():
        sys.stderr.write("agentwrap mcp: serving MCP on stdin/stdout; an MCP host starts this command "
                         "(Ctrl-D ends it)\n")
    mcp_server.serve(str(ns.text_content))
    # the protocol owned stdout; nothing more is written to it
    return Outcome(envelope.build(request_id=ctx.request_id, summary="MCP session ended"), 0, raw_output="")
