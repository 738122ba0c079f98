"""Parsers for git's history and change commands: `log` (medium/full/fuller, --oneline, --graph),
`diff` (--stat, --numstat, --shortstat, plain patches) and `show` (a commit plus its changes).

Pure functions of the captured run's cleaned text; custom `--format` output is not guessed at (data null).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from agentwrap.adapters.git.parse import args_after, unquote
from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun

# A commit's first 12 hex digits, which git accepts wherever a commit is named (the length the Linux kernel
# settled on: a prefix that names two objects is rare even there). The concise view sends it in place of
# the full sha, which costs 28 tokens against 13 (`concise_omit` in the spec).
ABBREV = 12
_GRAPH = r"[*|\\/_. -]*?"
_COMMIT = lazy(rf"^(?P<graph>{_GRAPH})commit (?P<sha>[0-9a-f]{{7,64}})(?: \(from [0-9a-f]+\))?"
                     r"(?: \((?P<refs>.*)\))?$")
# A oneline commit starts its line, or follows its graph's commit mark (`*`; `<`/`>` for --left-right, `o`
# for --boundary): a stat or patch line between commits never does.
_ONELINE = lazy(r"^(?:[|\\/_. -]*[*<>o][|\\/_. -]*)?(?P<sha>[0-9a-f]{7,64})(?: (?P<rest>.*))?$")
# git's decoration of a oneline commit: `(HEAD -> main, origin/main, tag: v1)`; each item a ref name
# (no blank, none of `~^:?*[\`), with git's `HEAD -> ` or `tag: ` before it
_DECORATION = lazy(r"^\((?P<refs>[^()]*)\)(?: (?P<subject>.*))?$")
_DECORATION_ITEM = lazy(r"^(?:HEAD(?: -> [^\s~^:?*\[\\]+)?|tag: [^\s~^:?*\[\\]+|[^\s~^:?*\[\\]+)$")
_SURE_REF = lazy(r"^(?:HEAD\b|tag: |\S+/HEAD$)")  # what only git's decoration says, never a subject's word
_CUSTOM_PRETTY = lazy(r"^--(?:format|pretty)=(?!(?:oneline|short|medium|full|fuller|raw)$)")
_NO_DECORATION = {"--no-decorate", "--decorate=no"}
# The options that make git log print text its parsers do not keep (patches, stats, file names, a graph)
LOG_TEXT_FLAGS = frozenset({"-p", "-u", "--patch", "--stat", "--numstat", "--shortstat", "--name-only",
                            "--name-status", "--format", "--pretty", "--summary", "--raw", "--dirstat", "-L",
                            "--word-diff", "--graph", "--compact-summary", "--patch-with-stat", "--cc"})
_BETWEEN = LOG_TEXT_FLAGS - {"--format", "--pretty", "--graph"}  # what a graph draws between is graph only
_GRAPH_ONLY = lazy(r"^[*|\\/_. -]+$")
_HEADER = lazy(r"^(?P<key>[A-Z][A-Za-z]*): +(?P<value>.*)$")
_PERSON = lazy(r"^(?P<name>.*?) <(?P<email>[^>]*)>$")
_DATE_FORMATS = ("%a %b %d %H:%M:%S %Y %z", "%Y-%m-%d %H:%M:%S %z", "%Y-%m-%dT%H:%M:%S%z", "%a, %d %b %Y %H:%M:%S %z")


def iso_date(text: str) -> str:
    """git's date as RFC 3339 UTC (`2024-05-01T10:00:00Z`); other formats (relative, custom) unchanged."""
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            continue
    return text.strip()


def _refs(text: str | None) -> list[str]:
    return [r.strip() for r in text.split(",") if r.strip()] if text else []


def _person(commit: dict[str, Any], role: str, value: str) -> None:
    m = _PERSON.match(value.strip())
    commit[role] = m.group("name") if m else value.strip()
    if m:
        commit[f"{role}_email"] = m.group("email")


def _medium(lines: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Commits in git's default (medium/full/fuller) format, and the lines after the last message."""
    commits: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    message: list[str] = []
    width = 0
    in_message = False
    rest: list[str] = []

    def close() -> None:
        if current is not None:
            while message and not message[-1].strip():
                message.pop()
            end = next((i for i, text in enumerate(message) if not text.strip()), len(message))
            current["subject"] = " ".join(text.strip() for text in message[:end])  # git's %s: the first paragraph
            body = "\n".join(message[end:]).strip("\n")
            if body:
                current["body"] = body

    for line in lines:
        m = _COMMIT.match(line)
        if m:
            close()
            current = {"sha": m.group("sha"), "abbrev": m.group("sha")[:ABBREV], "refs": _refs(m.group("refs"))}
            commits.append(current)
            message, width, in_message, rest = [], len(m.group("graph")), False, []
            continue
        if current is None:
            continue
        body = line[width:] if len(line) >= width and not line[:width].strip("*|\\/_. -") else line
        if not in_message:
            h = _HEADER.match(body)
            if h:
                key, value = h.group("key"), h.group("value")
                if key in ("Author", "Commit"):
                    _person(current, key.lower() if key == "Author" else "committer", value)
                elif key in ("Date", "AuthorDate"):
                    current["date"] = iso_date(value)
                elif key == "CommitDate":
                    current["commit_date"] = iso_date(value)
                elif key == "Merge":
                    current["merge_parents"] = value.split()
            elif not body.strip():
                in_message = True
            continue
        if body.startswith("    ") or not body.strip():
            if rest:
                rest.append(body)
            else:
                message.append(body[4:])
        else:
            rest.append(body)
    close()
    return commits, rest


def parse_log(run: CapturedRun) -> dict[str, Any] | None:
    lines = run.stdout_text.splitlines()
    if not any(line.strip() for line in lines):
        return {"commits": [], "count": 0}
    commits, _ = _medium(lines)
    if not commits:
        args = args_after(run, "log")
        if any(_CUSTOM_PRETTY.match(a) for a in args) or "--format" in args:
            return None  # a custom format: not guessed at
        found = _oneline(lines, decorated=not _NO_DECORATION & set(args), between=_text_flags(args))
        if found is None:
            return None
        commits = found
    return {"commits": commits, "count": len(commits), **shared(commits)}


def _text_flags(args: list[str]) -> bool:
    """Whether git prints lines of its own between oneline commits (a stat, a patch, file names)."""
    return any(a.split("=", 1)[0] in _BETWEEN or a.startswith(("-p", "-L")) for a in args)


def _oneline(lines: list[str], decorated: bool, between: bool) -> list[dict[str, Any]] | None:
    """`--oneline` (or `--pretty=oneline`) commits; None when a line is neither a commit nor one of the
    stat or patch lines `between` says git prints under each (then the format is one not guessed at)."""
    commits: list[dict[str, Any]] = []
    for line in lines:
        if not line.strip() or _GRAPH_ONLY.match(line):
            continue
        m = _ONELINE.match(line)
        if m is None:
            if between:
                continue
            return None
        sha, rest = m.group("sha"), m.group("rest") or ""
        commit: dict[str, Any] = {"sha": sha, "abbrev": sha[:ABBREV], "refs": [], "subject": rest}
        if decorated:
            _decorate(commit)
        commits.append(commit)
    return commits


def _decorate(commit: dict[str, Any]) -> None:
    """`refs` and `subject` of a oneline commit whose text after the sha may start with git's decoration.
    A subject may itself start with a bracket (`(docs) Fix a typo`): a bracket with an item no ref name can
    be (`(fix typo)`) stays the subject's. One that names `HEAD` or a tag is git's; one of bare names only
    (`(docs)`) reads the same as a branch's, so the commit says `refs_unsure` rather than claim either."""
    m = _DECORATION.match(commit["subject"])
    refs = _refs(m.group("refs")) if m else []
    if m is None or not refs or not all(_DECORATION_ITEM.match(r) for r in refs):
        return
    commit.update(refs=refs, subject=m.group("subject") or "")
    if not any(_SURE_REF.match(r) for r in refs):
        commit["refs_unsure"] = True


SHARED = ("author", "author_email", "committer", "committer_email", "date", "commit_date")


def shared(commits: list[dict[str, Any]]) -> dict[str, Any]:
    """The members every commit of several has alike (one author, one date), said once beside the list:
    the concise view then leaves them out of each commit (`agentwrap.outcome.bound.lean_data`)."""
    if len(commits) < 2:
        return {}
    first = commits[0]
    return {k: first[k] for k in SHARED if k in first and all(c.get(k) == first[k] for c in commits)}


# --- diff ----------------------------------------------------------------------------------------
_STAT = lazy(r"^ (?P<path>.+?)\s+\|\s+(?:(?P<n>\d+)(?: (?P<graph>[+-]*))?|Bin(?: (?P<a>\d+) -> (?P<b>\d+) bytes)?"
                   r"|(?P<unmerged>Unmerged))$")
_TOTAL = lazy(r"^ ?(?P<files>\d+) files? changed(?:, (?P<ins>\d+) insertions?\(\+\))?"
                    r"(?:, (?P<dels>\d+) deletions?\(-\))?$")
_NUMSTAT = lazy(r"^(?P<ins>\d+|-)\t(?P<dels>\d+|-)\t(?P<path>.+)$")
_DIFF_GIT = lazy(r"^diff --git (?P<a>\"?a/.+?\"?) (?P<b>\"?b/.+?\"?)$")
_RENAME = lazy(r"^(?P<pre>.*?)\{(?P<old>[^{}]*) => (?P<new>[^{}]*)\}(?P<post>.*)$")


def _rename(path: str) -> tuple[str, str | None]:
    """`dir/{a => b}/f` or `a => b` (stat and numstat) as (new path, old path)."""
    m = _RENAME.match(path)
    if m:
        old = (m.group("pre") + m.group("old") + m.group("post")).replace("//", "/")
        new = (m.group("pre") + m.group("new") + m.group("post")).replace("//", "/")
        return unquote(new), unquote(old)
    if " => " in path:
        old, new = path.split(" => ", 1)
        return unquote(new), unquote(old)
    return unquote(path), None


def _file(path: str) -> dict[str, Any]:
    new, old = _rename(path.strip())
    entry: dict[str, Any] = {"path": new}
    if old is not None:
        entry["from"] = old
    return entry


def _stat_line(m: re.Match[str]) -> dict[str, Any]:
    entry = _file(m.group("path"))
    if m.group("unmerged"):
        entry["unmerged"] = True
    elif m.group("n") is None:
        entry.update(binary=True, insertions=None, deletions=None)
        if m.group("a") is not None:
            entry.update(bytes_before=int(m.group("a")), bytes_after=int(m.group("b")))
    else:
        n, graph = int(m.group("n")), m.group("graph") or ""
        entry["changes"] = n
        exact = len(graph) == n  # git scales the +/- graph on wide changes: the split is then unknown
        entry["insertions"] = graph.count("+") if exact else None
        entry["deletions"] = graph.count("-") if exact else None
    return entry


def _patch(lines: list[str]) -> list[dict[str, Any]]:
    files: list[dict[str, Any]] = []
    entry: dict[str, Any] | None = None
    in_hunk = False
    for line in lines:
        if m := _DIFF_GIT.match(line):
            entry = {"path": unquote(m.group("b"))[2:], "insertions": 0, "deletions": 0}
            files.append(entry)
            in_hunk = False
        elif entry is None:
            continue
        elif line.startswith("@@"):
            in_hunk = True
        elif not in_hunk:
            if line.startswith("rename from "):
                entry["from"] = unquote(line[len("rename from "):])
            elif line.startswith("new file mode"):
                entry["status"] = "added"
            elif line.startswith("deleted file mode"):
                entry["status"] = "deleted"
            elif line.startswith("Binary files "):
                entry.update(binary=True, insertions=None, deletions=None)
        elif line.startswith("+"):
            entry["insertions"] += 1
        elif line.startswith("-"):
            entry["deletions"] += 1
    return files


def diff_data(lines: list[str]) -> dict[str, Any] | None:
    files: list[dict[str, Any]] = []
    totals: dict[str, int] | None = None
    for line in lines:
        if m := _STAT.match(line):
            files.append(_stat_line(m))
        elif m := _NUMSTAT.match(line):
            entry = _file(m.group("path"))
            binary = m.group("ins") == "-"
            entry.update(insertions=None if binary else int(m.group("ins")),
                         deletions=None if binary else int(m.group("dels")), **({"binary": True} if binary else {}))
            files.append(entry)
        elif m := _TOTAL.match(line):
            totals = {"files_changed": int(m.group("files")), "insertions": int(m.group("ins") or 0),
                      "deletions": int(m.group("dels") or 0)}
    if not files and not totals:
        files = _patch(lines)
    if not files and not totals:
        return None
    if totals is None:
        totals = {"files_changed": len(files), "insertions": sum(f.get("insertions") or 0 for f in files),
                  "deletions": sum(f.get("deletions") or 0 for f in files)}
    return {"files": files, **totals}


def totals_said(data: dict[str, Any]) -> str:
    """A diff's totals as git words them (`3 files changed, 4 insertions, 1 deletion`; a zero count left out),
    less git's `(+)` marks: the words the concise view knows its counts by, so it says each once."""
    files = data["files_changed"]
    counts = [f"{files} file{'s' * (files != 1)} changed"]
    counts += [f"{data[k]} {k[:-1]}{'s' * (data[k] != 1)}" for k in ("insertions", "deletions") if data[k]]
    return ", ".join(counts)


def parse_diff(run: CapturedRun) -> dict[str, Any] | None:
    lines = run.stdout_text.splitlines()
    if not any(line.strip() for line in lines):
        return {"files": [], "files_changed": 0, "insertions": 0, "deletions": 0}
    return diff_data(lines)


def _oneline_show(lines: list[str], decorated: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """`git show --oneline`: the commit's one line, and the lines of its changes after it."""
    head = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    found = _oneline(lines[head:head + 1], decorated, between=False) or []
    return found, lines[head + 1:] if found else []


def parse_show(run: CapturedRun) -> dict[str, Any] | None:
    lines = run.stdout_text.splitlines()
    commits, rest = _medium(lines)
    args = args_after(run, "show")
    if not commits and {"--oneline", "--pretty=oneline"} & set(args):
        # only when asked for: a blob's first line (`git show HEAD:file`) may be hex too
        commits, rest = _oneline_show(lines, decorated=not _NO_DECORATION & set(args))
    if not commits:
        return None  # a blob or tree (`git show HEAD:file`): content, not facts
    out: dict[str, Any] = {"commit": commits[0]}
    changes = diff_data(rest)
    if changes:
        out.update(changes)
    return out
