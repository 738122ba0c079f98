"""Whether a host's command line can go through agentwrap with the same meaning, and its rewritten form.

Left alone: what agentwrap cannot run with the same meaning or supervise (heredocs, command and process
substitutions, `&` jobs, coprocesses), sessions a person asked for (an editor, a pager, a REPL, a bare
shell), lines that change the host shell's own state (`export`, `source`, `alias`, a function: the host
keeps its shell between calls), lines already wrapped, and anything the grammar cannot read. A leading
`cd DIR &&` stays outside, in the host's shell, so that the folder the host tracks moves as it would.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any, NamedTuple

from agentwrap.hooks import plain_read
from agentwrap.shell import grammar, model

# Programs that are a session for a person when asked for (with no script, file or command to run).
_INTERACTIVE = frozenset({"vi", "vim", "nvim", "nano", "emacs", "pico", "less", "more", "most", "man", "top",
                          "htop", "btop", "watch", "tmux", "screen", "mc", "ranger", "fzf", "tig", "lazygit"})
_REPL_WHEN_BARE = frozenset({"python", "python3", "ipython", "node", "irb", "ruby", "bash", "sh", "zsh", "fish",
                             "psql", "mysql", "sqlite3", "redis-cli", "mongo", "mongosh", "ghci", "lua", "R",
                             "ssh", "telnet", "ftp", "sftp"})
_STATEFUL = frozenset({"cd", "pushd", "popd", "export", "unset", "alias", "unalias", "source", ".", "set",
                       "shopt", "declare", "typeset", "local", "readonly", "exec", "exit", "ulimit", "umask",
                       "trap", "eval", "hash", "enable", "builtin", "history", "fg", "bg", "jobs", "disown",
                       "wait"})
_UNSAFE_FEATURES = {"heredoc": "a heredoc", "cmdsubst": "a command substitution", "procsubst":
                    "a process substitution", "background": "a background job", "coproc": "a coprocess",
                    "function": "a function definition", "trace-conflict": "shell tracing (set -x)",
                    "eval": "eval or source"}
AGENT = "--agent"


def wrapper_program() -> str | None:
    """How the host's shell will start agentwrap: `$AGENTWRAP_HOOK_PROGRAM`, the path this hook was run
    by, or `agentwrap` when PATH has it. None: the host's shell could not run a rewritten line."""
    chosen = os.environ.get("AGENTWRAP_HOOK_PROGRAM")
    if chosen:
        return chosen
    if os.path.basename(sys.argv[0]) == "agentwrap" and os.path.isabs(sys.argv[0]):
        return sys.argv[0]
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder or ".", "agentwrap")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return "agentwrap"
    return None


class Rewrite(NamedTuple):
    command: str | None  # the rewritten line, or None: leave the line alone
    why: str
    commands: tuple[str, ...] = ()  # every simple command of the original line, as written (for rules)
    programs: tuple[str, ...] = ()  # their program names


def _program(word: str) -> str:
    return os.path.basename(word)


def _why_not_command(command: model.Command, first: bool) -> str | None:
    if not command.words:
        return "a variable assignment (it sets the host shell's variable)" if command.assigns else None
    name = _program(command.words[0])
    if name in ("agentwrap", "aw") or command.words[:2] == ["python3", "-m"] and command.words[2:3] == ["agentwrap"]:
        return "already wrapped"
    if not command.literal and first:
        return "the program's name is only known when the line runs"
    if name in _STATEFUL:
        return f"`{name}` changes the host shell's own state"
    if name in _INTERACTIVE:
        return f"`{name}` is an interactive session"
    if name in _REPL_WHEN_BARE and len(command.words) == 1:
        return f"`{name}` without arguments is an interactive session"
    if name == "ssh" and len([w for w in command.words[1:] if not w.startswith("-")]) <= 1:
        return "`ssh` without a remote command is an interactive session"
    return None


def _every_call(node: Any, data: bytes, out: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(statement text, program word) of every simple command anywhere in the tree, subshells and
    compound pipeline stages included (the trace reads them as one part; the user's rules see each)."""
    if isinstance(node, dict):
        cmd = node.get("Cmd")
        if isinstance(cmd, dict) and cmd.get("Type") == "CallExpr" and "Pos" in node:
            text = data[node["Pos"]["Offset"]:node["End"]["Offset"]].decode("utf-8", "replace").rstrip()
            args = cmd.get("Args") or []
            first = "".join(str(p.get("Value", "")) for p in args[0].get("Parts", ())) if args else ""
            out.append((text[:-1].rstrip() if text.endswith(";") else text, first))
        for value in node.values():
            _every_call(value, data, out)
    elif isinstance(node, list):
        for value in node:
            _every_call(value, data, out)
    return out


def _cd_prefix(tree: dict[str, Any], line: str) -> tuple[str, str]:
    """(`cd A && cd B && `, the rest) for a line that starts with literal `cd DIR &&` steps."""
    stmts = tree.get("Stmts") or []
    if len(stmts) != 1 or stmts[0].get("Background") or stmts[0].get("Negated") or stmts[0].get("Redirs"):
        return "", line
    chain: list[dict[str, Any]] = []
    node = stmts[0]
    while (node.get("Cmd") or {}).get("Type") == "BinaryCmd" and node["Cmd"].get("Op") == "&&":
        chain.insert(0, node["Cmd"]["Y"])
        node = node["Cmd"]["X"]
    chain.insert(0, node)
    data = line.encode("utf-8", "surrogateescape")
    cut = 0
    for step in chain[:-1]:
        cmd = step.get("Cmd") or {}
        args = cmd.get("Args") or []
        if cmd.get("Type") != "CallExpr" or cmd.get("Assigns") or step.get("Redirs") or len(args) != 2:
            break
        if data[args[0]["Pos"]["Offset"]:args[0]["End"]["Offset"]] != b"cd":
            break
        cut = chain[chain.index(step) + 1]["Pos"]["Offset"]
    if not cut:
        return "", line
    return data[:cut].decode("utf-8", "surrogateescape"), data[cut:].decode("utf-8", "surrogateescape")


def rewrite(line: str, program: str | None = "agentwrap", cwd: str | None = None) -> Rewrite:
    """The rewritten command line (starting agentwrap as `program`), or why the line is left alone. With the
    `cwd` the line will run in, a read of small plain files is left alone too (`plain_read`)."""
    if program is None:
        return Rewrite(None, "agentwrap is not on PATH: the host's shell could not run the rewritten line")
    if not isinstance(line, str) or not line.strip():
        return Rewrite(None, "no command")
    if "\x00" in line:
        return Rewrite(None, "a NUL byte")
    parsed = grammar.parse(line)
    if parsed.tree is None:
        return Rewrite(None, parsed.reason)
    built = model.build(line, parsed.tree)
    for feature, what in _UNSAFE_FEATURES.items():
        if feature in built.features:
            return Rewrite(None, f"the line holds {what}")
    if any(f.startswith("other:") for f in built.features):
        return Rewrite(None, "the line holds a construct agentwrap does not read")
    calls = _every_call(parsed.tree, line.encode("utf-8", "surrogateescape"), [])
    original = tuple(text for text, _ in calls)
    programs = tuple(_program(word) for _, word in calls if word)
    for name in programs:  # a session a person asked for, even inside ( ) or { } | ...
        if name in _INTERACTIVE:
            return Rewrite(None, f"`{name}` is an interactive session")
    prefix, rest = _cd_prefix(parsed.tree, line)
    if prefix:
        parsed = grammar.parse(rest)
        if parsed.tree is None:
            return Rewrite(None, parsed.reason)
        built = model.build(rest, parsed.tree)
    if not built.commands:
        return Rewrite(None, "nothing to run")
    for i, command in enumerate(built.commands):
        why = _why_not_command(command, i == 0)
        if why:
            return Rewrite(None, why)
    single = len(built.units) == 1 and len(built.units[0].stages) == 1 and built.commands[0].literal
    command = built.commands[0]
    if single and not command.assigns and not command.redirects and not _has_redirs(parsed.tree or {}):
        if cwd is not None and not prefix and plain_read.left_raw(command.words, cwd):
            return Rewrite(None, plain_read.WHY, original, programs)
        wrapped = shlex.join([program, AGENT, "--", *command.words])
    else:
        wrapped = f"{shlex.join([program, AGENT])} --shell {shlex.quote(rest.strip())}"
    return Rewrite(prefix + wrapped, "rewritten", original, programs)


def _has_redirs(tree: dict[str, Any]) -> bool:
    return any(stmt.get("Redirs") for stmt in tree.get("Stmts") or [])
