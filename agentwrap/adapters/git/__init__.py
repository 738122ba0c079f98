"""agentwrap adapter for git: the spec (git.spec.toml) plus per-invocation effects, the editor prompts' own
non-interactive forms spliced into the user's arguments, conflict problems, and parsers for read commands."""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from typing import Any

from agentwrap.adapters.git import success, write
from agentwrap.adapters.git.answer import answer
from agentwrap.adapters.git.log import LOG_TEXT_FLAGS, SHARED, parse_diff, parse_log, parse_show, totals_said
from agentwrap.adapters.git.parse import parse_branch, parse_status
from agentwrap.lazyre import lazy
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Presentation,
    Problem,
    Spec,
)

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
_SPEC = Spec.from_toml(os.path.join(os.path.dirname(__file__), "git.spec.toml"))
_WITH_VALUE = _SPEC.options_with_value
_EDITOR_SHIM = lazy(r"agentwrap: the program asked for an editor and no person is attached: (?P<file>.+)$", re.M)
_EDITOR_FAILED = lazy(r"^error: (?:There was a problem with the editor|Terminal is dumb, but EDITOR unset)", re.M)
_FORCES_EDITOR = {"-e", "--edit", "-i", "--interactive"}
_INFO = {"--version", "--help", "-h", "--exec-path", "--html-path", "--man-path", "--info-path"}


def split(argv: list[str] | tuple[str, ...]) -> tuple[list[str], str | None, list[str]]:
    """(global options, subcommand word, the arguments after it): `git -C d push -u o` -> (['-C','d'], push, [...])."""
    skip = False
    for i, arg in enumerate(argv[1:], 1):
        if skip:
            skip = False
        elif arg == "--":
            break
        elif arg.startswith("-"):
            skip = arg in _WITH_VALUE
        else:
            return list(argv[1:i]), arg, list(argv[i + 1:])
    return list(argv[1:]), None, []


def _flags(args: list[str]) -> set[str]:
    return {a.split("=", 1)[0] for a in args if a.startswith("-") and a != "--"}


def _positional(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


_RO = Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
_LOCAL = Effects(read_only=False, destructive=False, idempotent=True, open_world=False)

# `-c KEY=VALUE` keys that only change how output looks; any other key may name a command git runs
# (core.fsmonitor, core.pager, diff.external, core.sshCommand, alias.x=!cmd), so it counts as mutating.
_DISPLAY_CONFIG = frozenset({
    "core.quotepath", "core.abbrev", "log.date", "log.decorate", "log.abbrevcommit", "diff.noprefix",
    "diff.mnemonicprefix", "diff.renames", "diff.algorithm", "diff.context", "diff.relative",
    "diff.statgraphwidth", "diff.colormoved", "status.short", "status.branch", "status.showuntrackedfiles",
    "grep.linenumber", "grep.patterntype", "column.ui", "i18n.logoutputencoding"})


def read_only_hazard(argv: list[str] | tuple[str, ...]) -> str | None:
    """Why an invocation of a reading subcommand would run a program or write a file (`-c core.fsmonitor=CMD`,
    `log --output=FILE`, `grep -O`, `ls-remote --upload-pack=CMD`), or None when nothing in it does."""
    globals_, word, args = split(argv)
    options = args[:args.index("--")] if "--" in args else args  # what follows `--` is paths
    return _global_hazard(globals_) or _argument_hazard(word, options)


def _global_hazard(globals_: list[str]) -> str | None:
    words = iter(globals_)
    for arg in words:
        if arg == "-c":
            setting = next(words, "")
            key = setting.partition("=")[0].lower()
            if key not in _DISPLAY_CONFIG and not key.startswith(("color.", "advice.")):
                return f"`-c {setting}` sets configuration that can name a command for git to run"
        elif arg.startswith("--config-env"):
            return "`--config-env` sets configuration that can name a command for git to run"
        elif arg.startswith("--exec-path="):
            return f"`{arg}` makes git run its commands from that folder"
        elif arg.startswith("--git-dir"):
            return "`--git-dir` reads another repository's configuration, which can name a command to run"
        elif arg in _WITH_VALUE:
            next(words, None)
    return None


def _argument_hazard(word: str | None, args: list[str]) -> str | None:
    if any(a == "--output" or a.startswith("--output=") for a in args):
        return "`--output=FILE` writes the output to FILE"
    if word == "grep" and any(a.startswith(("-O", "--open-files-in-pager")) for a in args):
        return "`-O`/`--open-files-in-pager` runs a pager program on the matching files"
    if word == "ls-remote" and any(a == "-u" or a.startswith("--upload-pack") for a in args):
        return "`--upload-pack=COMMAND` runs that command"
    if word == "push" and any(a.startswith(("--receive-pack", "--exec")) for a in args):
        return "`--receive-pack=COMMAND` runs that command, with --dry-run too"
    if word == "help" and any(a in ("-w", "--web") for a in args):
        return "`--web` starts a web browser"
    if word == "fsck" and "--lost-found" in args:
        return "`--lost-found` writes dangling objects into .git/lost-found"
    if word == "reflog" and args[:1] in (["expire"], ["delete"]):
        return f"`git reflog {args[0]}` deletes reflog entries"
    return None


def _refine(sub: str, args: list[str], base: Effects) -> Effects:
    """Effects that depend on the arguments, not only the subcommand (reset --hard, push --force, branch -D...)."""
    flags, pos = _flags(args), _positional(args)
    dry_run = "--dry-run" in flags or ("-n" in flags and sub in ("clean", "add", "rm", "mv"))  # commit -n: no-verify
    if flags & {"-h", "--help"} or (dry_run and sub in ("clean", "commit", "add", "rm", "mv")):
        return _RO
    if sub == "reset":
        return base._replace(destructive=bool(flags & {"--hard", "--merge"}),
                             idempotent=not any(re.search(r"[~^@]", p) for p in pos))
    if sub == "push":
        forced = flags & {"-f", "--force", "--force-with-lease", "--force-if-includes", "-d", "--delete", "--mirror",
                          "--prune"} or any(p.startswith(("+", ":")) for p in pos[1:])
        dry = bool(flags & {"-n", "--dry-run"})
        return base._replace(read_only=dry, destructive=bool(forced) and not dry)
    if sub == "checkout":
        if flags & {"-f", "--force", "-p", "--patch", "-B"} or "--" in args or "." in pos or len(pos) > 1:
            return base._replace(destructive=True)
        return base._replace(destructive=None if pos and not flags & {"-b", "--orphan", "--detach"} else False)
    if sub == "switch":
        return base._replace(destructive=bool(flags & {"-f", "--force", "--discard-changes", "-C", "--force-create"}))
    if sub == "restore" and flags & {"-S", "--staged"} and not flags & {"-W", "--worktree"}:
        return base._replace(destructive=False)
    if sub == "rm" and "--cached" in flags:
        return base._replace(destructive=False)
    if sub == "gc" and any(a.startswith("--prune") for a in args):
        return base._replace(destructive=True)
    if sub == "branch":
        if flags & {"-D", "-d", "--delete", "-M", "-C", "-f", "--force"}:
            return _LOCAL._replace(destructive=True)
        listing = flags & {"-a", "--all", "-r", "--remotes", "-l", "--list", "--merged", "--no-merged", "--contains",
                           "--no-contains", "--points-at", "--show-current"}
        mutating = flags & {"-m", "-c", "--move", "--copy", "-u", "--set-upstream-to", "--unset-upstream",
                            "--edit-description", "-t", "--track"}
        return _LOCAL if mutating or (pos and not listing) else _RO
    if sub == "tag":
        if flags & {"-d", "--delete", "-f", "--force"}:
            return _LOCAL._replace(destructive=True)
        listing = flags & {"-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged",
                           "--points-at", "-v", "--verify"}
        return _LOCAL if pos and not listing else _RO
    if sub == "config":
        if pos and pos[0] in ("set", "unset", "rename-section", "remove-section", "edit"):
            return _LOCAL
        if (pos and pos[0] in ("get", "list")) or flags & {"--get", "--get-all", "--get-regexp", "-l", "--list",
                                                           "--get-urlmatch", "--get-color", "--get-colorbool"}:
            return _RO
        writes = flags & {"--unset", "--unset-all", "--add", "--replace-all", "-e", "--edit", "--rename-section",
                          "--remove-section"}
        return _LOCAL if writes or len(pos) >= 2 else _RO
    if sub == "remote" and pos and pos[0] not in ("show", "get-url", "-v", "--verbose"):
        return base if base.read_only is False else _LOCAL
    if sub == "stash" and not pos:
        return _LOCAL._replace(idempotent=False)  # bare `git stash` is `git stash push`
    return base


# What git log's text says when it is sent whole: its commits, their count and what they share
_LOG_SAYS = ("commits", "count", *SHARED)
_PARSED_PRETTY = {f"--pretty={name}" for name in ("oneline", "short", "medium", "full", "fuller")}
_STAT_FLAGS = {"--stat", "--numstat", "--shortstat", "--name-only", "--name-status"}


class GitAdapter(BaseAdapter):
    codes = write.CODES
    parsers = {"status": parse_status, "log": parse_log, "diff": parse_diff, "show": parse_show,  # noqa: RUF012
               "branch": parse_branch, "remote": write.parse_remote, "commit": write.parse_commit,
               "push": write.parse_push, "merge": write.parse_merge, "pull": write.parse_merge}

    def __init__(self) -> None:
        super().__init__(_SPEC)

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return write.conflicts(run) or write.unresolved(run) or write.bisect_not_ready(run)

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        found = super().find_problems(run)
        if any(p.code == write.MERGE_CONFLICT.code for p in found):  # files still conflicted: it is this
            # operation's own conflict, no other one "in progress" (`git merge --continue` says it as `git commit`)
            found = [p for p in found if p.code != "GIT_OPERATION_IN_PROGRESS"]
        return found

    def effects(self, argv: list[str]) -> Effects:
        _, word, args = split(argv)
        if word is None:
            found = _RO if set(argv[1:]) & _INFO else super().effects(argv)
        else:
            found = _refine(word, args, super().effects(argv))
        if found.read_only and read_only_hazard(argv):  # reads, but runs or writes something on the way
            return _LOCAL._replace(destructive=word == "reflog")
        return found

    def presentation(self, argv: list[str]) -> Presentation:
        """`log -p`, `--stat`, `--graph` and custom formats print what the log parser does not keep; a
        stat-only `diff`/`show` is parsed whole; a patch says everything its file counts do."""
        shown = super().presentation(argv)
        _, word, args = split(argv)
        flags = {a.split("=")[0] for a in args if a.startswith("-")}
        patch = bool(flags & {"-p", "-u", "--patch"})
        # `--pretty=fuller` and its kin are formats the log parser reads whole, as it reads the default one
        flags -= {"--pretty"} if {a for a in args if a.startswith("--pretty=")} <= _PARSED_PRETTY else set()
        if word == "log" and any(f in LOG_TEXT_FLAGS or f.startswith(("-p", "-L")) for f in flags):
            # The text is the answer: the graph's topology, each commit's patch or stat under its own header.
            # It goes whole, no line of it dropped for what the data says (`patch`), and the data's commits,
            # which it says again, stay in the record.
            return shown.replace(parsed_whole=False, patch=True, text_says=_LOG_SAYS)
        if word in ("diff", "show") and flags & _STAT_FLAGS and not patch:
            return shown.replace(parsed_whole=True)
        if word in ("diff", "show"):
            # the patch shows its files and counts, and `show` prints the commit it parsed
            return shown.replace(text_says=("commit", "files", "files_changed", "insertions", "deletions"),
                                 patch=True)
        return shown

    def parse(self, run: CapturedRun) -> Any:
        sub = (run.subcommand or "").split(" ")[0]
        parser = self.parsers.get(sub)
        if run.failed:
            return None
        if parser is None:
            # no data, but a summary of git's fact lines: an empty dict says so, and the lines it restates go
            _, word, rest = split(run.argv)
            return {} if success.said(word, rest, run.text()) else None
        return parser(run)

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str,
                    ended: bool = True) -> tuple[str | None, list[CodeAction]]:
        """The spec's prompt catalog, trying entries whose pattern names the prompt's file first, with the
        user's own arguments spliced in (`{rest...}`) and their global options (-C DIR) kept; `ended`: git
        was ended at the prompt (agentwrap's refusal), not told the editor failed (git then cleans up)."""
        assert self.spec is not None
        spec = copy.copy(self.spec)
        spec.prompts = tuple(sorted(self.spec.prompts, key=lambda p: not p.pattern.search(prompt or "\0")))
        fix, actions = spec.prompt_help(argv, self.subcommand(argv), prompt, input_kind)
        globals_, word, args = split(argv)
        begun = write.stopped_at_editor(globals_, word, args, prompt or "") if ended else None
        if begun is not None:  # git was ended with its operation begun: running it again would fail
            fix, actions = begun[0], begun[1]
        rest = [a for a in args if a not in _FORCES_EDITOR and not a.startswith("--edit=")]
        out = [a for a in (_expand(action, globals_, rest) for action in actions) if a is not None]
        if word == "commit" and "--amend" in args:  # amending: keeping the message is the natural choice
            out.sort(key=lambda a: "--no-edit" not in (a.command or ()))
            out = [a._replace(is_preferred=i == 0) for i, a in enumerate(out)]
        return fix, out

    def interpret(self, run: CapturedRun) -> Interpretation:
        globals_, word, rest = split(run.argv)
        editor = _EDITOR_SHIM.search(run.text())
        if run.failed and (editor or _EDITOR_FAILED.search(run.text())):
            return self._editor_required(run, editor.group("file").strip() if editor else "")
        interp = super().interpret(run)
        if not any(p.severity == "error" and p.code != "COMMAND_FAILED" for p in interp.problems) and (
                said := answer(word, rest, run)):
            # the exit status is the answer (1: no match, differs, not an ancestor): a success that says it
            return interp._replace(summary=said[1], data=said[0], error=None, success=True)
        problems = tuple(_refine_problem(_localize(p, globals_, rest), globals_, word, rest) for p in interp.problems)
        error = problems[interp.problems.index(interp.error)] if interp.error in interp.problems else interp.error
        if error is not None and error.code == "COMMAND_FAILED" and self.effects(list(run.argv)).read_only:
            error = error._replace(safe_to_retry=True)  # a read-only command run again changes nothing
        if word == "push" and {"-n", "--dry-run"} & set(rest) and isinstance(interp.data, dict):
            # git prints a dry run's refs as if pushed: say it was not, and claim no change
            data = {**interp.data, "dry_run": True}
            summary = self.summarize(run, data) if interp.error is None else interp.summary
            return interp._replace(problems=problems, error=error, data=data, summary=summary or interp.summary)
        effects = write.effects(word, interp.data) if interp.error is None else ()
        return interp._replace(problems=problems, error=error, effects=interp.effects + effects)

    def _editor_required(self, run: CapturedRun, file: str) -> Interpretation:
        """git stopped because the editor shim (or a missing editor) refused: the same INPUT_REQUIRED a live
        run reports, so a replayed log and the live run agree."""
        from agentwrap.outcome.decide import input_required

        argv = list(run.argv)
        problem = input_required(argv, file, "editor", {"detection": "editor-error", "source": "editor"})
        fix, actions = self.prompt_help(argv, file, "editor", ended=bool(_EDITOR_SHIM.search(run.text())))
        problem = problem._replace(suggested_fix=fix or problem.suggested_fix, exit_code=run.exit_code,
                                   code_actions=(*actions, *problem.code_actions))
        return Interpretation(summary=problem.detail[:300], error=problem, problems=(problem,), success=False)

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        sub = (run.subcommand or "").split(" ")[0]
        if not data:  # no parser: git's own fact lines, or what a silent command's arguments say it did
            _, word, rest = split(run.argv)
            return success.said(word, rest, run.text())
        return _summary(sub, data, run.wrote)


_UNFILLED = lazy(r"\{\w+\}")


def _expand(action: CodeAction, globals_: list[str], rest: list[str]) -> CodeAction | None:
    """A code action made concrete: `{rest...}` becomes the user's arguments after the subcommand, the user's
    global options (`git -C DIR`) are kept so the fix runs where the command ran, and an action whose
    template names a group the match did not fill is dropped."""
    cmd = action.command
    if cmd is None:
        return action
    if "{rest...}" in cmd:
        i = cmd.index("{rest...}")
        cmd = (*cmd[:i], *rest, *cmd[i + 1:])
    if any(_UNFILLED.search(word) for word in cmd):
        return None
    if globals_ and cmd and cmd[0] == "git" and list(cmd[1:1 + len(globals_)]) != globals_:
        cmd = (cmd[0], *globals_, *cmd[1:])
    return action._replace(command=cmd)


def _refine_problem(problem: Problem, globals_: list[str], word: str | None, rest: list[str]) -> Problem:
    """A rule's problem with what depends on the invocation or on lines after the one it matched (after
    `_localize`: its commands are concrete, and `stash@{1}` is no template); the commands it builds keep
    the caller's global options (`git -C DIR`), as `_localize` keeps them."""
    if problem.code == "GIT_LOCAL_CHANGES":
        refined = write.local_changes(problem, word, rest)
    elif problem.code == "GIT_ALREADY_EXISTS":
        refined = write.already_exists(problem, word, rest)
    else:
        return problem
    if not globals_:
        return refined
    actions = tuple(a._replace(command=("git", *globals_, *a.command[1:]))
                    if a.command and a.command[0] == "git" and list(a.command[1:1 + len(globals_)]) != globals_
                    else a for a in refined.code_actions)
    return refined._replace(code_actions=actions)


def _localize(problem: Problem, globals_: list[str], rest: list[str]) -> Problem:
    if not problem.code_actions:
        return problem
    actions = (_expand(a, globals_, rest) for a in problem.code_actions)
    return problem._replace(code_actions=tuple(a for a in actions if a is not None))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith("ch") else "s")


def _summary(sub: str, data: dict[str, Any], wrote: Callable[[str], bool]) -> str | None:
    if sub == "status" and "staged" in data:
        where = f"on {data['branch']}" if data.get("branch") else "detached HEAD" if data.get("detached") else "status"
        if data.get("detached_at") or data.get("detached_from"):  # git's words: `from` is not where HEAD is now
            where = (f"HEAD detached at {data['detached_at']}" if data.get("detached_at")
                     else f"HEAD detached from {data['detached_from']}")
        if data.get("upstream_gone"):  # its counts are of nothing: the branch it tracked was deleted
            where += f" (upstream {data['upstream']} is gone)" if data.get("upstream") else " (upstream gone)"
        elif data.get("upstream"):  # in step with it says nothing but that: no zero counts
            moved = ", ".join(f"{k} {data[k]}" for k in ("ahead", "behind") if data[k])
            where += f" ({data['upstream']}: {moved})" if moved else f" (up to date with {data['upstream']})"
        if data.get("in_progress"):
            of = f" of {data['rebasing_branch']}" if data.get("rebasing_branch") else ""
            where += f", {data['in_progress']}{of} in progress"
        if data["clean"]:
            return f"{where}: working tree clean"
        counts = [f"{len(data[k])} {k}" for k in ("conflicted", "staged", "unstaged", "untracked") if data[k]]
        return f"{where}: {', '.join(counts)}"
    if sub == "log":
        # The commits themselves (data or text) name the newest one: the summary only counts them.
        return _plural(len(data["commits"]), "commit") if data["commits"] else "no commits"
    if sub == "show" and "commit" in data:
        return f"commit {data['commit']['sha'][:12]}"  # its subject and changes are in the data or the text
    if sub in ("diff", "show") and "files_changed" in data:
        head = f"commit {data['commit']['sha'][:12]}: " if "commit" in data else ""
        return f"{head}{totals_said(data)}"
    if sub == "branch" and "branches" in data:
        current = f"; current {data['current']}" if data["current"] else ""
        return f"{_plural(len(data['branches']), 'branch')}{current}"
    if sub == "commit" and data.get("sha"):
        # git's own line less its brackets, and its counts in words (then the data has nothing more to say)
        said = f"committed {data['sha']} on {data['branch'] or 'detached HEAD'}"
        if not wrote(data["subject"]):  # not the message the caller just wrote
            said += f": {data['subject']}"
        if "files_changed" in data:  # as git writes it: a count of zero is left out
            counts = [f"{_plural(data['files_changed'], 'file')} changed"]
            counts += [_plural(data[k], k[:-1]) for k in ("insertions", "deletions") if data[k]]
            said += f" ({', '.join(counts)})"
        return said[:300]
    if sub == "push":
        if data.get("up_to_date") and not data["refs"]:
            return "push: everything up-to-date"
        moved = ", ".join(f"{r['src']} -> {r['dst']} ({r['status']})" for r in data["refs"])
        verb = "dry run, nothing pushed: would push" if data.get("dry_run") else "pushed"
        return f"{verb} to {data['remote']}: {moved}"[:300]
    if sub in ("merge", "pull") and "up_to_date" in data:
        if data["up_to_date"]:
            return "already up to date"
        how = ("fast-forward" if data["fast_forward"] else "merge commit" if data.get("merge_commit")
               else "rebased" if data.get("rebased") else "merged")
        changed = f": {_plural(data['files_changed'], 'file')} changed" if "files_changed" in data else ""
        return f"{sub} ({how}){changed}"
    if sub == "remote" and "remotes" in data:
        return f"{_plural(len(data['remotes']), 'remote')}: {', '.join(r['name'] for r in data['remotes'])}"[:300]
    return None


ADAPTER: Adapter = GitAdapter()
