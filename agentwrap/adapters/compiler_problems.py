"""From parsed GCC/Clang diagnostics and matched driver/linker rules to Problems, in the order they were printed.

`compiler_problems(run, spec, argv)` is what the gcc adapter's `diagnostics` returns and what the make adapter
reuses to carry a failed recipe's compiler errors: `argv` is the compiler's own command line when known (then
code actions may rewrite it), None when the compiler ran inside another tool.

Paths are made absolute from the folder the compiler ran in by `compiler_paths`; code actions (fix-its,
package guesses, argv rewrites) are made by `compiler_actions`, a failed link's fix by `compiler_links`.
"""

from __future__ import annotations

import re
from typing import Any

from agentwrap.adapters import compiler_diagnostics as gp
from agentwrap.adapters.compiler_actions import Sources, augment, fix_actions, header_actions, tabstop
from agentwrap.adapters.compiler_paths import FolderAt, place, rooted, rooted_diag
from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun, CodeAction, Problem, ProblemCode, Spec, problem

DRIVER = (r"(?:cc1(?:plus|obj|objplus)?|collect2|(?:[\w.+-]*-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)"
          r"(?:-[\d.]+)?)")
_DRIVER_LINE = lazy(rf"^(?P<prog>{DRIVER}): (?P<severity>fatal error|error|warning): (?P<message>.+)$",
                          re.M)

# code: title, category, status, retryable, safe_to_retry
CODES: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="GCC_ERROR", title="Compiler error", category="validation", status=422),
    ProblemCode(code="GCC_WARNING", title="Compiler warning", category="validation", status=422),
    ProblemCode(code="GCC_NOTE", title="Compiler note", category="validation", status=422),
    ProblemCode(code="GCC_MISSING_HEADER", title="Header file not found", category="dependency", status=424,
                retryable=True),
    ProblemCode(code="GCC_INTERNAL_COMPILER_ERROR", title="Internal compiler error", category="internal", status=500),
    ProblemCode(code="GCC_DRIVER_ERROR", title="Compiler driver error", category="usage", status=400),
)}

def compiler_problems(run: CapturedRun, spec: Spec, argv: tuple[str, ...] | None,
                      folder: FolderAt | None = None) -> list[Problem]:
    """Every compiler diagnostic and driver/linker rule match in `run`, ordered by where it was printed. Paths
    are taken from `folder` (default: `run.cwd`, where the compiler ran); in a live run fix-it columns are
    turned into character columns read from the files."""
    return [p for _, p in located_problems(run, spec, argv, folder)]


def located_problems(run: CapturedRun, spec: Spec, argv: tuple[str, ...] | None,
                     folder: FolderAt | None = None) -> list[tuple[int, Problem]]:
    """The same, each with the offset in `run.text()` where it was printed (to merge with other tools')."""
    text = run.text()
    where = folder or (lambda _offset, _file: run.cwd)
    # a replayed fixture or a saved log: the files are not this machine's to read
    sources = Sources(run.cwd is not None, tabstop(argv))
    tool = "clang" if "clang" in (argv[0] if argv else "") else "gcc"
    found: list[tuple[int, Problem]] = []
    claimed: set[int] = set()
    for rule in spec.rules:
        if not run.failed and not rule.on_success and rule.severity == "error":
            continue
        for m in rule.pattern.finditer(text):
            claimed.add(gp.line_index(text, m.start()))
            found_problem = augment(spec.problem(rule, m, run), m, argv)
            file = str((found_problem.location or {}).get("file", ""))
            found.append((m.start(), rooted(found_problem, where(m.start(), file) if file else None)))
    for diag in gp.parse(text):
        home = where(diag.offset, diag.file) if diag.file else None
        found.append((diag.offset, diag_problem(diag, run, argv, tool, sources, home)))
    for m in _DRIVER_LINE.finditer(text):
        if gp.line_index(text, m.start()) not in claimed:
            found.append((m.start(), _driver_problem(m, run)))
    found.sort(key=lambda item: item[0])
    return found


def counted(errors: int, warnings: int, what: str = "error") -> str:
    """`1 error`, `2 errors, 1 warning`: a failed build's summary in our words (the error has the tool's)."""
    out = f"{errors} {what}{'s' * (errors != 1)}"
    return out + (f", {warnings} warning{'s' * (warnings != 1)}" if warnings else "")


def make_problem(code: str, detail: str, run: CapturedRun, **fields: Any) -> Problem:
    """A compiler problem (gcc and clang, alone or under make, are one tool: `gcc`)."""
    return problem("gcc", CODES[code], detail, exit_code=run.exit_code, **fields)


def _driver_problem(m: re.Match[str], run: CapturedRun) -> Problem:
    warning = m.group("severity") == "warning"
    return make_problem("GCC_WARNING" if warning else "GCC_DRIVER_ERROR", m.group(0).strip()[:1000], run,
                        severity="warning" if warning else "error",
                        extra={"tool": "gcc", "message": m.group("message").rstrip()},
                        # "as the message says": a fix that restates the detail says nothing (CONTRACT 2a)
                        docs_url="https://gcc.gnu.org/onlinedocs/gcc/Invoking-GCC.html")


def diag_problem(diag: gp.Diag, run: CapturedRun, argv: tuple[str, ...] | None, tool: str,
                 sources: Sources | None = None, folder: str | None = None) -> Problem:
    """The problem of one diagnostic; `folder`: where the compiler ran, that its relative paths are taken from."""
    sev = diag.severity
    code = ("GCC_INTERNAL_COMPILER_ERROR" if sev == "internal compiler error" else "GCC_MISSING_HEADER"
            if diag.header else "GCC_WARNING" if sev == "warning" else "GCC_NOTE" if sev in ("note", "remark")
            else "GCC_ERROR")
    severity = {"GCC_WARNING": "warning", "GCC_NOTE": "note"}.get(code, "error")
    printed = ":".join(str(v) for v in (diag.location or {}).values())  # the detail is the compiler's line
    detail = f"{printed}: {sev}: {diag.message}" if printed else f"{sev}: {diag.message}"
    if diag.option:
        detail += f" [{diag.option}]"
    diag = rooted_diag(diag, folder)
    loc = diag.location
    where = place(loc, run.cwd)
    actions = fix_actions(diag, sources or Sources(False, 8), run.cwd)
    extra: dict[str, Any] = {"tool": tool, "message": diag.message}
    if diag.option:
        extra["option"] = diag.option
    if warning_flag(diag.option):
        extra["rule"] = warning_flag(diag.option)  # SARIF's ruleId: one rule per flag, -Werror= or not
    if diag.context:
        extra["context"] = diag.context
    if diag.source:
        extra["evidence"] = [diag.source.rstrip()]  # the source line the caret points into
    related = [_related(n, loc) for n in diag.notes if n.message not in _BOILERPLATE_NOTES]
    if related:
        extra["related"] = related
    fix = _suggestion(diag, code, where, actions)
    if code == "GCC_MISSING_HEADER":
        actions.extend(header_actions(diag, argv))
    return make_problem(code, detail, run, severity=severity, location=loc, suggested_fix=fix,
                        docs_url=_docs(diag, code, tool), code_actions=tuple(actions), extra=extra,
                        matched=_printed(run.text(), diag))


# gcc explaining how it reports, not what is wrong with the code: no next step changes for it.
_BOILERPLATE_NOTES = frozenset({"each undeclared identifier is reported only once for each function it appears in"})


def _related(note: gp.Diag, where: dict[str, Any] | None) -> dict[str, Any]:
    """A note of a diagnostic; its location only when it points elsewhere (said once otherwise)."""
    out: dict[str, Any] = {"severity": note.severity, "message": note.message}
    if note.location and note.location != where:
        out["location"] = note.location
    if note.context:
        out["context"] = note.context
    return out


def _printed(text: str, diag: gp.Diag) -> str:
    """The lines the diagnostic was read from (its caret block and its notes'): the problem stands for them,
    so its fix-it row (`|   width`) is not shown again as text."""
    ends = [d.end for d in (diag, *diag.notes) if d.end is not None]
    return text[diag.offset:max(ends)] if ends else ""


def _suggestion(diag: gp.Diag, code: str, where: str, actions: list[CodeAction]) -> str | None:
    if code == "GCC_MISSING_HEADER":
        header = diag.header or ""
        if diag.source and f'"{header}"' in diag.source:
            return (f"{header} is a project header: check its name and path, or add the folder that holds it "
                    "with -I<DIR>.")
        return (f"Install the development package that provides {header} (find it with `apt-file search "
                f"{header}`), or add the folder that holds it with -I<DIR>.")
    if code == "GCC_INTERNAL_COMPILER_ERROR":
        return (f"A compiler bug at {where}: retry with another optimisation level (-O0/-O1) or compiler version, "
                "or rewrite the construct there.")
    if actions:
        return None  # the fix-it: the preferred edit's title says it (`Replace a.c:3:5-9 with ...`)
    flag = warning_flag(diag.option)
    if flag and diag.option and diag.option.startswith("-Werror"):
        # a fact the message does not say: the build, not the code, makes this warning fatal
        return f"{diag.option} turns this {flag} warning into an error: fix the warning, or build without it."
    # "fix the code at the location" says nothing the reader does not know (CONTRACT 2a): no fix
    return None


def warning_flag(option: str | None) -> str | None:
    """The warning flag a diagnostic's `[option]` names: `-Wformat=` of `-Werror=format=` (gcc) or of
    `-Werror,-Wformat` (clang); None for a bare `-Werror` or an option that is no warning's."""
    opt = re.sub(r"^-Werror[=,]-?W?", "-W", option or "")
    return opt if opt.startswith("-W") and opt != "-Werror" else None


def _docs(diag: gp.Diag, code: str, tool: str) -> str | None:
    if code == "GCC_MISSING_HEADER":
        return "https://gcc.gnu.org/onlinedocs/gcc/Directory-Options.html"
    if code == "GCC_INTERNAL_COMPILER_ERROR":
        return "https://gcc.gnu.org/bugs/"
    opt = warning_flag(diag.option)
    if opt is None:
        return None
    if tool == "clang":
        return f"https://clang.llvm.org/docs/DiagnosticsReference.html#{opt[1:].lower()}"
    return f"https://gcc.gnu.org/onlinedocs/gcc/Warning-Options.html#index-{opt[1:]}"
