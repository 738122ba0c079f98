"""GNU make (and gmake). make's own failures (no rule, no makefile, syntax errors, failed recipes) plus the
diagnostics of the tools its recipes ran: a failed recipe carries the compiler's errors (parsed by the gcc
adapter's parser) and Python tracebacks, and the first real error, not "recipe failed", decides the run.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from agentwrap.adapters import tracebacks
from agentwrap.adapters.compiler_links import LINKER_CODES, link_fixed
from agentwrap.adapters.compiler_paths import rooted, shown_path
from agentwrap.adapters.compiler_problems import located_problems
from agentwrap.adapters.gcc import COMPILER, GccAdapter, invocation
from agentwrap.adapters.make_folders import LEVEL, Folders, folder_of_message, start_folder
from agentwrap.adapters.python_errors import DECLARED
from agentwrap.lazyre import lazy
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Problem,
    ProblemCode,
    Spec,
    merge_codes,
)

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "make.spec.toml")

_ENTERING = lazy(LEVEL + r"Entering directory [`'‘](?P<dir>[^'’]+)['’]\s*$", re.M)
_UP_TO_DATE = lazy(LEVEL + r"[`'‘](?P<target>[^'’]+)['’] is up to date\.", re.M)
_NOTHING = lazy(LEVEL + r"Nothing to be done for [`'‘](?P<target>[^'’]+)['’]\.", re.M)
_FAILED = lazy(LEVEL + r"\*\*\* \[(?:(?P<file>[^:\]]+):(?P<line>\d+): |<builtin>: )?(?P<target>[^\]]+)\] "
               r"(?:Error (?P<status>\d+)|(?P<signal>[A-Z][a-z].*))", re.M)
# make's echo of a compiler command (`cc -o app main.o util.o`, `x86_64-linux-gnu-gcc-12 ...`)
_COMPILER_ECHO = lazy(r"^(?:\S*/)?(?:[\w.+-]*-)?(?:cc|gcc|g\+\+|c\+\+|clang|clang\+\+)(?:-[\d.]+)?\s.*$", re.M)
# make's own warnings look like compiler diagnostics (`Makefile:8: warning: ...`): they are make's, not gcc's
_MAKE_WARNING = lazy(r"^(?:overriding recipe|ignoring old recipe|undefined variable)")
_OPTIONS_WITH_VALUE = frozenset({"-C", "-f", "--file", "--makefile", "-I", "--include-dir", "-j", "--jobs", "-l",
                                 "-o", "-W", "--directory", "--old-file", "--assume-old", "--what-if", "--new-file",
                                 "--assume-new", "-E", "--eval", "--load-average", "--max-load"})
_READ_ONLY = frozenset({"-n", "--just-print", "--dry-run", "--recon", "-q", "--question", "-v", "--version",
                        "-h", "--help"})


def targets(argv: list[str] | tuple[str, ...]) -> list[str]:
    """The targets named on make's command line (not options, their values, or VAR=value)."""
    out: list[str] = []
    args = list(argv[1:])
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _OPTIONS_WITH_VALUE:
            optional = arg in ("-j", "--jobs", "-l")
            i += 2 if not optional or (i + 1 < len(args) and args[i + 1].replace(".", "").isdigit()) else 1
            continue
        if not arg.startswith("-") and "=" not in arg:
            out.append(arg)
        i += 1
    return out


def dry_run(argv: list[str] | tuple[str, ...]) -> bool:
    """-n/--dry-run, -q/--question and the informational options run no recipe (`-nB`, `-sq` clusters too)."""
    for arg in argv[1:]:
        if arg in _READ_ONLY:
            return True
        if arg.startswith("-") and not arg.startswith("--"):
            for letter in arg[1:]:
                if letter in "CfIjloWEO":  # takes a value: the rest of the word is that value
                    break
                if letter in "nqvh":
                    return True
    return False


def _renamed(problem: Problem, printed: Problem, cwd: str | None) -> Problem:
    """A make message's fix names the makefile as printed (`Fix Makefile line 2`): a sub-make's is another
    folder's, so the fix names it as the location does (`sub/Makefile`)."""
    old, new = (str((p.location or {}).get("file", "")) for p in (printed, problem))
    shown = shown_path(new, cwd)
    if not old or shown == old or not problem.suggested_fix:
        return problem
    named = re.sub(rf"(?<![\w/.-]){re.escape(old)}(?![\w/])", lambda _m: shown, problem.suggested_fix)
    return problem._replace(suggested_fix=named)


def _separator_fix(problem: Problem, cwd: str | None) -> Problem:
    """'missing separator' is almost always a recipe indented with spaces: offer the one-line fix."""
    loc = problem.location or {}
    if problem.code != "MAKE_SYNTAX_ERROR" or "missing separator" not in problem.detail or "line" not in loc:
        return problem
    shown = shown_path(str(loc["file"]), cwd)
    action = CodeAction(title=f"Replace the leading spaces of {shown} line {loc['line']} with a tab",
                        command=("sed", "-i", f"{loc['line']}s/^ \\{{1,\\}}/\\t/", loc["file"]),
                        applicability="maybe_incorrect", is_preferred=True)
    return problem._replace(code_actions=(action, *problem.code_actions))


def _directory_fix(problem: Problem, argv: tuple[str, ...]) -> Problem:
    """`make -C <DIR>` must replace the -C already given, not add a second one (they would stack)."""
    if problem.code != "MAKE_NO_MAKEFILE" or not {"-C", "--directory"} & set(argv[:-1]):
        return problem
    args = list(argv)
    for i, arg in enumerate(args[:-1]):
        if arg in ("-C", "--directory"):
            args[i + 1] = "<DIR>"
    return problem._replace(code_actions=(problem.code_actions[0]._replace(command=tuple(args)),))


def _link_command(text: str, before: int) -> tuple[str, dict[str, Any]] | None:
    """The link command make echoed for a linker failure printed at `before`: the last one echoed before it,
    else (stderr comes first in the text when it was not a terminal's) the last one echoed at all."""
    links = []
    for m in _COMPILER_ECHO.finditer(text):
        try:
            words = shlex.split(m.group(0))
        except ValueError:
            words = m.group(0).split()
        linked = invocation(words)
        if linked["mode"] == "link":
            links.append((m.start(), m.group(0).rstrip(), linked))
    chosen = [link for link in links if link[0] < before] or links
    return (chosen[-1][1], chosen[-1][2]) if chosen else None


def _linked(problems: list[Problem], found: list[tuple[int, Problem]], text: str) -> list[Problem]:
    """GCC_LINK_FAILED's fix names the files the failed link command linked (the one make echoed)."""
    at = next((offset for offset, p in found if p.code in LINKER_CODES), None)
    command = _link_command(text, at) if at is not None else None
    if command is None:
        return link_fixed(problems, None, None)
    return link_fixed(problems, command[1]["inputs"], (command[1]["outputs"] or [None])[0])


def _tracebacks(text: str, exit_code: int | None) -> list[tuple[int, Problem]]:
    found, start = [], 0
    for problem in tracebacks.problems(text, tool="python", exit_code=exit_code):
        head = problem.detail.splitlines()[0] if problem.detail else ""
        at = text.find(head, start) if head else -1
        start = at + 1 if at >= 0 else start
        found.append((at if at >= 0 else len(text), problem))
    return found


def _explained(problems: list[Problem]) -> list[Problem]:
    """A failed recipe after an error: its fix ("read the failing command's error above") points at that error,
    which the envelope lists, so it carries none. The error may be its tool's, a sub-make's own (`missing
    separator`, `No rule`) or the sub-make's failed recipe (`$(MAKE) -C sub` failing after `sub` failed)."""
    out, explained = [], False
    for p in problems:
        if p.code == "MAKE_RECIPE_FAILED" and explained:
            p = p._replace(suggested_fix=None)
        explained = explained or p.severity == "error"
        out.append(p)
    return out


def _stem(path: object) -> str:
    return os.path.splitext(os.path.basename(str(path or "")))[0]


def _compiled(problem: Problem) -> bool:
    return problem.severity == "error" and (problem.extra or {}).get("tool") in ("gcc", "clang")


def _folded(problems: list[Problem]) -> list[Problem]:
    """A failed recipe whose compiler errors are listed says nothing they do not (`f1.o` failed because `f1.c`
    has errors): it goes, and the summary names its target. Its errors are the target's sources' (`f1.c` for
    `f1.o`: -j prints them out of order), else the ones printed since the last failed recipe when none of them
    is another failed target's (a header's error, a link's `undefined reference`). A parent make's recipe that
    failed right after its sub-make folded one goes too: the sub-make's failure is the whole story."""
    compiled = [p for p in problems if _compiled(p)]
    failed = {_stem((p.extra or {}).get("target")) for p in problems if p.code == "MAKE_RECIPE_FAILED"}
    out: list[Problem] = []
    since: list[Problem] = []
    folded_level = None  # the make level of the recipe folded last, while nothing else was printed since
    for p in problems:
        if p.code != "MAKE_RECIPE_FAILED":
            out.append(p)
            since += [p] if _compiled(p) else []
            folded_level = None
            continue
        stem, level = _stem((p.extra or {}).get("target")), int((p.extra or {}).get("make_level", 0))
        by_name = any(_stem((c.location or {}).get("file")) == stem for c in compiled)
        by_order = since and not any(_stem((c.location or {}).get("file")) in failed for c in since)
        by_sub_make = folded_level is not None and folded_level > level
        if by_name or by_order or by_sub_make:
            folded_level = level
        else:
            out.append(p)
            folded_level = None
        since = []
    return out


def _folded_targets(failed: list[dict[str, Any]], problems: tuple[Problem, ...]) -> list[dict[str, Any]]:
    """make's failed recipes that no problem of their own reports (`_folded`): those the summary names."""
    kept = [((p.extra or {}).get("target"), (p.extra or {}).get("recipe_status")) for p in problems
            if p.code == "MAKE_RECIPE_FAILED"]
    out = []
    for f in failed:
        if f["status"] is None:
            continue  # a signal's: MAKE_RECIPE_KILLED reports it
        if (f["target"], f["status"]) in kept:
            kept.remove((f["target"], f["status"]))
        else:
            out.append(f)
    return out


def _deciding_first(folded: list[str], error: Problem) -> list[str]:
    """The failed targets, the one the deciding error's file builds first: the summary and the error agree."""
    stem = _stem((error.location or {}).get("file"))
    return sorted(folded, key=lambda target: _stem(target) != stem)


def _errors(compiler: dict[str, int]) -> str:
    """`1 compiler error, 2 warnings`, `1 linker error`: what failed, in the words of the tool that failed."""
    errors, linked, warned = compiler["errors"], compiler["linker_errors"], compiler["warnings"]
    parts = [f"{errors} compiler error{'s' * (errors != 1)}"] if errors or not linked else []
    parts += [f"{linked} linker error{'s' * (linked != 1)}"] if linked else []
    parts += [f"{warned} warning{'s' * (warned != 1)}"] if warned else []
    return ", ".join(parts)


class MakeAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)

    def declarations(self) -> list[ProblemCode]:
        # and the compiler's, and python's: recipes run both
        return merge_codes(super().declarations(), GccAdapter().declarations(), DECLARED.values())

    def subcommand(self, argv: list[str]) -> str | None:
        named = targets(argv)
        return named[0] if named else None

    def effects(self, argv: list[str]) -> Effects:
        if dry_run(argv):
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        return super().effects(argv)

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        """The recipe tools' problems and make's own, in the order they were printed, each path made absolute
        from the folder its printer ran in where that is known (a sub-make's `Entering directory`, `-C`)."""
        assert self.spec is not None
        text = run.text()
        folders = Folders(run, start_folder(run.argv, run.cwd))
        found = [(at, p) for at, p in located_problems(run, COMPILER, None, folders.of_file)
                 if not _MAKE_WARNING.match(str((p.extra or {}).get("message", "")))]
        found.extend((at, rooted(p, folders.of_file(at, str((p.location or {}).get("file", "")))))
                     for at, p in _tracebacks(text, run.exit_code))
        for rule in self.spec.rules:
            if not run.failed and not rule.on_success and rule.severity == "error":
                continue
            for m in rule.pattern.finditer(text):
                problem = self._own_problem(rule, m, run)
                placed = rooted(problem, folder_of_message(problem, m, folders))
                found.append((m.start(), _renamed(placed, problem, run.cwd)))
        found.sort(key=lambda item: item[0])
        missing = {(p.extra or {}).get("target") for _, p in found if p.code == "MAKE_NO_RULE"}
        problems = _linked(_explained(_folded([p for _, p in found])), found, text)
        return [_separator_fix(_directory_fix(p, run.argv), run.cwd) for p in problems
                if not (p.code == "MAKE_COMMAND_NOT_FOUND" and (p.extra or {}).get("command") in missing)]

    def _own_problem(self, rule: Any, m: re.Match[str], run: CapturedRun) -> Problem:
        """A make message's problem, with the facts it names (target, status, make level)."""
        assert self.spec is not None
        problem = self.spec.problem(rule, m, run)
        facts = {k: v for k, v in m.groupdict().items() if v and k in ("target", "needed_by", "command", "signal")}
        if m.groupdict().get("status"):
            facts["recipe_status"] = int(m.group("status"))
        level = re.match(r"make\[(\d+)\]", m.group(0))
        if level:
            facts["make_level"] = int(level.group(1))
        return problem._replace(extra={**(problem.extra or {}), **facts})

    def interpret(self, run: CapturedRun) -> Interpretation:
        base = super().interpret(run)
        text = run.text()
        compiled = [p for p in base.problems if p.extra and p.extra.get("tool") in ("gcc", "clang")]
        data: dict[str, Any] = {
            "targets": targets(run.argv),
            "directories": sorted({m.group("dir") for m in _ENTERING.finditer(text)}),
            "up_to_date": [m.group("target") for m in _UP_TO_DATE.finditer(text)],
            "nothing_to_be_done": [m.group("target") for m in _NOTHING.finditer(text)],
            "failed_targets": [{"target": m.group("target"), "makefile": m.group("file"),
                                "line": int(m.group("line")) if m.group("line") else None,
                                "status": int(m.group("status")) if m.group("status") else None,
                                "signal": m.group("signal")} for m in _FAILED.finditer(text)],
            # the linker's errors apart: `undefined reference` is no compiler error
            "compiler": {"errors": sum(p.severity == "error" and p.code not in LINKER_CODES for p in compiled),
                         "linker_errors": sum(p.code in LINKER_CODES - {"GCC_LINK_FAILED"} for p in compiled)
                         or int(any(p.code == "GCC_LINK_FAILED" for p in compiled)),
                         "warnings": sum(p.severity == "warning" for p in compiled)},
        }
        question = "-q" in run.argv or "--question" in run.argv
        if question and run.exit_code in (0, 1):
            data["question_up_to_date"] = run.exit_code == 0
        if question and run.exit_code == 1 and not any(p.severity == "error" for p in base.problems
                                                       if p.code.startswith("MAKE_")):
            return Interpretation(summary="make -q: the targets are NOT up to date (a build would run recipes)",
                                  problems=tuple(p for p in base.problems if p.code != "COMMAND_FAILED"),
                                  data=data, success=True)
        if base.error is not None and base.error in compiled:
            # the compiler's error decides: the summary says which recipe failed and counts, once each
            folded = _folded_targets(data["failed_targets"], base.problems)
            errors = _errors(data["compiler"])
            failed = _deciding_first(list(dict.fromkeys(f["target"] for f in folded)), base.error)
            if len(failed) > 1:
                summary = f"make: the recipes for {', '.join(failed)} failed ({errors})"
            elif failed:
                summary = f"make: the recipe for target '{failed[0]}' failed with status {folded[0]['status']} " \
                          f"({errors})"
            else:
                summary = f"make: {errors}"
            # a failed link's command line stays in the text: which files were linked is the diagnosis
            link = _link_command(text, text.find(base.error.matched or base.error.detail))
            kept = (link[0],) if base.error.code in LINKER_CODES and link else ()
            return base._replace(data=data, summary=summary, kept_lines=kept)
        if base.error is not None or run.failed:
            return base._replace(data=data)
        named = ", ".join(data["targets"]) or "the default target"
        if data["up_to_date"] or data["nothing_to_be_done"]:
            summary = f"make: nothing to do, {', '.join(data['up_to_date'] + data['nothing_to_be_done'])} up to date"
        else:
            warned = data["compiler"]["warnings"]
            summary = f"make built {named}" + (f" ({warned} compiler warning{'s' * (warned != 1)})" if warned else "")
        return base._replace(data=data, summary=summary)


ADAPTER: Adapter = MakeAdapter()
