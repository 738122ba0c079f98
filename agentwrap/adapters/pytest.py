"""pytest (`pytest`, `py.test`; `python -m pytest` via the python adapter): counts and failing tests as data,
each failing test, test error and collection error a located problem, and exit codes 2-5 explained.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from collections.abc import Callable
from typing import Any

from agentwrap.adapters import _pytest_parse, _pytest_warnings, python_paths
from agentwrap.adapters._pytest_parse import Report
from agentwrap.adapters.python_errors import ErrorInfo, module_not_found
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
    problem,
)

DOCS = "https://docs.pytest.org/en/stable/"
#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "pytest.spec.toml")
_SPEC = Spec.from_toml(SPEC_FILE)

#: Options of well-known plugins: `unrecognized arguments: --cov` means the plugin is not installed.
PLUGIN_OPTIONS = {"--cov": "pytest-cov", "-n": "pytest-xdist", "--numprocesses": "pytest-xdist", "--dist":
                  "pytest-xdist", "--timeout": "pytest-timeout", "--reruns": "pytest-rerunfailures", "--benchmark":
                  "pytest-benchmark", "--asyncio-mode": "pytest-asyncio", "--html": "pytest-html", "--randomly":
                  "pytest-randomly", "--mypy": "pytest-mypy", "--hypothesis": "hypothesis", "--django": "pytest-django",
                  "--ds": "pytest-django", "--env": "pytest-env", "--snapshot-update": "syrupy", "--record-mode":
                  "pytest-recording", "--testmon": "pytest-testmon", "--json-report": "pytest-json-report"}
#: Fixtures that plugins provide: `fixture 'mocker' not found` means pytest-mock is missing.
PLUGIN_FIXTURES = {"mocker": "pytest-mock", "benchmark": "pytest-benchmark", "httpx_mock": "pytest-httpx",
                   "requests_mock": "requests-mock", "freezer": "pytest-freezer", "snapshot": "syrupy",
                   "faker": "Faker", "event_loop": "pytest-asyncio", "aioresponses": "aioresponses",
                   "respx_mock": "respx", "db": "pytest-django", "client": "pytest-django", "datadir": "pytest-datadir",
                   "vcr": "pytest-recording", "xprocess": "pytest-xprocess", "loop": "pytest-aiohttp"}
_FACTS: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="PYTEST_TEST_FAILED", title="pytest: test failed", category="validation", status=422),
    ProblemCode(code="PYTEST_TEST_ERROR", title="pytest: test set-up or tear-down failed", category="precondition",
                status=412),
    ProblemCode(code="PYTEST_FIXTURE_NOT_FOUND", title="pytest: fixture not found", category="not_found", status=404),
    ProblemCode(code="PYTEST_COLLECTION_ERROR", title="pytest: test module could not be collected",
                category="validation", status=422),
    ProblemCode(code="PYTEST_IMPORT_ERROR", title="pytest: test module failed to import", category="dependency",
                status=424, retryable=True),
    ProblemCode(code="PYTEST_NO_TESTS", title="pytest: no tests collected", category="not_found", status=404),
    ProblemCode(code="PYTEST_ALL_DESELECTED", title="pytest: every collected test was deselected",
                category="not_found", status=404),
    ProblemCode(code="PYTEST_PLUGIN_MISSING", title="pytest: option of a plugin that is not installed",
                category="dependency", status=424, retryable=True),
    ProblemCode(code="PYTEST_CONFTEST_ERROR", title="pytest: conftest.py failed to import", category="dependency",
                status=424, retryable=True),
    ProblemCode(code="PYTEST_INTERNAL_ERROR", title="pytest: internal error (a plugin or hook raised)",
                category="internal", status=500),
)}
_UNRECOGNIZED = lazy(r"^[\w.-]+: error: unrecognized arguments: (?P<args>.+)$", re.M)
_VERSION = lazy(r"^pytest (\d+\.\d+\S*)$", re.M)
# The short summary's lines of tests that did not fail, printed only when the caller asks (`-rA`, `-rpsx`):
# each says one test's outcome, which the failures' words must not be taken to restate.
# -v names each test before it runs and its outcome after: a last line that is a node id alone is the test
# that was running when the run was stopped (a timeout, a signal), the one to look at.
_RUNNING = lazy(r"^(?P<nodeid>[^\s:]+\.py::\S.*?)\s*$")
_ASKED_OUTCOME = lazy(r"^(?:PASSED|XFAIL|XPASS|SKIPPED) \S.*$", re.M)
_READ_FLAGS = {"--co", "--collect-only", "--version", "-V", "--help", "-h", "--fixtures", "--markers",
               "--fixtures-per-test"}


def _ran_alone(argv: tuple[str, ...], nodeid: str) -> bool:
    """The command line selected this one test and no other test path."""
    paths = [a for a in argv[1:] if not a.startswith("-") and ("::" in a or a.endswith(".py") or "/" in a)]
    return paths == [nodeid]


# What a re-run of one test leaves out of the caller's options: those that chose which tests ran (the node
# id chooses now), stop early or re-order, stop in the debugger, or write a report of the whole run (one
# test's run would overwrite it, and coverage's threshold would fail it). The rest, which decide how tests
# are found and run (--doctest-modules, -p, -c, --rootdir, -o, --import-mode), stay: without them the id
# may not exist.
_RERUN_DROPS = {"-k", "-m", "--deselect", "--maxfail", "--lfnf", "--last-failed-no-failures", "--ignore",
                "--ignore-glob", "--junitxml", "--junit-xml", "--html", "--report-log", "--json-report-file",
                "--cov-fail-under", "--cov-report", "--cov", "--cov-config", "--cov-append"}
_RERUN_DROP_FLAGS = {"-x", "--exitfirst", "--lf", "--last-failed", "--ff", "--failed-first", "--nf",
                     "--new-first", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip", "--pdb", "--trace",
                     "--json-report", "--co", "--collect-only"}
_QUIET_OR_VERBOSE = lazy(r"^(?:-[qv]+|--quiet|--verbose|--verbosity(?:=.*)?)$")


def rerun_command(argv: tuple[str, ...], nodeid: str) -> tuple[str, ...]:
    """The caller's command for one test: its options less those `_RERUN_DROPS` names, its paths and node ids
    replaced by `nodeid`, and `-q` unless it chose a verbosity."""
    kept: list[str] = []
    args = list(argv[1:])
    i = 0
    while i < len(args):
        arg = args[i]
        takes_value = "=" not in arg and arg in _SPEC.options_with_value
        words = args[i:i + 2] if takes_value else [arg]
        i += len(words)
        if not arg.startswith("-") or arg == "--":
            continue  # a path or node id: the re-run names its own
        if arg.split("=", 1)[0] not in _RERUN_DROPS | _RERUN_DROP_FLAGS:
            kept += words
    quiet = () if any(_QUIET_OR_VERBOSE.match(arg) for arg in kept) else ("-q",)
    return (argv[0], *kept, nodeid, *quiet)


def _problem(code: str, detail: str, run: CapturedRun, *, fix: str | None, location: dict[str, Any] | None = None,
             actions: tuple[CodeAction, ...] = (), extra: dict[str, Any] | None = None,
             docs: str | None = None) -> Problem:
    return problem("pytest", _FACTS[code], detail, exit_code=run.exit_code, suggested_fix=fix, docs_url=docs,
                   code_actions=actions, location=location, extra=extra)


def _installer(run: CapturedRun) -> tuple[str, ...]:
    prog = run.argv[0]
    python = prog.rsplit("/", 1)[0] + "/python" if "/" in prog else "python3"
    return (python, "-m", "pip", "install")


def _missing(run: CapturedRun, message: str, file: str | None) -> ErrorInfo | None:
    """ModuleNotFoundError's facts; for the project's own module (`./pkg/` while pytest put the test's
    folder on sys.path) the fix is the path, and `pip install NAME`, a stranger's package, is not offered."""
    info = module_not_found(message, _installer(run))
    module = info.extra.get("module") if info else None
    if info is None or run.cwd is None or not isinstance(module, str):
        return info
    local = python_paths.find(module, python_paths.starts(run.cwd, file))
    if local is None:
        return info
    fix, actions, facts = python_paths.pytest_fix(local, run.argv, run.cwd, _installer(run))
    extra = {k: v for k, v in info.extra.items() if k not in ("distribution", "distribution_guess")}
    return dataclasses.replace(info, suggested_fix=fix, code_actions=actions, extra={**extra, **facts})


def _sides(message: str) -> set[str]:
    """The two values a failed comparison names: `[1, 2]` and `[1, 3]` of `assert [1, 2] == [1, 3]` or of
    unittest's `Lists differ: [1, 2] != [1, 3]`; a string's also without its quotes, as pytest's diff
    shows it (`- hello there`)."""
    sides: set[str] = set()
    for op in (" != ", " == "):
        if op in message:
            left, right = message.split(op, 1)
            for side in (left.rsplit(": ", 1)[-1].removeprefix("assert ").strip(), right.strip()):
                sides.add(side)
                if len(side) >= 2 and side[0] == side[-1] and side[0] in "'\"":
                    sides.add(side[1:-1])
    return sides - {""}


_SYNTAX_AT = lazy(r'^File "(?P<file>[^"]+)", line (?P<line>\d+)$')


def _names_location(body: str, r: Report) -> bool:
    """A SyntaxError's `File "PATH", line N` that is the problem's location again."""
    at = _SYNTAX_AT.match(body)
    return bool(at and r.file and r.line == int(at["line"]) and (at["file"] == r.file or at["file"].endswith(
        "/" + r.file)))


def _evidence(r: Report) -> list[str]:
    """The report's evidence less what its message and location already say: the `E` line that is the
    message itself, a diff's `- ` and `+ ` lines that are the two sides the message compares (with the
    `?` lines that mark them), and the closing `file:line: ExceptionType` of the test's own frame."""
    own = f"{r.file}:{r.line}: " if r.file and r.line else None
    sides = _sides(r.message)
    kept: list[str] = []
    marked = False  # the last line was a side left out: its `?   ^` marker line goes too
    for line in r.evidence:
        body = line[1:].strip() if line.startswith("E ") else None
        if body and (body in r.message or _names_location(body, r)):
            continue
        if body is not None and (body[:2] in ("- ", "+ ") and body[2:].strip() in sides
                                 or marked and body.startswith("? ")):
            marked = True
            continue
        marked = False
        if own and line.startswith(own) and line[len(own):].strip() == (r.exception or ""):
            continue
        kept.append(line)
    return kept


_XPASS_STRICT = "[XPASS(strict)]"
_XPASS_FIX = ("The test is expected to fail (xfail strict) and passed: if what it waits for is fixed, remove its "
              "xfail mark; if not, the test no longer shows the bug: make it fail again.")

CAPTURED_LINES = 20  # of each captured section a problem carries: its last lines, nearest the failure
CAPTURED_WIDTH = 300


def _captured(r: Report) -> tuple[dict[str, list[str]], dict[str, int]]:
    """What the test printed and logged, by pytest's section name (`stdout call`, `log call`): a fact of
    its failure, carried by its problem; and, for a long section, how many of its first lines it leaves
    out (`captured_omitted`: the run's artifact has them). Each section keeps its last lines, nearest the
    failure."""
    out: dict[str, list[str]] = {}
    omitted: dict[str, int] = {}
    for name, lines in r.captured:
        if lines:
            out[name] = [*out.get(name, []), *(line[:CAPTURED_WIDTH] for line in lines[-CAPTURED_LINES:])]
        if len(lines) > CAPTURED_LINES:
            omitted[name] = omitted.get(name, 0) + len(lines) - CAPTURED_LINES
    return out, omitted


def _from_report(r: Report, run: CapturedRun, failed_too: bool = False) -> Problem:
    """The problem of one report; `failed_too`: the test also failed in its call (for a tear-down error)."""
    location = {"file": r.file, **({"line": r.line} if r.line else {})} if r.file else None
    captured, captured_omitted = _captured(r)
    extra = {k: v for k, v in (("nodeid", r.nodeid), ("when", r.when), ("exception", r.exception),
                               ("crash", r.crash), ("evidence", _evidence(r)), ("captured", captured),
                               ("captured_omitted", captured_omitted)) if v}
    rerun = (CodeAction(title="Re-run only this test", command=rerun_command(run.argv, r.nodeid),
                        applicability="machine_applicable"),) if r.nodeid and r.when != "collect" else ()
    if r.nodeid and _ran_alone(run.argv, r.nodeid):
        rerun = ()  # the caller just ran only this test: running it again is their own command
    where = f" at {r.file}:{r.line}" if r.file and r.line else ""
    if r.outcome == "failed":
        # Where the exception was raised is a fact the location does not give; "fix the code or the test at
        # the location" is none, so a failure raised in the test itself carries no fix.
        fix = (f"Fix the code under test or the test; the exception was raised at {r.crash['file']}:"
               f"{r.crash['line']}." if r.crash else None)
        said = f": {r.message}" if r.message else ""  # a failure block cut before its message says none
        if r.message.startswith(_XPASS_STRICT):  # it passed: "failed: [XPASS(strict)]" reads as a broken test
            why = r.message[len(_XPASS_STRICT):].strip()
            said, fix = f" passed, but is marked xfail(strict=True){f': {why}' if why else ''}", _XPASS_FIX
            return _problem("PYTEST_TEST_FAILED", f"{r.nodeid or r.title}{said}", run, location=location,
                            fix=fix, actions=rerun, extra=extra)
        return _problem("PYTEST_TEST_FAILED", f"{r.nodeid or r.title} failed{said}", run, location=location,
                        fix=fix, actions=rerun, extra=extra)
    if r.fixture:
        plugin = PLUGIN_FIXTURES.get(r.fixture)
        actions = (CodeAction(title=f"Install {plugin} (provides fixture '{r.fixture}')",
                              command=(*_installer(run), plugin), applicability="maybe_incorrect"),) if plugin else ()
        fix = (f"Define fixture '{r.fixture}' (in the test module or a conftest.py), fix its spelling, or install the "
               "plugin that provides it; `pytest --fixtures` lists the available ones.")
        return _problem("PYTEST_FIXTURE_NOT_FOUND", f"{r.nodeid or r.title}: fixture '{r.fixture}' not found", run,
                        location=location, fix=fix, actions=actions, extra={**extra, "fixture": r.fixture},
                        docs=DOCS + "how-to/fixtures.html")
    if r.when == "collect":
        info = _missing(run, r.message, r.file) if r.exception == "ModuleNotFoundError" else None
        code = "PYTEST_IMPORT_ERROR" if r.exception in ("ModuleNotFoundError", "ImportError") else \
            "PYTEST_COLLECTION_ERROR"
        fix = info.suggested_fix if info and info.suggested_fix else _collection_fix(r)
        if code == "PYTEST_IMPORT_ERROR" and not info:
            fix = (f"{r.message}: fix the import{where}; for the project's own package, install it (`pip install "
                   "-e .`) or set `pythonpath` in the pytest configuration.")
        return _problem(code, f"cannot collect {r.nodeid or r.file}: {r.message}", run, location=location, fix=fix,
                        actions=info.code_actions if info else (), extra={**extra, **(info.extra if info else {})})
    return _problem("PYTEST_TEST_ERROR", f"{r.nodeid or r.title}: error at {r.when or 'set-up'}: {r.message}", run,
                    location=location, fix=_error_fix(r, where, failed_too), actions=rerun, extra=extra,
                    docs=DOCS + "how-to/fixtures.html")


def _collection_fix(r: Report) -> str | None:
    """What to do about a module that could not be collected, when there is more to say than its message
    and location do (a syntax error there says it all: no fix)."""
    if r.message.startswith(_pytest_parse.MISMATCH):
        return ("Two test files share this module name: give them unique basenames, or add an "
                "`__init__.py` to each test folder (or run with `--import-mode=importlib`); if the other "
                "file is gone, remove its stale `__pycache__`.")
    return None


def _error_fix(r: Report, where: str, failed_too: bool) -> str:
    """A set-up error means the test never ran; a tear-down error comes after the test ran (and maybe
    passed): the fix points at the tear-down code, and says how the test itself ended."""
    code = f" in {r.function}()" if r.function else ""
    if r.when != "teardown":
        return f"Fix the set-up code{code}{where}; the test itself did not run."
    ended = "failed too (its own problem)" if failed_too else "did not fail"
    return (f"The test ran and {ended}; then a fixture's tear-down raised: fix the tear-down code{code}"
            f"{where} (after the fixture's `yield`, or in its finalizer).")


def _relative(location: dict[str, Any] | None, text: str) -> dict[str, Any] | None:
    return {**location, "file": _pytest_parse.relative(location["file"], text)} if location else None


def _run_level(run: CapturedRun, data: dict[str, Any]) -> list[Problem]:
    found = []
    args = list(run.argv[1:])
    if run.exit_code == 5:
        found.append(_all_deselected(run, data, args) if data.get("deselected") else _no_tests(run, args))
    text = run.text()
    if run.exit_code == 4 and (conftest := _pytest_parse.conftest_error(text)) is not None:
        info = _missing(run, conftest.message, conftest.file) if conftest.exception == "ModuleNotFoundError" \
            else None
        location = {"file": conftest.file, **({"line": conftest.line} if conftest.line else {})} \
            if conftest.file else None
        found.append(_problem(
            "PYTEST_CONFTEST_ERROR", f"{conftest.title} failed to import: {conftest.message}", run, location=location,
            fix=(info.suggested_fix if info and info.suggested_fix else
                 f"Fix the import in {conftest.file or 'conftest.py'}: {conftest.message}."),
            actions=info.code_actions if info else (),
            extra={"exception": conftest.exception, **(info.extra if info else {})},
        )._replace(matched=_pytest_parse.conftest_block(text)))
    if run.exit_code == 3 and (exc := _pytest_parse.internal_error(text)) is not None:
        found.append(_problem(
            "PYTEST_INTERNAL_ERROR", f"INTERNALERROR {exc.headline()}", run, location=_relative(exc.location(), text),
            fix="A plugin or a conftest hook raised: fix the code at the location, or disable the plugin with "
                "`-p no:NAME`.", extra={"exception": exc.type}))
    for match in _UNRECOGNIZED.finditer(text) if run.exit_code == 4 else ():
        for option in match.group("args").split():
            plugin = PLUGIN_OPTIONS.get(option.split("=", 1)[0])
            if plugin:
                found.append(_problem(
                    "PYTEST_PLUGIN_MISSING", f"pytest does not know {option}: it comes from {plugin}, not installed",
                    run, extra={"option": option, "plugin": plugin},
                    fix=f"Install {plugin} into the environment that runs pytest, or drop {option}.",
                    actions=(CodeAction(title=f"Install {plugin}", command=(*_installer(run), plugin),
                                        applicability="maybe_incorrect", is_preferred=True),),
                )._replace(matched=match.group(0)))
    return found


_SELECTORS = ("-k", "-m", "--deselect")  # the options that deselect collected tests
_VERBOSITY = lazy(r"^(?:-[qv]+|--quiet|--verbose|-x|--exitfirst)$")


def _selections(args: list[str]) -> list[tuple[str, str]]:
    """The caller's -k/-m/--deselect options with their values, in order: `-k EXPR`, `-kEXPR`, `-k=EXPR`."""
    out = []
    for i, arg in enumerate(args):
        for option in _SELECTORS:
            if arg == option and i + 1 < len(args):
                out.append((option, args[i + 1]))
            elif _joined(arg, option):
                out.append((option, arg[len(option):].removeprefix("=")))
    return out


def _joined(arg: str, option: str) -> bool:
    """`-k=EXPR`, `--deselect=ID`, or a short option with its value in the same word (`-kEXPR`)."""
    return arg.startswith(option + "=") or (len(option) == 2 and arg.startswith(option) and arg != option)


def _without_selection(args: list[str]) -> list[str]:
    """`args` less the selection options (and their values) and the verbosity `--collect-only -q` sets."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in _SELECTORS:
            skip = True
        elif not any(_joined(arg, o) for o in _SELECTORS) and not _VERBOSITY.match(arg):
            out.append(arg)
    return out


def _list_action(run: CapturedRun, args: list[str], title: str) -> CodeAction:
    return CodeAction(title=title, command=(run.argv[0], "--collect-only", "-q", *args),
                      applicability="machine_applicable")


def deselected_by(argv: tuple[str, ...]) -> str:
    """` by -k`, ` by -k and -m`: the caller's options that deselected tests; empty when none did."""
    options = list(dict.fromkeys(option for option, _ in _selections(list(argv[1:]))))
    return f" by {' and '.join(options)}" if options else ""


def _all_deselected(run: CapturedRun, data: dict[str, Any], args: list[str]) -> Problem:
    """Exit 5 with tests collected and all deselected: the selection, not discovery, is what to check."""
    n = data["deselected"]
    chosen = _selections(args)
    said = " and ".join(f"{option} {shlex.quote(value)}" for option, value in chosen)
    tests = "the 1 collected test" if n == 1 else f"all {n} collected tests"
    detail = f"{said} deselected {tests}" if chosen else f"{tests} deselected (by configuration or a plugin)"
    checks = []
    if any(option == "-k" for option, _ in chosen):
        checks.append("-k matches substrings of a test's name, class and module, case-insensitively, "
                      "combined with and/or/not")
    if any(option == "-m" for option, _ in chosen):
        checks.append("-m matches the tests' markers (@pytest.mark.NAME; `pytest --markers` lists them)")
    fix = (f"Check the expression: {'; '.join(checks)}. `pytest --collect-only -q` without it lists the "
           "names." if checks else "Check the --deselect node ids, and -k/-m in the configuration's addopts "
           "(or a plugin that deselects); `pytest --collect-only -q` lists what is collected.")
    return _problem("PYTEST_ALL_DESELECTED", detail, run, fix=fix,
                    docs=DOCS + "how-to/usage.html#specifying-which-tests-to-run",
                    actions=(_list_action(run, _without_selection(args),
                                          "List the collected tests, without the selection"),))


def _no_tests(run: CapturedRun, args: list[str]) -> Problem:
    """Exit 5 with nothing collected: discovery found no tests where it looked."""
    where = " ".join(_paths(args)) or "the current folder"
    return _problem(
        "PYTEST_NO_TESTS", f"pytest collected no tests from {where}", run,
        docs=DOCS + "explanation/goodpractices.html#test-discovery",
        fix="Check the paths. pytest collects test_*.py or *_test.py files, test_* functions and Test* "
            "classes (python_files/python_functions/testpaths in the configuration).",
        actions=(_list_action(run, _without_selection(args), "List what pytest collects"),))


def _diagnostics(run: CapturedRun) -> list[Problem]:
    data, found = _pytest_parse.parse_reports(run.text())
    rank = {"collect": 0, "call": 1}  # collection errors, then failed tests, then set-up/tear-down errors
    ordered = sorted(found, key=lambda r: rank.get(r.when or "", 2))
    failed = {r.nodeid for r in found if r.outcome == "failed" and r.nodeid}
    said = _said_lines(run.text())
    return [_from_report(r, run, r.nodeid in failed)._replace(matched=said(r)) for r in ordered] + \
        _run_level(run, data)


def _said_lines(text: str) -> Callable[[Report], str]:
    """The lines a report's problem says again: its failure block whole, and its short-summary line
    (`ERROR tests/test_imp.py`); they are not repeated inline."""
    blocks = _pytest_parse.failure_blocks(text)
    summary = _pytest_parse.summary_lines(text)
    return lambda r: "\n".join([blocks.get(r.title, ""), *summary.get(r.nodeid or "", [])])


def _paths(args: list[str]) -> list[str]:
    """The positional arguments (paths, node ids), skipping the values of options that take one."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in _SPEC.options_with_value
        else:
            out.append(arg)
    return out


class PytestAdapter(BaseAdapter):
    codes = tuple(_FACTS.values())
    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)

    def parse(self, run: CapturedRun) -> Any:
        text = run.text()
        data = _pytest_parse.parse(text)
        if data.get("warnings_summary") and run.cwd:  # -q prints no rootdir: paths under the run's folder
            data["warnings_summary"] = [_pytest_warnings.relative_to(w, run.cwd) for w in data["warnings_summary"]]
        if data.get("failures") or "duration_ms" in data or "collected" in data:
            return data
        version = _VERSION.search(text)
        return {"version": version.group(1)} if version else None

    def effects(self, argv: list[str]) -> Effects:
        if _READ_FLAGS.intersection(a.split("=", 1)[0] for a in argv[1:]):
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        return super().effects(argv)  # tests can do anything: unknown

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        counts = _outcome(data, run.argv)
        return f"pytest: {counts}" if counts else None

    def interpret(self, run: CapturedRun) -> Interpretation:
        interp = super().interpret(run)
        problems = interp.problems
        if any(p.code == "PYTEST_PLUGIN_MISSING" for p in problems):
            problems = tuple(p for p in problems if p.code != "PYTEST_USAGE")
        error = interp.error
        if error is not None and error.code == "PYTEST_USAGE" and problems and problems[0].code != "PYTEST_USAGE":
            error = problems[0]
        counts = _outcome(interp.data, run.argv)
        ran = isinstance(interp.data, dict) and any(interp.data.get(k) for k in ("failed", "passed", "errors"))
        # With the counts, the summary says what the error does not: the failure itself is said once, there.
        failing = isinstance(interp.data, dict) and any(interp.data.get(k) for k in ("failed", "errors"))
        summary = interp.summary
        if error is not None and error.code == "PYTEST_ALL_DESELECTED":
            # pytest's own count, and what deselected them (the error's detail says the expression)
            summary = f"pytest: {counts.replace(' deselected', ' deselected' + deselected_by(run.argv), 1)}"
        if error is not None and ran:
            summary = f"pytest: {counts}" if failing else f"pytest: {counts}; {error.detail}"
        kept = (*interp.kept_lines, *_ASKED_OUTCOME.findall(run.stdout_text))
        data = interp.data
        if (running := _running(run)) and (data is None or isinstance(data, dict)):
            data = {**(data or {}), "running": running}
        return interp._replace(problems=problems, error=error, summary=summary[:300], kept_lines=kept, data=data)


def _running(run: CapturedRun) -> str | None:
    """The test -v had named and not yet ended when pytest was stopped from outside (a signal, a timeout)."""
    if run.signal is None and run.exit_code is not None:
        return None
    last = next((line for line in reversed(run.stdout_text.splitlines()) if line.strip()), "")
    match = _RUNNING.match(last)
    return match["nodeid"] if match else None


def _outcome(data: Any, argv: tuple[str, ...] | list[str]) -> str:
    """The counts, and that the run stopped early when it did: the counts alone read as a whole run. A stop
    the caller asked for on the command line (`-x`, `--maxfail`) is theirs to know; one from the
    configuration's addopts, or from collection errors, is said."""
    counts = _counts(data)
    stopped = data.get("stopped") if isinstance(data, dict) else None
    if stopped and "(-x/--maxfail)" in stopped and _asks_to_stop(argv):
        stopped = None
    return f"{counts}; stopped {stopped}" if counts and stopped else counts


def _asks_to_stop(argv: tuple[str, ...] | list[str]) -> bool:
    # `-qx` is -q -x; `-rx` is not (-r takes the letters after it)
    return any(a in ("-x", "--exitfirst") or a.startswith("--maxfail")
               or (a[:1] == "-" and len(a) > 2 and "x" in a and set(a[1:]) <= set("qvxsl")) for a in argv[1:])


def _counts(data: Any) -> str:
    """pytest's own final line: `3 failed, 2 passed, 1 skipped, 1 warning, 2 errors in 0.05s`."""
    if not isinstance(data, dict):
        return ""
    if "tests" in data and not any(data.get(k) for k in _pytest_parse.COUNT_KEYS):
        return f"{data.get('collected', len(data['tests']))} tests collected"
    order = ("failed", "passed", "skipped", "deselected", "xfailed", "xpassed", "warnings", "errors")
    parts = [f"{data[k]} {k[:-1] if k in ('warnings', 'errors') and data[k] == 1 else k}" for k in order if data.get(k)]
    text = ", ".join(parts) or ("no tests ran" if "duration_ms" in data else "")
    return f"{text} in {data['duration_ms'] / 1000:.2f}s" if text and "duration_ms" in data else text


ADAPTER: Adapter = PytestAdapter(_SPEC)
