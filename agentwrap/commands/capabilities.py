"""`agentwrap capabilities`: a compact inventory for tool selection (progressive discovery, step one)."""

from __future__ import annotations

from collections.abc import Sequence

from agentwrap import __version__, envelope, prevention, registry
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome

FEATURES = {
    "run": "run any program in a pseudo-terminal; one bounded JSON envelope with RFC 9457 problems",
    "prompts": "prompts prevented by environment, detected by the kernel, answered only with --answer",
    "timeout": "--timeout ends the whole process tree (SIGTERM, grace, SIGKILL)",
    "bounded_output": "head, salient lines and tail inline; the rest in artifacts (agentwrap artifact show)",
    "redaction": "tokens, keys, passwords and credentials in URLs never appear in any field",
    "formats": "json, jsonl (events), problem (RFC 9457), pretty",
    "detail": "--detail concise (the --agent default: each fact once), standard (the complete envelope), "
              "detailed (plus the prevention environment and the noise dropped); --fields a,b.c",
    "explain": "agentwrap explain CODE: meaning and fixes of every problem code, offline",
    "schema": "agentwrap schema result|problem|event: the JSON Schemas of every answer",
    "describe": "agentwrap describe NAME: one adapter's descriptor, effects per subcommand and problem codes",
    "adapters": "agentwrap adapter list|test|new, agentwrap capture: write and test adapters for your tools",
    "normalize": "agentwrap normalize LOG: a saved CI log as problems (json, jsonl, SARIF 2.1.0, GitHub annotations)",
    "read_only": "--read-only refuses, before it starts, whatever its adapter classes as mutating or cannot classify, "
                 "naming the tool's own dry run",
    "operations": "--detach starts a durable operation; agentwrap op status|wait|cancel|result|events|list|prune "
                  "from any later process",
    "idempotency": "--idempotency-key KEY runs once per key; a repeat replays the recorded envelope",
    "plans": "agentwrap plan -- git push|pip install|apt-get install ..., then agentwrap apply PLAN_ID: "
             "runs only if the state did not drift, then verifies",
    "typed_input": "agentwrap run --input FILE|-: the whole request as JSON (agentwrap schema request)",
    "init": "agentwrap init HOST: install or remove the command hook of claude-code, codex, gemini, copilot, cursor, "
            "opencode (a plan and an apply, undone byte for byte); agents-md, claude-md: the instructions",
    "mcp": "agentwrap mcp: these tools over the Model Context Protocol (stdio; the mcp extra)",
    "stats": "agentwrap stats: tokens the envelopes cost against the raw output, from a local ledger of sizes",
    "telemetry": "each run an OpenTelemetry span when OTEL_EXPORTER_OTLP_ENDPOINT is set (the otel extra)",
    "shell": "agentwrap --shell 'LINE' (or -- bash -c 'LINE'): the real bash runs the line; each command read by "
             "its own adapter; command.decided_by names the one that decided, a failure a pipe hid included",
    "hook": "agentwrap hook HOST: an agent host's command hook (claude-code, codex, gemini, copilot, cursor, "
            "opencode) that routes what it can through agentwrap and never grants a permission",
}
NOT_YET: tuple[str, ...] = ()


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    Parser(prog="agentwrap capabilities", description="List what agentwrap can do.").parse_args(list(args))
    adapters, warnings = [], []
    for name in registry.names():
        try:
            descriptor = registry.describe(name)
        except Exception as exc:  # noqa: BLE001 - one broken adapter must not hide the inventory
            warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": f"{name}: {exc}"[:300]})
            continue
        adapters.append({"name": name, "purpose": descriptor.get("purpose", ""),
                         "matches": descriptor.get("matches") or ["*"]})
    data = {"version": __version__, "features": FEATURES, "adapters": adapters, "not_available_yet": list(NOT_YET),
            "prevention_env": prevention.listed(),  # every run's; `describe NAME` adds the adapter's own
            # not set when a person reads the run on a terminal (pretty): they see the program's colours
            "prevention_env_machine_only": prevention.colour_off(prevention.GENERIC)}
    return Outcome(envelope.build(request_id=ctx.request_id, data=data, warnings=warnings,
                                  summary=f"agentwrap {__version__}: {len(FEATURES)} features, "
                                          f"{len(adapters)} adapters"), 0)
