"""Each agent host's hook format: where the command is in its input, and how its answer rewrites it.

Every answer changes only the command and carries every other member of the host's tool input as it
came (a host that replaces the whole input would otherwise drop `timeout` or `run_in_background`,
anthropics/claude-code#90725). An answer says "allow" only where the user's own rules already let
every command of the line run unasked (`agentwrap.hooks.policy`): a rewrite never grants what the user
did not grant, and a line the user's rules deny or ask about is left alone for the host to handle.

Sources (read 2026-12):
- Claude Code: code.claude.com/docs/en/hooks, PreToolUse; `hookSpecificOutput.updatedInput` replaces
  `tool_input` whole.
- OpenAI Codex: hooks.json PreToolUse (matcher `Bash`), the codex-hooks output schema
  (pre-tool-use.command.output.schema.json): `updatedInput` is applied only with
  `permissionDecision: "allow"`.
- Gemini CLI: geminicli.com/docs/hooks/reference, BeforeTool: `hookSpecificOutput.tool_input` merges
  with and overrides the model's arguments (`run_shell_command`).
- GitHub Copilot CLI: docs.github.com .../cli-hooks-reference, preToolUse (camelCase): `toolArgs` is a
  JSON string; the answer's `modifiedArgs` replaces the arguments. The VS Code compatible form
  (`PreToolUse`, snake_case) is answered like Claude Code's.
- Cursor: beforeShellExecution answers only a permission (allow/deny/ask), it cannot change the command:
  agentwrap answers nothing and the line runs as written.
- OpenCode: its plugins' `tool.execute.before` can change `output.args`; the plugin that `agentwrap init
  opencode` writes sends `{"tool", "args"}` and applies the `args` it gets back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, NamedTuple

from agentwrap.hooks import policy
from agentwrap.hooks.rewrite import Rewrite

HOSTS = ("claude-code", "codex", "gemini", "copilot", "cursor", "opencode")


class Call(NamedTuple):
    command: str  # the command line the host is about to run
    tool_input: dict[str, Any]  # the whole input it came in, to be given back whole
    background: bool  # the host runs it in the background (it cannot be supervised)
    camel_case: bool = False  # Copilot's camelCase form (`toolArgs`, answered with `modifiedArgs`)


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _command_of(tool_input: dict[str, Any] | None) -> Call | None:
    if tool_input is None or not isinstance(tool_input.get("command"), str):
        return None
    return Call(tool_input["command"], tool_input, bool(tool_input.get("run_in_background")))


# --- reading each host's input --------------------------------------------------------------------------
def _claude(data: dict[str, Any]) -> Call | None:
    if data.get("hook_event_name", "PreToolUse") != "PreToolUse" or data.get("tool_name") != "Bash":
        return None
    return _command_of(_dict(data.get("tool_input")))


def _codex(data: dict[str, Any]) -> Call | None:
    if data.get("hook_event_name", "PreToolUse") != "PreToolUse" or data.get("tool_name") not in ("Bash", "shell"):
        return None
    return _command_of(_dict(data.get("tool_input")))


def _gemini(data: dict[str, Any]) -> Call | None:
    if data.get("hook_event_name", "BeforeTool") != "BeforeTool" or data.get("tool_name") != "run_shell_command":
        return None
    return _command_of(_dict(data.get("tool_input")))


def _copilot(data: dict[str, Any]) -> Call | None:
    if "toolArgs" in data:  # camelCase preToolUse: the arguments are a JSON string
        if str(data.get("toolName", "")).lower() != "bash":
            return None
        raw = data["toolArgs"]
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return None
        call = _command_of(_dict(args))
        return call._replace(camel_case=True) if call else None
    if str(data.get("tool_name", "")).lower() not in ("bash", "runinterminal", "run_in_terminal"):
        return None
    return _command_of(_dict(data.get("tool_input")))


def _cursor(_data: dict[str, Any]) -> Call | None:
    return None  # beforeShellExecution cannot change the command


def _opencode(data: dict[str, Any]) -> Call | None:
    if data.get("tool") != "bash":
        return None
    return _command_of(_dict(data.get("args")))


# --- answering ------------------------------------------------------------------------------------------
def _updated(call: Call, command: str) -> dict[str, Any]:
    return {**call.tool_input, "command": command}


_REASON = ("agentwrap: the same command line, read per command; your rules or permission mode already run it"
           " unasked")


def _pre_tool_use(call: Call, command: str, verdict: str) -> dict[str, Any]:
    out: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if verdict == "allow":
        out.update(permissionDecision="allow", permissionDecisionReason=_REASON)
    out["updatedInput"] = _updated(call, command)
    return {"hookSpecificOutput": out}


def _answer_gemini(call: Call, command: str, verdict: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": _updated(call, command)}}


def _answer_copilot(call: Call, command: str, verdict: str) -> dict[str, Any]:
    if call.camel_case:
        return {"modifiedArgs": _updated(call, command)}
    return _pre_tool_use(call, command, verdict)


def _answer_opencode(call: Call, command: str, verdict: str) -> dict[str, Any]:
    return {"args": _updated(call, command)}


def _never(_data: dict[str, Any], _rw: Rewrite) -> str:
    return "skip"


# --- the host's own time limit ----------------------------------------------------------------------------
# A host ends a command that runs past its limit, agentwrap and all: then no envelope reaches the agent.
# agentwrap is given a limit a little shorter, so that it ends the program's tree itself and answers TIMEOUT
# with what the program printed.
_CLAUDE_DEFAULT_MS, _CLAUDE_MAX_MS = 120_000, 600_000  # Claude Code's Bash tool (BASH_*_TIMEOUT_MS change them)


def _ms(value: Any) -> float | None:
    """A positive, finite number of milliseconds, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e12:
        return None
    return float(value)


def _env_ms(name: str) -> float | None:
    raw = os.environ.get(name, "")
    return _ms(int(raw)) if raw.isdigit() else None


def _claude_limit(call: Call) -> float | None:
    """Claude Code's limit for this call, in seconds: the input's `timeout` (ms) up to the maximum, else the
    default; both as Claude Code reads them from its environment, which its hooks inherit."""
    default = _env_ms("BASH_DEFAULT_TIMEOUT_MS") or _CLAUDE_DEFAULT_MS
    ceiling = max(_env_ms("BASH_MAX_TIMEOUT_MS") or _CLAUDE_MAX_MS, default)
    asked = _ms(call.tool_input.get("timeout"))
    return min(asked, ceiling) / 1000 if asked else default / 1000


def _asked_limit(key: str) -> Callable[[Call], float | None]:
    """A host whose default limit agentwrap does not know: only the limit the call itself asks for."""
    def limit(call: Call) -> float | None:
        asked = _ms(call.tool_input.get(key))
        return asked / 1000 if asked else None

    return limit


def _no_limit(_call: Call) -> float | None:
    return None


def within(limit: float | None) -> str | None:
    """agentwrap's `--timeout` for a host limit of `limit` seconds: time to end the tree (the grace period)
    and answer before the host gives up. None: the host sets no limit agentwrap knows of."""
    if limit is None:
        return None
    margin = 5.0 if limit >= 20 else limit / 4
    return f"{max(limit - margin, 1.0):g}s"


class Host(NamedTuple):
    read: Callable[[dict[str, Any]], Call | None]
    policy: Callable[[dict[str, Any], Rewrite], str]  # skip, allow or none (agentwrap.hooks.policy)
    answer: Callable[[Call, str, str], dict[str, Any]]
    limit: Callable[[Call], float | None] = _no_limit  # the host's own time limit for the call, in seconds


BY_NAME: dict[str, Host] = {
    "claude-code": Host(_claude, policy.claude_code, _pre_tool_use, _claude_limit),
    "codex": Host(_codex, policy.codex, _pre_tool_use, _asked_limit("timeout_ms")),
    "gemini": Host(_gemini, policy.gemini, _answer_gemini),
    "copilot": Host(_copilot, policy.copilot, _answer_copilot, _asked_limit("timeout")),
    "cursor": Host(_cursor, _never, _pre_tool_use),
    "opencode": Host(_opencode, policy.opencode, _answer_opencode, _asked_limit("timeout")),
}
