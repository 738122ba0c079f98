"""One module per subcommand. Each exposes `main(args, ctx) -> Outcome` and never exits the process."""

from __future__ import annotations

from typing import NamedTuple


class CommandContext(NamedTuple):
    """What the CLI edge resolved before dispatch."""

    request_id: str
    format: str  # "json" | "pretty" | "jsonl" | "problem"
    agent: bool
    max_inline_bytes: int
    detail: str = "standard"
