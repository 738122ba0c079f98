"""One short line for a git command that succeeded with no parsed data (checkout, switch, rebase, fetch, reset,
stash, worktree, tag, restore, cherry-pick, revert): git's own fact lines, lower-cased and joined, or, for a
command that prints nothing on success, what its arguments say it did. Never a claim neither shows: with
`-q` git says nothing and neither does the summary."""

from __future__ import annotations

import re

from agentwrap.adapters.git.parse import operands
from agentwrap.lazyre import lazy

# git's lines that state what a command did, in git's words (the summary restates them, so the envelope's
# text drops them)
_FACTS = lazy(
    r"^(?P<fact>Switched to (?:a new )?branch '[^']+'|Already on '[^']+'|Reset branch '[^']+'"
    r"|Your branch is (?:up to date with '[^']+'|ahead of '[^']+' by \d+ commits?"
    r"|behind '[^']+' by \d+ commits?(?:, and can be fast-forwarded)?"
    r"|and '[^']+' have diverged)"
    r"|HEAD is now at [0-9a-f]{4,64} .*|Updated \d+ paths? from .+"
    r"|Successfully rebased and updated \S+|Current branch \S+ is up to date"
    r"|Saved working directory and index state .+|No local changes to save|Dropped \S+ \([0-9a-f]+\)"
    r"|Deleted (?:tag|branch) '?[^' ]+'? \(was [0-9a-f]+\)|Preparing worktree \([^)]+\))\.?$", re.M)
_COMMIT = lazy(r"^\[(?P<branch>.+?) (?P<sha>[0-9a-f]{4,64})\] (?P<subject>.*)$", re.M)
_REF = lazy(r"^ (?P<flag>[ *+=!t-]) (?:\[(?P<what>[^\]]+)\]|\S+)\s+\S+\s+-> \S+", re.M)
_DETACHED = lazy(r"^Note: switching to '(.+)'\.$", re.M)
_FROM = lazy(r"^From (?P<url>\S+)$", re.M)
_UNSTAGED = lazy(r"^Unstaged changes after reset:\n((?:[A-Z]\t.+\n?)+)", re.M)


def said(word: str | None, args: list[str], text: str) -> str | None:
    """The summary of a successful `git WORD ARGS` that printed `text`, or None when neither says a fact."""
    if word in ("cherry-pick", "revert") and (m := _COMMIT.search(text)):
        verb = "cherry-picked" if word == "cherry-pick" else "reverted"
        return f"{verb}: committed {m.group('sha')} on {m.group('branch')}: {m.group('subject')}"[:300]
    if word == "fetch":
        return _fetched(args, text)
    if word == "worktree":
        return _worktree(args, text)
    facts = [_lower(m.group("fact")) for m in _FACTS.finditer(text)]
    if word == "reset" and (m := _UNSTAGED.search(text)):
        n = len(m.group(1).strip().splitlines())
        facts.append(f"{n} path{'s' if n != 1 else ''} unstaged after reset")
    if word == "rebase" and facts and facts[0].startswith("successfully rebased"):
        onto = _onto(args)
        facts[0] = f"rebased {facts[0].rsplit('/', 1)[-1]}" + (f" onto {onto}" if onto else "")
    if facts and (m := _DETACHED.search(text)):  # its advice is noise: the ref it named is said here
        facts.insert(0, f"switched to '{m.group(1)}' (detached HEAD)")
    if facts:
        return "; ".join(dict.fromkeys(facts))[:300]
    return _silent(word, args, text)


def _lower(line: str) -> str:
    lower = line[1:2].islower()  # `HEAD is now at` keeps its capitals
    return (line[:1].lower() if lower else line[:1]) + line[1:].rstrip(".")


def _onto(args: list[str]) -> str | None:
    if "--onto" in args and args.index("--onto") + 1 < len(args):
        return args[args.index("--onto") + 1]
    named = [a for a in args if not a.startswith("-")]
    return named[0] if named else None


def _fetched(args: list[str], text: str) -> str | None:
    kinds: dict[str, int] = {}
    for m in _REF.finditer(text):
        kind = (m.group("what") or {"+": "forced update", "-": "deleted", "!": "rejected"}.get(m.group("flag"))
                or "updated")
        kinds[kind] = kinds.get(kind, 0) + 1
    where = f.group("url") if (f := _FROM.search(text)) else None
    if kinds:
        counts = ", ".join(f"{n} {kind}" for kind, n in kinds.items())
        return f"fetched{' ' + where if where else ''}: {counts}"[:300]
    if not text.strip() and not {"-q", "--quiet", "--dry-run", "-n"} & set(args):
        return "fetch: nothing new"  # git prints the refs it updated; none printed, none updated
    return None


def _worktree(args: list[str], text: str) -> str | None:
    action = args[0] if args else ""
    paths = operands(args[1:], ("-b", "-B", "--reason"))
    if action == "add" and (m := _FACTS.search(text)) and m.group("fact").startswith("Preparing worktree"):
        how = m.group("fact")[len("Preparing worktree ("):-1]
        head = [_lower(h.group("fact")) for h in _FACTS.finditer(text) if h.group("fact").startswith("HEAD")]
        return "; ".join([f"worktree {paths[0] if paths else ''} added ({how})".replace("  ", " "), *head])[:300]
    if action == "list":
        n = len([line for line in text.splitlines() if line.strip() and not line.startswith(("\t", " "))])
        return f"{n} worktree{'s' if n != 1 else ''}" if "--porcelain" not in args else None
    if action in ("remove", "move", "lock", "unlock") and paths and not text.strip():
        done = {"remove": "removed", "move": "moved", "lock": "locked", "unlock": "unlocked"}[action]
        return f"worktree {' -> '.join(paths)} {done}"[:300]
    return None


def _silent(word: str | None, args: list[str], text: str) -> str | None:
    """What the arguments of a command that prints nothing on success say it did."""
    if text.strip():
        return None
    named = operands(args, ("-m", "--message", "-F", "--file", "-u", "--local-user", "-s", "--source", "--cleanup"))
    if word == "tag" and named and not {"-l", "--list", "-v", "--verify", "--contains", "--points-at"} & set(args):
        at = f" at {named[1]}" if len(named) > 1 else ""
        return f"tag {named[0]} created{at}"
    if word == "restore" and (paths := args[args.index("--") + 1:] if "--" in args else named):
        staged_only = {"--staged", "-S"} & set(args) and not {"--worktree", "-W"} & set(args)
        verb = "unstaged" if staged_only else "restored"
        return f"{verb} {', '.join(paths)}"[:300]
    return None


