"""Commands a command runs from its own arguments, which the user's permission rules must see too.

`bash -c 'ls; rm x'`, `find . -exec rm {} \\;` and `git -c alias.x='!rm y' x` each run `rm`, but the
line's parsed calls are `bash`, `find` and `git`: a rule written for `rm` would match none of them, and
the rewrite would hide the line from the host. So each call is opened here, through its wrappers
(`sudo`, `timeout`, `xargs`, `busybox`, `chroot`, `strace`: agentwrap.hooks.programs), by one rule per
kind:

- an option whose value is a shell line (`_LINE_OPTIONS`: a shell's `-c`, `script -c`, `su -c`, `env -S`;
  a wrapper's own, `Wrapper.lines`: `flock F -c`, `runuser -c`, `sg GROUP -c`) is parsed with the same
  grammar and its calls are read in turn; so is the one word `sg GROUP CMD` hands to `sh -c`, and the
  arguments `capsh ... -- ARGS` hands to bash (`capsh --drop=cap_x -- -c CMD`);
- words that are a command: `find`'s `-exec`/`-execdir`/`-ok`/`-okdir` up to `;` or `+`; the words
  `ssh HOST` and `parallel` join into a line for a shell (`ssh host rm x`, `parallel rm ::: x`);
- `git -c alias.NAME=!CMD` (or `GIT_CONFIG_KEY_0=alias.NAME`) holds a shell line;
- a helper a program is given to run (`_HELPER_OPTIONS`: `rsync -e`, `ssh -o ProxyCommand=`; the
  variables of agentwrap.hooks.environment: `PAGER=`, `GIT_SSH_COMMAND=`, `EDITOR=`, `LESSOPEN=`) is a
  shell line the rules see, but not a session a person asked for (`helpers`).

What cannot be opened is `opaque`: a shell fed its commands on stdin (`echo 'rm x' | sh`), a line
known only when the line runs or that does not parse, code in another language (agentwrap.hooks.code:
`python -c`, `node -e`, `perl -e`, an awk program that calls `system`, GNU sed's `e`), a git setting that
names a program to run (`core.pager`, `core.sshCommand`, `alias.x=...` without `!`, `--config-env`,
`GIT_CONFIG_PARAMETERS`), a `parallel` option agentwrap does not know, or a nesting deeper than
`MAX_NESTING`. An opaque call is treated as one whose program is unknown: left to the host whenever a
deny or ask rule exists. A command with no such rule in scope is rewritten as before.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from agentwrap import wrappers
from agentwrap.hooks import calls, code, environment, programs
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
# Programs with an option whose value is a shell line they run (shells are read apart: `bash -ec CMD`;
# wrappers such as `flock` and `runuser` name theirs in agentwrap.hooks.programs).
_LINE_OPTIONS: dict[str, frozenset[str]] = {
    "script": frozenset({"-c", "--command"}),
    "su": frozenset({"-c", "--command", "--session-command"}),
}
# Programs with an option whose value is a helper command they run themselves.
_HELPER_OPTIONS: dict[str, frozenset[str]] = {
    "rsync": frozenset({"-e", "--rsh", "--rsync-path"}),
}
_SSH_VALUES = frozenset("BbcDEeFIiJLlmOopQRSWw")  # ssh(1)'s options with a value (every other is a flag)
_PARALLEL_ENDS = frozenset({":::", "::::", ":::+", "::::+"})
_PARALLEL_VALUES = frozenset({"-j", "--jobs", "-P", "--max-procs", "-S", "--sshlogin", "-a", "--arg-file", "-d",
                              "--delimiter", "-E", "-I", "-n", "--max-args", "-N", "-L", "--max-lines", "--colsep",
                              "-C", "--delay", "--timeout", "--joblog", "--results", "--tmpdir", "--workdir", "--wd",
                              "--env", "--tag-string", "--halt", "--retries", "--memfree", "--load", "--nice"})
_PARALLEL_FLAGS = frozenset({"-k", "--keep-order", "-v", "--verbose", "--bar", "--progress", "--eta", "--dry-run",
                             "--line-buffer", "--lb", "--group", "-u", "--ungroup", "-0", "--null", "--tag", "-X",
                             "-m", "--xargs", "-r", "--no-run-if-empty", "--will-cite", "--no-notice", "-t"})


class Inner(NamedTuple):
    calls: tuple[Call, ...]  # every command run from the calls' arguments, at any nesting
    opaque: bool  # some call runs a command agentwrap cannot read before the line runs
    # commands a program is given to run for itself (a pager, an editor, `rsync -e`'s transport): the
    # rules see them, but they are no session a person asked for (`GIT_SSH_COMMAND='ssh -i k'` is no login)
    helpers: tuple[Call, ...] = ()


class _Opened(NamedTuple):
    calls: list[Call]
    helpers: list[Call]
    opaque: bool


def commands(found: list[Call]) -> Inner:
    """The commands `found` run from their arguments (not `found` themselves), read `MAX_NESTING` deep."""
    out: list[Call] = []
    helpers: list[Call] = []
    opaque = False
    todo = [(call, 1, False) for call in found]
    while todo:
        call, level, helper = todo.pop(0)
        opened = _opened(call)
        opaque = opaque or opened.opaque
        if (opened.calls or opened.helpers) and level >= MAX_NESTING:
            opaque = True
            continue
        (helpers if helper else out).extend(opened.calls)
        helpers.extend(opened.helpers)
        todo.extend((c, level + 1, helper) for c in opened.calls)
        todo.extend((c, level + 1, True) for c in opened.helpers)
    return Inner(tuple(out), opaque, tuple(helpers))


def _opened(call: Call) -> _Opened:
    unwrapped = programs.unwrap(call.words)
    runs, helpers, opaque = _from_environment(call, unwrapped)
    given, hidden = _from_wrappers(unwrapped)
    runs, opaque = runs + given, opaque or hidden
    words = unwrapped.words
    if not words or words[0].value is None:
        return _Opened(runs, helpers, opaque)
    name = os.path.basename(words[0].value)
    inner: tuple[list[Call], bool] = ([], False)
    if name in _SHELLS:
        inner = _shell(words[1:], call.stdin)
    elif name in _LINE_OPTIONS:
        inner = _lines(_option_values(words[1:], _LINE_OPTIONS[name]))
    elif name in _HELPER_OPTIONS:
        given, hidden = _lines(_option_values(words[1:], _HELPER_OPTIONS[name]))
        helpers, opaque = helpers + given, opaque or hidden
    elif name == "ssh":
        remote, given, hidden = _ssh(words[1:])
        inner, helpers = (remote, hidden), helpers + given
    elif name == "parallel":
        inner = _parallel(words[1:])
    elif name == "find":
        inner = _find(words[1:]), False
    elif name == "git":
        inner = _git(words[1:])
    elif name == "capsh":
        inner = _capsh(words[1:], call.stdin)
    return _Opened(runs + inner[0], helpers, opaque or inner[1] or code.opaque(words))


def _from_environment(call: Call, unwrapped: programs.Unwrapped) -> tuple[list[Call], list[Call], bool]:
    """What the command's variables (`PAGER=… git`, `env GIT_SSH_COMMAND=… git`, `sudo EDITOR=… x`) and
    `env -S STRING` run: (commands run, helpers, opaque)."""
    assigns = list(call.assigns)
    runs: list[Call] = []
    opaque = False
    for wrapper in unwrapped.wrappers:
        name = os.path.basename(wrapper[0].value or "")
        if name in ("env", "sudo"):
            assigns += [pair for pair in map(environment.assignment, wrapper[1:]) if pair]
        if name == "env":  # `env -S 'CMD ARGS'` splits its string into the command
            runs, opaque = _lines(_option_values(wrapper[1:], frozenset({"-S", "--split-string"})))
    found = environment.commands(assigns)
    helpers, hidden = _lines(list(found.lines))
    opaque = opaque or hidden or found.opaque
    for key, value in found.settings:
        given, hidden = _git_setting(key, value)
        runs += given
        opaque = opaque or hidden
    return runs, helpers, opaque


def _from_wrappers(unwrapped: programs.Unwrapped) -> tuple[list[Call], bool]:
    """The shell lines wrappers run themselves: `flock F -c CMD`, `runuser USER -c CMD`, `sg GROUP CMD`."""
    runs: list[Call] = []
    opaque = False
    after = [w[0] for w in unwrapped.wrappers[1:]] + list(unwrapped.words[:1])  # the word after each wrapper
    for i, wrapper in enumerate(unwrapped.wrappers):
        spec = wrappers.lookup(os.path.basename(wrapper[0].value or ""))
        if spec is None:
            continue
        lines = _option_values(wrapper[1:], spec.lines)
        if spec.line_word and not lines and i < len(after):  # `sg GROUP CMD` runs `sh -c CMD`
            lines = [after[i]]
        found, hidden = _lines(lines)
        runs, opaque = runs + found, opaque or hidden
    return runs, opaque


def _capsh(args: tuple[Word, ...], piped: bool) -> tuple[list[Call], bool]:
    """`capsh [OPTIONS] -- ARGS` (or `-+`): bash runs with ARGS (`-- -c CMD`); after `==` (or `=+`) capsh
    runs again with the rest; a `--shell=PROGRAM` that is no shell, or a word known only when the line
    runs: opaque."""
    for i, word in enumerate(args):
        value = word.value
        if value is None:
            return [], True
        if value.startswith("--shell=") and os.path.basename(value[8:]) not in _SHELLS:
            return [], True
        if value in ("--", "-+"):
            return _shell(args[i + 1:], piped)
        if value in ("==", "=+"):
            return _capsh(args[i + 1:], piped)
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


def _lines(words: list[Word]) -> tuple[list[Call], bool]:
    out: list[Call] = []
    opaque = False
    for word in words:
        found, hidden = _line(word)
        out += found
        opaque = opaque or hidden
    return out, opaque


def _option_values(args: tuple[Word, ...], options: frozenset[str]) -> list[Word]:
    """The values of `options` anywhere among `args`: `-c V`, `--command V`, `--command=V`, `-cV`, and
    `-lc V` (a cluster of short options that ends with one)."""
    out: list[Word] = []
    for i, word in enumerate(args):
        value = word.value or ""
        name, eq, rest = value.partition("=")
        if value in options:
            out += args[i + 1:i + 2]
        elif value.startswith("--"):
            if eq and name in options:
                out.append(word._replace(value=rest))
        elif len(value) > 2 and value[0] == "-":  # `-cCMD`; `-lc CMD` (read both ways: `-crm abc` is either)
            if value[:2] in options:
                out.append(word._replace(value=value[2:]))
            if f"-{value[-1]}" in options:
                out += args[i + 1:i + 2]
    return out


def _ssh(args: tuple[Word, ...]) -> tuple[list[Call], list[Call], bool]:
    """`ssh [OPTIONS] DESTINATION [OPTIONS] COMMAND...`: ssh joins the command's words with spaces and
    the remote shell reads them as a line; `-o ProxyCommand=CMD` (and LocalCommand, KnownHostsCommand)
    runs on this machine: (commands run, helpers, opaque)."""
    destination = False
    settings: list[Word] = []
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            if destination:
                break
            return [], [], True
        if value == "--":
            i += 1
            break
        if value.startswith("-") and len(value) > 1:
            for j, letter in enumerate(value[1:], 1):
                if letter in _SSH_VALUES:
                    if j + 1 < len(value):  # `-oKEY=VALUE`, `-p22`
                        given = args[i]._replace(value=value[j + 1:])
                    else:  # `-o KEY=VALUE`
                        i += 1
                        given = args[i] if i < len(args) else args[i - 1]._replace(value="")
                    if letter == "o":
                        settings.append(given)
                    break
            i += 1
            continue
        if destination:
            break
        destination = True
        i += 1
    helpers: list[Call] = []
    runs: list[Call] = []
    opaque = False
    for setting in settings:
        parts = re.split(r"\s*=\s*|\s+", (setting.value or "").strip(), maxsplit=1)
        key, text = parts[0].lower(), parts[1] if len(parts) > 1 else ""
        if setting.value is None:
            opaque = True
        elif key in ("proxycommand", "localcommand", "knownhostscommand"):
            found, hidden = _line(setting._replace(value=text))
            helpers, opaque = helpers + found, opaque or hidden
        elif key == "remotecommand":
            found, hidden = _line(setting._replace(value=text))
            runs, opaque = runs + found, opaque or hidden
    command = args[i:] if destination else ()
    if command:
        if any(w.value is None for w in command):
            return runs, helpers, True
        found, hidden = _line(command[0]._replace(value=" ".join(w.value or "" for w in command)))
        runs, opaque = runs + found, opaque or hidden
    return runs, helpers, opaque


def _parallel(args: tuple[Word, ...]) -> tuple[list[Call], bool]:
    """`parallel [OPTIONS] COMMAND ::: ARGS`: GNU parallel hands COMMAND's words, joined, to a shell. An
    option agentwrap does not know (its value could be taken for the command), no command (the
    arguments or stdin are the commands), or a word known only when the line runs: opaque."""
    i = 0
    while i < len(args) and (args[i].value or "-").startswith("-") and args[i].value not in _PARALLEL_ENDS:
        value = args[i].value
        if value is None:
            return [], True
        name = value.split("=", 1)[0]
        if name in _PARALLEL_VALUES:
            i += 1 if "=" in value or (len(value) > 2 and not value.startswith("--")) else 2
        elif name in _PARALLEL_FLAGS:
            i += 1
        else:
            return [], True
    end = i
    while end < len(args) and args[end].value not in _PARALLEL_ENDS:
        end += 1
    command = args[i:end]
    if not command or any(w.value is None for w in command):
        return [], True
    return _line(command[0]._replace(value=" ".join(w.value or "" for w in command)))


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
            inner, hidden = _git_setting(key, setting._replace(value=text))
            out += inner
            opaque = opaque or hidden
        elif value in ("-C", "--git-dir", "--work-tree", "--namespace") and i + 1 < len(args):
            i += 1  # the option's value, not the subcommand
        elif value.startswith("--exec-path="):
            opaque = True  # git's own programs are taken from that folder
        i += 1
    return out, opaque


def _git_setting(key: str, value: Word) -> tuple[list[Call], bool]:
    """The commands a git setting runs: `alias.x=!CMD` a shell line; a setting that names a program or
    an alias of more git arguments: opaque."""
    key = key.lower()
    if key.startswith("alias.") and value.value is not None and value.value.startswith("!"):
        return _line(value._replace(value=value.value[1:]))
    if key.startswith("alias.") or key.rsplit(".", 1)[-1] in _GIT_RUNS:
        return [], True
    return [], False
