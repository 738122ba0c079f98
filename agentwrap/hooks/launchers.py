"""Programs that run a command from their words only in one form (`ip netns exec NS CMD`, `gdb --args CMD`,
`uv run CMD`): the hooks' reading of them, beside the wrappers of agentwrap.wrappers, which run a command
whatever their words (`sudo CMD`). They are not in that table because most of their runs run nothing of
the kind (`ip addr`, `gdb ./a.out core`, `uv sync`): the adapter choice and `--read-only` read them as
the programs they are.

`own(words)` says how many of a command's first words are the launcher's, so that a permission rule
written for `rm` sees `rm` in `ip netns exec blue rm x` (agentwrap.hooks.programs takes them off as a
wrapper's). A misread option value costs nothing: after a wrapper or launcher every later word is also
tried as the start of the command (`programs.rule_forms`).
"""

from __future__ import annotations

import os
from typing import NamedTuple

from agentwrap.hooks.calls import Word


class _Runner(NamedTuple):
    subcommands: frozenset[str]  # the subcommand after which the command comes (`uv run`)
    takes_value: frozenset[str] = frozenset()  # options between the two whose value is the next word
    positionals: int = 0  # the launcher's own words before the command (`direnv exec DIR CMD`)


def _v(*names: str) -> frozenset[str]:
    return frozenset(names)


# Project and environment runners: `SUBCOMMAND [OPTIONS] CMD ARGS` runs CMD (a program on the project's
# PATH, or on the system's). Their options with a value are from each one's --help.
_RUNNERS: dict[str, _Runner] = {
    "uv": _Runner(_v("run"), _v("--with", "--with-editable", "--with-requirements", "--extra", "--group",
                                "--no-group", "--only-group", "--package", "--python", "-p", "--env-file",
                                "--directory", "--project", "--index", "--default-index", "-i", "--index-url",
                                "--extra-index-url", "-f", "--find-links", "--config-file", "--cache-dir",
                                "-P", "--upgrade-package", "--reinstall-package", "--no-binary-package",
                                "--no-build-package", "--exclude-newer", "--prerelease", "--resolution",
                                "--index-strategy", "--keyring-provider", "--link-mode", "--color",
                                "--python-preference", "--allow-insecure-host", "-C", "--config-setting")),
    "poetry": _Runner(_v("run"), _v("-C", "--directory", "-P", "--project")),
    "pipenv": _Runner(_v("run")),
    "pdm": _Runner(_v("run"), _v("-p", "--project", "-v")),
    "hatch": _Runner(_v("run"), _v("-e", "--env")),
    "rye": _Runner(_v("run"), _v("--pyproject")),
    "pixi": _Runner(_v("run", "exec"), _v("-e", "--environment", "--manifest-path", "-s", "--spec", "-c",
                                          "--channel", "--platform")),
    "conda": _Runner(_v("run"), _v("-n", "--name", "-p", "--prefix", "--cwd")),
    "mamba": _Runner(_v("run"), _v("-n", "--name", "-p", "--prefix", "--cwd")),
    "micromamba": _Runner(_v("run"), _v("-n", "--name", "-p", "--prefix", "--cwd", "-r", "--root-prefix")),
    "bundle": _Runner(_v("exec"), _v("--gemfile")),
    "pnpm": _Runner(_v("exec"), _v("-C", "--dir", "--filter", "-F")),
    "yarn": _Runner(_v("exec")),
    "direnv": _Runner(_v("exec"), positionals=1),  # `direnv exec DIR CMD`
    # a command run in a container or on another machine, as `ssh HOST CMD` is read
    "docker": _Runner(_v("exec"), _v("-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir",
                                     "--detach-keys"), positionals=1),
    "podman": _Runner(_v("exec"), _v("-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir",
                                     "--detach-keys", "--preserve-fd"), positionals=1),
    "kubectl": _Runner(_v("exec"), _v("-c", "--container", "-n", "--namespace", "-f", "--filename", "--context",
                                      "--kubeconfig", "--pod-running-timeout"), positionals=1),
    "machinectl": _Runner(_v("shell"), _v("-E", "--setenv", "--uid", "-M", "--machine", "-H", "--host"),
                          positionals=1),  # `machinectl shell [USER@]NAME CMD`
    "perf": _Runner(_v("stat", "record", "trace"), _v("-e", "--event", "-o", "--output", "-p", "--pid", "-t",
                                                      "--tid", "-C", "--cpu", "-r", "--repeat", "-F", "--freq",
                                                      "-c", "--count", "-G", "--cgroup", "-I", "--interval-print",
                                                      "-x", "--field-separator", "--call-graph", "-m", "--mmap-pages",
                                                      "--filter", "-u", "--uid")),
}
# ip(8)'s global options with a value, as it matches them (any leading part of the name: `-n`, `-net`)
_IP_VALUES = ("-netns", "-batch", "-rcvbuf", "-loops", "-family")
_GDB_VALUES = frozenset({"ex", "iex", "eval-command", "init-eval-command", "x", "ix", "command", "init-command",
                         "cd", "d", "directory", "p", "pid", "c", "core", "s", "symbols", "e", "exec", "se", "b",
                         "l", "tty", "t", "D", "data-directory", "i", "interpreter"})
_LLDB_VALUES = frozenset({"-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash",
                          "-K", "--source-on-crash", "-s", "--source", "-S", "--source-before-file", "-a", "--arch",
                          "-p", "--attach-pid", "-n", "--attach-name", "-c", "--core", "-l", "--script-language",
                          "-f", "--file", "--debug-file"})


def _ip(args: list[str]) -> int | None:
    """`ip [OPTIONS] netns exec NS CMD`, `ip -all netns exec CMD` (in every namespace), `ip vrf exec VRF CMD`.
    ip takes any leading part of a word for the word (`ip net e NS CMD`)."""
    every = False
    i = 0
    while i < len(args) and args[i].startswith("-"):
        name = args[i].split("=", 1)[0]
        every = every or (len(name) > 1 and "-all".startswith(name))
        i += 2 if any(len(name) > 1 and full.startswith(name) for full in _IP_VALUES) else 1
    if i + 1 >= len(args) or args[i] not in ("net", "netn", "netns", "v", "vr", "vrf"):
        return None
    if not args[i + 1] or not "exec".startswith(args[i + 1]):
        return None
    return i + 2 + (0 if every and args[i].startswith("net") else 1)


def _debugger(args: list[str], values: frozenset[str], ends: str) -> int | None:
    """`gdb [OPTIONS] --args PROG ARGS` or `lldb [OPTIONS] -- PROG ARGS`; without it, the program is the
    first word that is no option (`gdb -batch -ex run ./prog`; a core or pid may follow, read as its
    arguments: more forms to match, never fewer)."""
    i = 0
    while i < len(args):
        word = args[i]
        if word in ends.split():
            return i + 1 if i + 1 < len(args) else None
        if not word.startswith("-") or word == "-":
            return i
        name = word.lstrip("-") if values is _GDB_VALUES else word
        i += 1 if "=" in word else 1 + (name in values)
    return None


def own(words: tuple[Word, ...]) -> int | None:
    """How many of `words` (a command, its program first) are a launcher's own before the command it runs;
    None when the command is no launcher, runs none from its words, or a word of the launcher's is known
    only when the line runs."""
    values = [w.value for w in words]
    if not values or values[0] is None:
        return None
    name = os.path.basename(values[0])
    if name not in _RUNNERS and name not in ("ip", "gdb", "lldb"):
        return None
    head: list[str] = []
    for value in values[1:]:
        if value is None:
            break
        head.append(value)
    found: int | None
    if name == "ip":
        found = _ip(head)
    elif name == "gdb":
        found = _debugger(head, _GDB_VALUES, "--args -args")
    elif name == "lldb":
        found = _debugger(head, _LLDB_VALUES, "--")
    else:
        found = _runner(_RUNNERS[name], head)
    return None if found is None or found >= len(head) else 1 + found


def _runner(spec: _Runner, args: list[str]) -> int | None:
    i = 0
    while i < len(args) and args[i] not in spec.subcommands:  # the program's own options: `uv -q run`,
        if not args[i].startswith("-") and not (i and args[i - 1].startswith("-")):  # `poetry -C DIR run`
            return None
        i += 1
    if i >= len(args):
        return None
    i += 1
    positionals = spec.positionals
    while i < len(args):
        word = args[i]
        if word == "--":
            return i + 1
        if word.startswith("-"):
            i += 1 + (word in spec.takes_value)
        elif positionals:
            positionals -= 1
            i += 1
        else:
            return i
    return None
