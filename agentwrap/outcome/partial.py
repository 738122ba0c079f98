"""What a run left half done when it stopped, with the command that finishes or undoes it.

A program stopped at a prompt may already have changed things: adduser creates the user before it asks
for the password, dpkg stopped at a configuration-file question leaves the package unpacked but not
configured, a git process ended mid-way can leave `.git/index.lock` behind. Each becomes an `effects`
entry (`"complete": false`, with `finish` and/or `undo` commands) and a code action on the deciding
problem. Read from the run's text and from the files the live run saw appear (`RunResult.left`), so a
replay decides the same way.
"""

from __future__ import annotations

import os
import re
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.problem import CodeAction, Problem

_ADDUSER = lazy(r"^Adding (?:new )?user [`'‘\"](?P<user>[^'’`\"\s]+)['’`\"]", re.M)
_CONFFILE = lazy(r"^Configuration file '(?P<file>[^']+)'$[\s\S]*\(Y/I/N/O/D/Z\) \[default=N\] \?", re.M)
_SETTING_UP = lazy(r"^Setting up (?P<pkg>[^\s(]+) \(", re.M)


def effects(argv: list[str], error: Problem | None, text: str, left: list[str]) -> list[dict[str, Any]]:
    """The partial effects of a run that stopped with `error` (none for a run that succeeded)."""
    found: list[dict[str, Any]] = []
    prog = os.path.basename(argv[0]) if argv else ""
    stopped = error is not None and error.code in ("INPUT_REQUIRED", "TIMEOUT", "INTERRUPTED")
    if stopped and prog == "adduser" and (m := _ADDUSER.search(text)):
        user = m.group("user")
        found.append({"resource": f"user:{user}", "action": "create", "complete": False,
                      "detail": f"adduser created the user {user} (and its home folder) before it asked; "
                                "its password and details are not set",
                      "undo": ["deluser", "--remove-home", user],
                      "finish": ["agentwrap", "--stdin", "<USER_PASSWORD_FILE>", "--", "chpasswd"]})
    if stopped and (m := _CONFFILE.search(text)):
        packages = _SETTING_UP.findall(text) or ["<PACKAGE>"]  # on stdout; the question is on stderr
        found.append({"resource": f"package:{packages[-1]}", "action": "configure", "complete": False,
                      "detail": f"dpkg stopped at the question about {m.group('file')}: the package is unpacked "
                                "but not configured",
                      # keeping the file you changed is dpkg's own default answer (N)
                      "finish": ["dpkg", "--force-confold", "--configure", "-a"]})
    for path in left:
        if os.path.basename(path) == "index.lock":
            found.append({"resource": path, "action": "create", "complete": False,
                          "detail": "git's index lock was left behind: later git commands fail until it is "
                                    "removed (when no git process is still running)",
                          "undo": ["rm", "-f", path]})
    return found


def with_actions(error: Problem, partial: list[dict[str, Any]]) -> Problem:
    """The deciding problem with a code action for each partial effect's finish or undo."""
    actions = []
    offered = {a.command for a in error.code_actions}
    for effect in partial:
        for key, verb in (("finish", "Finish"), ("undo", "Undo")):
            if key in effect:
                command = tuple(effect[key])
                if command in offered:
                    continue
                actions.append(CodeAction(
                    title=f"{verb} what was left: {effect['detail'].split(':')[0]} ({' '.join(command)})",
                    command=command,
                    applicability="has_placeholders" if any("<" in w for w in command) else "maybe_incorrect"))
    return error._replace(code_actions=(*error.code_actions, *actions)) if actions else error


def new_locks(cwd: str, before: set[str]) -> list[str]:
    """Git lock files under the repository holding `cwd` that were not there before the run."""
    return sorted(git_locks(cwd) - before)


def git_locks(cwd: str) -> set[str]:
    """The git index lock of the repository holding `cwd`, when it exists (a few stat calls)."""
    path = os.path.abspath(cwd)
    while True:
        lock = os.path.join(path, ".git", "index.lock")
        if os.path.isdir(os.path.join(path, ".git")):
            return {lock} if os.path.exists(lock) else set()
        parent = os.path.dirname(path)
        if parent == path:
            return set()
        path = parent

