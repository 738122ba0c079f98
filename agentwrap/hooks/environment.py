"""Variables a command sets for its program whose value is a command that program runs.

`PAGER='rm x' git log`, `GIT_SSH_COMMAND='rm x' git fetch` or `env LESSOPEN='|rm x' less f` run `rm`,
and the line's parsed call is `git` or `less`. agentwrap.hooks.inner reads each such value as a shell
line (git, less and the editors hand it to `sh -c`; a bare program path reads the same way), so the
user's rules see the command in it. The variables are read on the command itself and on an `env` or
`sudo` in front of it, whatever program follows: which programs read which variable changes between
versions, and a rule that sees one command too many costs a rewrite, never a permission.
`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` pairs are git settings, read as `git -c KEY=VALUE` is;
`GIT_CONFIG_PARAMETERS` (git's own quoting) is not read: opaque.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from agentwrap.hooks.calls import Word

# Their value is a command line run by the program (git(1) ENVIRONMENT, less(1) INPUT PREPROCESSOR,
# ssh(1), sudo(8), kubectl, man(1), xdg and sensible-* conventions).
COMMAND_VARIABLES = frozenset({
    "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "AWS_PAGER", "BAT_PAGER", "DELTA_PAGER", "PSQL_PAGER",
    "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "SUDO_EDITOR", "KUBE_EDITOR", "SVN_EDITOR",
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "KUBECTL_EXTERNAL_DIFF",
    "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "LESSOPEN", "LESSCLOSE", "BROWSER", "RSYNC_RSH",
    "CVS_RSH", "PROMPT_COMMAND",
})
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)\Z", re.DOTALL)
_GIT_KEY = re.compile(r"GIT_CONFIG_(KEY|VALUE)_([0-9]+)\Z")


class Found(NamedTuple):
    lines: tuple[Word, ...]  # values that are command lines (a value None: known only when the line runs)
    settings: tuple[tuple[str, Word], ...]  # git settings, (key, value)
    opaque: bool  # a variable names commands in a form not read here


def assignment(word: Word) -> tuple[str, Word] | None:
    """`NAME=VALUE` as an `env` or `sudo` argument: (NAME, VALUE); None for any other word."""
    match = _ASSIGNMENT.match(word.value or "")
    return (match.group(1), word._replace(value=match.group(2))) if match else None


def commands(assigns: list[tuple[str, Word]]) -> Found:
    lines: list[Word] = []
    keys: dict[str, Word] = {}
    values: dict[str, Word] = {}
    opaque = False
    for name, value in assigns:
        if name in COMMAND_VARIABLES:
            text = value.value
            if name in ("LESSOPEN", "LESSCLOSE") and text is not None:
                text = text.lstrip("-|")  # `|cmd %s`, `||cmd %s`, `-|cmd`: less's pipe markers
            lines.append(value._replace(value=text))
        elif name == "GIT_CONFIG_PARAMETERS":
            opaque = True
        elif match := _GIT_KEY.match(name):
            (keys if match.group(1) == "KEY" else values)[match.group(2)] = value
    settings = []
    for number, key in keys.items():
        if key.value is None:
            opaque = True
        else:
            settings.append((key.value, values.get(number, key._replace(value=""))))
    return Found(tuple(lines), tuple(settings), opaque)
