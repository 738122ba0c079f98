"""GNU make (and gmake). make's own failures (no rule, no makefile, syntax errors, failed recipes) plus the
diagnostics of the tools its recipes ran: a failed recipe carries the compiler's errors (parsed by the gcc
adapter's parser) and Python tracebacks, and the first real error, not "recipe failed", decides the run.
"""

from __future__ import annotations

import bisect
import os
import re
from typing import Any

from agentwrap.adapters import tracebacks
from agentwrap.adapters.compiler_problems import counted, located_problems, rooted, shown_path
from agentwrap.adapters.gcc import COMPILER, GccAdapter
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

_LEVEL = r"^make(?:\[(?P<level>\d+)\])?: "
_ENTERING = lazy(_LEVEL + r"Entering directory [`'‘](?P<dir>[^'’]+)['’]\s*$", re.M)
_FAILURE = lazy(_LEVEL + r"\*\*\* ", re.M)
_PREFIXED = lazy(r"g?make(?:\[\d+\])?: ")
_MOVED = lazy(_LEVEL + r"(?P<verb>Entering|Leaving) directory [`'‘](?P<dir>[^'’]+)['’]\s*$", re.M)
_UP_TO_DATE = lazy(_LEVEL + r"[`'‘](?P<target>[^'’]+)['’] is up to date\.", re.M)
_NOTHING = lazy(_LEVEL + r"Nothing to be done for [`'‘](?P<target>[^'’]+)['’]\.", re.M)
_FAILED = lazy(_LEVEL + r"\*\*\* \[(?:(?P<file>[^:\]]+):(?P<line>\d+): )?(?P<target>[^\]]+)\] "
                     r"(?:Error (?P<status>\d+)|(?P<signal>[A-Z][a-z].*))", re.M)
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


def _start(argv: tuple[str, ...], cwd: str | None) -> str | None:
    """The folder make reads its makefile in: where it ran, moved by each `-C DIR` (which `-s` keeps quiet)."""
    folder = cwd
    args = list(argv[1:])
    for i, arg in enumerate(args):
        value = None
        if arg in ("-C", "--directory") and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--directory="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-C") and len(arg) > 2:
            value = arg[2:]
        if value is not None:
            folder = value if os.path.isabs(value) else os.path.join(folder, value) if folder else None
    return os.path.normpath(folder) if folder else None


def _serial(argv: tuple[str, ...]) -> bool:
    """Neither -j nor -k: make stops at its first failure, so the sub-make entered last is the one that failed."""
    for arg in argv[1:]:
        if arg.startswith("--jobs") or arg == "--keep-going":
            return False
        if arg.startswith("-") and not arg.startswith("--"):
            for letter in arg[1:]:
                if letter in "jk":
                    return False
                if letter in "CfIloWEO":  # takes a value: the rest of the word is that value
                    break
    return True


class _Folders:
    """The folder each make worked in when it printed each line: those its `Entering directory` lines opened
    and had not yet left. make prints them on stdout, while the compilers' diagnostics and make's `***`
    failures go to stderr: across the two streams, the make level of the failure that follows says which."""

    def __init__(self, run: CapturedRun, start: str | None) -> None:
        self.start, self.readable, self.serial = start, run.cwd is not None, _serial(run.argv)
        self.text, self.split = run.text(), len(run.stderr_text)  # run.text() is stderr, then stdout
        self._marks: list[int] = []
        self._open: list[tuple[tuple[int, str], ...]] = []  # (make level, folder) open after each mark
        self._entered: list[tuple[int, str]] = []
        opened: list[tuple[int, str]] = []
        for m in _MOVED.finditer(self.text):
            entry = (int(m.group("level") or 0), m.group("dir"))
            if m.group("verb") == "Entering":
                opened.append(entry)
                self._entered.append(entry)
            elif entry in opened:
                del opened[len(opened) - 1 - opened[::-1].index(entry)]
            self._marks.append(m.start())
            self._open.append(tuple(opened))

    def _ordered(self, offset: int) -> bool:
        """Whether `offset` is in the stream make announced its folders in (then its place among them tells)."""
        return not self._marks or (self._marks[0] >= self.split) == (offset >= self.split)

    def _opened(self, offset: int) -> tuple[tuple[int, str], ...]:
        i = bisect.bisect_right(self._marks, offset) - 1
        return self._open[i] if i >= 0 else ()

    def of_level(self, level: int, offset: int) -> str | None:
        """The folder of the make at `level` (make's own messages say theirs: `make[1]: ***`)."""
        if self._ordered(offset):
            mine = [folder for at, folder in self._opened(offset) if at == level]
            return mine[-1] if mine else self.start if level == 0 else None
        entered = [folder for at, folder in self._entered if at == level]
        if not entered:
            return self.start if level == 0 else None
        return entered[-1] if self.serial or len(set(entered)) == 1 else None

    def _level_after(self, offset: int) -> int | None:
        """The make level of the first `***` failure printed after `offset` in its stream: the make whose
        recipe printed the text at `offset`."""
        end = len(self.text) if offset >= self.split else self.split
        m = _FAILURE.search(self.text, offset, end)
        return int(m.group("level") or 0) if m else None

    def _guess(self, offset: int, own_failure: bool) -> str | None:
        if self._ordered(offset):
            opened = self._opened(offset)
            if not opened:
                return self.start
            deepest = max(level for level, _ in opened)
            innermost = set(folder for level, folder in opened if level == deepest)
            return innermost.pop() if len(innermost) == 1 else None  # two parallel sub-makes: either
        level = self._level_after(offset)
        if own_failure:  # a make's own `*** ... Stop.`: its parent, if any, reports the failure next
            level = 0 if level is None else level + 1
        if level is not None:
            return self.of_level(level, offset)
        every = {self.start, *(folder for _, folder in self._entered)}
        return every.pop() if len(every) == 1 else None

    def of_file(self, offset: int, file: str, own_failure: bool = False) -> str | None:
        """The folder `file`, printed at `offset`, is relative to. In a live run, when that is not certain or
        the file is not there, the one folder make worked in that holds it."""
        sure = self._guess(offset, own_failure)
        if not self.readable or not file or os.path.isabs(file):
            return sure
        candidates = [folder for _, folder in reversed(self._entered)] + ([self.start] if self.start else [])
        holding = list(dict.fromkeys(f for f in candidates if os.path.exists(os.path.join(f, file))))
        if sure in holding or not holding:
            return sure
        return holding[0] if len(holding) == 1 else sure


def _folder_of(problem: Problem, m: re.Match[str], folders: _Folders) -> str | None:
    """The folder a make message's paths are relative to: its make's, by the level its prefix names (`make[1]:
    ***`); one without (`Makefile:3: *** missing separator.  Stop.`) is found like a compiler's path."""
    if _PREFIXED.match(m.group(0)):
        return folders.of_level(int((problem.extra or {}).get("make_level", 0)), m.start())
    file = str((problem.location or {}).get("file", ""))
    return folders.of_file(m.start(), file, own_failure="***" in m.group(0))


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
        folders = _Folders(run, _start(run.argv, run.cwd))
        found = [(at, p) for at, p in located_problems(run, COMPILER, None, folders.of_file)
                 if not _MAKE_WARNING.match(str((p.extra or {}).get("message", "")))]
        found.extend((at, rooted(p, folders.of_file(at, str((p.location or {}).get("file", "")))))
                     for at, p in _tracebacks(text, run.exit_code))
        for rule in self.spec.rules:
            if not run.failed and not rule.on_success and rule.severity == "error":
                continue
            for m in rule.pattern.finditer(text):
                problem = self._own_problem(rule, m, run)
                found.append((m.start(), _renamed(rooted(problem, _folder_of(problem, m, folders)), problem,
                                                  run.cwd)))
        found.sort(key=lambda item: item[0])
        missing = {(p.extra or {}).get("target") for _, p in found if p.code == "MAKE_NO_RULE"}
        return [_separator_fix(_directory_fix(p, run.argv), run.cwd) for p in _explained([p for _, p in found])
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
            "compiler": {"errors": sum(p.severity == "error" and p.code != "GCC_LINK_FAILED" for p in compiled),
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
            recipe = next((p.detail for p in base.problems if p.code == "MAKE_RECIPE_FAILED"), None)
            errors = counted(data["compiler"]["errors"], data["compiler"]["warnings"], "compiler error")
            summary = f"make: {recipe} ({errors})" if recipe else f"make: {errors}"
            return base._replace(data=data, summary=summary)
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
