"""agentwrap adapter for mypy and dmypy: each type error as a located problem with mypy's error code, notes
attached as mypy's own JSON output attaches them, and the summary as counts.

Python rather than TOML: the error code must become a field of its own (`rule`), notes belong to the error
before them, `--pretty` wraps messages over lines, and the counts are data on failure too. mypy's own
failures (usage, configuration, daemon) are declarative rules below.
"""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters import _mypy_parse as mp
from agentwrap.lazyre import lazy
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, CodeAction, Effects, Problem, ProblemCode, Spec, problem

DOCS = "https://mypy.readthedocs.io/en/stable/"
_CODE_DOCS = "https://mypy.rtfd.io/en/stable/_refs.html#code-"  # mypy's own "See ... for more info" links

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "mypy.spec.toml")

# Problems read from mypy's diagnostics: code -> (title, category, status, retryable, fix)
_DIAG: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="MYPY_TYPE_ERROR", title="mypy: type error", category="validation", status=422,
                suggested_fix="Fix the code (or its annotations) at the location; notes carry mypy's explanation."),
    ProblemCode(code="MYPY_MISSING_IMPORT", title="mypy: imported module or its type stubs not found",
                category="dependency", status=424, retryable=True,
                suggested_fix="Install the package (or its types-* stubs) into the environment mypy checks, point "
                              "--python-executable at it, or silence it with `# type: ignore[import-untyped]` / "
                              "ignore_missing_imports for that module."),
    ProblemCode(code="MYPY_SYNTAX_ERROR", title="mypy: syntax error", category="validation", status=400,
                suggested_fix="Fix the syntax at the location; mypy stops checking a file it cannot parse."),
    ProblemCode(code="MYPY_FILE_NOT_FOUND", title="mypy: file to check not found", category="not_found", status=404,
                suggested_fix="Check the path given on the command line (or in `files` of the config)."),
    ProblemCode(code="MYPY_DUPLICATE_MODULE", title="mypy: the same module found twice", category="precondition",
                status=412,
                suggested_fix="Add __init__.py files, use --explicit-package-bases (with MYPYPATH), or --exclude one"
                              " copy."),
    ProblemCode(code="MYPY_NOTE", title="mypy: note", category="validation", status=422,
                suggested_fix="Read the note; it is information, not a failure."),
)}
_IMPORT_CODES = frozenset({"import", "import-not-found", "import-untyped"})
_TEMPLATED_FIX = frozenset({"MYPY_TYPE_ERROR", "MYPY_NOTE"})
_HINT = lazy(r'Hint: "(?P<cmd>python3? -m pip install [^"]+)"')


def _code(d: mp.Diagnostic) -> str | None:
    if d.message.startswith("INTERNAL ERROR"):
        return None  # MYPY_CRASH's rule names it
    if d.severity == "note":
        return "MYPY_NOTE"
    if d.rule == "syntax":
        return "MYPY_SYNTAX_ERROR"
    if d.rule in _IMPORT_CODES:
        return "MYPY_MISSING_IMPORT"
    if d.message.startswith("Cannot read file"):
        return "MYPY_FILE_NOT_FOUND"
    if d.message.startswith(("Duplicate module named", "Source file found twice")):
        return "MYPY_DUPLICATE_MODULE"
    return "MYPY_TYPE_ERROR"


def _problem(d: mp.Diagnostic, code: str) -> Problem:
    location: dict[str, Any] = {"file": d.file}
    for key in ("line", "column", "end_line", "end_column"):
        value = getattr(d, key)
        if value is not None:
            location[key] = value
    actions = []
    for note in d.notes:
        hint = _HINT.search(note)
        if hint:
            package = hint["cmd"].split()[-1]
            actions.append(CodeAction(title=f"Install the stub package {package}", command=tuple(hint["cmd"].split()),
                                      applicability="maybe_incorrect", is_preferred=True))
    extra: dict[str, Any] = {"rule": d.rule}
    if d.notes:
        extra["notes"] = d.notes
    if d.context:
        extra["context"] = d.context
    declared = _DIAG[code]
    # A type error's declared fix ("fix the code at the location") says nothing the reader does not know: an
    # occurrence carries none (`agentwrap explain MYPY_TYPE_ERROR` still gives it); mypy's notes are its fixes.
    fix = None if code in _TEMPLATED_FIX else declared.suggested_fix
    return problem("mypy", declared, d.text, docs_url=_CODE_DOCS + d.rule if d.rule else DOCS + "error_codes.html",
                   code_actions=tuple(actions), location=location, severity=d.severity, extra=extra,
                   suggested_fix=fix)


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


class MypyAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)
    codes = tuple(_DIAG.values())

    def subcommand(self, argv: list[str]) -> str | None:
        if os.path.basename(argv[0]) != "dmypy":
            return None  # mypy's positional arguments are files, not subcommands
        return super().subcommand(argv)

    def effects(self, argv: list[str]) -> Effects:
        if "--install-types" in argv:  # pip-installs stub packages from the index
            return Effects(read_only=False, destructive=False, idempotent=True, open_world=True)
        return super().effects(argv)

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        out = []
        for d in mp.diagnostics(run.text()):
            code = _code(d)
            if code is not None:
                out.append(_problem(d, code))
            if len(out) >= 1000:
                break
        return out

    def parse(self, run: CapturedRun) -> Any:
        return mp.counts(run.text(), mp.diagnostics(run.text()))

    summarize_failures = True

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not data:
            return None
        checked = f" (checked {_n(data['checked'], 'source file')})" if data.get("checked") is not None else ""
        if data["errors"]:
            return f"mypy: {_n(data['errors'], 'error')} in {_n(data['files'], 'file')}{checked}"
        notes = f", {_n(data['notes'], 'note')}" if data["notes"] else ""
        return f"mypy: no errors{checked}{notes}"


ADAPTER: Adapter = MypyAdapter()
