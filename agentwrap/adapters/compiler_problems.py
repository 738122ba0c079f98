"""From parsed GCC/Clang diagnostics and matched driver/linker rules to Problems, in the order they were printed.

`compiler_problems(run, spec, argv)` is what the gcc adapter's `diagnostics` returns and what the make adapter
reuses to carry a failed recipe's compiler errors: `argv` is the compiler's own command line when known (then
code actions may rewrite it), None when the compiler ran inside another tool.

Paths are made absolute from the folder the compiler ran in by `compiler_paths`.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from typing import Any

from agentwrap.adapters import compiler_diagnostics as gp
from agentwrap.adapters.compiler_paths import FolderAt, place, rooted, rooted_diag, shown_path
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

# Debian packages for the headers and libraries people most often lack.
HEADER_PACKAGES = {
    "zlib.h": "zlib1g-dev", "openssl/": "libssl-dev", "curl/curl.h": "libcurl4-openssl-dev", "png.h": "libpng-dev",
    "jpeglib.h": "libjpeg-dev", "sqlite3.h": "libsqlite3-dev", "ffi.h": "libffi-dev", "bzlib.h": "libbz2-dev",
    "readline/": "libreadline-dev", "ncurses.h": "libncurses-dev", "curses.h": "libncurses-dev",
    "lzma.h": "liblzma-dev", "yaml.h": "libyaml-dev", "expat.h": "libexpat1-dev", "uuid/uuid.h": "uuid-dev",
    "Python.h": "python3-dev", "gmp.h": "libgmp-dev", "libxml/": "libxml2-dev", "event2/": "libevent-dev",
    "boost/": "libboost-dev", "gtest/": "libgtest-dev", "pcap.h": "libpcap-dev", "stdio.h": "libc6-dev",
    "stdlib.h": "libc6-dev", "sys/": "libc6-dev", "bits/": "libc6-dev", "linux/": "linux-libc-dev",
}
LIBRARY_PACKAGES = {"z": "zlib1g-dev", "ssl": "libssl-dev", "crypto": "libssl-dev", "curl": "libcurl4-openssl-dev",
                    "sqlite3": "libsqlite3-dev", "png": "libpng-dev", "ffi": "libffi-dev", "bz2": "libbz2-dev",
                    "ncurses": "libncurses-dev", "readline": "libreadline-dev", "uuid": "uuid-dev",
                    "gmp": "libgmp-dev", "xml2": "libxml2-dev", "yaml": "libyaml-dev", "pcap": "libpcap-dev"}
COMPONENT_PACKAGES = {"cc1plus": "g++", "cc1": "gcc", "cc1obj": "gobjc", "f951": "gfortran", "as": "binutils",
                      "ld": "binutils"}
_LIBM = frozenset(("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "exp2", "log",
                   "log2", "log10", "pow", "sqrt", "cbrt", "ceil", "floor", "fmod", "round", "trunc", "hypot", "fabs",
                   "lround", "sinf", "cosf", "sqrtf", "powf", "expf", "logf", "floorf", "ceilf"))


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
    sources = _Sources(run.cwd is not None, _tabstop(argv))
    tool = "clang" if "clang" in (argv[0] if argv else "") else "gcc"
    found: list[tuple[int, Problem]] = []
    claimed: set[int] = set()
    for rule in spec.rules:
        if not run.failed and not rule.on_success and rule.severity == "error":
            continue
        for m in rule.pattern.finditer(text):
            claimed.add(gp.line_index(text, m.start()))
            found_problem = _augment(spec.problem(rule, m, run), m, argv)
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


#: The linker's failures (gcc and clang run it): a build's summary counts them apart from the compiler's errors.
LINKER_CODES = frozenset({"GCC_UNDEFINED_REFERENCE", "GCC_MULTIPLE_DEFINITION", "GCC_LIBRARY_NOT_FOUND",
                          "GCC_LINK_FAILED"})
_SYMBOL = lazy(r"(?:undefined reference to|multiple definition of) [`‘'](?P<symbol>[^'’\n]+)['’]|"
               r"(?:undefined|duplicate) symbol: (?P<bare>.+)$")
_LIBRARY = lazy(r"-l[^\s:]+")
_MAX_NAMED = 6


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_MAX_NAMED])
    return shown + (f" and {len(names) - _MAX_NAMED} more" if len(names) > _MAX_NAMED else "")


def link_fixed(problems: Sequence[Problem], inputs: Sequence[str] | None, output: str | None) -> list[Problem]:
    """GCC_LINK_FAILED's fix in the facts of the linker's errors printed before it: the symbols it could not
    resolve and the files it linked (`inputs`, into `output`, when the link command is known). The linker's
    own lines are problems of their own, so "its messages above this line" would point at nothing."""
    out: list[Problem] = []
    since: list[Problem] = []  # the linker's errors since the last failed link
    files = f" ({_listed(inputs)})" if inputs else ""
    into = f" linked into {output}" if output else " linked"
    for p in problems:
        if p.code != "GCC_LINK_FAILED":
            since += [p] if p.code in LINKER_CODES else []
            out.append(p)
            continue
        fix = _link_fix(since, files, into)
        out.append(p._replace(suggested_fix=fix) if fix else p)
        since = []
    return out


def _symbols(problems: Sequence[Problem], code: str) -> list[str]:
    found = [m.group("symbol") or m.group("bare").strip() for p in problems
             if p.code == code and (m := _SYMBOL.search(p.detail))]
    return list(dict.fromkeys(found))


def _link_fix(errors: Sequence[Problem], files: str, into: str) -> str | None:
    undefined = _symbols(errors, "GCC_UNDEFINED_REFERENCE")
    if undefined:
        one = len(undefined) == 1
        names = _listed([f"'{s}'" for s in undefined])
        it = "it" if one else "them"
        return (f"{names} {'is' if one else 'are'} used but defined in none of the files{into}{files}: define "
                f"{it} in one of their sources, or add the object file or library (-l<lib>) that defines {it} to "
                "the link.")
    doubled = _symbols(errors, "GCC_MULTIPLE_DEFINITION")
    if doubled:
        names = _listed([f"'{s}'" for s in doubled])
        return (f"{names} {'is' if len(doubled) == 1 else 'are'} defined more than once in the files{into}{files}: "
                "keep one definition (static, or extern in the header and defined in one .c file).")
    libraries = [m.group(0) for p in errors if p.code == "GCC_LIBRARY_NOT_FOUND" and (m := _LIBRARY.search(p.detail))]
    if libraries:
        return f"The linker found no library {_listed(libraries)}: install it or add its folder with -L<DIR>."
    return None


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
                 sources: _Sources | None = None, folder: str | None = None) -> Problem:
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
    actions = _fix_actions(diag, sources or _Sources(False, 8), run.cwd)
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
        actions.extend(_header_actions(diag, argv))
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


def _fix_actions(diag: gp.Diag, sources: _Sources, cwd: str | None) -> list[CodeAction]:
    actions: list[CodeAction] = []
    for owner, from_note in ((diag, False), *((n, True) for n in diag.notes)):
        for fix in owner.fixes:
            fix = sources.in_characters(fix)
            title = _describe(fix, _replaced(fix, owner, sources), shown_path(fix.file, cwd))
            actions.append(CodeAction(title=title + (f" ({owner.message})" if from_note else ""),
                                      kind="edit", edit=fix.edit(), is_preferred=not actions,
                                      applicability=gp.applicability(owner, fix, from_note=from_note)))
    return actions


def _tabstop(argv: tuple[str, ...] | None) -> int:
    for arg in argv or ():
        if arg.startswith("-ftabstop=") and arg[10:].isdigit():
            return int(arg[10:]) or 8
    return 8


class _Sources:
    """Source lines read from the project (live runs only) to turn display or byte columns into characters."""

    MAX_BYTES = 4 << 20

    def __init__(self, readable: bool, tabstop: int) -> None:
        self.readable, self.tabstop = readable, tabstop
        self._lines: dict[str, list[str] | None] = {}

    def line(self, file: str, number: int) -> str | None:
        # a relative path is one whose folder is not known: reading it from ours could read another file
        if not self.readable or not os.path.isabs(file):
            return None
        if file not in self._lines:
            try:
                with open(file, "rb") as f:
                    data = f.read(self.MAX_BYTES + 1)
                self._lines[file] = None if len(data) > self.MAX_BYTES else data.decode(
                    "utf-8", "replace").split("\n")
            except OSError:
                self._lines[file] = None
        lines = self._lines[file]
        return lines[number - 1].rstrip("\r") if lines and 0 < number <= len(lines) else None

    def _column(self, text: str, column: int, unit: str) -> int:
        if unit == "byte":
            return len(text.encode()[:column - 1].decode("utf-8", "ignore")) + 1
        display = 0
        for index, ch in enumerate(text):
            if display >= column - 1:
                return index + 1
            display += self.tabstop - display % self.tabstop if ch == "\t" else gp.display_width(ch)
        return len(text) + 1 + max(0, column - 1 - display)

    def in_characters(self, fix: gp.Fix) -> gp.Fix:
        text = self.line(fix.file, fix.line)
        if text is None or fix.unit == "character":
            return fix
        end = self._column(text, fix.end_column, fix.unit) if fix.end_column is not None else None
        return dataclasses.replace(fix, column=self._column(text, fix.column, fix.unit), end_column=end,
                                   unit="character")


def _replaced(fix: gp.Fix, owner: gp.Diag, sources: _Sources) -> str | None:
    """The text a replacement or deletion takes out, when the source line is known in the fix's columns: read
    from the file (character columns), or the line the compiler printed when every column is one character."""
    if fix.end_column is None:
        return None
    text = sources.line(fix.file, fix.line) if fix.unit == "character" else None
    if text is None and fix.unit == "display" and owner.line == fix.line and owner.source is not None:
        printed = owner.source
        text = printed if "\t" not in printed and gp.display_width(printed) == len(printed) else None
    old = text[fix.column - 1:fix.end_column - 1] if text is not None else ""
    return old if old.strip() and "`" not in old else None


def _describe(fix: gp.Fix, old: str | None = None, file: str | None = None) -> str:
    """An edit's title: what it changes (`Replace `widht` with `width``: the edit gives the place), or, when the
    text it takes out is not known, the place (`file`: the fix's as a text names it) and the new text."""
    if old is not None:
        return f"Replace `{old}` with `{fix.text}`" if fix.text else f"Delete `{old}`"
    at = f"{file or fix.file}:{fix.line}:{fix.column}"
    if fix.end_column is None:
        if fix.text.endswith("\n") and fix.column == 1:
            return f"Insert the line `{fix.text.strip()}` before {at}"
        return f"Insert `{fix.text}` at {at}"
    if not fix.text:
        return f"Delete {at}-{fix.end_column}"
    return f"Replace {at}-{fix.end_column} with `{fix.text}`"


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


def _with(argv: tuple[str, ...], *extra: str) -> tuple[str, ...]:
    return (argv[0], *extra, *argv[1:])


def _header_actions(diag: gp.Diag, argv: tuple[str, ...] | None) -> list[CodeAction]:
    header = diag.header or ""
    actions = []
    package = next((pkg for key, pkg in HEADER_PACKAGES.items() if header == key or
                    (key.endswith("/") and header.startswith(key))), None)
    if package and not (diag.source and f'"{header}"' in diag.source):
        actions.append(CodeAction(title=f"Install {package}, which usually provides <{header}>", is_preferred=True,
                                  command=("apt-get", "install", "-y", package), applicability="maybe_incorrect"))
    if argv:
        actions.append(CodeAction(title=f"Add the folder that holds {header} to the include path (replace <DIR>)",
                                  command=_with(argv, "-I<DIR>"), applicability="has_placeholders"))
    return actions


def _augment(problem: Problem, m: re.Match[str], argv: tuple[str, ...] | None) -> Problem:
    """Code actions a template cannot express: package guesses, and the user's argv rewritten."""
    groups = {k: v for k, v in m.groupdict().items() if v}
    actions = list(problem.code_actions)
    if problem.code == "GCC_LIBRARY_NOT_FOUND" and "lib" in groups:
        lib = groups["lib"]
        known = LIBRARY_PACKAGES.get(lib)
        actions.append(CodeAction(title=f"Install the development package of lib{lib}" + (
            "" if known else f" (the name lib{lib}-dev is a guess: check `apt-cache search lib{lib}`)"),
            command=("apt-get", "install", "-y", known or f"lib{lib}-dev"), is_preferred=True,
            applicability="maybe_incorrect" if known else "has_placeholders"))
        if argv:
            actions.append(CodeAction(title=f"Add the folder that holds lib{lib}.so or .a (replace <DIR>)",
                                      command=_with(argv, "-L<DIR>"), applicability="has_placeholders"))
    elif problem.code in ("GCC_UNRECOGNIZED_OPTION", "GCC_UNKNOWN_WARNING_OPTION") and argv:
        option = groups.get("option", "")
        if option in argv:
            if "suggestion" in groups:
                actions.append(CodeAction(title=f"Use {groups['suggestion']} instead of {option}", is_preferred=True,
                                          command=tuple(groups["suggestion"] if a == option else a for a in argv),
                                          applicability="maybe_incorrect"))
            actions.append(CodeAction(title=f"Drop {option}", command=tuple(a for a in argv if a != option),
                                      applicability="maybe_incorrect"))
    elif problem.code == "GCC_COMPILER_MISSING" and groups.get("component") in COMPONENT_PACKAGES:
        package = COMPONENT_PACKAGES[groups["component"]]
        actions.append(CodeAction(title=f"Install {package}", command=("apt-get", "install", "-y", package),
                                  applicability="maybe_incorrect", is_preferred=True))
    elif problem.code == "GCC_UNDEFINED_REFERENCE" and argv:
        symbol = groups.get("symbol", "")
        flag = "-lm" if symbol in _LIBM else "-pthread" if symbol.startswith("pthread_") else (
            "-ldl" if symbol in ("dlopen", "dlsym", "dlclose", "dlerror") else None)
        if flag and flag not in argv:
            actions.append(CodeAction(title=f"Link with {flag}, which defines {symbol}", command=(*argv, flag),
                                      applicability="maybe_incorrect", is_preferred=True))
    return problem._replace(code_actions=tuple(actions)) if actions != list(problem.code_actions) else problem
