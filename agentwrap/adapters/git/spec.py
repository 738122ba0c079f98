"""The declarative half of the git adapter: prevention env, effects, prompts and problem rules (see git.py)."""

from __future__ import annotations

from typing import Any

from agentwrap.adapters.git.prompts import PROMPTS
from agentwrap.spec import rule as _rule

_RO = {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}
_LOCAL = {"read_only": False, "destructive": False, "idempotent": True, "open_world": False}
_ONCE = {**_LOCAL, "idempotent": False}
_NET = {"read_only": False, "destructive": False, "idempotent": True, "open_world": True}
_DESTROY = {**_LOCAL, "destructive": True}

_READ_ONLY = ("status", "diff", "log", "show", "shortlog", "blame", "annotate", "grep", "ls-files", "ls-tree",
              "cat-file", "rev-parse", "rev-list", "describe", "show-ref", "for-each-ref", "merge-base", "name-rev",
              "reflog", "whatchanged", "help", "version", "var", "check-ignore", "check-attr", "count-objects",
              "fsck", "verify-commit", "verify-tag", "cherry", "range-diff", "diff-tree", "diff-index", "diff-files",
              "branch", "tag", "remote", "config", "stash list", "stash show", "worktree list", "notes list",
              "notes show", "submodule status", "bisect log", "bisect visualize")
_EFFECTS: dict[str, dict[str, bool]] = {
    "default": {"read_only": False},
    **{sub: _RO for sub in _READ_ONLY},
    "ls-remote": {**_RO, "open_world": True},
    **dict.fromkeys(("add", "init", "checkout", "switch", "merge", "stash", "worktree", "worktree add", "notes",
                     "sparse-checkout", "remote add", "remote set-url", "remote rename",
                     "remote set-head", "remote set-branches", "submodule", "bisect",
                     "update-index", "apply", "gc", "repack", "pack-refs", "maintenance", "symbolic-ref",
                     "update-ref"), _LOCAL),
    **dict.fromkeys(("commit", "rebase", "cherry-pick", "revert", "am", "mv", "stash pop", "stash push",
                     "stash save", "stash apply", "notes add", "merge-file", "format-patch"), _ONCE),
    **dict.fromkeys(("fetch", "push", "pull", "remote update", "submodule update"), _NET),
    "clone": {**_NET, "idempotent": False},
    **dict.fromkeys(("rm", "clean", "restore", "prune", "filter-branch", "stash drop", "stash clear",
                     "remote remove", "remote rm", "remote prune", "worktree remove", "worktree prune",
                     "submodule deinit"), _DESTROY),
    "reset": _LOCAL,  # refined per invocation in git.py (--hard, relative revisions)
}



def _act(title: str, command: list[str], applicability: str, preferred: bool = False) -> dict[str, Any]:
    return {"title": title, "command": command, "applicability": applicability, "is_preferred": preferred}


_DOCS = "https://git-scm.com/docs/"
_RULES: list[dict[str, Any]] = [
    _rule("GIT_NOT_A_REPOSITORY", r"^fatal: not a git repository(?: \(or any (?:of )?the parent directories\))?",
          "Not inside a git repository", "precondition", 412, False, True,
          "Run git inside the repository (`git -C DIR ...` or --cwd DIR), or create one with `git init`.",
          code_actions=[_act("Run the same command in the repository", ["git", "-C", "<REPO_DIR>", "{args...}"],
                             "has_placeholders", True),
                        _act("Create a repository here", ["git", "init"], "maybe_incorrect")]),
    _rule("GIT_DUBIOUS_OWNERSHIP", r"^fatal: detected dubious ownership in repository at '(?P<repo>[^']+)'",
          "Repository owned by another user", "authorization", 403, True, True,
          "git refuses a repository owned by another user; if you trust {repo}, mark it safe.",
          docs_url=_DOCS + "git-config#Documentation/git-config.txt-safedirectory",
          code_actions=[_act("Trust this repository",
                             ["git", "config", "--global", "--add", "safe.directory", "{repo}"], "maybe_incorrect",
                             True)]),
    _rule("GIT_NO_REMOTE", r"^fatal: No configured push destination\.|^fatal: No remote repository specified\.",
          "No remote repository configured", "precondition", 412, False, True,
          "This repository has no remote. Add one with `git remote add origin <URL>`, then publish the current "
          "branch with `git push -u origin HEAD`.", docs_url=_DOCS + "git-remote",
          code_actions=[_act("Add the remote", ["git", "remote", "add", "origin", "<URL>"], "has_placeholders", True),
                        _act("Then push the current branch and set its upstream",
                             ["git", "push", "--set-upstream", "origin", "HEAD"], "maybe_incorrect")]),
    _rule("GIT_NO_UPSTREAM", r"^fatal: The current branch (?P<branch>\S+) has no upstream branch\.(?:\n.*){0,4}?\n"
          r"\s*git push --set-upstream (?P<remote>\S+) (?P<dst>\S+)[ \t]*$",
          "Branch has no upstream", "precondition", 412, False, True,
          "Branch {branch} has no upstream. Push it and set the upstream: `git push --set-upstream {remote} {dst}`.",
          detail="the current branch {branch} has no upstream branch; git suggests `git push --set-upstream {remote} "
                 "{dst}`",
          docs_url=_DOCS + "git-push#Documentation/git-push.txt--u",
          code_actions=[_act("Push {branch} to {remote} and track it",
                             ["git", "push", "--set-upstream", "{remote}", "{dst}"], "machine_applicable", True)]),
    _rule("GIT_NO_UPSTREAM", r"^fatal: The current branch (?P<branch>\S+) has no upstream branch\."
          r"(?!(?:\n.*){0,4}?\n\s*git push --set-upstream)", "Branch has no upstream", "precondition", 412, False, True,
          "Branch {branch} has no upstream. Push it and set one: `git push --set-upstream origin {branch}`.",
          code_actions=[_act("Push {branch} and track it", ["git", "push", "--set-upstream", "<REMOTE>", "{branch}"],
                             "has_placeholders", True)]),
    _rule("GIT_NO_UPSTREAM", r"^There is no tracking information for the current branch\.(?:\n.*){0,9}?\n"
          r"\s*git branch --set-upstream-to=<remote>/<branch> (?P<branch>\S+)",
          "Branch has no upstream", "precondition", 412, False, True,
          "Branch {branch} tracks no remote branch; name one (`git pull REMOTE BRANCH`) or set the upstream.",
          detail="there is no tracking information for the current branch {branch}",
          code_actions=[_act("Set the upstream of {branch}",
                             ["git", "branch", "--set-upstream-to=<REMOTE>/<BRANCH>", "{branch}"], "has_placeholders",
                             True)]),
    _rule("GIT_DETACHED_HEAD", r"^fatal: You are not currently on a branch\.|^You are not currently on a branch\.",
          "Not on a branch (detached HEAD)", "precondition", 412, False, True,
          "HEAD is detached. Create a branch for this work (`git switch -c NAME`) or push it explicitly "
          "(`git push origin HEAD:NAME`).",
          code_actions=[_act("Create a branch here", ["git", "switch", "-c", "<BRANCH>"], "has_placeholders", True),
                        _act("Push HEAD to a named remote branch", ["git", "push", "origin", "HEAD:<BRANCH>"],
                             "has_placeholders")]),
    _rule("GIT_DETACHED_COMMIT", r"^\[detached HEAD (?P<sha>[0-9a-f]+)\]", "Committed on a detached HEAD",
          "precondition", 412, False, True,
          "Commit {sha} belongs to no branch and is easy to lose; create a branch for it (`git switch -c NAME`).",
          severity="warning", subcommands=["commit"],
          code_actions=[_act("Create a branch at this commit", ["git", "switch", "-c", "<BRANCH>"], "has_placeholders",
                             True)]),
    _rule("GIT_PUSH_REJECTED", r"^ ! \[rejected\]\s+(?P<src>\S+) -> (?P<dst>\S+) \((?P<reason>fetch first|"
          r"non-fast-forward)\)", "Push rejected (non-fast-forward)", "conflict", 409, True, True,
          "The remote's {dst} has commits you do not have. Run `git pull --rebase`, resolve any conflicts, then push "
          "again.", docs_url=_DOCS + "git-push#_note_about_fast_forwards",
          detail="push of {src} to {dst} rejected ({reason})",
          code_actions=[_act("Rebase onto the remote branch", ["git", "pull", "--rebase"], "maybe_incorrect", True),
                        _act("Then push again", ["git", "{args...}"], "maybe_incorrect")]),
    _rule("GIT_PUSH_STALE", r"^ ! \[rejected\]\s+(?P<src>\S+) -> (?P<dst>\S+) \(stale info\)",
          "Force push refused: the remote moved", "conflict", 409, False, True,
          "--force-with-lease refused: {dst} on the remote is not what you last fetched. Fetch and review first.",
          code_actions=[_act("Fetch and review the remote branch", ["git", "fetch"], "machine_applicable", True)]),
    _rule("GIT_PUSH_EXISTS", r"^ ! \[rejected\]\s+(?P<src>\S+) -> (?P<dst>\S+) \(already exists\)",
          "Push rejected: the remote ref already exists", "conflict", 409, False, True,
          "{dst} already exists on the remote (tags are not moved); use a new name or delete the remote one first."),
    _rule("GIT_PUSH_DECLINED", r"^ ! \[remote rejected\]\s+(?P<src>\S+) -> (?P<dst>\S+) \((?P<reason>[^)]+)\)",
          "Push refused by the remote", "authorization", 403, False, True,
          "The remote refused {dst}: {reason}. A protected branch or a server hook blocked it; push to another "
          "branch and open a merge/pull request.", detail="remote rejected {dst}: {reason}",
          code_actions=[_act("Push to a new branch instead", ["git", "push", "-u", "origin", "HEAD:<BRANCH>"],
                             "has_placeholders", True)]),
    _rule("GIT_NON_FAST_FORWARD_PULL", r"^fatal: Need to specify how to reconcile divergent branches\.",
          "Pull needs a merge strategy (branches diverged)", "precondition", 412, False, True,
          "Your branch and its upstream diverged. Choose: `git pull --rebase` (linear history) or "
          "`git pull --no-rebase` (merge commit).", docs_url=_DOCS + "git-pull",
          code_actions=[_act("Rebase your commits onto the upstream", ["git", "pull", "--rebase"], "maybe_incorrect",
                             True),
                        _act("Merge the upstream", ["git", "pull", "--no-rebase"], "maybe_incorrect")]),
    _rule("GIT_NOT_FAST_FORWARD", r"^fatal: Not possible to fast-forward, aborting\.",
          "Fast-forward impossible (branches diverged)", "precondition", 412, False, True,
          "--ff-only refused: the branches diverged. Rebase (`git pull --rebase`) or merge without --ff-only."),
    _rule("GIT_UNSTAGED_CHANGES", r"^error: cannot (?P<op>pull with rebase|rebase): You have unstaged changes\.",
          "Unstaged changes block the rebase", "precondition", 412, True, True,
          "Commit or stash your changes first, or let git stash them around the {op}.",
          code_actions=[_act("Stash the changes around the pull/rebase", ["git", "{args...}", "--autostash"],
                             "maybe_incorrect", True),
                        _act("Stash the changes", ["git", "stash"], "maybe_incorrect")]),
    _rule("GIT_LOCAL_CHANGES", r"^error: (?:Your local changes to the following files|The following untracked working "
          r"tree files) would be (?:overwritten|removed) by (?P<op>\w+):", "Local changes would be overwritten",
          "precondition", 412, True, True,
          "The {op} would overwrite files you changed; commit or stash them first (`git stash`), then retry.",
          code_actions=[_act("Stash the local changes", ["git", "stash", "--include-untracked"], "maybe_incorrect",
                             True)]),
    _rule("GIT_AUTH_REQUIRED", r"^fatal: could not read (?P<what>Username|Password) for '(?P<url>[^']+)'",
          "Credentials required (prompt prevented)", "authentication", 401, True, True,
          "git needs a {what} for {url} and may not prompt. Configure a credential helper or token, or use an "
          "SSH remote; a person may need to supply the secret.", docs_url=_DOCS + "gitcredentials",
          code_actions=[_act("Configure a credential helper", ["git", "config", "--global", "credential.helper",
                                                               "<HELPER>"], "has_placeholders", True)]),
    _rule("GIT_AUTH_FAILED", r"^fatal: Authentication failed for '(?P<url>[^']+)'|^(?P<who>\S+@\S+): "
          r"Permission denied \((?P<methods>[^)]+)\)", "Authentication failed", "authentication", 401, True, True,
          "The remote rejected the credentials. Check the token or key (expired? missing scope?) and the "
          "credential helper's stored entry.", docs_url=_DOCS + "gitcredentials"),
    _rule("GIT_REPOSITORY_NOT_FOUND", r"^fatal: repository '(?P<url>[^']+)' (?:not found|does not exist)|"
          r"^(?:ERROR|remote): Repository not found\.", "Remote repository not found", "not_found", 404, False, True,
          "The repository URL is wrong, or you lack access to it (hosts answer 'not found' for private repos).",
          code_actions=[_act("List the configured remotes", ["git", "remote", "-v"], "machine_applicable", True)]),
    _rule("GIT_REPOSITORY_NOT_FOUND", r"^fatal: '(?P<url>[^']*[/:\\][^']*)' does not appear to be a git repository",
          "Remote repository not found", "not_found", 404, False, True,
          "Nothing at {url} is a git repository; check the path or URL (`git remote -v` lists the remotes)."),
    _rule("GIT_REMOTE_NOT_FOUND", r"^fatal: '(?P<remote>[^'/:\\]+)' does not appear to be a git repository",
          "Remote not configured or not a repository", "not_found", 404, False, True,
          "'{remote}' is neither a configured remote nor a reachable repository. Check `git remote -v`, or add it "
          "with `git remote add {remote} <URL>`.",
          code_actions=[_act("List the configured remotes", ["git", "remote", "-v"], "machine_applicable", True),
                        _act("Add the remote", ["git", "remote", "add", "{remote}", "<URL>"], "has_placeholders")]),
    _rule("GIT_NETWORK", r"^fatal: unable to access '(?P<url>[^']+)': (?P<reason>.+)|^ssh: (?:connect to host|"
          r"Could not resolve hostname) (?P<host>\S+)", "Cannot reach the remote", "network", 503, True, True,
          "The remote could not be reached; check the URL, network, proxy and that the server is up."),
    _rule("GIT_NOTHING_TO_COMMIT", r"^no changes added to commit\b", "Nothing staged to commit", "precondition", 412,
          False, True, "Changes exist but none are staged: stage them with `git add PATH`, or commit all tracked "
          "changes with `git commit -a`.", subcommands=["commit"], exit_codes=[1],
          code_actions=[_act("Stage the files to commit", ["git", "add", "--", "<PATH>"], "has_placeholders", True),
                        _act("Commit all tracked changes", ["git", "{args...}", "--all"], "maybe_incorrect")]),
    _rule("GIT_NOTHING_TO_COMMIT", r"^nothing added to commit but untracked files present\b",
          "Nothing staged to commit", "precondition", 412, False, True,
          "Only untracked files changed; add them with `git add PATH` first.",
          subcommands=["commit"], exit_codes=[1],
          code_actions=[_act("Stage the files to commit", ["git", "add", "--", "<PATH>"], "has_placeholders", True)]),
    _rule("GIT_NOTHING_TO_COMMIT", r"^nothing to commit\b", "Nothing to commit", "precondition", 412, False, True,
          "The working tree and index match HEAD: there is nothing to commit. Make changes first, or pass "
          "--allow-empty for an intentionally empty commit.", subcommands=["commit"], exit_codes=[1],
          code_actions=[_act("See the repository's state", ["git", "status"], "machine_applicable", True)]),
    _rule("GIT_IDENTITY_UNKNOWN", r"^\*\*\* Please tell me who you are\.|^fatal: (?:empty ident name|unable to "
          r"auto-detect email address)", "Committer identity not configured", "precondition", 412, True, True,
          "Set your name and email for commits: `git config user.name NAME` and `git config user.email EMAIL`.",
          code_actions=[_act("Set the email", ["git", "config", "user.email", "<EMAIL>"], "has_placeholders", True),
                        _act("Set the name", ["git", "config", "user.name", "<NAME>"], "has_placeholders")]),
    _rule("GIT_INDEX_LOCKED", r"^fatal: Unable to create '(?P<lock>[^']+\.lock)': File exists\.",
          "Repository locked by another git process", "conflict", 409, True, True,
          "Another git process holds {lock}. Wait and retry; if no git process is running, a crashed one left "
          "it behind: remove it.", retry_after=2,
          code_actions=[_act("Remove the stale lock (only if no git process is running)", ["rm", "-f", "{lock}"],
                             "maybe_incorrect")]),
    _rule("GIT_NO_COMMITS", r"^fatal: your current branch '(?P<branch>[^']+)' does not have any commits yet",
          "Branch has no commits yet", "precondition", 412, False, True,
          "Branch {branch} has no commits yet; make the first commit (`git add PATH` then `git commit -m MESSAGE`)."),
    _rule("GIT_PATHSPEC_NO_MATCH", r"^(?:error|fatal): pathspec '(?P<path>[^']+)' did not match any (?:file|files)",
          "Path or branch not found", "not_found", 404, False, True,
          "'{path}' matches no tracked file (or, for checkout, no branch). Check the spelling with `git status` "
          "or `git branch -a`."),
    _rule("GIT_UNKNOWN_REVISION", r"^fatal: (?:ambiguous argument '(?P<rev>[^']+)': unknown revision|bad revision "
          r"'(?P<rev2>[^']+)'|invalid reference: (?P<rev3>\S+)|invalid upstream '(?P<rev4>[^']+)'|Needed a single "
          r"revision)|^merge: (?P<rev5>\S+) - not something we can merge",
          "Unknown revision or branch", "not_found", 404, False, True,
          "The revision is unknown: check it with `git branch -a` / `git log --oneline`; fetch first if it is on "
          "the remote. Separate paths from revisions with `--`.",
          code_actions=[_act("List branches", ["git", "branch", "-a"], "machine_applicable", True)]),
    _rule("GIT_REFSPEC_NO_MATCH", r"^error: src refspec (?P<ref>\S+) does not match any|^fatal: couldn't find remote "
          r"ref (?P<remote_ref>\S+)", "Branch not found", "not_found", 404, False, True,
          "The named branch does not exist (here, or on the remote); list branches with `git branch -a`.",
          code_actions=[_act("Push the current branch instead", ["git", "push", "-u", "origin", "HEAD"],
                             "maybe_incorrect")]),
    _rule("GIT_ALREADY_EXISTS", r"^fatal: (?:a branch named|A branch named|tag) '(?P<name>[^']+)' already exists|"
          r"^error: remote (?P<remote>\S+) already exists\.|^fatal: destination path '(?P<path>[^']+)' already exists",
          "Already exists", "conflict", 409, False, True,
          "The name is taken; choose another, or update the existing one (`git remote set-url`, `git branch -f`)."),
    _rule("GIT_NOT_FULLY_MERGED", r"^error: [Tt]he branch '(?P<branch>[^']+)' is not fully merged",
          "Branch not fully merged", "precondition", 412, False, True,
          "Branch {branch} has commits merged nowhere; deleting it would lose them. Merge it first, or force with -D.",
          code_actions=[_act("Delete it anyway (its unmerged commits become unreachable)",
                             ["git", "branch", "-D", "{branch}"], "maybe_incorrect")]),
    _rule("GIT_OPERATION_IN_PROGRESS", r"^fatal: You have not concluded your (?P<op>merge|cherry-pick)|^error: "
          r"(?:Merging|Pulling|Committing|Cherry-picking|Reverting) is not possible because you have unmerged files|"
          r"^fatal: It seems that there is already a rebase-merge directory|^error: you need to resolve your current "
          r"index first", "Another operation is in progress", "precondition", 412, False, True,
          "Finish the merge/rebase in progress first (`git status` shows it): resolve, `git add`, then continue "
          "— or abort it (`git merge --abort` / `git rebase --abort`).",
          code_actions=[_act("See what is in progress", ["git", "status"], "machine_applicable", True)]),
    _rule("GIT_NO_OPERATION", r"^fatal: (?:There is no merge (?:in progress|to abort)|No rebase in progress\?|"
          r"no cherry-pick or revert in progress)", "No operation in progress", "precondition", 412, False, True,
          "There is nothing to continue or abort; `git status` shows the repository's state."),
    _rule("GIT_UNRELATED_HISTORIES", r"^fatal: refusing to merge unrelated histories",
          "Unrelated histories", "precondition", 412, False, True,
          "The branches share no commit. If joining them is intended, pass --allow-unrelated-histories.",
          code_actions=[_act("Merge the unrelated histories", ["git", "{args...}", "--allow-unrelated-histories"],
                             "maybe_incorrect")]),
    _rule("GIT_CLEAN_REFUSED", r"^fatal: clean\.requireForce (?:defaults to|set to) true",
          "git clean needs -n or -f", "usage", 400, False, True,
          "git clean deletes untracked files; preview with `git clean -n`, then delete with `git clean -f`.",
          code_actions=[_act("Preview what would be deleted", ["git", "clean", "-n"], "machine_applicable", True)]),
    _rule("GIT_NO_STASH", r"^No stash entries found\.|^error: (?:stash@\{\d+\}|\S+) is not a valid reference",
          "No such stash entry", "not_found", 404, False, True, "There is no stash entry; `git stash list` lists them.",
          subcommands=["stash"]),
    _rule("GIT_UNKNOWN_COMMAND", r"^git: '(?P<cmd>[^']+)' is not a git command\.(?:(?:.*\n){0,3}?\s*The most "
          r"similar commands? (?:is|are)\n\s+(?P<similar>\S+))?", "Unknown git command", "usage", 400, False, True,
          "Check the command name (`git help -a` lists them).", detail="'{cmd}' is not a git command",
          code_actions=[_act("Run the most similar command git names", ["git", "{similar}", "{rest...}"],
                             "maybe_incorrect", True)]),
    _rule("GIT_USAGE", r"^error: (?P<msg>unknown (?:option|switch) `?[^'\s]+'?|.+?)\nusage: git ",
          "Invalid git arguments", "usage", 400, False, True,
          "Fix the arguments; the usage text in the output lists the valid options.", exit_codes=[129],
          detail="invalid arguments: {msg}"),
]

SPEC: dict[str, Any] = {
    "name": "git",
    "matches": ["git"],
    "global_options_with_value": ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                                  "--config-env", "--attr-source", "--list-cmds"],
    "nested_subcommands": ["stash", "remote", "worktree", "submodule", "notes", "bisect", "sparse-checkout"],
    "descriptor": {
        "purpose": "Run git; failures become named problems with git's own fixes, read commands become data.",
        "use_when": "Any git command: status/log/diff/branch/show for facts, commit/push/pull/merge/rebase to change.",
        "do_not_use_when": "You need a custom --format you will parse yourself (data is then null, output is kept).",
        "returns": "data for status, log, diff (--stat/--numstat/patch), show, branch, remote, commit, push, "
                   "pull/merge; problems for push rejections, missing remotes/upstreams, conflicts (per file), "
                   "auth, locks, bad revisions.",
        "limitations": "Parses English output (LANGUAGE=en is set); merges use git's prepared message "
                       "(GIT_MERGE_AUTOEDIT=no); custom formats, -z and column output are not parsed.",
    },
    "env": {"GIT_MERGE_AUTOEDIT": "no", "GIT_OPTIONAL_LOCKS": "0", "LANGUAGE": "en"},
    # data holds every fact of these outputs (see GitAdapter.presentation for the flags that add text)
    "parsed_whole": ["status", "branch", "log"],
    "concise_omit": ["format"],  # which layout git status printed (long, short, porcelain): not a fact
    "noise": [
        {"pattern": r"^\s*\(use \"git [^\"]*\"[^)]*\)$"},  # "(use "git add <file>..." to ...)"
        {"pattern": r"^\s*\((?:fix conflicts|all conflicts fixed)[^)]*\)$"},
        {"pattern": r"^hint: ", "stream": "stderr"},  # advice for a person: the problem carries the fix
        {"pattern": r"^(?:remote: )?(?:Enumerating|Counting|Compressing|Writing|Receiving|Resolving|Total|"
                    r"Delta compression|Unpacking)\b.*(?:done|\d+%|reused \d+)"},  # transfer progress
        {"pattern": r"^remote:\s*$"},
    ],
    "effects": _EFFECTS,
    "prompts": PROMPTS,
    "rules": _RULES,
}
