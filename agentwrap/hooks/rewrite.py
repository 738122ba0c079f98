"""Whether a host's command line can go through agentwrap with the same meaning, and its rewritten form.

Left alone: what agentwrap cannot run with the same meaning or supervise (heredocs, command and process
substitutions, `&` jobs, coprocesses), sessions a person asked for (`agentwrap.hooks.interactive`), lines
that change the host shell's own state (`export`, `source`, `alias`, a function: the host keeps its shell
between calls), lines already wrapped, lines nested deeper than `MAX_DEPTH`, and anything the grammar
cannot read. A leading `cd DIR &&` stays outside, in the host's shell, so that the folder the host tracks
moves as it would.

The argv form (`agentwrap --agent -- git status`) is used only for one simple command whose every word
bash passes on as written (`agentwrap.hooks.calls.argv`); a glob, `~`, braces, `!`, `time`, an
assignment or a redirection is bash's to do, so such a line goes through `--shell`, which runs the real
bash on the line as written.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any, NamedTuple

from agentwrap.hooks import calls, inner, interactive, plain_read, programs
from agentwrap.shell import grammar, model

_STATEFUL = frozenset({"cd", "pushd", "popd", "export", "unset", "alias", "unalias", "source", ".", "set",
                       "shopt", "declare", "typeset", "local", "readonly", "exec", "exit", "ulimit", "umask",
                       "trap", "eval", "hash", "enable", "builtin", "history", "fg", "bg", "jobs", "disown",
                       "wait", "read", "mapfile", "readarray", "let", "getopts", "shift", "dirs", "complete",
                       "compopt", "bind", "return", "break", "continue", "suspend", "logout"})
# Builtins that print the host shell's own state (its functions, aliases, hash table, call stack): run in
# agentwrap's shell they would answer for another shell. None is a program on PATH either.
_READS_SHELL = frozenset({"type", "help", "compgen", "caller", "times"})
# Builtins that run the command after them: no program on PATH, so the argv form could not start them.
_BUILTIN_RUNNERS = frozenset({"command", "builtin"})
_UNSAFE_FEATURES = {"heredoc": "a heredoc", "cmdsubst": "a command substitution", "procsubst":
                    "a process substitution", "background": "a background job", "coproc": "a coprocess",
                    "function": "a function definition", "trace-conflict": "shell tracing (set -x)",
                    "eval": "eval or source"}
AGENT = "--agent"
# Tree levels (dicts and lists) that agentwrap.shell.model reads within Python's recursion limit: about
# 150 commands chained with `&&` or `|`. A deeper line is left alone.
MAX_DEPTH = 300


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
    programs: tuple[str, ...] = ()  # their program names, through wrappers (`sudo rm` runs `rm`)
    forms: tuple[tuple[str, ...], ...] = ()  # per command, every form a user's rule may name it by
    unnamed: bool = False  # a command's program is known only when the line runs (no rule can be applied)
    unread: bool = False  # left alone because agentwrap could not read the line (the hook says so on stderr)


def _program(word: str) -> str:
    return os.path.basename(word)


def _why_not_command(command: model.Command, first: bool) -> str | None:
    if not command.words:
        return "a variable assignment (it sets the host shell's variable)" if command.assigns else None
    name = _program(command.words[0])
    if name in ("agentwrap", "aw") or command.words[:2] == ["python3", "-m"] and command.words[2:3] == ["agentwrap"]:
        return "already wrapped"
    if not command.program_literal and first:
        return "the program's name is only known when the line runs"
    words = command.words
    while name in _BUILTIN_RUNNERS and len(words) > 1:  # `command cd x` is `cd x`; `command -v git` a lookup
        if words[1].startswith("-") and name == "command" and any(c in words[1] for c in "vV"):
            return "`command -v` asks the host shell what a name is"
        words = words[1:]
        while words and words[0].startswith("-"):  # `command -p`, `--`: no option of either takes a value
            words = words[1:]
        if not words:
            return None
        name = _program(words[0])
    if name in _STATEFUL or name == "printf" and "-v" in words[1:2]:
        return f"`{name}` changes the host shell's own state"
    if name in _READS_SHELL:
        return f"`{name}` reads the host shell's own state"
    return None


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


def rewrite(line: str, program: str | None = "agentwrap", cwd: str | None = None,
            timeout: str | None = None) -> Rewrite:
    """The rewritten command line (starting agentwrap as `program`, with `--timeout TIMEOUT` when given), or
    why the line is left alone. With the `cwd` the line will run in, a read of small plain files is left
    alone too (`plain_read`)."""
    if program is None:
        return Rewrite(None, "agentwrap is not on PATH: the host's shell could not run the rewritten line")
    if not isinstance(line, str) or not line.strip():
        return Rewrite(None, "no command")
    if "\x00" in line:
        return Rewrite(None, "a NUL byte")
    if len(line.encode("utf-8", "surrogateescape")) > grammar.MAX_LINE:
        return Rewrite(None, f"the line is longer than {grammar.MAX_LINE // 1024} KiB", unread=True)
    try:
        return _rewrite(line, program, cwd, [AGENT, "--timeout", timeout] if timeout else [AGENT])
    except RecursionError:  # a tree deeper than MAX_DEPTH foresaw (the JSON decoder or the model)
        return Rewrite(None, "the line nests too deeply to be read")


def _parse(line: str) -> tuple[dict[str, Any] | None, Rewrite | None]:
    """The line's tree, or the answer that leaves it alone."""
    parsed = grammar.parse(line)
    if parsed.tree is None:  # a line bash would reject too is the host's to report; anything else is ours
        # too deep is a known limit, as below, not a parser failure worth a note
        read = parsed.reason.startswith("not a complete") or parsed.reason == grammar.TOO_DEEP
        return None, Rewrite(None, parsed.reason, unread=not read)
    if calls.depth(parsed.tree) > MAX_DEPTH:
        return None, Rewrite(None, f"the line nests deeper than {MAX_DEPTH} levels")
    return parsed.tree, None


def _rewrite(line: str, program: str, cwd: str | None, flags: list[str]) -> Rewrite:
    tree, left = _parse(line)
    if tree is None:
        return left or Rewrite(None, "not parsed")
    built = model.build(line, tree)
    for feature, what in _UNSAFE_FEATURES.items():
        if feature in built.features:
            return Rewrite(None, f"the line holds {what}")
    if any(f.startswith("other:") for f in built.features):
        return Rewrite(None, "the line holds a construct agentwrap does not read")
    found = calls.every_call(tree, line.encode("utf-8", "surrogateescape"))
    hidden = inner.commands(found)  # `bash -c 'rm x'`, `find -exec rm`: what the rules must see too
    for call in (*found, *hidden.calls):  # a session a person asked for, even in ( ), behind sudo, in sh -c
        why = "already wrapped" if _wrapped(call) else interactive.why(call)
        if why:
            return Rewrite(None, why)
    # a helper (`PAGER=… git log`, `rsync -e 'ssh -p 22'`) is for the rules only: no session a person asked for
    facts = _facts([*found, *hidden.calls, *hidden.helpers], hidden.opaque)
    prefix, rest = _cd_prefix(tree, line)
    if prefix:
        tree, left = _parse(rest)
        if tree is None:
            return left or Rewrite(None, "not parsed")
        built = model.build(rest, tree)
    if not built.commands:
        return Rewrite(None, "nothing to run")
    for i, command in enumerate(built.commands):
        why = _why_not_command(command, i == 0)
        if why:
            return Rewrite(None, why)
    argv = calls.argv(tree, rest.encode("utf-8", "surrogateescape"))
    if argv is not None and argv[0] not in _BUILTIN_RUNNERS:  # one command bash passes on as written: exact
        if cwd is not None and not prefix and plain_read.left_raw(argv, cwd):
            return facts._replace(why=plain_read.WHY)
        wrapped = shlex.join([program, *flags, "--", *argv])
    else:  # globs, `~`, braces, `!`, `time`, redirections, several commands: the real bash runs the line
        wrapped = f"{shlex.join([program, *flags])} --shell {shlex.quote(rest.strip())}"
    return facts._replace(command=prefix + wrapped)


def _wrapped(call: calls.Call) -> bool:
    """The command already runs agentwrap, behind a wrapper or as `python -m agentwrap` (never wrap twice)."""
    words = [w.value for w in programs.unwrap(call.words).words]
    if not words or words[0] is None:
        return False
    name = os.path.basename(words[0])
    if name in ("agentwrap", "aw"):
        return True
    return name.startswith(("python", "pypy")) and words[1:3] == ["-m", "agentwrap"]


def _facts(found: list[calls.Call], opaque: bool = False) -> Rewrite:
    """What the user's rules are applied to: every command of the line, in each form a rule may name it.
    `opaque`: a command runs another that cannot be read before the line runs (agentwrap.hooks.inner)."""
    names = (programs.program(call.words) for call in found)
    return Rewrite(None, "rewritten", tuple(call.text for call in found), tuple(n for n in names if n),
                   tuple(programs.rule_forms(call) for call in found),
                   opaque or not all(programs.named(call) for call in found))
