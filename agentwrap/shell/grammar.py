"""A shell command line to its syntax tree, by a real shell grammar: `shfmt --to-json` (mvdan/sh).

Never a regular expression: rtk's bug reports (rtk-ai/rtk#3197, `;;` rewritten to `; ;`) show what a
line that is split by hand turns into. shfmt parses bash, POSIX sh and mksh completely (`case`, `[[ ]]`,
`$(( ))`, heredocs), and the `shfmt-py` wheel ships its static binary into the interpreter's scripts
folder, so it is found there first, whatever PATH says (a pyenv shim on PATH is a bash script that costs
~50 ms of every call).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sysconfig
from typing import Any, NamedTuple

PARSE_TIMEOUT = 10.0  # seconds: a line is parsed in a few milliseconds; a stuck parser is a failure
MAX_LINE = 256 * 1024  # a command line longer than this is not parsed (it runs unchanged)
# How deep shfmt's tree of a line may go, in JSON levels, before it is not parsed (the line runs unchanged).
# shfmt indents its JSON, so its answer grows with the square of the depth (240 MB for 1500 `&&` links, 13 s),
# and Python's decoder gives up near 1000 levels: 500 is ~250 links, answered in a few tenths of a second.
MAX_DEPTH = 500
# What nests the tree, outside single quotes and escapes: a link of a chain or pipe (two levels), a
# subshell, group or compound command (three), a substitution (nine); `;`, `&` and newlines start anew.
_NESTING = re.compile(r"'[^']*'?|\\.|&&|\|\||\|&?|[$<>]\(|`|[({]|[)}]|;|&|\n"
                      r"|\b(?:if|while|until|for|case|select)\b|\b(?:fi|done|esac)\b")
_LINK, _GROUP, _SUBST = 2, 3, 9
TOO_DEEP = ("the line nests too deep to read command by command (a chain of hundreds of `&&`, `||` or `|`, or "
            "substitutions inside substitutions)")


class Parsed(NamedTuple):
    tree: dict[str, Any] | None  # shfmt's File node; None when the line could not be parsed
    reason: str = ""  # why not: the parser's own message, or that no parser was found


def find_shfmt() -> str | None:
    """The shfmt binary: `$AGENTWRAP_SHFMT`, the one the wheel installed beside this Python, then PATH."""
    override = os.environ.get("AGENTWRAP_SHFMT")
    if override is not None:
        return override if os.access(override, os.X_OK) else None
    folders = [sysconfig.get_path("scripts")]
    with contextlib.suppress(KeyError):  # the user scheme (`pip install --user`)
        folders.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    folders += os.environ.get("PATH", "").split(os.pathsep)
    for folder in folders:
        candidate = os.path.join(folder, "shfmt") if folder else ""
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def nesting(line: str, stop: int = MAX_DEPTH) -> int:
    """About how many JSON levels deep shfmt's tree of `line` goes, read from its words without parsing
    it (quotes but single ones are not followed), or the first estimate past `stop`."""
    frames = [0]  # per open bracket, substitution or compound command: the levels above its contents
    links = [0]  # per frame: the links of its current statement's chain so far
    backticks = [False]  # per frame: opened by a backtick, which the next one closes
    deepest = 0
    for m in _NESTING.finditer(line):
        token = m.group()
        if token[0] in "'\\":
            continue
        if token in ("&&", "||", "|", "|&"):
            links[-1] += 1
        elif token in (";", "&", "\n"):
            links[-1] = 0
        elif token in (")", "}", "fi", "done", "esac") or (token == "`" and backticks[-1]):
            if len(frames) > 1:  # a closer that matches nothing (a `case` pattern's) is passed over
                del frames[-1], links[-1], backticks[-1]
            continue
        else:
            opened = _SUBST if token in ("$(", "<(", ">(", "`") else _GROUP
            frames.append(frames[-1] + _LINK * links[-1] + opened)
            links.append(0)
            backticks.append(token == "`")
        deepest = max(deepest, frames[-1] + _LINK * links[-1])
        if deepest > stop:
            break
    return deepest


def parse(line: str, dialect: str = "bash") -> Parsed:
    """The syntax tree of `line` in `dialect` (`bash` or `posix`), or the reason there is none."""
    if len(line.encode("utf-8", "surrogateescape")) > MAX_LINE:
        return Parsed(None, f"the line is longer than {MAX_LINE // 1024} KiB")
    if nesting(line) > MAX_DEPTH:  # checked first: shfmt's answer to it would be slow and too deep to read
        return Parsed(None, TOO_DEEP)
    binary = find_shfmt()
    if binary is None:
        return Parsed(None, "shfmt was not found (install the shfmt-py package, or set AGENTWRAP_SHFMT)")
    try:
        proc = subprocess.run([binary, "--to-json", "-ln", dialect], input=line.encode("utf-8", "surrogateescape"),
                              capture_output=True, timeout=PARSE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Parsed(None, f"shfmt could not run: {exc}")
    if proc.returncode != 0:
        message = proc.stderr.decode(errors="replace").strip().splitlines()
        return Parsed(None, f"not a complete {dialect} command line: {message[0] if message else 'parse error'}")
    try:
        tree = json.loads(proc.stdout)
    except ValueError:
        return Parsed(None, "shfmt answered something that is not JSON")
    if not isinstance(tree, dict) or tree.get("Type") != "File":
        return Parsed(None, "shfmt answered an unexpected tree")
    return Parsed(tree)
