"""agentwrap adapter for tsc, the TypeScript compiler: each `error TS1234` as a located problem with its TS code,
message chains kept as notes, and the summary as counts.

Both output forms are read: plain `file(line,col): error TS2322: ...` (tsc on a pipe, CI logs) and pretty
`file:line:col - error TS2322: ...` with a code frame (tsc on a terminal, which is how agentwrap runs it).
Python rather than TOML: the TS code picks the problem (syntax, missing module, config, type), the chain lines
under an error belong to it, effects depend on --noEmit/--build/--init, and the counts are data on failure too.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from typing import Any, NamedTuple

from agentwrap.lazyre import lazy
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, CodeAction, Effects, Problem, ProblemCode, Spec, problem

DOCS = "https://www.typescriptlang.org/"
_PATH = r"(?:[A-Za-z]:[\\/])?[^\s(:][^(:\n]*?\.(?:d\.)?(?:ts|tsx|mts|cts|js|jsx|mjs|cjs|json)"
_TAIL = r"(?P<severity>error|warning) TS(?P<num>\d+): (?P<message>.*?)\s*$"
PLAIN = re.compile(rf"^(?P<file>{_PATH})\((?P<line>\d+),(?P<column>\d+)\): {_TAIL}")
PRETTY = re.compile(rf"^(?P<file>{_PATH}):(?P<line>\d+):(?P<column>\d+) - {_TAIL}")
BARE = re.compile(rf"^{_TAIL}")  # options and project errors have no location
_RELATED = lazy(rf"^  (?P<at>{_PATH}:\d+:\d+) - (?P<message>.+?)\s*$")  # pretty: where a type came from
# pretty: the code frame under an error or a related place, its numbered source rows and the `~~~` under them
_FRAME = lazy(r"^ *\d+ .*$|^ *~[~ ]*$")
_SUMMARY = lazy(r"^Found (?P<errors>\d+) errors?(?:\. Watching| in (?:(?P<files>\d+) files|the same file"
                      r"|(?P<one>\S+):\d+)|\.)", re.M)
_TRY = lazy(r"Try `(?P<cmd>npm i(?:nstall)? [^`]+)`")
_MODULE = lazy(r"Cannot find module '(?P<module>[^']+)'")

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "tsc.spec.toml")

# Problems read from tsc's diagnostics: code -> (title, category, status, retryable, fix)
_DIAG: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="TSC_TYPE_ERROR", title="tsc: type error", category="validation", status=422,
                suggested_fix="Fix the code (or its types) at the location; notes carry the rest of tsc's "
                              "explanation."),
    ProblemCode(code="TSC_SYNTAX_ERROR", title="tsc: syntax error", category="validation", status=400,
                suggested_fix="Fix the syntax at the location."),
    ProblemCode(code="TSC_MISSING_MODULE", title="tsc: module or type definitions not found", category="dependency",
                status=424, retryable=True,
                suggested_fix="Install the package or its @types/* definitions (npm install), or fix the import "
                              "path, `paths`/`baseUrl` or `types` in tsconfig.json."),
    ProblemCode(code="TSC_IMPORT_NOT_FOUND", title="tsc: imported file not found", category="not_found",
                status=404,
                suggested_fix="A relative import (`./`, `../`, `/`) names a file that does not exist: fix the path, "
                              "or create the missing file. Installing packages does not change it."),
    ProblemCode(code="TSC_CONFIG_ERROR", title="tsc: invalid compiler options or tsconfig.json", category="usage",
                status=400,
                suggested_fix="Fix the option named in the message (command line or tsconfig.json compilerOptions)."),
    ProblemCode(code="TSC_UNUSED_DECLARATION", title="tsc: declared but never used", category="validation",
                status=422, suggested_fix="Remove the unused declaration or import at the location, or use it "
                                          "(a parameter kept on purpose can be prefixed with `_`)."),
    ProblemCode(code="TSC_FILE_NOT_FOUND", title="tsc: file or path not found", category="not_found", status=404,
                suggested_fix="Check the file names on the command line and `files`/`include` in tsconfig.json."),
    ProblemCode(code="TSC_NO_TSCONFIG", title="tsc: no tsconfig.json where it looked", category="not_found",
                status=404,
                suggested_fix="Run tsc in the folder that has the project's tsconfig.json, or point -p at it (`tsc -p "
                              "DIR`); a new project creates one with `tsc --init`."),
    ProblemCode(code="TSC_NO_INPUTS", title="tsc: no input files in the project", category="not_found", status=404,
                suggested_fix="Point `include`/`files` in tsconfig.json at the sources, or run tsc in the right "
                              "folder."),
)}
_MISSING = frozenset({2307, 2792, 2688, 2580, 2581, 2582, 2583, 2591, 2592, 2593, 7016})
_NOT_FOUND = frozenset({6053, 5058, 6231, 6504})
# `Cannot find a tsconfig.json file at the specified directory` (5057, `tsc -p DIR`) and `... at the current
# directory` (5081, tsc 7's `tsc -p .`): no project there, not a bad option nor a file list to check
_NO_TSCONFIG = frozenset({5057, 5081})


# noUnusedLocals / noUnusedParameters: 'x' is declared but its value is never read (6133), all imports
# unused (6192), ... Numbered among the options' messages, but about a line of the source.
_UNUSED = frozenset({6133, 6138, 6192, 6196, 6198, 6199, 6205})


def _code(num: int, file: str | None = None) -> str:
    if num in _UNUSED:
        return "TSC_UNUSED_DECLARATION"
    if num in _MISSING:
        return "TSC_MISSING_MODULE"
    if num in _NO_TSCONFIG:
        return "TSC_NO_TSCONFIG"
    if num in _NOT_FOUND:
        return "TSC_FILE_NOT_FOUND"
    if num == 18003:
        return "TSC_NO_INPUTS"
    if 1000 <= num < 2000:
        return "TSC_SYNTAX_ERROR"
    if 5000 <= num < 7000 and (file is None or file.endswith(".json")):  # the options or tsconfig.json
        return "TSC_CONFIG_ERROR"
    return "TSC_TYPE_ERROR"


class Diagnostic(NamedTuple):
    file: str | None
    line: int | None
    column: int | None
    severity: str
    num: int
    message: str
    notes: list[str]
    text: str
    frames: list[str]  # pretty's code frames, the error's and its related places': said by the location and notes


def diagnostics(text: str) -> list[Diagnostic]:
    """Every `error TSnnnn` tsc printed, plain or pretty, with the indented chain lines that follow it."""
    found: list[Diagnostic] = []
    current: Diagnostic | None = None
    framed: Diagnostic | None = None  # a pretty error whose code frames may follow (blank lines between)
    for line in text.splitlines():
        m = PLAIN.match(line) or PRETTY.match(line) or BARE.match(line)
        related = _RELATED.match(line) if found and not m else None
        if framed is not None and not m and not related and (not line.strip() or _FRAME.match(line)):
            if line.strip():
                framed.frames.append(line.strip())
            current = None
            continue
        if current is None or m or related or line[:2] != "  ":  # a chain line keeps its error's frames coming
            framed = None
        if related:
            found[-1].notes.append(f"{related['at']}: {related['message']}")
            current, framed = None, found[-1]
        elif m:
            g = m.groupdict()
            current = Diagnostic(g.get("file"), int(g["line"]) if g.get("line") else None,
                                 int(g["column"]) if g.get("column") else None, g["severity"], int(g["num"]),
                                 g["message"], [], line.strip(), [])
            found.append(current)
            framed = current if m.re is PRETTY else None
        elif current is not None and line[:2] == "  " and line.strip():
            current.notes.append(line.strip())  # the message chain: "  Type 'x' is not assignable to ..."
        else:
            current = None  # a blank line or a code frame ends the chain
    return found


_RELATIVE = (".", "/")  # `./x`, `../x`, `.`, `..`, `/abs/x`: a file, never a package
_JS_EXT = {".js": (".ts", ".tsx", ".d.ts"), ".jsx": (".tsx", ".d.ts"), ".mjs": (".mts", ".d.mts"),
           ".cjs": (".cts", ".d.cts")}  # what tsc looks for behind an import written with the output's extension


def _import_code(d: Diagnostic, code: str) -> str:
    """`Cannot find module './nope'`: a missing file or a wrong path, not a package to install."""
    module = _MODULE.search(d.message)
    if code == "TSC_MISSING_MODULE" and d.num in (2307, 2792) and module and module["module"].startswith(_RELATIVE):
        return "TSC_IMPORT_NOT_FOUND"
    return code


def _import_fix(d: Diagnostic) -> str | None:
    """The files tsc looked for behind a relative import, relative to the importing file: none exists."""
    module = _MODULE.search(d.message)
    if module is None:
        return None
    spec = module["module"]
    base = spec if spec.startswith("/") or not d.file else posixpath.normpath(
        posixpath.join(posixpath.dirname(d.file.replace("\\", "/")), spec))
    stem, ext = posixpath.splitext(base)
    if ext in _JS_EXT:
        tried = [stem + e for e in _JS_EXT[ext]]
    elif ext in (".ts", ".tsx", ".mts", ".cts", ".json") or base.endswith(".d.ts"):
        tried = [base]
    else:
        tried = [base + e for e in (".ts", ".tsx", ".d.ts")] + [posixpath.join(base, "index.ts")]
    where = f" from {d.file}" if d.file else ""
    return (f"The import '{spec}'{where} names a file that does not exist ({', '.join(tried)}): the path is "
            "wrong or the file is missing. Fix the import path, or create the file; installing packages "
            "does not change it.")


def _problem(d: Diagnostic, code: str) -> Problem:
    location = None
    if d.file:
        location = {"file": d.file, **({"line": d.line, "column": d.column} if d.line else {})}
    actions: list[CodeAction] = []
    hint = _TRY.search(d.message)
    module = _MODULE.search(d.message)
    if hint:
        actions.append(CodeAction(title=f"Install the type definitions: {hint['cmd']}",
                                  command=tuple(shlex.split(hint["cmd"])), applicability="maybe_incorrect",
                                  is_preferred=True))
    elif module and d.num == 2307 and not module["module"].startswith((".", "/", "~", "@/")):
        name = module["module"]
        package = "/".join(name.split("/")[:2 if name.startswith("@") else 1])
        actions.append(CodeAction(title=f"Install the package {package}", command=("npm", "install", package),
                                  applicability="maybe_incorrect"))
    extra: dict[str, Any] = {"rule": f"TS{d.num}"}
    fix = _DIAG[code].suggested_fix
    if d.notes:
        extra["notes"] = d.notes
    elif code == "TSC_TYPE_ERROR":
        fix = None  # no notes to point at: "fix it at the location" would say nothing the problem does not
    if code == "TSC_IMPORT_NOT_FOUND":
        fix = _import_fix(d) or fix
    # the message without its place (`src/b.ts:1:21 - `, `src/b.ts(1,21): `): `location` says that once
    detail = f"{d.severity} TS{d.num}: {d.message}"
    return problem("tsc", _DIAG[code], detail, docs_url=DOCS + "tsconfig" if code == "TSC_CONFIG_ERROR" else None,
                   code_actions=tuple(actions), location=location, severity=d.severity, extra=extra,
                   suggested_fix=fix, matched="\n".join([d.text, *d.frames]))


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


class TscAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)
    codes = tuple(_DIAG.values())

    def effects(self, argv: list[str]) -> Effects:
        args = argv[1:]
        if any(a in ("--help", "-h", "--version", "-v", "--showConfig", "--listFilesOnly", "--all") for a in args):
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        if ("-b" in args or "--build" in args) and "--clean" in args:
            return Effects(read_only=False, destructive=True, idempotent=True, open_world=False)
        no_emit = "--noEmit" in args and args[args.index("--noEmit") + 1:][:1] != ["false"]
        if no_emit:
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        return super().effects(argv)  # compiles: writes .js (and .d.ts, .tsbuildinfo) outputs

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return [_problem(d, _import_code(d, _code(d.num, d.file))) for d in diagnostics(run.text())[:1000]]

    def parse(self, run: CapturedRun) -> Any:
        found = diagnostics(run.text())
        errors = [d for d in found if d.severity == "error"]
        data: dict[str, Any] = {"errors": len(errors), "warnings": len(found) - len(errors),
                                "files": len({d.file for d in errors if d.file})}
        summary = None
        for summary in _SUMMARY.finditer(run.text()):  # noqa: B007 - the last summary counts
            pass
        if summary:
            data["errors"] = int(summary["errors"])
            if summary["files"]:
                data["files"] = int(summary["files"])
            elif summary["one"] or "the same file" in summary.group(0):
                data["files"] = 1
        elif not found and run.failed:
            return None  # tsc printed no diagnostics and no summary: nothing to count
        return data

    summarize_failures = True

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not data:
            return None
        if data["errors"]:
            return f"tsc: {_n(data['errors'], 'error')} in {_n(data['files'], 'file')}"
        argv = [os.path.basename(run.argv[0]), *run.argv[1:]]
        return f"tsc: no errors ({shlex.join(argv)})"[:200]


ADAPTER: Adapter = TscAdapter()
