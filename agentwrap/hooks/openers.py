"""The per-program openers of agentwrap.hooks.inner: how each program that runs a command from its own
arguments holds it, read into the calls of that command.

Each opener takes the words after the program's name and returns the calls they run and whether some of
it is opaque (known only when the line runs, or no shell line); `ssh` also returns its helpers apart
(`-o ProxyCommand=`). The programs: a shell's `-c` (`shell`), `capsh -- ARGS`, `ssh HOST CMD`,
`parallel CMD ::: ARGS`, `find -exec` (`find`: never opaque), `git -c alias.x=!CMD` (`git`; one setting:
`git_setting`). `option_values` finds an option's values anywhere among the words and `lines` reads words
that are shell lines; `SHELLS`, `LINE_OPTIONS` and `HELPER_OPTIONS` name the programs those shared rules
open. The walk through nested calls, wrappers and variables is agentwrap.hooks.inner's.
"""
from __future__ import annotations

import os
import re

from agentwrap.hooks import calls
from agentwrap.hooks.calls import Call, Word
from agentwrap.shell import grammar

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})
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
LINE_OPTIONS: dict[str, frozenset[str]] = {
    "script": frozenset({"-c", "--command"}),
    "su": frozenset({"-c", "--command", "--session-command"}),
    "nix-shell": frozenset({"--run", "--command"}),
    "npx": frozenset({"-c", "--call"}), "npm": frozenset({"-c", "--call"}),  # `npm exec -c CMD`
    # fish's syntax is not bash's: a line the grammar cannot read is opaque
    "fish": frozenset({"-c", "--command", "-C", "--init-command"}),
}
# Programs that run the shell lines of their stdin later (`at now <<< 'rm x'`): opaque when it is a pipe
# or a redirection, as `sh` reading stdin is; `at -f FILE` runs a file, as `bash FILE` does.
STDIN_LINES = frozenset({"at", "batch"})
# Programs with an option whose value is a helper command they run themselves.
HELPER_OPTIONS: dict[str, frozenset[str]] = {
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


def capsh(args: tuple[Word, ...], piped: bool) -> tuple[list[Call], bool]:
    """`capsh [OPTIONS] -- ARGS` (or `-+`): bash runs with ARGS (`-- -c CMD`); after `==` (or `=+`) capsh
    runs again with the rest; a `--shell=PROGRAM` that is no shell, or a word known only when the line
    runs: opaque."""
    for i, word in enumerate(args):
        value = word.value
        if value is None:
            return [], True
        if value.startswith("--shell=") and os.path.basename(value[8:]) not in SHELLS:
            return [], True
        if value in ("--", "-+"):
            return shell(args[i + 1:], piped)
        if value in ("==", "=+"):
            return capsh(args[i + 1:], piped)
    return [], False


def _line(word: Word) -> tuple[list[Call], bool]:
    """The calls of a command line held in one word."""
    if word.value is None:
        return [], True
    parsed = grammar.parse(word.value)
    if parsed.tree is None or calls.depth(parsed.tree) > 300:
        return [], True
    return calls.every_call(parsed.tree, word.value.encode("utf-8", "surrogateescape")), False


def shell(args: tuple[Word, ...], piped: bool) -> tuple[list[Call], bool]:
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


def lines(words: list[Word]) -> tuple[list[Call], bool]:
    """The calls of the command lines held in `words`, one line a word; opaque if any is."""
    out: list[Call] = []
    opaque = False
    for word in words:
        found, hidden = _line(word)
        out += found
        opaque = opaque or hidden
    return out, opaque


def option_values(args: tuple[Word, ...], options: frozenset[str]) -> list[Word]:
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


def ssh(args: tuple[Word, ...]) -> tuple[list[Call], list[Call], bool]:
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


def parallel(args: tuple[Word, ...]) -> tuple[list[Call], bool]:
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


def find(args: tuple[Word, ...]) -> list[Call]:
    """`find ... -exec CMD ARGS ;` (or `+`, and `-execdir`, `-ok`, `-okdir`): each CMD ARGS as a call."""
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


def git(args: tuple[Word, ...]) -> tuple[list[Call], bool]:
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
            inner, hidden = git_setting(key, setting._replace(value=text))
            out += inner
            opaque = opaque or hidden
        elif value in ("-C", "--git-dir", "--work-tree", "--namespace") and i + 1 < len(args):
            i += 1  # the option's value, not the subcommand
        elif value.startswith("--exec-path="):
            opaque = True  # git's own programs are taken from that folder
        i += 1
    return out, opaque


def git_setting(key: str, value: Word) -> tuple[list[Call], bool]:
    """The commands a git setting runs: `alias.x=!CMD` a shell line; a setting that names a program or
    an alias of more git arguments: opaque."""
    key = key.lower()
    if key.startswith("alias.") and value.value is not None and value.value.startswith("!"):
        return _line(value._replace(value=value.value[1:]))
    if key.startswith("alias.") or key.rsplit(".", 1)[-1] in _GIT_RUNS:
        return [], True
    return [], False
