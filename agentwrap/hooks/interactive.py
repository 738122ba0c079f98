"""Sessions a person asked for, which the hook leaves to the host: an editor, a pager, a REPL, a shell.

Through agentwrap such a session would wait in its terminal for keys nobody types, until the timeout.
The program is read through its wrappers (`sudo vim`, `env vim x`), and a REPL is a session only when it
is given nothing to run: no script, no `-c`/`-e`, no input from a pipe or a file (`python3 -i` is one
whatever it is given).
"""

from __future__ import annotations

import os
from typing import NamedTuple

from agentwrap.hooks import programs
from agentwrap.hooks.calls import Call

# Programs that are a session for a person whatever their arguments.
_ALWAYS = frozenset({"vi", "vim", "nvim", "nano", "emacs", "pico", "less", "more", "most", "man", "top", "htop",
                     "btop", "watch", "tmux", "screen", "mc", "ranger", "fzf", "tig", "lazygit", "sudoedit",
                     "visudo", "vipw", "vigr", "editor", "sensible-editor", "irb", "ghci", "su"})


class Repl(NamedTuple):
    runs: frozenset[str]  # options that give it something to run (its value is code, a file, a query)
    values: frozenset[str] = frozenset()  # other options whose value is the next word
    positionals: int = 1  # positional words it needs before it runs something (0: positionals never do)
    forced: frozenset[str] = frozenset({"-i"})  # options that make it a session whatever it runs


_QUITS = frozenset({"-V", "--version", "-h", "--help", "-?", "-version", "-help"})
_SHELL = Repl(frozenset({"-c"}), frozenset({"-o", "-O", "+O", "--rcfile", "--init-file"}), forced=frozenset({"-i"}))
_PYTHON = Repl(frozenset({"-c", "-m"}), frozenset({"-W", "-X"}))
_REPLS: dict[str, Repl] = {
    **{name: _PYTHON for name in ("python", "python2", "python3", "pypy", "pypy3", "ipython")},
    **{name: _SHELL for name in ("bash", "sh", "zsh", "fish", "dash", "ksh")},
    "node": Repl(frozenset({"-e", "--eval", "-p", "--print"}), frozenset({"-r", "--require"}),
                 forced=frozenset({"-i", "--interactive"})),
    "ruby": Repl(frozenset({"-e"}), frozenset({"-r", "-I"}), forced=frozenset()),
    "lua": Repl(frozenset({"-e"}), frozenset({"-l"})),
    "R": Repl(frozenset({"-e", "-f", "--file"}), forced=frozenset()),
    "mysql": Repl(frozenset({"-e", "--execute"}), frozenset({"-u", "-p", "-h", "-P", "-D", "-S"}), 0, frozenset()),
    "mariadb": Repl(frozenset({"-e", "--execute"}), frozenset({"-u", "-h", "-P", "-D", "-S"}), 0, frozenset()),
    "psql": Repl(frozenset({"-c", "--command", "-f", "--file", "-l", "--list"}),
                 frozenset({"-U", "-h", "-p", "-d", "-v", "--set"}), 0, frozenset()),
    "sqlite3": Repl(frozenset(), frozenset({"-cmd", "-init", "-separator", "-newline", "-nullvalue"}), 2,
                    frozenset({"-interactive"})),
    "redis-cli": Repl(frozenset(), frozenset({"-h", "-p", "-s", "-a", "-u", "-n", "-r", "-i", "--user", "--pass"}),
                      forced=frozenset()),
    "mongo": Repl(frozenset({"--eval", "-f", "--file"}), positionals=0, forced=frozenset()),
    "mongosh": Repl(frozenset({"--eval", "-f", "--file"}), positionals=0, forced=frozenset()),
    "telnet": Repl(frozenset(), positionals=0, forced=frozenset()),
    "ftp": Repl(frozenset(), positionals=0, forced=frozenset()),
    "sftp": Repl(frozenset({"-b"}), positionals=0, forced=frozenset()),
}
_GIT_PATCH = frozenset({"-p", "--patch", "-i", "--interactive"})
_REVERT_QUIET = frozenset({"--no-edit", "-n", "--no-commit", "--continue", "--abort", "--skip", "--quit"})
_GIT_MESSAGE = ("-m", "--message", "-F", "--file", "-C", "--reuse-message", "--no-edit", "--fixup")
_CONTAINERS = frozenset({"docker", "podman", "nerdctl", "kubectl"})


def why(call: Call) -> str | None:
    """Why the command is a session a person asked for, or None."""
    unwrapped = programs.unwrap(call.words)
    if _root_shell(unwrapped):
        return "`sudo -i`, `sudo -s` or `sudo -e` is an interactive session"
    words = [w.value or "" for w in unwrapped.words]
    if not words or unwrapped.words[0].value is None:
        return None
    name, args = os.path.basename(words[0]), words[1:]
    if name in _ALWAYS:
        return f"`{name}` is an interactive session"
    if name in _REPLS and _repl(_REPLS[name], args, call.stdin):
        return f"`{name}` without anything to run is an interactive session"
    if name == "ssh" and len([w for w in args if not w.startswith("-")]) <= 1:
        return "`ssh` without a remote command is an interactive session"
    if name == "git" and _git_session(args):
        return "this `git` command opens an editor or asks about each change"
    if name == "crontab" and "-e" in args:
        return "`crontab -e` opens an editor"
    if name in _CONTAINERS and _container_session(args):
        return f"`{name}` with a terminal and input (`-it`) is an interactive session"
    return None


def _root_shell(unwrapped: programs.Unwrapped) -> bool:
    """`sudo -i`, `sudo -s` (no command): a login shell; `sudo -e FILE`: an editor."""
    for wrapper in unwrapped.wrappers:
        if os.path.basename(wrapper[0].value or "") != "sudo":
            continue
        flags = {w.value for w in wrapper[1:]}
        if flags & {"-e", "--edit"} or not unwrapped.words and flags & {"-i", "-s", "--login", "--shell"}:
            return True
    return False


def _repl(repl: Repl, args: list[str], stdin: bool) -> bool:
    """Whether the REPL is given nothing to run (and no input but the terminal)."""
    positionals = 0
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in repl.forced:
            return True
        if arg in repl.values:  # before the quitting options: redis-cli's `-h` is its host, not help
            i += 2
            continue
        if arg in _QUITS or arg in repl.runs or any(arg.startswith(f"{o}=") for o in repl.runs if o[:2] == "--"):
            return False
        if arg == "--":
            positionals += len(args) - i - 1
            break
        if arg.startswith("-") and len(arg) > 1:
            i += 1
            continue
        positionals += 1
        i += 1
    if repl.positionals and positionals >= repl.positionals:
        return False
    return not stdin


def _git_session(args: list[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):  # git's own options: `-C DIR`, `-c KEY=VALUE`
        i += 2 if args[i] in ("-C", "-c") else 1
    if i >= len(args):
        return False
    sub, rest = args[i], args[i + 1:]
    if sub == "rebase":
        return bool({"-i", "--interactive"} & set(rest))
    if sub in ("add", "checkout", "reset", "restore", "stash") and _GIT_PATCH & set(rest):
        return True
    if sub == "commit":
        return bool(_GIT_PATCH & set(rest)) or not any(_gives_message(a) for a in rest)
    if sub == "revert":  # edits the message when its stdin is a terminal, as agentwrap's is: the host's is not
        return not _REVERT_QUIET & set(rest)
    if sub in ("cherry-pick", "merge"):
        return bool({"-e", "--edit"} & set(rest))
    return False


def _gives_message(arg: str) -> bool:
    """`-m MSG`, `-mMSG`, `-am MSG`, `--message=MSG`, `-F FILE`, `--no-edit`, ...: no editor opens."""
    if arg.startswith("--"):
        return arg.split("=", 1)[0] in _GIT_MESSAGE
    return arg.startswith("-") and bool(set(arg[1:]) & {"m", "F", "C"})


def _container_session(args: list[str]) -> bool:
    if not set(args) & {"run", "exec", "attach"}:
        return False
    if "attach" in args[:2]:
        return True
    flags = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    return ("i" in flags or "--interactive" in args or "--stdin" in args) and ("t" in flags or "--tty" in args)
