"""Commands a command runs from its own arguments, which the user's permission rules must see too.

`bash -c 'ls; rm x'`, `find . -exec rm {} \\;` and `git -c alias.x='!rm y' x` each run `rm`, but the
line's parsed calls are `bash`, `find` and `git`: a rule written for `rm` would match none of them, and
the rewrite would hide the line from the host. So each call is opened, through its wrappers (`sudo`,
`timeout`, `xargs`, `busybox`, `chroot`, `strace`: agentwrap.hooks.programs), by one rule per kind (each
program's rule is in agentwrap.hooks.openers; the walk through nesting, wrappers and variables is here):

- an option whose value is a shell line (`openers.LINE_OPTIONS`: a shell's `-c`, `script -c`, `su -c`,
  `env -S`; a wrapper's own, `Wrapper.lines`: `flock F -c`, `runuser -c`, `sg GROUP -c`) is parsed with
  the same grammar and its calls are read in turn; so is the one word `sg GROUP CMD` hands to `sh -c`,
  and the arguments `capsh ... -- ARGS` hands to bash (`capsh --drop=cap_x -- -c CMD`);
- words that are a command: `find`'s `-exec`/`-execdir`/`-ok`/`-okdir` up to `;` or `+`; the words
  `ssh HOST` and `parallel` join into a line for a shell (`ssh host rm x`, `parallel rm ::: x`);
- `git -c alias.NAME=!CMD` (or `GIT_CONFIG_KEY_0=alias.NAME`) holds a shell line;
- a helper a program is given to run (`openers.HELPER_OPTIONS`: `rsync -e`, `ssh -o ProxyCommand=`; the
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
from typing import NamedTuple

from agentwrap import wrappers
from agentwrap.hooks import code, environment, openers, programs
from agentwrap.hooks.calls import Call

MAX_NESTING = 4  # `bash -c "sh -c '...'"` levels read; deeper is opaque


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
    if name in openers.SHELLS:
        inner = openers.shell(words[1:], call.stdin)
    elif name in openers.LINE_OPTIONS:
        inner = openers.lines(openers.option_values(words[1:], openers.LINE_OPTIONS[name]))
    elif name in openers.HELPER_OPTIONS:
        given, hidden = openers.lines(openers.option_values(words[1:], openers.HELPER_OPTIONS[name]))
        helpers, opaque = helpers + given, opaque or hidden
    elif name == "ssh":
        remote, given, hidden = openers.ssh(words[1:])
        inner, helpers = (remote, hidden), helpers + given
    elif name in openers.STDIN_LINES:
        inner = [], call.stdin
    elif name in ("parallel", "sem"):  # `sem` is `parallel --semaphore`
        inner = openers.parallel(words[1:])
    elif name == "find":
        inner = openers.find(words[1:]), False
    elif name == "git":
        inner = openers.git(words[1:])
    elif name == "capsh":
        inner = openers.capsh(words[1:], call.stdin)
    scripted = any(code.opaque(wrapper) for wrapper in unwrapped.wrappers)  # `gdb -ex 'shell …' --args CMD`
    return _Opened(runs + inner[0], helpers, opaque or inner[1] or scripted or code.opaque(words))


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
            split = openers.option_values(wrapper[1:], frozenset({"-S", "--split-string"}))
            runs, opaque = openers.lines(split)
    found = environment.commands(assigns)
    helpers, hidden = openers.lines(list(found.lines))
    opaque = opaque or hidden or found.opaque
    for key, value in found.settings:
        given, hidden = openers.git_setting(key, value)
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
        lines = openers.option_values(wrapper[1:], spec.lines)
        if spec.line_word and not lines and i < len(after):  # `sg GROUP CMD` runs `sh -c CMD`
            lines = [after[i]]
        found, hidden = openers.lines(lines)
        runs, opaque = runs + found, opaque or hidden
    return runs, opaque
