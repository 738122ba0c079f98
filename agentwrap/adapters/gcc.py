"""GCC and Clang (gcc, g++, cc, c++, clang, clang++): every diagnostic as a located problem, fix-its as edits.

Compiler diagnostics (`file:line:col: error: message [-Wflag]`, their notes, caret blocks and fix-it hints) are
parsed in `_gcc_parse`; the driver's and the linker's own failures are the rules below. The first error decides.
"""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters.compiler_links import link_fixed
from agentwrap.adapters.compiler_problems import CODES, compiler_problems, counted
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Interpretation, Problem, Spec

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "gcc.spec.toml")

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
COMPILER = Spec.from_toml(SPEC_FILE)


class GccAdapter(BaseAdapter):
    spec = COMPILER
    codes = tuple(CODES.values())

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        """Diagnostics and rule matches in the order they were printed (a log gives no command line to rewrite)."""
        assert self.spec is not None
        argv = run.argv if len(run.argv) > 1 else None
        linked = invocation(argv) if argv else None
        found = compiler_problems(run, self.spec, argv)
        if linked is None or linked["mode"] != "link":
            return link_fixed(found, None, None)
        return link_fixed(found, linked["inputs"], (linked["outputs"] or [None])[0])

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
        prog = os.path.basename(run.argv[0])
        if base.error is not None and base.error.location and base.error in problems:
            # a diagnostic decides: the summary counts, the error quotes the compiler's line
            return base._replace(data=data, summary=f"{prog}: {counted(data['errors'], data['warnings'])}")
        if base.error is not None or base.success is False or run.failed:
            return base._replace(data=data)
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
