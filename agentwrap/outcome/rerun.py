"""Suggested `agentwrap ...` commands in the caller's own terms.

A code action that reruns the program through agentwrap (`--answer`, `--stdin`, `--env EDITOR=true`) is
built from the program's argv alone. Run as given, it would lose what the caller chose: `--agent` (the
answer would come back as a whole envelope, with no timeout), the working folder of `--cwd`, the
caller's `--env`, `--no-pty`, `--read-only`. This stage puts those options back into every such command.

A plain command action (`ruff check --fix a.py`) names paths in the folder the program ran in: run in the
caller's folder after `--cwd sub`, it would fix (or delete) the wrong file. Such an action carries that
folder as `cwd`, absolute, so that it runs as given wherever the caller is (`subprocess.run(command,
cwd=cwd)`); its command stays the tool's own.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from agentwrap.outcome.record import RunRecord
from agentwrap.problem import CodeAction, Problem
from agentwrap.secret_names import is_secret_name


def carried(opts: Any) -> tuple[str, ...]:
    """The caller's wrapper options that a rerun of the same program needs to mean the same thing."""
    out: list[str] = ["--agent"] if opts.agent else []
    if opts.timeout_given:
        out += ["--timeout", f"{opts.timeout:g}s" if opts.timeout else "0"]
    if opts.detail_given:
        out += ["--detail", opts.detail]
    if opts.max_inline_bytes is not None:
        out += ["--max-inline-bytes", str(opts.max_inline_bytes)]
    if opts.cwd:
        out += ["--cwd", opts.cwd]
    # A secret's value is never echoed: the caller fills it in again.
    for name, value in sorted(opts.env.items()):
        out += ["--env", f"{name}=<{name}>" if is_secret_name(name) else f"{name}={value}"]
    if opts.stdin:
        out += ["--stdin", opts.stdin]
    out += ["--no-pty"] * opts.no_pty + ["--read-only"] * opts.read_only
    if opts.adapter:
        out += ["--adapter", opts.adapter]
    out += ["--no-adapter"] * opts.no_adapter
    return tuple(out)


def merged(command: tuple[str, ...], options: tuple[str, ...]) -> tuple[str, ...]:
    """`agentwrap OWN... -- ARGV` with the caller's options the command does not set itself, before its own.
    A subcommand (`agentwrap op wait ID`) takes only `--agent`."""
    head = command[1:command.index("--")] if "--" in command else command[1:]
    if head[:1] and not head[0].startswith("-"):
        return ("agentwrap", "--agent", *command[1:]) if "--agent" in options and "--agent" not in head else command
    own = set(head) | {f"--env {a.split('=', 1)[0]}" for a in head if "=" in a}
    keep: list[str] = []
    i = 0
    while i < len(options):
        flag = options[i]
        value = options[i + 1] if flag not in _FLAGS and i + 1 < len(options) else None
        set_already = flag in own if flag != "--env" else f"--env {str(value).split('=', 1)[0]}" in own
        if not set_already:
            keep += [flag] if value is None else [flag, value]
        i += 1 if value is None else 2
    return ("agentwrap", *keep, *command[1:])


_FLAGS = frozenset({"--agent", "--no-pty", "--read-only", "--no-adapter"})


def _action(action: CodeAction, options: tuple[str, ...]) -> CodeAction:
    if not action.command or action.command[0] != "agentwrap":
        return action
    command = merged(action.command, options)
    if command == action.command:
        return action
    # a secret --env the caller must fill in again makes the command a template
    unfilled = any(a.endswith(">") and "=<" in a for a in set(command) - set(action.command))
    return action._replace(command=command, applicability="has_placeholders" if unfilled else action.applicability)


def _in_folder(action: CodeAction, folder: str | None) -> CodeAction:
    """A plain command action that runs where the program ran: `folder`, when that is not the caller's."""
    if folder is None or not action.command or action.command[0] == "agentwrap" or action.cwd is not None:
        return action
    return action._replace(cwd=folder)


def _problem(problem: Problem, options: tuple[str, ...], folder: str | None = None) -> Problem:
    actions = tuple(_in_folder(_action(a, options), folder) for a in problem.code_actions)
    changed = any(new is not old for new, old in zip(actions, problem.code_actions, strict=True))
    return problem._replace(code_actions=actions) if changed else problem


def _effect(effect: dict[str, Any], options: tuple[str, ...]) -> dict[str, Any]:
    return {k: list(merged(tuple(v), options)) if isinstance(v, list) and v[:1] == ["agentwrap"] else v
            for k, v in effect.items()}


def in_callers_terms(record: RunRecord, opts: Any) -> RunRecord:
    """The record with every suggested agentwrap command carrying the caller's own options, and every plain
    command the folder it runs in when the caller's `--cwd` named another."""
    options = carried(opts)
    folder = os.path.abspath(opts.cwd) if opts.cwd else None
    if folder == os.getcwd():
        folder = None
    if not options:
        return record
    error = _problem(record.error, options, folder) if record.error is not None else None
    return dataclasses.replace(record, error=error,
                               problems=tuple(_problem(p, options, folder) for p in record.problems),
                               effects=tuple(_effect(e, options) for e in record.effects))
