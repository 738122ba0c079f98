"""What git's changing commands report: `commit` and `push` results as data and effects, merge conflicts
(from merge, pull, rebase, cherry-pick, revert, stash, am, and the `--continue` or commit that finds some
still unresolved) as one located problem per file; and `remote -v`."""

from __future__ import annotations

import re
from typing import Any

from agentwrap.adapters.git.log import diff_data
from agentwrap.adapters.git.parse import args_after, unquote
from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun, CodeAction, Problem, ProblemCode, problem

_COMMIT = lazy(r"^\[(?P<branch>.+?)(?: \(root-commit\))? (?P<sha>[0-9a-f]{4,64})\] (?P<subject>.*)$", re.M)
_TOTAL = lazy(r"^ (?P<files>\d+) files? changed(?:, (?P<ins>\d+) insertions?\(\+\))?"
                    r"(?:, (?P<dels>\d+) deletions?\(-\))?$", re.M)
_PUSH_TO = lazy(r"^To (?P<url>\S+)$", re.M)
_PUSH_REF = lazy(r"^ (?P<flag>[ *+=!-]) (?:\[(?P<what>[^\]]+)\]|(?P<old>[0-9a-f]+)\.\.\.?(?P<new>[0-9a-f]+))"
                       r"\s+(?P<src>\S+)(?: -> (?P<dst>\S+))?(?: \((?P<note>[^)]+)\))?\s*$", re.M)
_TRACK = lazy(r"^[Bb]ranch '(?P<branch>[^']+)' set up to track (?:remote branch )?'(?P<up>[^']+)'", re.M)


MERGE_CONFLICT = ProblemCode(code="GIT_MERGE_CONFLICT", title="Merge conflict", category="conflict", status=409,
                             docs_url="https://git-scm.com/docs/git-merge#_how_to_resolve_conflicts")
BISECT_NOT_READY = ProblemCode(code="GIT_BISECT_NOT_READY", title="No bisection to run", category="precondition",
                               status=412, docs_url="https://git-scm.com/docs/git-bisect#_bisect_run",
                               suggested_fix="`git bisect run` needs a bisection with a bad and a good commit: "
                                             "`git bisect log` shows what is marked; mark the missing one "
                                             "(`git bisect good <COMMIT>`) or start with `git bisect start <BAD> "
                                             "<GOOD>`, then run it again.")
CODES = (MERGE_CONFLICT, BISECT_NOT_READY)


def parse_commit(run: CapturedRun) -> dict[str, Any] | None:
    m = _COMMIT.search(run.stdout_text)
    if not m:
        return None
    branch = m.group("branch")
    data: dict[str, Any] = {"sha": m.group("sha"), "branch": None if branch == "detached HEAD" else branch,
                            "detached": branch == "detached HEAD", "subject": m.group("subject"),
                            "root_commit": "(root-commit)" in m.group(0)}
    if t := _TOTAL.search(run.stdout_text):
        data.update(files_changed=int(t.group("files")), insertions=int(t.group("ins") or 0),
                    deletions=int(t.group("dels") or 0))
    return data


_UPDATING = lazy(r"^Updating (?P<old>[0-9a-f]+)\.\.(?P<new>[0-9a-f]+)$", re.M)
_STRATEGY = lazy(r"^Merge made by the '(?P<strategy>[^']+)' strategy\.$", re.M)


def parse_merge(run: CapturedRun) -> dict[str, Any] | None:
    """`git merge` and `git pull` (merge mode): up to date, fast-forward, or a merge commit, with the changes."""
    text = run.stdout_text
    data: dict[str, Any] = {"up_to_date": bool(re.search(r"^Already up[ -]to[ -]date", text, re.M)),
                            "fast_forward": bool(re.search(r"^Fast-forward$", text, re.M))}
    if m := _UPDATING.search(text):
        data.update(old=m.group("old"), new=m.group("new"))
    if re.search(r"^Successfully rebased and updated ", run.text(), re.M):  # `pull --rebase`: no merge made
        data["rebased"] = True
    if m := _STRATEGY.search(text):
        data["merge_commit"], data["strategy"] = True, m.group("strategy")
    changes = diff_data(text.splitlines())
    if changes:
        data.update(changes)
    return data


def _ref_status(m: re.Match[str]) -> str:
    flag, what = m.group("flag"), m.group("what") or ""
    if flag == "!":
        return "rejected"
    if flag == "-":
        return "deleted"
    if flag == "=":
        return "up-to-date"
    if flag == "*":
        return "created"
    return "forced" if flag == "+" else "updated" if m.group("new") else what or "updated"


def parse_push(run: CapturedRun) -> dict[str, Any] | None:
    text = run.text()
    to = _PUSH_TO.search(text)
    refs = []
    for m in _PUSH_REF.finditer(text):
        ref: dict[str, Any] = {"src": m.group("src"), "dst": m.group("dst") or m.group("src"), "status": _ref_status(m)}
        if m.group("new"):
            ref.update(old=m.group("old"), new=m.group("new"))
        if m.group("note"):
            ref["note"] = m.group("note")
        refs.append(ref)
    if not to and not refs and "Everything up-to-date" not in text:
        return None
    data: dict[str, Any] = {"remote": to.group("url") if to else None, "refs": refs,
                            "up_to_date": "Everything up-to-date" in text}
    if t := _TRACK.search(text):
        data["upstream_set"] = {"branch": t.group("branch"), "upstream": t.group("up")}
    return data


def effects(sub: str | None, data: Any) -> tuple[dict[str, Any], ...]:
    """The changes a successful commit or push made, for the envelope's `effects`."""
    if not isinstance(data, dict):
        return ()
    if sub == "commit" and data.get("sha"):
        return ({"resource": f"git:commit/{data['sha']}", "action": "create", "branch": data.get("branch")},)
    if sub == "push":
        action = {"created": "create", "deleted": "delete", "forced": "replace", "updated": "update"}
        return tuple({"resource": f"git:{data.get('remote')}#{r['dst']}", "action": action[r["status"]],
                      **({"old": r["old"], "new": r["new"]} if "new" in r else {})}
                     for r in data.get("refs", []) if r["status"] in action)
    return ()


# --- conflicts -----------------------------------------------------------------------------------
_CONFLICT = lazy(r"^CONFLICT \((?P<kind>[^)]+)\): "
                       r"(?:Merge conflict in (?P<file>.+?)|(?P<first>\S+) (?P<rest>.*))$", re.M)
_FLOW: dict[str, tuple[list[str] | None, list[str] | None]] = {
    # subcommand -> (how to conclude once every file is resolved, how to give up)
    "merge": (["git", "commit", "--no-edit"], ["git", "merge", "--abort"]),
    "pull": (["git", "commit", "--no-edit"], ["git", "merge", "--abort"]),
    "rebase": (["agentwrap", "--env", "GIT_EDITOR=true", "--", "git", "rebase", "--continue"],
               ["git", "rebase", "--abort"]),
    "cherry-pick": (["agentwrap", "--env", "GIT_EDITOR=true", "--", "git", "cherry-pick", "--continue"],
                    ["git", "cherry-pick", "--abort"]),
    "revert": (["agentwrap", "--env", "GIT_EDITOR=true", "--", "git", "revert", "--continue"],
               ["git", "revert", "--abort"]),
    "am": (["git", "am", "--continue"], ["git", "am", "--abort"]),
    "stash": (["git", "stash", "drop"], None),
}


def conflicts(run: CapturedRun) -> list[Problem]:
    """One problem per conflicted file, located at the file, with the resolve / continue / abort steps."""
    sub = (run.subcommand or "").split(" ")[0]
    rebasing = sub == "rebase" or (sub == "pull" and any(a in ("-r", "--rebase") or a.startswith("--rebase=")
                                                         for a in run.argv))
    conclude, abort = _FLOW["rebase" if rebasing else sub] if (rebasing or sub in _FLOW) else (None, None)
    op = "rebase" if rebasing else sub or "merge"
    found = []
    matches = list(_CONFLICT.finditer(run.text()))
    for n, m in enumerate(matches, 1):
        path = (m.group("file") or m.group("first")).strip()
        detail = (f"{op} stopped: {m.group('kind')} conflict in {path} ({n} of {len(matches)} conflicted files)"
                  + (f": {m.group('rest')}" if m.group("rest") else ""))
        found.append(_conflicted(run, path, detail, op, (conclude, abort), m.group("kind")))
    return found


def _conflicted(run: CapturedRun, path: str, detail: str, op: str,
                flow: tuple[list[str] | None, list[str] | None], kind: str | None) -> Problem:
    """The problem of one file with conflicts to resolve: its resolve / conclude / abort steps."""
    conclude, abort = flow
    sub = (run.subcommand or "").split(" ")[0]
    actions = [CodeAction(title=f"After removing the conflict markers from {path}, mark it resolved",
                          command=("git", "add", "--", path), applicability="maybe_incorrect", is_preferred=True)]
    if conclude:
        title = ("Drop the stash entry once resolved (git kept it)" if sub == "stash"
                 else f"Conclude the {op} once every file is resolved")
        actions.append(CodeAction(title=title, command=tuple(conclude), applicability="maybe_incorrect"))
    if abort:
        actions.append(CodeAction(title=f"Or abandon the {op} and restore the state before it",
                                  command=tuple(abort), applicability="maybe_incorrect"))
    fix = (f"Edit {path} to resolve the conflict, `git add {path}`, then "
           + (f"`{' '.join(conclude)}`" if conclude else "continue") + (f"; or `{' '.join(abort)}`." if abort
                                                                            else "."))
    return problem("git", MERGE_CONFLICT, detail, exit_code=run.exit_code, suggested_fix=fix,
                   code_actions=tuple(actions), location={"file": path}, extra={"conflict": kind} if kind else None)


_NEEDS_MERGE = lazy(r"^(?P<file>.+): needs merge$", re.M)  # `git rebase --continue` before every file is added
_UNMERGED = lazy(r"^U\t(?P<file>.+)$", re.M)  # `git commit` (`merge|cherry-pick|revert --continue`) lists them
_CANNOT_COMMIT = lazy(r"^error: Committing is not possible because you have unmerged files\.", re.M)
_CONTINUES = ("merge", "rebase", "cherry-pick", "revert")


def unresolved(run: CapturedRun) -> list[Problem]:
    """`git rebase --continue`, `git merge --continue` or `git commit` refused because files still hold
    conflicts: one problem per file, as at the conflict, with the steps of the operation that stopped (the
    one continued; for `git commit`, the commit again, since git does not say which operation is in
    progress and `git status` does)."""
    text = run.text()
    found = [unquote(m.group("file")) for m in _NEEDS_MERGE.finditer(run.stdout_text + "\n" + run.stderr_text)]
    if not found and _CANNOT_COMMIT.search(text):
        found = [unquote(m.group("file")) for m in _UNMERGED.finditer(run.stdout_text)]
    sub = (run.subcommand or "").split(" ")[0]
    continued = sub in _CONTINUES and "--continue" in run.argv
    if not found or not (continued or sub == "commit"):
        return []
    args = args_after(run, "commit")
    said_message = any(a.startswith(("-m", "--message", "-F", "--file", "-C", "--reuse-message")) for a in args)
    flow = _FLOW[sub] if continued else (["git", "commit", *(args if said_message else ["--no-edit"])], None)
    if continued and sub == "merge":
        flow = (["git", "merge", "--continue"], flow[1])
    said = f"{sub} --continue" if continued else "commit"
    return [_conflicted(run, path, f"{said} refused: {path} still has unresolved conflicts "
                                   f"({n} of {len(found)} unmerged files)", sub, flow, None)
            for n, path in enumerate(dict.fromkeys(found), 1)]


def bisect_not_ready(run: CapturedRun) -> list[Problem]:
    """`git bisect run` that failed printing nothing: git does so when no bisection is started, or when its
    good (or bad) commit is not yet known; it names neither. `git bisect log` says which."""
    if (run.subcommand or "") != "bisect run" or not run.failed or run.signal is not None or run.text().strip():
        return []
    actions = (CodeAction(title="See what the bisection has marked (nothing: none is started)",
                          command=("git", "bisect", "log"), applicability="machine_applicable", is_preferred=True),
               CodeAction(title="Start one from a bad and a good commit", applicability="has_placeholders",
                          command=("git", "bisect", "start", "<BAD>", "<GOOD>")))
    return [problem("git", BISECT_NOT_READY, "git bisect run printed nothing and ran no test: no bisection is "
                    "started, or its good or bad commit is not marked", exit_code=run.exit_code,
                    code_actions=actions)]


# --- an editor refused part-way -------------------------------------------------------------------
_EDITOR_SAVES = ("agentwrap", "--env", "GIT_EDITOR=true", "--", "git")  # `commit` after it saves the prepared
# message as an editor would, its `#` lines stripped (`git commit --no-edit` would keep MERGE_MSG's)
_NOT_BEGUN = frozenset({"--continue", "--edit-todo", "--skip", "--abort", "--quit", "-n", "--no-commit"})


def stopped_at_editor(globals_: list[str], word: str | None, args: list[str], prompt: str
                      ) -> tuple[str, list[CodeAction]] | None:
    """The fix and steps when git was ended at an editor with its operation begun: a refused editor ends
    the whole run, and git leaves what it had done. `git rebase -i` leaves the rebase started (running it
    again fails: "already a rebase-merge directory"); `git revert`, `git cherry-pick -e` and `git merge
    --edit` leave the change staged with the message prepared (running them again fails on it). None
    where running the command again, as the spec's steps say, works (`git commit`, `git tag -a`)."""
    if word is None or _NOT_BEGUN & set(args):
        return None
    abort: tuple[str, ...] | None
    if word == "rebase" and "git-rebase-todo" in prompt:
        again = ("agentwrap", "--env", "GIT_SEQUENCE_EDITOR=true", "--", "git", *globals_, "rebase", *args)
        return ("git was ended at the interactive rebase's todo list with the rebase begun (nothing applied "
                "yet): `git rebase --abort`, then run it again with the generated list accepted "
                f"(`{' '.join(again)}`) or without -i.",
                [CodeAction(title="First end the rebase git began (nothing was applied)",
                            command=("git", *globals_, "rebase", "--abort"), applicability="maybe_incorrect",
                            is_preferred=True),
                 CodeAction(title="Then run it again with the generated todo list accepted", command=again,
                            applicability="maybe_incorrect")])
    if word in ("revert", "cherry-pick") and "COMMIT_EDITMSG" in prompt or word in ("merge", "pull") and (
            "MERGE_MSG" in prompt):
        undo = "merge" if word == "pull" else word
        abort = None if word == "revert" else ("git", *globals_, undo, "--abort")  # a revert leaves no REVERT_HEAD
        conclude = (*_EDITOR_SAVES, *globals_, "commit")
        return (f"git applied the {word} and was ended at its message: the change is staged and the message "
                f"prepared; conclude it with that message (`{' '.join(conclude)}`) or your own "
                "(`git commit -m MESSAGE`)" + (f", or undo it (`{' '.join(abort)}`)." if abort else "."),
                [CodeAction(title=f"Conclude the {word} with git's prepared message", command=conclude,
                            applicability="maybe_incorrect", is_preferred=True),
                 CodeAction(title="Conclude it with your own message", applicability="has_placeholders",
                            command=("git", *globals_, "commit", "-m", "<MESSAGE>")),
                 *([CodeAction(title=f"Or undo the {word}", command=abort, applicability="maybe_incorrect")]
                   if abort else [])])
    return None


# --- remote --------------------------------------------------------------------------------------
_REMOTE_LINE = lazy(r"^(?P<name>\S+)\t(?P<url>\S+) \((?P<dir>fetch|push)\)$")


def parse_remote(run: CapturedRun) -> dict[str, Any] | None:
    args = args_after(run, "remote")
    if args and args[0] not in ("-v", "--verbose"):
        return None
    remotes: dict[str, dict[str, Any]] = {}
    for line in run.stdout_text.splitlines():
        if m := _REMOTE_LINE.match(line.strip()):
            remotes.setdefault(m.group("name"), {"name": m.group("name")})[m.group("dir")] = m.group("url")
        elif line.strip() and not args:
            remotes.setdefault(line.strip(), {"name": line.strip()})
    return {"remotes": list(remotes.values())}


# --- files a command would overwrite -----------------------------------------------------------------
_MAX_NAMED = 10  # files named in a detail or a command; git's own list stays in the artifact
_STASH_REF = lazy(r"^(?:stash@\{(?P<n>\d+)\}|(?P<bare>\d+))$")


def _named(files: list[str]) -> str:
    more = len(files) - _MAX_NAMED
    return ", ".join(files[:_MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def _after_a_stash(args: list[str]) -> str | None:
    """The entry `git stash pop|apply ARGS` names once one more entry is pushed on top (stash@{N+1})."""
    refs = [a for a in args[1:] if not a.startswith("-")]
    if not refs:
        return "stash@{1}"
    m = _STASH_REF.match(refs[0]) if len(refs) == 1 else None
    return f"stash@{{{int(m.group('n') or m.group('bare')) + 1}}}" if m else None


def local_changes(p: Problem, word: str | None, args: list[str]) -> Problem:
    """GIT_LOCAL_CHANGES with the files git listed under its error line in the detail (bounded), and fixes
    that work when followed: untracked files need `--include-untracked`, and a blocked `git stash pop` must
    not be told to `git stash` (that pushes a new entry, and the retried pop would pop it)."""
    files = [unquote(line.strip()) for line in p.matched.splitlines()[1:] if line.strip()]
    if not files:
        return p
    untracked = p.title.startswith("Untracked")
    detail = f"{p.detail}: {_named(files)}"
    paths = ("--", *files) if len(files) <= _MAX_NAMED else ()
    stash_cmd = ("git", "stash", "push", "--include-untracked", *paths) if untracked else ("git", "stash")
    retry = next((a for a in p.code_actions if a.title == "Then retry"), None)
    actions = [CodeAction(title="Stash the untracked files" if untracked else "Stash the local changes",
                          command=stash_cmd, applicability="maybe_incorrect", is_preferred=True),
               *((retry,) if retry else ())]
    fix = p.suggested_fix
    if word == "stash" and args[:1] in (["pop"], ["apply"]):
        sub, later = args[0], _after_a_stash(args)
        actions = []
        if untracked:
            fix = (f"`git stash {sub}` would overwrite untracked files ({_named(files)}): move or remove them, "
                   f"then {sub} again")
        else:
            fix = (f"`git stash {sub}` would overwrite uncommitted changes to {_named(files)}: commit them first "
                   f"(`git commit -m MESSAGE {' '.join(paths) or '-- FILES'}`), then {sub} again")
            if paths:
                actions.append(CodeAction(title="Commit those changes", command=("git", "commit", "-m", "<MESSAGE>",
                                                                                 *paths),
                                          applicability="has_placeholders", is_preferred=True))
            if retry:
                actions.append(retry._replace(title=f"Then {sub} again"))
        if later:
            fix += (f"; or stash them too (`{' '.join(stash_cmd[:4] if untracked else stash_cmd)}`), which "
                    f"pushes a new entry: the one to {sub} is then {later} (`git stash {sub} {later}`)")
            actions += [CodeAction(title="Or stash them as a new entry", command=stash_cmd,
                                   applicability="maybe_incorrect", is_preferred=untracked),
                        CodeAction(title=f"Then {sub} the entry you meant, now {later}",
                                   command=("git", "stash", sub, later), applicability="maybe_incorrect")]
        fix += "."
    elif not untracked:
        fix = (f"{p.suggested_fix[:-len(', then retry.')] if p.suggested_fix else 'Commit or stash them'}, then "
               "retry; after a `git stash`, `git stash pop` brings the changes back.")
    return p._replace(detail=detail, suggested_fix=fix, code_actions=tuple(actions),
                      location={"file": files[0]} if len(files) == 1 else p.location)


# --- a name that is taken ------------------------------------------------------------------------------
_FORCE_CREATE = {"checkout": {"-b": "-B"}, "switch": {"-c": "-C", "--create": "--force-create"},
                 "worktree": {"-b": "-B"}}


_WORKTREE_VALUES = frozenset({"-b", "-B", "--reason"})


def _worktree_of(args: list[str], path: str | None) -> tuple[str, ...] | None:
    """`worktree add [OPTIONS] -b NAME PATH [START]` as `git worktree add [OPTIONS] PATH NAME`: the new
    branch checked out as an existing one, at `path` (None: the same path); None without `-b NAME`."""
    if args[:1] != ["add"]:
        return None
    options: list[str] = []
    positionals: list[str] = []
    name = None
    i = 1
    while i < len(args):
        word = args[i]
        if word in ("-b", "-B") and i + 1 < len(args):
            name, i = args[i + 1], i + 2
            continue
        if word in _WORKTREE_VALUES and i + 1 < len(args):
            options += args[i:i + 2]
            i += 2
            continue
        (options if word.startswith("-") else positionals).append(word)
        i += 1
    if name is None or not positionals:
        return None
    return ("git", "worktree", "add", *options, path or positionals[0], name)


def already_exists(p: Problem, word: str | None, args: list[str]) -> Problem:
    """GIT_ALREADY_EXISTS with the user's own command made to replace the name: `checkout -b X START` ->
    `checkout -B X START`, `switch -c` -> `switch -C`, `branch X` -> `branch -f X`; and a clone's own
    arguments with another directory in place of the one that exists."""
    actions = list(p.code_actions)
    if p.title == "Branch already exists" and word in ("checkout", "switch", "worktree", "branch"):
        swap = _FORCE_CREATE.get(word or "", {})
        forced = [swap.get(a, a) for a in args] if word != "branch" else ["-f", *args]
        if forced != list(args):
            title = "Reset the existing branch to this start point (its own commits become unreachable)"
            actions = [a for a in actions if not a.title.startswith("Reset ")]  # the spec's `switch -C`
            actions.append(CodeAction(title=title, command=("git", word or "", *forced),
                                      applicability="maybe_incorrect"))
        existing = _worktree_of(args, None) if word == "worktree" else None
        if existing:  # `worktree add PATH -b NAME`: the switch would move this worktree, not add one
            actions = [CodeAction(title="Check out the existing branch in the new worktree", command=existing,
                                  applicability="maybe_incorrect", is_preferred=True),
                       *(a._replace(is_preferred=False) for a in actions if not a.title.startswith("Switch "))]
            p = p._replace(suggested_fix=f"Branch {existing[-1]} already exists: check it out in the new worktree "
                                         f"without -b (`{' '.join(existing)}`), choose another name, or reset it "
                                         "to the start point with -B, which leaves the commits only it held "
                                         "unreachable.")
    elif p.title == "Worktree path already exists" and (elsewhere := _worktree_of(args, "<PATH>")):
        # git 2.39 creates the `-b` branch before it looks at the path: a retry with `-b` at another path
        # then fails on the branch, so the retry names the branch without `-b`
        actions.append(CodeAction(title=f"Add it at another path (git may have created {elsewhere[-1]} already: "
                                        "if so, without -b, as here)", command=elsewhere,
                                  applicability="has_placeholders"))
    elif p.title == "Remote already exists" and args[:1] == ["add"]:
        pos = [a for a in args[1:] if not a.startswith("-")]
        if len(pos) == 2:  # `remote add NAME URL`: the URL the caller meant for NAME
            actions = [a._replace(command=("git", "remote", "set-url", *pos), applicability="maybe_incorrect")
                       if a.title.startswith("Point ") else a for a in actions]
    elif p.title == "Destination directory already exists" and word == "clone":
        m = re.search(r"'([^']+)'", p.detail)
        given = args[:-1] if m and args and args[-1].rstrip("/") == m.group(1).rstrip("/") else args
        actions = [a._replace(command=("git", "clone", *given, "<DIRECTORY>")) if a.title.startswith("Clone into")
                   else a for a in actions]
    return p._replace(code_actions=tuple(actions))
