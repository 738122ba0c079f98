"""Programs that only run another command (`env`, `sudo`, `nice`, `timeout`, `command`, ...): which of a
command's leading words are theirs, and which command they run.

One table serves two readers: the hooks match a user's permission rule on the program however it is
wrapped (agentwrap.hooks.programs: `sudo rm x` is `rm x` to a rule), and the adapter choice reads
`timeout 30 git status` with git's adapter (`through`). A wrapper's options are many and differ between
versions; the table names those that take a value, so that `nice -n 5 make` runs `make`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from agentwrap.lazyre import lazy

_OWN_FAILURES = frozenset({125, 126, 127})  # coreutils' (and the shell's) own: it failed, cannot run, not found


class Wrapper(NamedTuple):
    takes_value: frozenset[str] = frozenset()  # options whose value is the next word
    positionals: int = 0  # words before the command that are the wrapper's own (timeout's duration)
    # The command's output and status reach the caller as the command left them, so its adapter reads the
    # run. Not so for nohup (a terminal's output goes to nohup.out), chronic (prints only on failure), xargs
    # (adds words from its input, runs the command many times), busybox and toybox (their own tools) and
    # builtin (runs only the shell's builtins: `builtin git` is bash's error, not git's).
    transparent: bool = True
    runs_nothing: frozenset[str] = frozenset()  # options with which it only looks up (`command -v git`)
    own_statuses: frozenset[int] = _OWN_FAILURES  # statuses that are the wrapper's, not the command's
    # Any failure may be the wrapper's own (sudo asking for a password, or refusing: status 1 as the
    # command's may be): a failed run is read as the wrapper's, by the generic adapter's sudo rules.
    fails_itself: bool = False


WRAPPERS: dict[str, Wrapper] = {
    "env": Wrapper(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})),
    "sudo": Wrapper(frozenset({"-u", "--user", "-g", "--group", "-p", "--prompt", "-C", "--close-from", "-D",
                               "--chdir", "-h", "--host", "-r", "--role", "-t", "--type", "-T",
                               "--command-timeout", "-U", "--other-user", "-R", "--chroot"}),
                    runs_nothing=frozenset({"-l", "--list", "-e", "--edit", "-v", "--validate", "-K",
                                            "--remove-timestamp", "-V", "--version"}), fails_itself=True),
    "doas": Wrapper(frozenset({"-u", "-C"}), fails_itself=True),
    "nice": Wrapper(frozenset({"-n", "--adjustment"})),
    "timeout": Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), 1,
                       own_statuses=_OWN_FAILURES | {124}),  # 124: the time ran out
    "stdbuf": Wrapper(frozenset({"-i", "--input", "-o", "--output", "-e", "--error"})),
    "ionice": Wrapper(frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u",
                                 "--uid"})),
    "time": Wrapper(frozenset({"-f", "--format", "-o", "--output"})),
    "command": Wrapper(runs_nothing=frozenset({"-v", "-V"})), "builtin": Wrapper(transparent=False),
    "exec": Wrapper(frozenset({"-a"})), "nohup": Wrapper(transparent=False),
    "setsid": Wrapper(), "unbuffer": Wrapper(), "chronic": Wrapper(transparent=False),
    # `busybox rm x`: the applet is the command
    "busybox": Wrapper(transparent=False), "toybox": Wrapper(transparent=False),
    "chroot": Wrapper(frozenset({"--userspec", "--groups"}), 1),  # `chroot NEWROOT CMD`
    "sshpass": Wrapper(frozenset({"-p", "-f", "-d", "-P"})),
    "chrt": Wrapper(positionals=1), "taskset": Wrapper(positionals=1), "flock": Wrapper(positionals=1),
    "xargs": Wrapper(frozenset({"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n",
                                "--max-args", "-P", "--max-procs", "-s", "--max-chars"}), transparent=False),
}
_ASSIGNMENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*=")  # compiled when a wrapper is first read


def wrapper(word: str | None) -> str | None:
    """The wrapper `word` names (`/usr/bin/env` -> env), or None."""
    if word is None:
        return None
    name = os.path.basename(word)
    return name if name in WRAPPERS else None


def own_words(name: str, words: Sequence[str | None]) -> int:
    """How many of `words` (those after wrapper `name`) are the wrapper's own. None stands for a word
    known only when the line runs: it ends the wrapper's words."""
    spec = WRAPPERS[name]
    positionals = spec.positionals
    i = 0
    while i < len(words):
        value = words[i]
        if value is None:
            return i
        if value == "--":
            return i + 1
        if value.startswith("-") and len(value) > 1:
            i += 2 if value in spec.takes_value else 1
        elif name in ("env", "sudo") and _ASSIGNMENT.match(value):  # `sudo PAGER=less git log`
            i += 1
        elif positionals:
            positionals -= 1
            i += 1
        else:
            return i
    return i


def _looks_up(spec: Wrapper, word: str) -> bool:
    """Whether `word` is one of the options with which the wrapper runs nothing, alone or among short
    options written as one word (`command -pv git`)."""
    if word in spec.runs_nothing:
        return True
    if not word.startswith("-") or word.startswith("--") or not word[1:].isalpha() or word[:2] in spec.takes_value:
        return False  # `sudo -u root`'s `-uroot` holds a value, not options
    return bool({o[1] for o in spec.runs_nothing if len(o) == 2} & set(word[1:]))


class Through(NamedTuple):
    argv: list[str]  # the command the wrappers run
    own_statuses: frozenset[int]  # statuses a wrapper sets itself (timeout's 124): not the command's
    fails_itself: bool  # any failure may be a wrapper's own (sudo's)

    def owns(self, status: int | None) -> bool:
        """Whether a run that ended with `status` (None: stopped, or ended by a signal) may have ended as a
        wrapper's own doing, so that it is read as the wrapper's run rather than the command's."""
        return status in self.own_statuses or self.fails_itself and status != 0


def through(argv: Sequence[str]) -> Through | None:
    """The command `argv` runs once the wrappers that leave its output and status its own are taken off
    (`timeout 30 git status` -> `git status`); None when argv starts with no wrapper, with one that only
    looks up (`command -v git`) or runs nothing (`sudo -v`), or with one that changes what the run shows
    (`nohup`, `xargs`)."""
    i = 0
    statuses: frozenset[int] = frozenset()
    fails_itself = False
    while i < len(argv) and (name := wrapper(argv[i])) is not None:
        spec = WRAPPERS[name]
        own = own_words(name, argv[i + 1:])
        if not spec.transparent or any(_looks_up(spec, word) for word in argv[i + 1:i + 1 + own]):
            return None
        statuses |= spec.own_statuses
        fails_itself = fails_itself or spec.fails_itself
        i += 1 + own
    if i == 0 or i >= len(argv):
        return None
    return Through(list(argv[i:]), statuses, fails_itself)
