"""git commands whose exit status is their answer: `git grep` (1: no line matches), `git diff --quiet` /
`--exit-code` / `--no-index` (1: the trees differ), `git merge-base --is-ancestor` (1: not an ancestor),
`git check-ignore` (1: no path is ignored), `git config KEY` (1: the key is not set), `git rev-parse
--verify --quiet` and `git show-ref` (1: no such ref). Exit 1 there is a "no", as it is for grep (CONTRACT
section 2: a search with no match is a successful, empty result), so the run is a success whose data says
the answer, and agentwrap's exit code is 0 (section 4) while `exit.code` keeps git's 1.

Exit 1 is read as an answer only when git said nothing on stderr that names an error (`fatal:`,
`error:`, `usage:`): git's own failures exit 128 or 129, but a hook or a helper may exit 1 with a message.
"""

from __future__ import annotations

import re
from typing import Any

from agentwrap.adapters.git.log import parse_diff, totals_said
from agentwrap.adapters.git.parse import operands
from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun

_COMPLAINT = lazy(r"^(?:fatal|error|usage)\b", re.M | re.I)
_DIFFS = ("diff", "diff-index", "diff-files", "diff-tree")
_CONFIG_VALUE = {"--file", "-f", "--blob", "--type", "--default", "--comment", "--value"}


def _config_key(args: list[str]) -> str | None:
    """The key a read of one value names (`git config KEY`, `--get KEY`, `get KEY`), else None."""
    flags = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    if flags - {"--get", "--global", "--local", "--system", "--worktree", "--file", "-f", "--blob", "--type",
                "--bool", "--int", "--path", "--includes", "--no-includes", "--show-origin", "--show-scope",
                "--default", "--null", "-z"}:
        return None
    pos = operands(args, _CONFIG_VALUE)
    if pos[:1] == ["get"]:
        pos = pos[1:]
    return pos[0] if len(pos) == 1 else None


def answer(word: str | None, args: list[str], run: CapturedRun) -> tuple[dict[str, Any], str] | None:
    """(data, summary) when this run's exit status (0 or 1) is the answer to its question; else None."""
    if run.signal is not None or run.exit_code not in (0, 1) or not run.complete:
        return None
    if run.exit_code == 1 and _COMPLAINT.search(run.stderr_text):
        return None
    yes = run.exit_code == 0
    flags = {a.split("=", 1)[0] for a in args if a.startswith("-") and a != "--"}
    quiet = bool(flags & {"-q", "--quiet"})
    if word == "grep" and not yes:
        return ({"matched": False} if quiet else {"matching_lines": 0}), "no match"
    if word == "grep" and quiet:
        return {"matched": True}, "matched"
    if word in _DIFFS and (flags & {"--quiet", "--exit-code"} or (word == "diff" and "--no-index" in flags)):
        data: dict[str, Any] = {"differs": not yes}
        if word == "diff" and "--quiet" not in flags:
            data = {**(parse_diff(run) or {}), **data}
        if "files_changed" in data:
            return data, totals_said(data) if data["differs"] else "no differences"
        return data, "differences found" if data["differs"] else "no differences"
    if word == "merge-base" and "--is-ancestor" in flags:
        pos = operands(args)
        if len(pos) != 2:
            return None
        return {"is_ancestor": yes}, f"{pos[0]} is {'' if yes else 'not '}an ancestor of {pos[1]}"
    if word == "check-ignore":
        if not yes:
            return {"ignored": []}, "no path is ignored"
        if flags & {"-v", "--verbose", "-z", "-n", "--non-matching", "--stdin"}:
            return None
        ignored = [line.strip() for line in run.stdout_text.splitlines() if line.strip()]
        return {"ignored": ignored}, f"{len(ignored)} path{'s' * (len(ignored) != 1)} ignored"
    if word == "config" and not yes and not run.stdout_text.strip() and (key := _config_key(args)):
        return {"key": key, "set": False}, f"{key} is not set"
    if word == "rev-parse" and not yes and "--verify" in flags and quiet and not run.stdout_text.strip():
        pos = operands(args)
        return {"exists": False}, f"{pos[0] if len(pos) == 1 else 'the revision'} does not exist"
    if word == "show-ref" and not yes and not run.stdout_text.strip() and not flags & {"--exclude-existing"}:
        return {"exists": False}, "no such ref"
    return None
