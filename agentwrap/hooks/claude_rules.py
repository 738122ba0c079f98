"""Claude Code's own permission rules for the Bash tool, read from the user's settings files.

A rewritten command no longer starts with the program the user's rules name (`Bash(curl:*)` does not
match `agentwrap --agent --shell 'curl …'`), so the hook must apply them to the original line itself:
a line any of whose commands a deny or ask rule names (as written, unquoted, or through a wrapper such
as `sudo` or `timeout`: agentwrap.hooks.programs) is left alone for Claude Code to deny or ask about, and
a rewrite says "allow" only when every command of the line is one the user's allow rules already let run
without asking (what Claude Code itself requires of a compound line).

Rule forms (code.claude.com/docs/en/permissions): `Bash` or `Bash(*)` (any command), `Bash(npm test)`
(exactly), `Bash(npm run test:*)` (that prefix, then a word boundary), `Bash(git * main)` (`*` matches
anything; a single trailing ` *` also matches the bare command).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

MANAGED = (Path("/etc/claude-code/managed-settings.json"),
           Path("/Library/Application Support/ClaudeCode/managed-settings.json"))


class Rules(NamedTuple):
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    ask: tuple[str, ...]


def settings_files(project: str | None) -> list[Path]:
    home = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    files = [home / "settings.json"]
    if project:
        files += [Path(project) / ".claude" / "settings.json", Path(project) / ".claude" / "settings.local.json"]
    return files + list(MANAGED)


def load(project: str | None) -> Rules:
    allow: list[str] = []
    deny: list[str] = []
    ask: list[str] = []
    for path in settings_files(project):
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        perms = data.get("permissions") if isinstance(data, dict) else None
        if not isinstance(perms, dict):
            continue
        for key, into in (("allow", allow), ("deny", deny), ("ask", ask)):
            values = perms.get(key)
            if isinstance(values, list):
                into.extend(v for v in values if isinstance(v, str))
    return Rules(tuple(allow), tuple(deny), tuple(ask))


def _bash_pattern(rule: str) -> re.Pattern[str] | None:
    """The regular expression a `Bash(...)` rule stands for (None: the rule is about another tool)."""
    rule = rule.strip()
    if rule == "Bash":
        return re.compile(r".*", re.DOTALL)
    if not (rule.startswith("Bash(") and rule.endswith(")")):
        return None
    body = rule[5:-1].strip()
    if body.endswith(":*"):
        return re.compile(re.escape(body[:-2]) + r"(?:\s.*)?\Z", re.DOTALL)
    if body.endswith(" *") and body.count("*") == 1:  # `Bash(ls *)` matches `ls` alone too
        return re.compile(re.escape(body[:-2]) + r"(?:\s.*)?\Z", re.DOTALL)
    return re.compile(".*".join(re.escape(part) for part in body.split("*")) + r"\Z", re.DOTALL)


def _matches(rules: tuple[str, ...], forms: tuple[str, ...]) -> bool:
    """Whether a rule matches any of the forms of one command (agentwrap.hooks.programs.rule_forms)."""
    patterns = [p for p in (_bash_pattern(rule) for rule in rules) if p is not None]
    return any(p.match(form.strip()) for p in patterns for form in forms)


def _names_commands(rules: tuple[str, ...]) -> bool:
    return any(_bash_pattern(rule) is not None for rule in rules)


def decide(rules: Rules, commands: list[tuple[str, ...]], unnamed: bool = False) -> str:
    """`deny`, `ask` (a rule names one of the commands, in any of its forms), `unsure` (a deny or ask rule
    might name a program known only when the line runs), `allow` (the allow rules cover every command as
    written, as Claude Code requires of a compound line) or `none` (Claude Code would ask the user: the
    hook does not decide for them). `commands` holds each command's forms, as written first."""
    if any(_matches(rules.deny, forms) for forms in commands):
        return "deny"
    if any(_matches(rules.ask, forms) for forms in commands):
        return "ask"
    if unnamed and (_names_commands(rules.deny) or _names_commands(rules.ask)):
        return "unsure"
    if commands and not unnamed and all(_matches(rules.allow, forms[:1]) for forms in commands):
        return "allow"
    return "none"
