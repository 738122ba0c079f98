"""The user's own permissions, applied to the original line before any rewrite.

Hosts check their rules against the command the hook returns (Claude Code says so: "permission rules
are evaluated against the input your hook returns"), and `agentwrap --agent --shell 'curl …'` matches
no rule written for `curl`. So a rewrite could slip past a deny rule. Each host's rules are read here
and applied to the original commands: a line a rule denies or asks about is left alone for the host to
handle. Where a host's rules cannot be read (a Copilot `--deny-tool` flag, a Codex rules file), the
line is left alone whenever such rules may exist.

Each command is matched in every form a rule may name it by (`agentwrap.hooks.programs.rule_forms`: as
written, unquoted, without `FOO=1`, by the basename of its program, behind `sudo`/`env`/`timeout`/...),
and a command whose program is known only when the line runs is left to the host whenever a rule that
could name it exists.

Verdicts: `skip` (leave the line alone), `allow` (the user's own rules already let every command of
it run unasked, so the answer may say so), `none` (rewrite, decide nothing: the host asks as before).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from agentwrap.hooks import claude_rules
from agentwrap.hooks.rewrite import Rewrite

# Modes in which the host runs every command unasked: "allow" there grants nothing new.
_CLAUDE_UNASKED = frozenset({"bypassPermissions"})
_CODEX_UNASKED = frozenset({"bypassPermissions", "never", "full-auto", "danger-full-access", "yolo"})


def claude_code(data: dict[str, Any], rw: Rewrite) -> str:
    mode = data.get("permission_mode")
    if mode == "plan":
        return "skip"  # plan mode runs nothing
    project = os.environ.get("CLAUDE_PROJECT_DIR") or data.get("cwd")
    verdict = claude_rules.decide(claude_rules.load(project if isinstance(project, str) else None),
                                  list(rw.forms), rw.unnamed)
    if verdict in ("deny", "ask", "unsure"):
        return "skip"
    return "allow" if verdict == "allow" or mode in _CLAUDE_UNASKED else "none"


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def codex(data: dict[str, Any], rw: Rewrite) -> str:
    """Codex applies a rewrite only with "allow": only where the user's mode already runs commands
    unasked, and only when no rules file could forbid or ask about one (execpolicy `.rules` files are
    Starlark programs; agentwrap does not evaluate them)."""
    if data.get("permission_mode") not in _CODEX_UNASKED:
        return "skip"
    cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
    folders = [_codex_home() / "rules", *([Path(cwd) / ".codex" / "rules"] if cwd else [])]
    for folder in folders:
        for path in sorted(folder.glob("*.rules")) if folder.is_dir() else ():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return "skip"
            if "forbidden" in text or "prompt" in text:
                return "skip"
    return "allow"


def _json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _gemini_settings(cwd: str | None) -> list[Any]:
    home = Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()) / ".gemini" / "settings.json"
    files = [home, *([Path(cwd) / ".gemini" / "settings.json"] if cwd else []),
             Path("/etc/gemini-cli/settings.json")]
    return [d for d in (_json_file(f) for f in files) if isinstance(d, dict)]


def _shell_rules(values: Any) -> list[str]:
    """`run_shell_command(PREFIX)` entries of a Gemini tools list (None: the whole tool)."""
    out = []
    for value in values if isinstance(values, list) else ():
        if isinstance(value, str) and value.startswith("run_shell_command"):
            out.append(value[len("run_shell_command("):-1].strip() if value.endswith(")") else "")
    return out


def gemini(data: dict[str, Any], rw: Rewrite) -> str:
    """Gemini's `tools.exclude` / `excludeTools` entries name command prefixes; `tools.core` /
    `coreTools` with `run_shell_command(...)` entries allow only those prefixes (a rewrite would be
    blocked). Policy files (`policies/*.toml`) are not evaluated: when one names the shell tool, skip."""
    cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
    for settings in _gemini_settings(cwd):
        tools = settings.get("tools") if isinstance(settings.get("tools"), dict) else {}
        excluded = _shell_rules(tools.get("exclude")) + _shell_rules(settings.get("excludeTools"))
        for prefix in excluded:
            if not prefix or rw.unnamed or any(f.startswith(prefix) for forms in rw.forms for f in forms):
                return "skip"
        core = _shell_rules(tools.get("core")) + _shell_rules(settings.get("coreTools"))
        if any(core):
            return "skip"
    home = Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()) / ".gemini" / "policies"
    for folder in (home, *([Path(cwd) / ".gemini" / "policies"] if cwd else [])):
        for path in folder.glob("*.toml") if folder.is_dir() else ():
            try:
                if "run_shell_command" in path.read_text(encoding="utf-8", errors="replace"):
                    return "skip"
            except OSError:
                return "skip"
    return "none"


def _ancestor_argvs(limit: int = 12) -> list[list[str]] | None:
    """The command lines of this process's ancestors (the host that ran the hook among them); None
    when they cannot be read (not Linux)."""
    out: list[list[str]] = []
    pid = os.getppid()
    for _ in range(limit):
        if pid <= 1:
            break
        try:
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return out or None
        out.append([a.decode("utf-8", "replace") for a in raw.split(b"\0") if a])
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def copilot(data: dict[str, Any], rw: Rewrite) -> str:
    """Copilot CLI's deny rules are flags (`--deny-tool 'shell(rm)'`) of the running session: read from
    the host's own command line. Unreadable (not Linux), or any deny flag: leave the line alone."""
    argvs = _ancestor_argvs()
    if argvs is None:
        return "skip"
    if any(a.startswith(("--deny-tool", "--deny-all")) for argv in argvs for a in argv):
        return "skip"
    return "none"


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(p) for p in pattern.split("*")) + r"\Z", re.DOTALL)


def opencode(data: dict[str, Any], rw: Rewrite) -> str:
    """OpenCode's `permission.bash` maps command globs to allow/ask/deny: a line any of whose commands
    an ask or deny pattern matches is left alone."""
    files = [Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "opencode" / "opencode.json",
             Path.cwd() / "opencode.json"]
    for config in (_json_file(f) for f in files):
        perm = config.get("permission") if isinstance(config, dict) else None
        bash = perm.get("bash") if isinstance(perm, dict) else None
        if isinstance(bash, str) and bash != "allow":
            return "skip"
        for pattern, action in (bash.items() if isinstance(bash, dict) else ()):
            if action == "allow":
                continue
            if rw.unnamed or any(_glob(pattern).match(f) for forms in rw.forms for f in forms):
                return "skip"
    return "none"
