"""Commands a command runs from its own arguments, which the user's permission rules must see too.

`bash -c 'ls; rm x'`, `find . -exec rm {} \\;` and `git -c alias.x='!rm y' x` each run `rm`, but the
line's parsed calls are `bash`, `find` and `git`: a rule written for `rm` would match none of them, and
the rewrite would hide the line from the host. So each call is opened here, through its wrappers
(`sudo`, `timeout`, `xargs`: agentwrap.hooks.programs):

- a shell's `-c STRING` (`bash`, `sh`, `zsh`, ..., `flock FILE -c STRING`) is parsed with the same
  grammar and its calls are read in turn;
- `find`'s `-exec`/`-execdir`/`-ok`/`-okdir` words up to `;` or `+` are a command;
- `git -c alias.NAME=!CMD` holds a shell line.

What cannot be opened is `opaque`: a shell fed its commands on stdin (`echo 'rm x' | sh`), a `-c`
string known only when the line runs or that does not parse, a git setting that names a program to run
(`core.pager`, `core.sshCommand`, `alias.x=...` without `!`, `--config-env`), or a nesting deeper than
`MAX_NESTING`. An opaque call is treated as one whose program is unknown: left to the host whenever a
deny or ask rule exists.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from agentwrap.hooks import calls, programs
from agentwrap.hooks.calls import Call, Word
from agentwrap.shell import grammar

MAX_NESTING = 4  # `bash -c "sh -c '...'"` levels read; deeper is opaque
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})
_SHELL_VALUES = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# git settings whose value is a program or a command line git runs (git-config(1)); the last part of the
# key, lowercased. `alias.*` is read apart: `!CMD` is a shell line, anything else more git arguments.
_GIT_RUNS = frozenset({"pager", "editor", "sshcommand", "fsmonitor", "hookspath", "askpass", "external", "program",
                       "helper", "textconv", "command", "cmd", "process", "clean", "smudge", "gitproxy",
                       "uploadpack", "receivepack", "tool", "path", "gpgprogram", "difftool", "mergetool",
                       "sequenceeditor", "browser", "extcmd"})


class Inner(NamedTuple):
    calls: tuple[Call, ...]  # every command run from the calls' arguments, at any nesting
    opaque: bool  # some call runs a command agentwrap cannot read before the line runs


def commands(found: list[Call]) -> Inner:
    """The commands `found` run from their arguments (not `found` themselves), read `MAX_NESTING` deep."""
    out: list[Call] = []
    opaque = False
    todo = [(call, 1) for call in found]
    while todo:
        call, level = todo.pop(0)
        inner, hidden = _opened(call)
        opaque = opaque or hidden
        if inner and level >= MAX_NESTING:
            opaque = True
            continue
        out.extend(inner)
        todo.extend((c, level + 1) for c in inner)
    return Inner(tuple(out), opaque)


def _opened(call: Call) -> tuple[list[Call], bool]:
    words = programs.unwrap(call.words).words
    if not words or words[0].value is None:
        return [], False
    name = os.path.basename(words[0].value)
    if name in _SHELLS:
        return _shell(words[1:], call.stdin)
    if name == "flock":
        return _flock(words[1:])
    if name == "find":
        return _find(words[1:]), False
    if name == "git":
        return _git(words[1:])
    return [], False


def _line(word: Word) -> tuple[list[Call], bool]:
    """The calls of a command line held in one word."""
    if word.value is None:
        return [], True
    parsed = grammar.parse(word.value)
    if parsed.tree is None or calls.depth(parsed.tree) > 300:
        return [], True
    return calls.every_call(parsed.tree, word.value.encode("utf-8", "surrogateescape")), False


def _shell(args: tuple[Word, ...], piped: bool) -> tuple[list[Call], bool]:
    """`sh [OPTIONS] -c STRING ...`: STRING's calls; `sh` reading its commands from stdin: opaque."""
    runs_string = False
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            return [], True
        if value in ("--", "-"):
            i += 1
            break
        if not value.startswith(("-", "+")) or len(value) < 2:
            break
        if value in _SHELL_VALUES:
            i += 2
            continue
        if not value.startswith("--") and "c" in value[1:]:
            runs_string = True
        i += 1
    if runs_string:
        return _line(args[i]) if i < len(args) else ([], False)
    # no -c: a script file runs (its commands are the file's, as `make` runs a Makefile's), or stdin is read
    return [], i >= len(args) and piped


def _flock(args: tuple[Word, ...]) -> tuple[list[Call], bool]:
    """`flock [OPTIONS] FILE -c STRING`: STRING's calls (`flock FILE CMD...` is a wrapper, programs.py)."""
    for i, word in enumerate(args[:-1]):
        if word.value in ("-c", "--command"):
            return _line(args[i + 1])
    return [], False


def _find(args: tuple[Word, ...]) -> list[Call]:
    out: list[Call] = []
    i = 0
    while i < len(args):
        if args[i].value in _FIND_RUNS:
            start = i + 1
            end = start
            while end < len(args) and args[end].value not in (";", "+"):
                end += 1
            if end > start:
                words = args[start:end]
                out.append(Call(" ".join(w.raw for w in words), words, False))
            i = end
        i += 1
    return out


def _git(args: tuple[Word, ...]) -> tuple[list[Call], bool]:
    """git's own options before its subcommand: `-c KEY=VALUE` settings that run something."""
    out: list[Call] = []
    opaque = False
    i = 0
    while i < len(args) and (args[i].value or "").startswith("-"):
        value = args[i].value or ""
        if value.startswith("--config-env"):
            opaque = True  # the setting's value is in a variable: known only when the line runs
        if value == "-c" and i + 1 < len(args):
            setting = args[i + 1]
            i += 1
            if setting.value is None:
                opaque = True
                continue
            key, _, text = setting.value.partition("=")
            key = key.lower()
            if key.startswith("alias.") and text.startswith("!"):
                inner, hidden = _line(setting._replace(value=text[1:]))
                out += inner
                opaque = opaque or hidden
            elif key.startswith("alias.") or key.rsplit(".", 1)[-1] in _GIT_RUNS:
                opaque = True
        elif value in ("-C", "--git-dir", "--work-tree", "--namespace") and i + 1 < len(args):
            i += 1  # the option's value, not the subcommand
        elif value.startswith("--exec-path="):
            opaque = True  # git's own programs are taken from that folder
        i += 1
    return out, opaque
