"""Each agent host's hook format: where the command is in its input, and how its answer rewrites it.

Every answer changes only the command and carries every other member of the host's tool input as it
came (a host that replaces the whole input would otherwise drop `timeout` or `run_in_background`,
anthropics/claude-code#90725). No answer carries a permission decision, with one exception that the
user's own settings decide (Codex, below): a rewrite never grants what the user did not grant.

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
from collections.abc import Callable
from typing import Any, NamedTuple

HOSTS = ("claude-code", "codex", "gemini", "copilot", "cursor", "opencode")
# Permission modes in which the host already runs a command without asking (Codex): only there may a
# rewrite say "allow", because the user's own rules already did.
_ALREADY_ALLOWED = frozenset({"bypassPermissions", "never", "dontAsk", "full-auto", "danger-full-access", "yolo"})


class Call(NamedTuple):
    command: str  # the command line the host is about to run
    tool_input: dict[str, Any]  # the whole input it came in, to be given back whole
    background: bool  # the host runs it in the background (it cannot be supervised)


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
        return _command_of(_dict(args))
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


def _answer_claude(data: dict[str, Any], call: Call, command: str) -> dict[str, Any] | None:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": _updated(call, command)}}


def _answer_codex(data: dict[str, Any], call: Call, command: str) -> dict[str, Any] | None:
    if data.get("permission_mode") not in _ALREADY_ALLOWED:
        return None  # Codex applies a rewrite only with "allow", which the user's rules did not say here
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                   "permissionDecisionReason": "agentwrap: the same command, read per command",
                                   "updatedInput": _updated(call, command)}}


def _answer_gemini(data: dict[str, Any], call: Call, command: str) -> dict[str, Any] | None:
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": _updated(call, command)}}


def _answer_copilot(data: dict[str, Any], call: Call, command: str) -> dict[str, Any] | None:
    if "toolArgs" in data:
        return {"modifiedArgs": _updated(call, command)}
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": _updated(call, command)}}


def _answer_opencode(data: dict[str, Any], call: Call, command: str) -> dict[str, Any] | None:
    return {"args": _updated(call, command)}


class Host(NamedTuple):
    read: Callable[[dict[str, Any]], Call | None]
    answer: Callable[[dict[str, Any], Call, str], dict[str, Any] | None]


BY_NAME: dict[str, Host] = {
    "claude-code": Host(_claude, _answer_claude),
    "codex": Host(_codex, _answer_codex),
    "gemini": Host(_gemini, _answer_gemini),
    "copilot": Host(_copilot, _answer_copilot),
    "cursor": Host(_cursor, _answer_claude),
    "opencode": Host(_opencode, _answer_opencode),
}
