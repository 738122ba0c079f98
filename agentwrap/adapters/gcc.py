"""GCC and Clang (gcc, g++, cc, c++, clang, clang++): every diagnostic as a located problem, fix-its as edits.

Compiler diagnostics (`file:line:col: error: message [-Wflag]`, their notes, caret blocks and fix-it hints) are
parsed in `_gcc_parse`; the driver's and the linker's own failures are the rules below. The first error decides.
"""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters.compiler_problems import CODES, DRIVER, compiler_problems
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Interpretation, Problem, Spec
from agentwrap.spec import rule as _rule

_LD = r"^(?:\S*ld(?:\.\w+)?: )?"
_AT = r"(?:(?P<file>[^\s:]+):(?:(?P<line>\d+)|\([^)]*\)): )?"
_Q = "[`‘']"
_EQ = "['’]"




LINK_DOCS = "https://gcc.gnu.org/onlinedocs/gcc/Link-Options.html"
OPTION_DOCS = "https://gcc.gnu.org/onlinedocs/gcc/Option-Summary.html"
SPEC: dict[str, Any] = {
    "name": "gcc",
    "matches": ["gcc", "g++", "cc", "c++", "clang", "clang++"],
    "has_subcommands": False,
    "descriptor": {
        "purpose": "Compile and link C/C++ with gcc or clang; every diagnostic becomes a located problem.",
        "use_when": "Compiling or linking C/C++ directly (gcc -c x.c, g++ -o app *.cpp, clang ...).",
        "do_not_use_when": "The project builds through make/cmake/ninja: run those (make carries gcc's problems).",
        "returns": "Problems at file:line:column with severity, -W option, notes as related, fix-its as edit "
                   "actions; linker/driver failures; data with error/warning counts and the output file.",
        "limitations": "English messages only; fix-it ranges are read from the caret lines (exact with "
                       "-fdiagnostics-parseable-fixits); gcc columns are display columns, clang's are bytes.",
    },
    "effects": {"default": {"read_only": False, "destructive": False, "idempotent": True, "open_world": False}},
    "prompts": [{
        "pattern": "", "input_kind": "text",
        "suggested_fix": "The compiler reads its source from standard input ('-'): name a file instead, or feed "
                         "the source with `agentwrap --stdin FILE`.",
        "code_actions": [{"title": "Feed the source on standard input (replace <FILE>)",
                          "command": ["agentwrap", "--stdin", "<FILE>", "--", "{argv...}"],
                          "applicability": "has_placeholders"}]}],
    "rules": [
        _rule("GCC_UNDEFINED_REFERENCE", _LD + _AT + f"undefined reference to {_Q}(?P<symbol>[^'’]+){_EQ}",
              "Undefined reference at link time", "not_found", 404, False, True,
              "Link the object or library that defines '{symbol}' (add its source file, or -l<lib> after the "
              "sources), or define it; for C called from C++ check extern \"C\".", docs_url=LINK_DOCS),
        _rule("GCC_UNDEFINED_REFERENCE", r"^ld\.lld: error: undefined symbol: (?P<symbol>.+)$",
              "Undefined reference at link time", "not_found", 404, False, True,
              "Link the object or library that defines '{symbol}', or define it.", docs_url=LINK_DOCS),
        _rule("GCC_MULTIPLE_DEFINITION", _LD + _AT + f"multiple definition of {_Q}(?P<symbol>[^'’]+){_EQ}",
              "Symbol defined more than once", "conflict", 409, False, True,
              "Define '{symbol}' in one file only: make it static, or declare it extern in the header and define "
              "it in one .c file (a variable defined in a header is the usual cause).",
              docs_url="https://gcc.gnu.org/gcc-10/porting_to.html#common"),
        _rule("GCC_MULTIPLE_DEFINITION", r"^ld\.lld: error: duplicate symbol: (?P<symbol>.+)$",
              "Symbol defined more than once", "conflict", 409, False, True,
              "Define '{symbol}' in one file only (static, or extern in the header).",
              docs_url="https://gcc.gnu.org/gcc-10/porting_to.html#common"),
        _rule("GCC_LIBRARY_NOT_FOUND", _LD + r"(?:error: )?(?:cannot find|unable to find library) -l(?P<lib>[^\s:]+)",
              "Library not found by the linker", "dependency", 424, True, True,
              "Install the development package of lib{lib} (Debian: usually lib{lib}-dev), or add its folder with "
              "-L<DIR>.", docs_url=LINK_DOCS),
        _rule("GCC_LINK_FAILED", rf"^(?:collect2: error: ld returned (?P<status>\d+) exit status|{DRIVER}: error: "
              r"linker command failed with exit code (?P<code>\d+).*)$", "Linking failed", "dependency", 502,
              False, True, "Read the linker's messages above this line (undefined references, missing libraries).",
              docs_url=LINK_DOCS),
        _rule("GCC_NO_INPUT_FILES", rf"^{DRIVER}: (?:fatal )?error: no input files", "No input files", "usage",
              400, False, True, "Name the source files to compile, e.g. `{prog} main.c -o main`.",
              code_actions=[{"title": "Add the source file (replace <FILE.c>)", "command": ["{argv...}", "<FILE.c>"],
                             "applicability": "has_placeholders"}], docs_url=OPTION_DOCS),
        _rule("GCC_UNRECOGNIZED_OPTION", rf"^{DRIVER}: error: unrecognized command[- ]line option {_Q}"
              rf"(?P<option>[^’']+){_EQ}(?:; did you mean {_Q}(?P<suggestion>[^’']+){_EQ}\?)?",
              "Unrecognized command-line option", "usage", 400, False, True,
              "Remove or correct the option {option} (see `{prog} --help=common`).", docs_url=OPTION_DOCS),
        _rule("GCC_UNRECOGNIZED_OPTION", rf"^{DRIVER}: error: (?:unknown argument|unsupported option):? {_Q}"
              rf"(?P<option>[^’']+){_EQ}(?:; did you mean {_Q}(?P<suggestion>[^’']+){_EQ}\?)?",
              "Unrecognized command-line option", "usage", 400, False, True,
              "Remove or correct the option {option}.", docs_url=OPTION_DOCS),
        _rule("GCC_UNKNOWN_WARNING_OPTION", rf"^(?:{DRIVER}: )?warning: (?:unknown warning option|unrecognized "
              rf"command[- ]line option) {_Q}(?P<option>[^’']+){_EQ}(?:; did you mean {_Q}(?P<suggestion>[^’']+)"
              rf"{_EQ}\?)?", "Unknown warning option", "usage", 400, False, True,
              "Remove or correct the warning option {option}.", severity="warning",
              docs_url="https://gcc.gnu.org/onlinedocs/gcc/Warning-Options.html"),
        _rule("GCC_INPUT_NOT_FOUND", rf"^{DRIVER}: (?:fatal )?error: (?P<file>[^:\n]+): No such file or directory",
              "Input file not found", "not_found", 404, False, True,
              "Check the path {file} (relative to the working directory) or create the file.",
              docs_url=OPTION_DOCS),
        _rule("GCC_INPUT_NOT_FOUND", rf"^{DRIVER}: error: no such file or directory: {_Q}(?P<file>[^’']+){_EQ}",
              "Input file not found", "not_found", 404, False, True,
              "Check the path {file} (relative to the working directory) or create the file.",
              docs_url=OPTION_DOCS),
        _rule("GCC_OUTPUT_NOT_WRITABLE", r"(?:cannot open output file|opening output file|can't create) "
              r"(?P<file>[^:\s]+): (?P<reason>.+)$", "Output file cannot be written", "precondition", 412, False,
              True, "Create the folder of {file} or choose a writable path with -o ({reason})."),
        _rule("GCC_COMPILER_MISSING", rf"^{DRIVER}: fatal error: cannot execute {_Q}(?P<component>[^’']+){_EQ}",
              "Compiler component not installed", "dependency", 424, True, True,
              "The compiler for this language is not installed ({component} is missing): install it "
              "(Debian: g++ for cc1plus, gfortran for f951)."),
        _rule("GCC_COMPILER_KILLED", rf"^{DRIVER}: fatal error: Killed signal terminated program (?P<component>\S+)",
              "Compiler killed (usually out of memory)", "dependency", 503, True, True,
              "The compiler ran out of memory: build with fewer parallel jobs (make -j1) or lower optimisation."),
        _rule("GCC_INTERNAL_COMPILER_ERROR", rf"^{DRIVER}: error: (?:clang frontend command failed|unable to "
              r"execute command).*$", "Internal compiler error", "internal", 500, False, True,
              "A compiler crash: retry with another optimisation level or compiler version, or simplify the code.",
              docs_url="https://gcc.gnu.org/bugs/"),
    ],
}

_INFO_FLAGS = frozenset({"--version", "--help", "-dumpversion", "-dumpmachine", "-dumpfullversion", "--target-help",
                         "-print-search-dirs", "-print-libgcc-file-name"})
_VALUE_OPTIONS = frozenset({"-o", "-I", "-L", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote",
                            "-idirafter", "-x", "-MF", "-MT", "-MQ", "-Xlinker", "-Xassembler", "-Xpreprocessor",
                            "-T", "-u", "-z", "-e", "--param", "-aux-info", "-target", "-arch", "-isysroot",
                            "-Xclang", "-mllvm", "--sysroot", "-B"})


def invocation(argv: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """What a compiler command line does: mode (link/compile/assemble/preprocess/check/info), inputs, outputs."""
    args = list(argv[1:])
    inputs: list[str] = []
    output: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-o" and i + 1 < len(args):
            output, i = args[i + 1], i + 2
            continue
        if arg.startswith("-o") and len(arg) > 2:
            output = arg[2:]
        elif arg in _VALUE_OPTIONS:
            i += 1
        elif arg == "-" or not arg.startswith("-"):
            inputs.append(arg)
        i += 1
    flags = set(args)
    if flags & _INFO_FLAGS or any(a.startswith(("-print-", "--help=")) for a in args) or (
            "-v" in flags and not inputs):
        return {"mode": "info", "inputs": inputs, "outputs": []}
    mode = ("check" if "-fsyntax-only" in flags else
            "preprocess" if "-E" in flags or ({"-M", "-MM"} & flags and not {"-MD", "-MMD"} & flags) else
            "assemble" if "-S" in flags else "compile" if "-c" in flags else "link")
    outputs = [output] if output else []
    if output is None and mode == "link" and inputs:
        outputs = ["a.out"]
    elif output is None and mode in ("compile", "assemble"):
        ext = ".o" if mode == "compile" else ".s"
        outputs = [os.path.splitext(os.path.basename(f))[0] + ext for f in inputs if f != "-"]
    return {"mode": mode, "inputs": inputs, "outputs": [] if mode == "check" else [o for o in outputs if o != "-"]}


#: The compiler's rules, read by make too (recipes run the compiler): one spec, two adapters.
COMPILER = Spec.from_dict(SPEC, __file__)


class GccAdapter(BaseAdapter):
    spec = COMPILER
    codes = tuple(CODES.values())

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        """Diagnostics and rule matches in the order they were printed (a log gives no command line to rewrite)."""
        assert self.spec is not None
        return compiler_problems(run, self.spec, run.argv if len(run.argv) > 1 else None, run.cwd)

    def effects(self, argv: list[str]) -> Effects:
        info = invocation(argv)
        if info["mode"] in ("info", "check") or not info["outputs"] and info["mode"] == "preprocess":
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        return super().effects(argv)

    def parse(self, run: CapturedRun) -> Any:
        return None  # data is built in interpret, from the problems too

    def interpret(self, run: CapturedRun) -> Interpretation:
        base = super().interpret(run)
        info = invocation(run.argv)
        problems = [p for p in base.problems if p.extra and p.extra.get("tool") in ("gcc", "clang")]
        data: dict[str, Any] = {
            **info,
            "errors": sum(p.severity == "error" and p.code != "GCC_LINK_FAILED" for p in problems),
            "warnings": sum(p.severity == "warning" for p in problems),
            "notes": sum(len((p.extra or {}).get("related", [])) + (p.severity == "note") for p in problems),
        }
        if info["mode"] == "info" and "--version" in run.argv:
            lines = (run.stdout_text or run.stderr_text).strip().splitlines()
            data["version"] = lines[0] if lines else None
        if base.error is not None or base.success is False or run.failed:
            return base._replace(data=data)
        prog = os.path.basename(run.argv[0])
        warned = f" ({data['warnings']} warning{'s' * (data['warnings'] != 1)})" if data["warnings"] else ""
        summary = base.summary
        if info["outputs"]:
            summary = f"{prog} {info['mode']} succeeded: wrote {', '.join(info['outputs'])}{warned}"
        elif info["mode"] == "check":
            summary = f"{prog} found no errors in {', '.join(info['inputs']) or 'its input'}{warned}"
        elif info["mode"] == "info" and data.get("version"):
            summary = str(data["version"])
        effects = tuple({"resource": out, "action": "write", "kind": "file"} for out in info["outputs"])
        return base._replace(data=data, summary=summary, effects=effects)


ADAPTER: Adapter = GccAdapter()
