"""Where each agent host reads its command hook, and the entry `agentwrap init HOST` puts there.

One table, read by `agentwrap init` and by docs/integrations.md. Each host's entry calls
`agentwrap hook HOST`, which reads the host's hook JSON on stdin and answers in the host's format
(CONTRACT section 10). The command is the bare name `agentwrap`, resolved through the PATH of the
person running the host, so a project file stays portable when committed (`--command` changes it).

Sources, read for this table (each host's current documentation):
- Claude Code: https://docs.claude.com/en/docs/claude-code/hooks: `~/.claude/settings.json` (user),
  `.claude/settings.json` (project); `hooks.PreToolUse[] = {"matcher": "Bash", "hooks": [{"type":
  "command", "command": ...}]}`.
- OpenAI Codex: https://developers.openai.com/codex/hooks: `~/.codex/hooks.json` and
  `<repo>/.codex/hooks.json`, the same event -> matcher group -> handlers shape; PreToolUse matches `Bash`.
  Codex asks the user to review and trust a new or changed hook (`/hooks`) before it runs.
- Gemini CLI: https://geminicli.com/docs/hooks/reference: `hooks.BeforeTool[] = {"matcher": REGEX,
  "hooks": [{"type": "command", "command": ..., "name": ...}]}` in `~/.gemini/settings.json` or
  `.gemini/settings.json`; the shell tool is `run_shell_command`.
- GitHub Copilot CLI: https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference:
  every `.github/hooks/*.json` of the repository, `{"version": 1, "hooks": {"preToolUse": [{"type":
  "command", "bash": ..., "timeoutSec": N}]}}`; user-level hook files live in `~/.copilot/hooks/`
  (https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-config-dir-reference).
  agentwrap writes a file of its own there, `agentwrap.json`.
- Cursor: https://cursor.com/docs/agent/hooks: its shell hook (`beforeShellExecution` in
  `.cursor/hooks.json`) answers a permission only and cannot change the command, so `agentwrap hook cursor`
  never rewrites; `init cursor` writes agentwrap's instructions as a project rule instead,
  `.cursor/rules/agentwrap.mdc` with `alwaysApply: true` (https://cursor.com/docs/context/rules). User
  rules live in Cursor's settings, not in a file: there is no `--user` form.
- OpenCode: https://opencode.ai/docs/plugins/: JavaScript plugins in `.opencode/plugins/` or
  `~/.config/opencode/plugins/`, loaded at start-up; `tool.execute.before` may change `output.args`.
  agentwrap writes `agentwrap.js`, which pipes the bash tool's call to `agentwrap hook opencode`.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from typing import Any

HOSTS = ("claude-code", "codex", "gemini", "copilot", "cursor", "opencode")
INSTRUCTION_FILES = ("agents-md", "claude-md")
RULE_HOSTS = ("cursor",)  # hosts whose hook cannot route a command: init writes the instructions as a rule


@dataclass(frozen=True)
class Target:
    """What `init` writes for one host: an entry merged into a JSON file the host shares with the user
    (`key_path` names the list it goes into), or a whole file of agentwrap's own (`own_text`)."""

    host: str
    project_path: str  # relative to the project folder
    user_path: str  # relative to the home folder; "" when the host has no user-wide file
    key_path: tuple[str, ...] = ()
    item: dict[str, Any] | None = None
    own_text: str | None = None


def command_words(command: str) -> list[str]:
    """`--command` as words: a file's path is one word even with a space in it (`/opt/my tools/agentwrap`);
    anything else is shell words (`python3 -m agentwrap`, `'/opt/my tools/agentwrap'`)."""
    if os.path.isfile(os.path.expanduser(command)):
        return [command]
    try:
        words = shlex.split(command)
    except ValueError:  # an unclosed quote: taken as the one word it was given as
        return [command]
    return words or [command]


def hook_command(host: str, command: str = "agentwrap") -> str:
    """The shell line a host runs (each of these hosts hands its hook command to a shell)."""
    return shlex.join([*command_words(command), "hook", host])


def target(host: str, command: str = "agentwrap") -> Target:
    run = hook_command(host, command)
    if host == "claude-code":
        return Target(host, ".claude/settings.json", ".claude/settings.json", ("hooks", "PreToolUse"),
                      {"matcher": "Bash", "hooks": [{"type": "command", "command": run}]})
    if host == "codex":
        return Target(host, ".codex/hooks.json", ".codex/hooks.json", ("hooks", "PreToolUse"),
                      {"matcher": "Bash", "hooks": [{"type": "command", "command": run}]})
    if host == "gemini":
        return Target(host, ".gemini/settings.json", ".gemini/settings.json", ("hooks", "BeforeTool"),
                      {"matcher": "run_shell_command",
                       "hooks": [{"name": "agentwrap", "type": "command", "command": run}]})
    if host == "cursor":
        rule = ("---\ndescription: Run shell commands through agentwrap\nalwaysApply: true\n---\n"
                "<!-- written by `agentwrap init cursor`; remove with `agentwrap init cursor --uninstall` -->\n"
                + INSTRUCTIONS)
        return Target(host, ".cursor/rules/agentwrap.mdc", "", own_text=rule)
    if host == "copilot":
        doc = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": run, "timeoutSec": 30}]}}
        return Target(host, ".github/hooks/agentwrap.json", ".copilot/hooks/agentwrap.json",
                      own_text=json.dumps(doc, indent=2) + "\n")
    if host == "opencode":
        argv = json.dumps([*command_words(command), "hook", host])
        return Target(host, ".opencode/plugins/agentwrap.js", ".config/opencode/plugins/agentwrap.js",
                      own_text=_OPENCODE_PLUGIN.replace("@COMMAND@", argv))
    raise KeyError(host)


def is_ours(item: Any) -> bool:
    """An entry that runs `... hook HOST`: agentwrap's, whoever wrote it."""
    text = json.dumps(item)
    return any(f" hook {host}\"" in text for host in HOSTS)


INSTRUCTIONS = """\
Run shell commands as `agentwrap --agent -- <command>`. Read `status`, `summary` and `error`;
on error follow `error.code_actions` or `error.suggested_fix`; respect `retry_after` and
`safe_to_retry`. Fetch truncated output with `agentwrap artifact show <id> --grep REGEX`.
"""
BLOCK_BEGIN = "<!-- agentwrap:begin (agentwrap init; remove with --uninstall) -->"
BLOCK_END = "<!-- agentwrap:end -->"


def instruction_paths(name: str) -> tuple[str, str]:
    """(project path, user path) of an instructions file: AGENTS.md is read by Codex, Cursor, Copilot and
    others (https://agents.md); CLAUDE.md by Claude Code (user-wide: ~/.claude/CLAUDE.md)."""
    if name == "agents-md":
        return "AGENTS.md", ".codex/AGENTS.md"
    return "CLAUDE.md", ".claude/CLAUDE.md"


_OPENCODE_PLUGIN = """\
// Installed by `agentwrap init opencode`; remove it with `agentwrap init opencode --uninstall`.
// OpenCode loads every plugin file in this folder at start-up (https://opencode.ai/docs/plugins/).
// Before each call of the bash tool it hands the call to `agentwrap hook opencode` on stdin as
// {"tool", "sessionID", "callID", "args"} and applies the `args` of its JSON answer. It fails open:
// on any error, a non-zero exit or an answer without `args`, the command runs unchanged.
export const AgentwrapPlugin = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool !== "bash") return;
    try {
      const call = { tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: output.args };
      const proc = Bun.spawnSync(@COMMAND@, { stdin: Buffer.from(JSON.stringify(call)) });
      if (proc.exitCode !== 0) return;
      const answer = JSON.parse(proc.stdout.toString() || "{}");
      if (answer && typeof answer.args === "object" && answer.args !== null) Object.assign(output.args, answer.args);
    } catch (err) {
      console.error(`agentwrap hook opencode: ${err}; the command runs unchanged`);
    }
  },
});
"""
