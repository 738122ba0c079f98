"""Parsers for git's working-tree commands: `status` (long, short and porcelain v1/v2) and `branch`.

Pure functions of the captured run's cleaned text: they never start git. Paths keep git's spelling,
with C-style quoting ("a b.txt", "\\303\\251") undone.
"""

from __future__ import annotations

import re
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun


def operands(args: list[str], with_value: frozenset[str] | set[str] | tuple[str, ...] = frozenset()) -> list[str]:
    """The words of `args` that are neither options nor the value of one of the `with_value` options."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--":
            continue
        elif arg.startswith("-"):
            skip = arg in with_value
        else:
            out.append(arg)
    return out

_LONG_KIND = {"new file": "added", "modified": "modified", "deleted": "deleted", "renamed": "renamed",
              "copied": "copied", "typechange": "typechange"}
_CONFLICT_KINDS = ("both modified", "both added", "both deleted", "added by us", "added by them",
                   "deleted by us", "deleted by them")
_CODE_KIND = {"M": "modified", "T": "typechange", "A": "added", "D": "deleted", "R": "renamed", "C": "copied"}
_CONFLICT_CODES = {"DD": "both deleted", "AU": "added by us", "UD": "deleted by them", "UA": "added by them",
                   "DU": "deleted by us", "AA": "both added", "UU": "both modified"}
_IN_PROGRESS = (("You have unmerged paths", "merge"), ("All conflicts fixed but you are still merging", "merge"),
                ("rebase in progress", "rebase"), ("You are currently rebasing", "rebase"),
                ("You are currently editing a commit while rebasing", "rebase"),
                ("You are currently splitting a commit", "rebase"), ("You are currently cherry-picking", "cherry-pick"),
                ("You are currently reverting", "revert"), ("You are currently bisecting", "bisect"),
                ("You are in the middle of an am session", "am"))
_AHEAD = lazy(r"Your branch is ahead of '(?P<up>[^']+)' by (?P<n>\d+) commit")
_BEHIND = lazy(r"Your branch is behind '(?P<up>[^']+)' by (?P<n>\d+) commit")
_EVEN = lazy(r"Your branch is up[ -]to[ -]date with '(?P<up>[^']+)'")
_DIVERGED = lazy(r"Your branch and '(?P<up>[^']+)' have diverged,\s*and have (?P<a>\d+) and (?P<b>\d+) different")
_GONE = lazy(r"Your branch is based on '(?P<up>[^']+)', but the upstream is gone")
_SHORT_HEAD = lazy(r"^## (?:No commits yet on |Initial commit on )?(?P<branch>.+?)"
                         r"(?:\.\.\.(?P<up>\S+))?(?: \[(?P<track>[^\]]+)\])?$")
_HEX = lazy(r"^[0-9a-f]{4,64}$")
_SHORT_ENTRY = lazy(r"^(?P<xy>[ MTADRCU?!]{2}) (?P<path>.+)$")
_V2_ENTRY = lazy(r"^(?:1 (?P<xy1>\S\S)(?: \S+){6}|2 (?P<xy2>\S\S)(?: \S+){7}|u (?P<xyu>\S\S)(?: \S+){8}) "
                       r"(?P<path>[^\t]+)(?:\t(?P<orig>.+))?$")


def unquote(path: str) -> str:
    """git's C-style quoted path ("a\\tb", "\\303\\251") as the real file name."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    try:
        raw = path[1:-1].encode("ascii", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1").decode("utf-8", "replace")
    except (UnicodeError, ValueError):
        return path[1:-1]


def _split_rename(text: str) -> tuple[str, str | None]:
    if " -> " in text:
        old, new = text.split(" -> ", 1)
        return unquote(new.strip()), unquote(old.strip())
    return unquote(text.strip()), None


def _entry(path_text: str, kind: str) -> dict[str, Any]:
    path, old = _split_rename(path_text)
    entry: dict[str, Any] = {"path": path, "status": kind}
    if old is not None:
        entry["from"] = old
    return entry


def _empty_status() -> dict[str, Any]:
    return {"branch": None, "detached": False, "head": None, "upstream": None, "ahead": 0, "behind": 0,
            "upstream_gone": False, "no_commits": False, "in_progress": None,
            "staged": [], "unstaged": [], "untracked": [], "conflicted": [], "clean": True}


def _finish(data: dict[str, Any]) -> dict[str, Any]:
    data["clean"] = not (data["staged"] or data["unstaged"] or data["untracked"] or data["conflicted"])
    return data


def _xy(data: dict[str, Any], xy: str, path_text: str) -> None:
    if xy == "??":
        data["untracked"].append(unquote(path_text))
    elif xy == "!!":
        data.setdefault("ignored", []).append(unquote(path_text))
    elif xy in _CONFLICT_CODES:
        data["conflicted"].append(_entry(path_text, _CONFLICT_CODES[xy]))
    else:
        if xy[0] in _CODE_KIND:
            data["staged"].append(_entry(path_text, _CODE_KIND[xy[0]]))
        if xy[1] in _CODE_KIND:
            path, _ = _split_rename(path_text)
            data["unstaged"].append({"path": path, "status": _CODE_KIND[xy[1]]})


def _tracking(data: dict[str, Any], track: str | None) -> None:
    for part in (track or "").split(","):
        word, _, num = part.strip().partition(" ")
        if word in ("ahead", "behind") and num.isdigit():
            data[word] = int(num)
        elif word == "gone":
            data["upstream_gone"] = True


def _status_short(lines: list[str]) -> dict[str, Any]:
    data = _empty_status()
    data["format"] = "short"
    for line in lines:
        if line.startswith("## "):
            if line.startswith(("## No commits yet on ", "## Initial commit on ")):
                data["no_commits"] = True
            m = _SHORT_HEAD.match(line)
            if m:
                branch = m.group("branch")
                if branch.startswith("HEAD (no branch)"):
                    data["detached"] = True
                else:
                    data["branch"] = branch
                data["upstream"] = m.group("up")
                _tracking(data, m.group("track"))
        elif m := _SHORT_ENTRY.match(line):
            _xy(data, m.group("xy"), m.group("path"))
    return _finish(data)


def _status_v2(lines: list[str]) -> dict[str, Any]:
    data = _empty_status()
    data["format"] = "porcelain-v2"
    for line in lines:
        if line.startswith("# branch."):
            key, _, value = line[len("# branch."):].partition(" ")
            if key == "head":
                data["detached"] = value == "(detached)"
                data["branch"] = None if data["detached"] else value
            elif key == "oid":
                data["head"] = None if value == "(initial)" else value
                data["no_commits"] = value == "(initial)"
            elif key == "upstream":
                data["upstream"] = value
                data["upstream_gone"] = not any(line.startswith("# branch.ab ") for line in lines)  # git: no ab
            elif key == "ab":
                nums = value.split()
                data["ahead"], data["behind"] = int(nums[0].lstrip("+")), int(nums[1].lstrip("-"))
        elif line.startswith(("? ", "! ")):
            _xy(data, line[0] * 2, line[2:])
        elif m := _V2_ENTRY.match(line):
            path = m.group("path") if not m.group("orig") else f"{m.group('orig')} -> {m.group('path')}"
            xy = m.group("xy1") or m.group("xy2") or m.group("xyu")
            _xy(data, xy.replace(".", " "), path)
    return _finish(data)


def _status_long(text: str) -> dict[str, Any]:
    data = _empty_status()
    data["format"] = "long"
    for marker, state in _IN_PROGRESS:
        if marker in text:
            data["in_progress"] = state
            break
    flat = re.sub(r"\s*\n\s*", " ", text)
    for rx in (_AHEAD, _BEHIND, _EVEN, _DIVERGED, _GONE):
        if m := rx.search(flat):
            data["upstream"] = m.group("up")
            if rx is _AHEAD:
                data["ahead"] = int(m.group("n"))
            elif rx is _BEHIND:
                data["behind"] = int(m.group("n"))
            elif rx is _DIVERGED:
                data["ahead"], data["behind"] = int(m.group("a")), int(m.group("b"))
            elif rx is _GONE:
                data["upstream_gone"] = True
            break
    if rebasing := re.search(r"You are currently (?:rebasing|editing a commit while rebasing|splitting a commit "
                             r"while rebasing) branch '(?P<branch>[^']+)'", text):
        data["detached"], data["rebasing_branch"] = True, rebasing.group("branch")
    section = None
    for line in text.splitlines():
        if line.startswith("On branch "):
            data["branch"] = line[len("On branch "):].strip()
        elif line.startswith("HEAD detached at "):
            # git names the commit HEAD is at, by a ref when one points there (`origin/main`, `v1.0`)
            data["detached"], data["detached_at"] = True, line.split()[-1]
            data["head"] = data["detached_at"] if _HEX.match(data["detached_at"]) else None
        elif line.startswith("HEAD detached from "):
            # the commit HEAD was detached at, which it has since left (a commit, a reset): not HEAD itself
            data["detached"], data["detached_from"] = True, line.split()[-1]
        elif line.startswith("Not currently on any branch"):
            data["detached"] = True
        elif line.startswith(("No commits yet", "Initial commit")):
            data["no_commits"] = True
        elif line and not line[0].isspace() and line.rstrip().endswith(":"):
            section = line.rstrip(":").strip()
        elif not line.strip():
            continue
        elif line.startswith("\t") or (line.startswith("        ") and section):
            _long_entry(data, section, line.strip())
    return _finish(data)


def _long_entry(data: dict[str, Any], section: str | None, body: str) -> None:
    kind, sep, rest = body.partition(":")
    kind = kind.strip()
    if section == "Untracked files":
        data["untracked"].append(unquote(body))
    elif section == "Ignored files":
        data.setdefault("ignored", []).append(unquote(body))
    elif not sep:
        return
    elif section == "Unmerged paths" and kind in _CONFLICT_KINDS:
        data["conflicted"].append(_entry(rest.strip(), kind))
    elif kind in _LONG_KIND:
        target = {"Changes to be committed": "staged", "Changes not staged for commit": "unstaged"}.get(section or "")
        if target:
            rest = re.sub(r" \((?:new commits|modified content|untracked content)(?:, [a-z ]+)*\)$", "", rest)
            data[target].append(_entry(rest.strip(), _LONG_KIND[kind]))


def parse_status(run: CapturedRun) -> dict[str, Any] | None:
    text = run.stdout_text
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        short = {"-s", "--short", "--porcelain"} & {a.split("=", 1)[0] for a in args_after(run, "status")}
        return {**_empty_status(), "format": "short"} if short else None  # short and clean prints nothing
    if any(line.startswith("# branch.") or _V2_ENTRY.match(line) for line in lines[:5]):
        return _status_v2(lines)
    if all(line.startswith("## ") or _SHORT_ENTRY.match(line) for line in lines):
        return _status_short(lines)
    if not re.search(r"^(On branch |HEAD detached |Not currently on any branch|nothing to commit|"
                     r"Changes |Untracked files:|Unmerged paths:)", text, re.M):
        return None
    return _status_long(text)


# --- branch --------------------------------------------------------------------------------------
_BRANCH_LINE = lazy(r"^(?P<mark>[*+ ]) (?P<name>\([^)]*\)|\S+)(?: -> (?P<target>\S+))?"
                          r"(?:\s+(?P<sha>[0-9a-f]{4,64})(?: (?P<rest>.*))?)?$")
_MUTATING_BRANCH = {"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-u", "--unset-upstream",
                    "--edit-description", "-f", "--force", "-t", "--track", "--no-track", "--create-reflog"}
_LISTING_BRANCH = {"-a", "--all", "-r", "--remotes", "-l", "--list", "--merged", "--no-merged", "--contains",
                   "--no-contains", "--points-at"}
_BRANCH_VALUE = {"--merged", "--no-merged", "--contains", "--no-contains", "--points-at", "--sort", "--format"}


def _branch_args(args: list[str]) -> tuple[set[str], list[str]]:
    flags, positional = set(), []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg.startswith("-"):
            flag = arg.split("=", 1)[0]
            flags.add(flag)
            skip = flag in _BRANCH_VALUE and "=" not in arg
        else:
            positional.append(arg)
    return flags, positional


def _branch_tracking(entry: dict[str, Any], inner: str, very_verbose: bool) -> bool:
    up, sep, track = inner.partition(": ")
    if not sep:
        up, track = ("", inner) if re.match(r"(ahead|behind|gone)\b", inner) else (inner, "")
    if up and not very_verbose:
        return False
    if up:
        entry["upstream"] = up
    for part in track.split(","):
        word, _, num = part.strip().partition(" ")
        if word in ("ahead", "behind") and num.isdigit():
            entry[word] = int(num)
        elif word == "gone":
            entry["gone"] = True
    return True


def parse_branch(run: CapturedRun) -> dict[str, Any] | None:
    args = args_after(run, "branch")
    flags, positional = _branch_args(args)
    if "--show-current" in flags:
        name = run.stdout_text.strip()
        return {"current": name or None, "detached": not name}
    if flags & _MUTATING_BRANCH or flags & {"--format", "--column"} or (positional and not flags & _LISTING_BRANCH):
        return None
    remotes_only = bool(flags & {"-r", "--remotes"})
    very_verbose = "-vv" in args or args.count("-v") + args.count("--verbose") >= 2
    branches: list[dict[str, Any]] = []
    current = None
    for line in run.stdout_text.splitlines():
        m = _BRANCH_LINE.match(line.rstrip())
        if not m:
            continue
        name = m.group("name")
        entry: dict[str, Any] = {"name": name, "current": m.group("mark") == "*"}
        if name.startswith("("):
            entry["detached"] = True
        entry["remote"] = remotes_only or name.startswith("remotes/")
        if m.group("mark") == "+":
            entry["worktree"] = True
        if m.group("target"):
            entry["points_to"] = m.group("target")
        if m.group("sha"):
            entry["sha"] = m.group("sha")
            rest = m.group("rest") or ""
            bracket = re.match(r"\[([^\]]*)\] ?", rest)
            if bracket and _branch_tracking(entry, bracket.group(1), very_verbose):
                rest = rest[bracket.end():]
            entry["subject"] = rest
        if entry["current"]:
            current = None if entry.get("detached") else name
        branches.append(entry)
    return {"current": current, "branches": branches}


def args_after(run: CapturedRun, word: str) -> list[str]:
    """The arguments after the subcommand word (global options before it are skipped)."""
    argv = list(run.argv)
    for i, arg in enumerate(argv[1:], 1):
        if arg == word:
            return argv[i + 1:]
    return []
