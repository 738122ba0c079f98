"""`agentwrap init HOST [--project|--user] [--dry-run] [--uninstall]`: install or remove the command hook
of an agent host (`agentwrap.hosts`), or agentwrap's lines in an agent's instructions file
(`agentwrap init agents-md`, `claude-md`, or any file with `--file`), as a plan and an apply
(`agentwrap.configedit`): the answer shows the exact change as a unified diff."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentwrap import envelope
from agentwrap import init_targets as hosts
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.configedit import Plan, apply, plan_block, plan_json_entry, plan_own_file, plan_removal
from agentwrap.envelope import Outcome
from agentwrap.errors import UsageError

_VERBS = {"create": "create", "update": "add the hook to", "unchanged": "leave unchanged", "restore": "restore",
          "delete": "delete", "remove": "remove agentwrap's entry from"}


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap init", description="Install (or --uninstall) the agentwrap command hook of "
                    "an agent host, or agentwrap's lines in an agent's instructions file.")
    parser.add_argument("host", nargs="?", metavar="HOST",
                        help=f"one of: {', '.join(hosts.HOSTS)}; or {', '.join(hosts.INSTRUCTION_FILES)}")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--project", action="store_true", help="the project's file, in DIR (default)")
    scope.add_argument("--user", action="store_true", help="the user-wide file, in the home folder")
    parser.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    parser.add_argument("--uninstall", action="store_true", help="remove what init installed (byte for byte)")
    parser.add_argument("--dir", metavar="DIR", help="the project folder (default: the working directory)")
    parser.add_argument("--file", metavar="PATH", help="agents-md/claude-md: write to PATH instead")
    parser.add_argument("--command", default="agentwrap", metavar="CMD",
                        help="how the hook calls agentwrap (default: `agentwrap`, found on PATH)")
    ns = parser.parse_args(list(args))
    name = _host(ns.host)
    if ns.user and ns.dir is not None:  # the user-wide file is in the home folder: a --dir would be ignored
        raise UsageError(f"--user and --dir {ns.dir}: the user-wide file is in the home folder, not in a "
                         "project folder; give one of them",
                         suggested_fix=f"Run `agentwrap init {name} --dir {ns.dir}` for that project's file, or "
                         f"`agentwrap init {name} --user` for the user-wide one.")
    scope_name = "user" if ns.user else "project"
    root = Path(os.path.expanduser("~")) if ns.user else Path(os.path.abspath(ns.dir or "."))
    if not ns.user and not root.is_dir():
        raise UsageError(f"--dir {ns.dir}: not a directory")
    plan = _plan(name, root, scope_name, ns)
    backup = None if ns.dry_run else apply(plan, host=name, scope=scope_name)
    return _answer(ctx, name, scope_name, plan, backup, bool(ns.dry_run), str(ns.command))


def _host(raw: str | None) -> str:
    known = (*hosts.HOSTS, *hosts.INSTRUCTION_FILES)
    if raw is None:
        raise UsageError(f"agentwrap init needs a HOST: one of {', '.join(known)}",
                         suggested_fix="Run `agentwrap init claude-code --dry-run` to see the change first.")
    name = raw.strip().lower()
    name = {"claude": "claude-code", "gemini-cli": "gemini", "copilot-cli": "copilot", "agents.md": "agents-md",
            "claude.md": "claude-md"}.get(name, name)
    if name not in known:
        import difflib

        near = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise UsageError(f"unknown host {raw!r}{hint}; hosts: {', '.join(known)}")
    return name


def _plan(name: str, root: Path, scope: str, ns: Any) -> Plan:
    if name in hosts.INSTRUCTION_FILES:
        project_path, user_path = hosts.instruction_paths(name)
        path = Path(ns.file) if ns.file else root / (user_path if scope == "user" else project_path)
        block = f"{hosts.BLOCK_BEGIN}\n{hosts.INSTRUCTIONS}{hosts.BLOCK_END}\n"
        if ns.uninstall:
            return plan_removal(path, block=block)
        return plan_block(path, block, hosts.BLOCK_BEGIN, hosts.BLOCK_END)
    if ns.file:
        raise UsageError("--file is for agents-md and claude-md; a host's hook file is where the host reads it")
    target = hosts.target(name, ns.command)
    if scope == "user" and not target.user_path:
        raise UsageError(f"{name} has no user-wide file agentwrap can write (Cursor keeps user rules in its "
                         "settings)", suggested_fix=f"Run `agentwrap init {name} --project` in each project, or "
                         "paste `agentwrap init agents-md --dry-run`'s lines into the host's settings.")
    path = root / (target.user_path if scope == "user" else target.project_path)
    if target.own_text is not None:
        if ns.uninstall:
            return plan_removal(path, own_text=target.own_text)
        return plan_own_file(path, target.own_text)
    assert target.item is not None
    if ns.uninstall:
        return plan_removal(path, json_entry=(target.key_path, target.item))
    return plan_json_entry(path, target.key_path, target.item, is_ours=hosts.is_ours)


def _answer(ctx: CommandContext, name: str, scope: str, plan: Plan, backup: Path | None, dry_run: bool,
            command: str) -> Outcome:
    verb = _VERBS[plan.action]
    where = str(plan.path)
    if not plan.changed:
        summary = f"{name}: {where} is unchanged ({'; '.join(plan.notes) or 'nothing to do'})"
    elif dry_run:
        summary = f"{name}: would {verb} {where} (dry run: nothing written)"
    else:
        summary = f"{name}: {_past(plan.action)} {where}" + (f"; backup at {backup}" if backup else "")
    data: dict[str, Any] = {"host": name, "scope": scope, "path": where, "action": plan.action,
                            "changed": plan.changed, "dry_run": dry_run, "diff": plan.diff(), "notes": plan.notes,
                            "backup": str(backup) if backup else None}
    if name in hosts.HOSTS and name not in hosts.RULE_HOSTS:
        data["hook_command"] = hosts.hook_command(name, command)
    else:
        data["instructions"] = hosts.INSTRUCTIONS
    env = envelope.build(request_id=ctx.request_id, summary=summary, data=data)
    notes = "".join(f"note: {note}\n" for note in plan.notes) if plan.changed else ""
    text = summary + "\n" + notes + (("\n" + data["diff"]) if plan.changed else "")
    return Outcome(env, 0, raw_text=text)


def _past(action: str) -> str:
    return {"create": "created", "update": "added the hook to", "restore": "restored", "delete": "deleted",
            "remove": "removed agentwrap's entry from"}[action]
