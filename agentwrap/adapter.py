"""The adapter seam: what a per-tool adapter receives and returns (CONTRACT section 6).

Adapters are pure: they read a finished, captured run and return facts. They never start a process.
`BaseAdapter` holds the defaults and the declarative engine (rules, prompts, effects from a spec, see
`agentwrap.spec`), so a TOML adapter is data only and a Python adapter adds just its parsers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from agentwrap.lazyre import lazy
from agentwrap.problem import wrapper_problem
from agentwrap.records import CapturedRun as CapturedRun  # re-exported: the old import path
from agentwrap.records import CodeAction, Problem, ProblemCode
from agentwrap.records import Effects as Effects  # re-exported: the old import path
from agentwrap.records import Interpretation as Interpretation  # re-exported: the old import path
from agentwrap.records import Presentation as Presentation  # re-exported: the old import path

if TYPE_CHECKING:
    from agentwrap.spec import Spec


def presentation_of(adapter: Adapter, argv: list[str]) -> Presentation:
    """The adapter's presentation of this invocation, or the plain one for an adapter written before it."""
    method = getattr(adapter, "presentation", None)
    return method(argv) if callable(method) else Presentation()


def launched_command(adapter: Adapter, argv: list[str]) -> list[str] | None:
    """The command line a launcher's argv names (`npx tsc -p .` -> tsc -p .); None for any other tool,
    and for an adapter written before launchers were."""
    method = getattr(adapter, "inner_command", None)
    return method(argv) if callable(method) else None


def launched_commands(adapter: Adapter, run: CapturedRun) -> list[list[str]]:
    """The command lines a launcher's run ran, in the order it ran them (`npm run build`'s script); [] for
    any other tool."""
    method = getattr(adapter, "inner_commands_of", None)
    return method(run) if callable(method) else []


def scripted_commands(adapter: Adapter, argv: list[str], cwd: str) -> list[list[str]]:
    """Before a run, the commands a script runner's argv will run (`npm run build` -> package.json's `tsc`);
    [] for any other tool."""
    method = getattr(adapter, "script_commands", None)
    found = method(argv, cwd) if callable(method) else []
    return found if isinstance(found, list) else []


Finder = Callable[[str], "Adapter | None"]
_FINDER: list[Finder] = []


def find_inner_with(find: Finder) -> None:
    """Who serves a launched command's program (`npx tsc`'s tsc): the registry names itself here when it is
    imported, as the rooms that read a run may not import it (docs/architecture.md)."""
    _FINDER[:] = [find]


def inner_adapter(program: str) -> Adapter | None:
    """The adapter serving a launched program, or None when only the generic one would (or no registry
    was imported: then no adapter was chosen through it either)."""
    return _FINDER[0](program) if _FINDER else None


class Adapter(Protocol):
    """What the runner and the CLI ask of an adapter. `BaseAdapter` implements all of it, and the optional
    members the helpers above read (`presentation`; a launcher's `inner_command`, `inner_commands_of`)."""

    @property
    def name(self) -> str: ...
    def matches(self) -> tuple[str, ...]: ...
    def descriptor(self) -> dict[str, Any]: ...
    def environment(self, argv: list[str]) -> dict[str, str]: ...
    def subcommand(self, argv: list[str]) -> str | None: ...
    def effects(self, argv: list[str]) -> Effects: ...
    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]: ...
    def interpret(self, run: CapturedRun) -> Interpretation: ...
    def find_problems(self, run: CapturedRun) -> list[Problem]: ...
    def problem_codes(self) -> list[str]: ...
    def declarations(self) -> list[ProblemCode]: ...


_GENERIC: list[Spec] = []


def generic_spec() -> Spec:
    """Rules for any program (adapters/generic.toml), loaded the first time a run needs them."""
    if not _GENERIC:
        from agentwrap.spec import Spec

        _GENERIC.append(Spec.from_toml(os.path.join(os.path.dirname(__file__), "adapters", "generic.toml")))
    return _GENERIC[0]


def program_name(argv0: str) -> str:
    return os.path.basename(argv0)


_ERROR_LINE = lazy(r"\b(error|fatal|failed|failure|exception|denied|refused|not found|cannot|panic)\b",
                   flags=2)  # re.IGNORECASE


def last_error_line(run: CapturedRun) -> str | None:
    """The line most likely to say why a run failed: the last error-looking line, else the last line that
    is not only a pointer to the help (`Try 'ls --help' for more information.`)."""
    for stream in (run.stderr, run.stdout):
        candidates = [*(text for _, text in stream.salient), *stream.tail]
        for line in reversed(candidates):
            if _ERROR_LINE.search(line) and line.strip():
                return line.strip()
    for stream in (run.stderr, run.stdout):
        for line in reversed(stream.tail):
            if line.strip() and not _HELP_POINTER.match(line):
                return line.strip()
    return None


_HELP_POINTER = lazy(r"\s*(?:Try|Run|See|For more information,? try) [`'\"]?[\w./ -]*--help\b")


Parser = Callable[[CapturedRun], Any]


def merge_codes(*groups: Iterable[ProblemCode]) -> list[ProblemCode]:
    """Declarations of several sources as one list, each code once (the first declaration wins)."""
    seen: dict[str, ProblemCode] = {}
    for group in groups:
        for declared in group:
            seen.setdefault(declared.code, declared)
    return list(seen.values())


class BaseAdapter:
    """Defaults for every adapter, driven by an optional declarative `spec`.

    Subclasses (Python adapters) set `spec` (a `Spec`, usually loaded from a dict or TOML) and may add
    `parsers` (subcommand -> function of the captured run returning `data`) and `diagnostics` (a
    function returning located problems, e.g. compiler messages).
    """

    spec: Spec | None = None
    codes: tuple[ProblemCode, ...] = ()  # the problem codes the Python of this adapter emits (not its rules')
    parsers: dict[str, Parser] = {}  # noqa: RUF012 - class-level table, never mutated
    # The summary of a run that failed with located errors is `summarize`'s counts ("mypy: 2 errors in 2
    # files"), not the deciding problem's detail again: the error says which one decides.
    summarize_failures = False

    def __init__(self, spec: Spec | None = None) -> None:
        if spec is not None:
            self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name if self.spec else "generic"

    def matches(self) -> tuple[str, ...]:
        return self.spec.matches if self.spec else ()

    def descriptor(self) -> dict[str, Any]:
        described = (self.spec or generic_spec()).describe()
        described["problem_codes"] = self.problem_codes()
        return described

    def environment(self, argv: list[str]) -> dict[str, str]:
        return dict(self.spec.env) if self.spec else {}

    def subcommand(self, argv: list[str]) -> str | None:
        return self.spec.subcommand_of(argv) if self.spec else None

    def effects(self, argv: list[str]) -> Effects:
        return self.spec.effects_of(self.subcommand(argv)) if self.spec else Effects()

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        if not self.spec:
            return None, []
        return self.spec.prompt_help(argv, self.subcommand(argv), prompt, input_kind, self.argv_values(argv))

    def argv_values(self, argv: list[str]) -> dict[str, str]:
        """The values the spec's `argv_values` names, read off the command line (ssh's `{host}` and `{port}`
        from `-p 2222 user@host`), for its templates; one left out leaves the actions naming it out."""
        return {}

    def presentation(self, argv: list[str]) -> Presentation:
        return self.spec.presentation(self.subcommand(argv)) if self.spec else Presentation()

    def inner_command(self, argv: list[str]) -> list[str] | None:
        """A launcher's (`npx tsc -p .`, `uv run pytest`): the command line its argv names, whose adapter
        then reads the run and lends its environment and effects. The spec's `[launcher]` table says how."""
        return self.spec.inner_command(argv) if self.spec else None

    def inner_commands_of(self, run: CapturedRun) -> list[list[str]]:
        """The command lines a launcher's run ran, for their adapters to read: the one its argv names, or
        (overridden) what its output says it ran (npm's `> tsc -p .` script header)."""
        inner = self.inner_command(list(run.argv))
        return [inner] if inner else []

    def declarations(self) -> list[ProblemCode]:
        """Every problem code this adapter can emit: its spec's rules, the codes its Python declares
        (`codes`), and the generic rules any run falls back to. `describe`, `explain` and docs/problems.md
        read these; tests/test_problem_types.py checks every fixture's problems against them."""
        from agentwrap.logs.format_index import PROGRAMS  # a tool with a declarative diagnostic format too

        formats: list[ProblemCode] = []
        if self.name in PROGRAMS:
            from agentwrap.logs.formats import diagnostic_code

            formats.append(diagnostic_code(self.name))
        return merge_codes(self.spec.declarations() if self.spec else (), self.codes, formats,
                           generic_spec().declarations())

    def problem_codes(self) -> list[str]:
        return sorted({d.code for d in self.declarations()})

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        """Located problems a parser finds (compiler messages, failed tests); override in Python adapters."""
        return []

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        """A one-line summary of a successful run; None for the generic one."""
        return None

    def parse(self, run: CapturedRun) -> Any:
        parser = self.parsers.get(run.subcommand or "") or self.parsers.get("*")
        if parser is None or run.failed:
            return None
        return parser(run)

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        """Every diagnostic this adapter recognises in the run's text (live runs and saved logs alike)."""
        problems = list(self.diagnostics(run))
        if self.spec:
            problems.extend(self.spec.match_rules(run, from_argv=self.argv_values(list(run.argv))))
        from agentwrap.logs.format_index import PROGRAMS

        if self.name in PROGRAMS:  # the tool's declarative format (agentwrap/formats/NAME.toml)
            from agentwrap.logs import formats

            problems.extend(formats.problems(formats.for_program(self.name), run.text()))
        return problems

    def interpret(self, run: CapturedRun) -> Interpretation:
        found = self._read(run)
        named = self.spec.secrets_in(run) if self.spec and self.spec.secrets else ()  # the spec's [[secrets]]
        return found.replace(secrets=(*found.secrets, *named)) if named else found

    def _read(self, run: CapturedRun) -> Interpretation:
        prog = program_name(run.argv[0])
        data = self.parse(run)
        problems = self.find_problems(run)
        if run.failed and not any(p.severity == "error" for p in problems):
            problems.extend(generic_spec().match_rules(run))  # common failures of any program
        problems = _dedupe(problems)
        errors = [p for p in problems if p.severity == "error"]
        success_codes = self.spec.success_exit_codes if self.spec else (0,)
        exited_ok = run.signal is None and run.exit_code in success_codes
        fatal_on_success = [p for p in errors if p.extra and p.extra.get("fatal_on_success")]
        if exited_ok and not fatal_on_success:
            summary = self.summarize(run, data)
            return Interpretation(summary=summary or f"{prog} succeeded", problems=tuple(problems), data=data)
        if run.signal is not None and not errors:
            return Interpretation(summary=f"{prog} was killed by signal {run.signal}", problems=tuple(problems),
                                  data=data)
        if errors:
            error = (fatal_on_success or errors)[0]
            # Counts, in our words, when the errors are the tool's located diagnostics: the error's detail
            # is the tool's own line, so a summary that repeated it would say the same fact twice.
            located = any(p.location for p in errors)
            counted = self.summarize(run, data) if self.summarize_failures and located and data is not None else None
            return Interpretation(summary=(counted or error.detail)[:300], error=error, problems=tuple(problems),
                                  data=data, success=False)
        reason = last_error_line(run)
        if (ran_out := _ran_out(run)) is not None:
            return Interpretation(summary=ran_out.detail, error=ran_out, problems=tuple(problems), data=data,
                                  success=False)
        detail = f"{prog} exited with status {run.exit_code}" + (f": {reason}" if reason else " and printed nothing")
        # With no output there is no stream to read: the table's fix would point at text nobody can see.
        silent = {} if reason else {"suggested_fix": f"{prog} printed nothing: see what exit status "
                                    f"{run.exit_code} means in its documentation, or run it again verbose."}
        if prog in ("exit", "return"):  # the shell's own builtin: the line itself chose the status
            detail = f"the line ended with `{prog} {run.exit_code}`" + (f" after: {reason}" if reason else "")
            silent = {"suggested_fix": f"The line chose exit status {run.exit_code} with `{prog}`: the commands "
                                       "before it, or the condition that led to it, say why."}
        error = wrapper_problem("COMMAND_FAILED", detail[:1000], exit_code=run.exit_code, **silent)
        return Interpretation(summary=detail[:300], error=error, problems=tuple(problems), data=data, success=False)


def _ran_out(run: CapturedRun) -> Problem | None:
    """`timeout 30 pytest` that ended with timeout's own 124: the command ran past the limit the line gave
    it, which is no failure of `timeout` and no status of the command's own."""
    from agentwrap import wrappers  # only on a failure nobody explained

    found = wrappers.expired(run.argv, run.exit_code if run.signal is None else None)
    if found is None:
        return None
    import shlex

    command = shlex.join(found.argv)
    if len(command) > 80:
        command = command[:79] + "…"
    limit = found.limit + ("s" if found.limit.replace(".", "", 1).isdigit() else "")
    detail = f"`{command}` was still running when its {limit} limit ran out (`timeout {found.limit}`); timeout ended it"
    return wrapper_problem("COMMAND_TIMED_OUT", detail[:1000], exit_code=run.exit_code)


def _dedupe(problems: list[Problem]) -> list[Problem]:
    """The same diagnostic printed twice (compiler, then make) is one problem; order is kept."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for p in problems:
        loc = p.location or {}
        key = (p.code, loc.get("file"), loc.get("line"), loc.get("column"), p.detail)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
