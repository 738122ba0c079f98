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
from agentwrap.adapters.python_errors import distribution_for
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
                suggested_fix="Install the package (or the types-* stubs mypy names) into the environment "
                              "mypy checks, or point --python-executable at it; else silence it with "
                              "`# type: ignore[CODE]` (the code mypy printed: import-not-found or "
                              "import-untyped) or ignore_missing_imports for that module."),
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
_MODULE = lazy(r'module named "(?P<module>[^"]+)"|stubs not installed for "(?P<stubbed>[^"]+)"')


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
    hints = [hint["cmd"] for note in d.notes if (hint := _HINT.search(note)) is not None]
    actions = [CodeAction(title=f"Install the stub package {cmd.split()[-1]}", command=tuple(cmd.split()),
                          applicability="maybe_incorrect", is_preferred=True) for cmd in hints]
    extra: dict[str, Any] = {"rule": d.rule}
    if d.notes:
        extra["notes"] = d.notes
    if d.context:
        extra["context"] = d.context
    declared = _DIAG[code]
    # A type error's declared fix ("fix the code at the location") says nothing the reader does not know: an
    # occurrence carries none (`agentwrap explain MYPY_TYPE_ERROR` still gives it); mypy's notes are its fixes.
    fix = None if code in _TEMPLATED_FIX else declared.suggested_fix
    if code == "MYPY_MISSING_IMPORT":
        fix = _import_fix(d, hints)
    return problem("mypy", declared, d.text, docs_url=_CODE_DOCS + d.rule if d.rule else DOCS + "error_codes.html",
                   code_actions=tuple(actions), location=location, severity=d.severity, extra=extra,
                   suggested_fix=fix)


def _import_fix(d: mp.Diagnostic, hints: list[str]) -> str:
    """What to do about one missing import, the better fix first: the stubs mypy names (its hint), or the
    module installed where mypy looks; silencing it takes the error code mypy printed for it."""
    ignore = f"`# type: ignore[{d.rule}]` on the import" if d.rule else "`# type: ignore` on the import"
    silence = f"silence it with {ignore} or ignore_missing_imports for that module"
    if hints:
        return f"Install the stubs mypy names: `{'`, `'.join(hints)}`; or {silence}."
    match = _MODULE.search(d.message)
    module = (match["module"] or match["stubbed"]) if match else None
    if d.rule == "import-untyped":
        return f"{module or 'The package'} has no type hints and no known stubs: {silence}, or write stubs."
    dist = distribution_for(module.split(".")[0]) if module else None
    install = f" (`python3 -m pip install {dist}`, if that is its distribution's name)" if dist else ""
    return (f"Install {module or 'the module'} into the environment mypy checks{install}, or point "
            "--python-executable at the one that has it; for your own code, set mypy_path (MYPYPATH); "
            f"or {silence}.")


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
        if any(a.startswith("--junit-xml") or a.split("=")[0].endswith("-report") for a in argv[1:]):
            # --junit-xml FILE, --html-report DIR ...: report files
            return Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
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

    def interpret(self, run: CapturedRun) -> Interpretation:
        interp = super().interpret(run)
        error = interp.error
        if error is None or error.code != "MYPY_MISSING_IMPORT" or not error.code_actions:
            return interp
        # The deciding error's fix and action say mypy's `Hint: "pip install types-X"`: its note would say
        # it a third time. A listed problem keeps the note, since the concise list shows neither its actions
        # nor a fix that only rearranges the deciding fix's words.
        extra = {k: v for k, v in (error.extra or {}).items() if k != "notes"}
        notes = [n for n in (error.extra or {}).get("notes", []) if not _HINT.search(n)]
        if notes:
            extra["notes"] = notes
        # ... and its printed line goes from the text as the fix's words: the problem was read from it too
        said = [n for n in (error.extra or {}).get("notes", []) if _HINT.search(n)]
        printed = [line.strip() for line in run.text().splitlines() if any(line.endswith(f"note: {n}") for n in said)]
        lean = error._replace(extra=extra, matched="\n".join(x for x in (error.matched, *printed) if x))
        return interp._replace(error=lean, problems=tuple(lean if p == error else p for p in interp.problems))

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
