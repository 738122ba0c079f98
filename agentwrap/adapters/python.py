"""CPython (`python`, `python3`, `python3.12`): uncaught tracebacks as located problems.

A script can do anything, so effects are unknown and only "nothing ran" failures are safe to retry.
`python -m pip ...` and `python -m pytest ...` are read by the pip and pytest adapters (their fixes
then name `python -m pip`, the same interpreter).
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from agentwrap.adapter import presentation_of
from agentwrap.adapters import pip, pytest, python_paths, tracebacks
from agentwrap.adapters.python_errors import DECLARED, installer_for, module_not_found
from agentwrap.lazyre import lazy
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Presentation,
    Problem,
    ProblemCode,
    Spec,
    merge_codes,
    problem,
)

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "python.spec.toml")

_MODULE_LINE = lazy(r"^\S+: No module named (?P<module>[\w.]+)$", flags=8)  # re.MULTILINE
_SPEC_LINE = lazy(r"^\S+: Error while finding module specification for '(?P<target>[\w.]+)' "
                  r"\(ModuleNotFoundError: (?P<message>No module named [^)]+)\)$", flags=8)  # re.MULTILINE
_VERSION = lazy(r"^Python (?P<version>\d+\.\d+\.\d+\S*)", flags=8)


def _options_end(argv: list[str]) -> tuple[str | None, str | None, int]:
    """(`-m`|`-c`|`--version`|`--help`|None, the module, index after it) from python's own options."""
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg in ("-V", "--version"):
            return "--version", None, i + 1
        if arg in ("-h", "--help", "-?"):
            return "--help", None, i + 1
        if arg == "--" or not arg.startswith("-") or arg == "-":
            return None, None, i
        if arg.startswith("--"):
            i += 2 if arg == "--check-hash-based-pycs" else 1
            continue
        for k, char in enumerate(arg[1:], 1):
            if char in "cmWX":
                value = arg[k + 1:] or (argv[i + 1] if i + 1 < len(argv) else None)
                after = i + (1 if arg[k + 1:] else 2)
                if char == "c":
                    return "-c", None, after
                if char == "m":
                    return "-m", value, after
                i = after - 1
                break
        i += 1
    return None, None, i


_DELEGATES: dict[str, Adapter] = {"pip": pip.ADAPTER, "pytest": pytest.ADAPTER}


def _delegate_of(argv: list[str]) -> tuple[Adapter, list[str], list[str]] | None:
    """(adapter, its argv, the command prefix that stands for its program) for `-m pip` / `-m pytest`."""
    mode, module, after = _options_end(argv)
    if mode != "-m" or module not in ("pip", "pip3", "pytest", "py.test"):
        return None
    stem = "pip" if module.startswith("pip") else "pytest"
    return _DELEGATES[stem], [stem, *argv[after:]], [*argv[:after]]


def _module_writes(argv: list[str]) -> bool:
    """`-m json.tool IN OUT` writes OUT; `-m http.server --cgi` runs the scripts under cgi-bin/."""
    mode, module, after = _options_end(argv)
    rest = argv[after:] if mode == "-m" else []
    values = {i + 1 for i, a in enumerate(rest) if a == "--indent"}
    operands = [a for i, a in enumerate(rest) if i not in values and (a == "-" or not a.startswith("-"))]
    return (module == "json.tool" and len(operands) >= 2) or (module == "http.server" and "--cgi" in rest)


def _rewrite(actions: tuple[CodeAction, ...] | list[CodeAction], stem: str,
             prefix: list[str]) -> tuple[CodeAction, ...]:
    """`pip install X` -> `python -m pip install X` (also after `env NAME=VALUE`): the fix must use the
    interpreter that ran."""
    out = []
    for action in actions:
        cmd = action.command
        at = 1 if cmd and cmd[0] == "env" else 0
        while cmd and at and at < len(cmd) and "=" in cmd[at] and not cmd[at].startswith("-"):
            at += 1
        if cmd and at < len(cmd) and cmd[at] == stem:
            cmd = (*cmd[:at], *prefix, *cmd[at + 1:])
        elif cmd and "--" in cmd and cmd[cmd.index("--") + 1:][:1] == (stem,):
            at = cmd.index("--") + 1
            cmd = (*cmd[:at], *prefix, *cmd[at + 1:])
        out.append(action._replace(command=cmd))
    return tuple(out)


def _ends_stderr(run: CapturedRun, problem: Problem) -> bool:
    """Whether the traceback's exception line is the last thing the program printed: the last line of
    standard error, with nothing on standard output (whose order against stderr a capture does not keep,
    so output there may have come after it: "recovered, done")."""
    if run.text("stdout").strip():
        return False
    last = run.text("stderr").rstrip().rsplit("\n", 1)[-1].strip()
    exception = (problem.detail or "").split(":", 1)[0].strip()
    return bool(exception) and last.split(":", 1)[0].strip().endswith(exception)


def _diagnostics(run: CapturedRun) -> list[Problem]:
    text = run.text()
    found = tracebacks.problems(text, tool="python", exit_code=run.exit_code, python=run.argv[0], cwd=run.cwd)
    # Only the last traceback ended the program; earlier ones (threads, logged exceptions) were survived.
    # One that is the last thing the program printed ended it even when it exited 0 (a `main()` wrapper
    # that prints and swallows it): that run is an error, not a success (CONTRACT section 2).
    for i, found_problem in enumerate(found):
        if i == len(found) - 1 and not run.failed and _ends_stderr(run, found_problem):
            found[i] = found_problem.replace(extra={**(found_problem.extra or {}), "fatal_on_success": True})
        elif not run.failed or i < len(found) - 1:
            found[i] = found_problem.replace(severity="warning")
    missing = _dash_m_missing(run, text) if run.failed else None
    if missing is not None:
        found.append(missing)
    return [_local_module(run, p) for p in found]


def _dash_m_missing(run: CapturedRun, text: str) -> Problem | None:
    """`python -m TARGET` whose module python could not find: `PY: No module named X` (the target itself),
    or `PY: Error while finding module specification for 'a.b' (ModuleNotFoundError: No module named 'a')`
    (a package on the way to it). Its own package not found is a folder question before an install one."""
    spec = _SPEC_LINE.search(text)
    match = spec or _MODULE_LINE.search(text)
    if match is None:
        return None
    message = spec.group("message") if spec else f"No module named '{match.group('module')}'"
    info = module_not_found(message, installer_for(run.argv[0]))
    if info is None:
        return None
    module = info.extra["module"]
    mode, target, _ = _options_end(list(run.argv))
    target = spec.group("target") if spec else target if mode == "-m" and target else module
    fix, actions = info.suggested_fix, info.code_actions
    extra = {**info.extra, **({"target": target} if target != module else {})}
    top = module.split(".", 1)[0]
    if target != module and "." not in module and (target + ".").startswith(module + "."):
        # `-m sub.use` without `sub/` in reach: python looked in the current folder first, then sys.path
        command = actions[0].command if actions else None
        install = f"; if '{top}' is a distribution to install, `{shlex.join(command)}`" if command else ""
        fix = (f"No package '{top}' is importable from here: `{shlex.join([run.argv[0], '-m', target])}` looks "
               f"for `{top}/` in the current folder first, then on sys.path. Run it from the folder that contains "
               f"`{top}/` (the project root), or check the module name{install}.")
        actions = tuple(a._replace(is_preferred=False) for a in actions)
    detail = f"python -m {target}: No module named {module}" if spec else f"python -m: No module named {module}"
    return problem("python", info.declared, detail, safe_to_retry=True, exit_code=run.exit_code,
                   suggested_fix=fix, docs_url=info.docs_url, code_actions=actions, extra=extra)


def _script(argv: list[str]) -> str | None:
    """The script `python [OPTIONS] SCRIPT ARGS` runs (None for `-c`, `-m`, standard input)."""
    mode, _, after = _options_end(argv)
    if mode is None and after < len(argv) and argv[after] == "--":
        after += 1
    return argv[after] if mode is None and after < len(argv) and argv[after] != "-" else None


def _local_module(run: CapturedRun, found: Problem) -> Problem:
    """A missing top-level module that is the project's own code (`./pkg/`, out of sys.path because the
    script's folder is first on it): the fix is the path; `pip install NAME` would install a stranger's
    package of that name, so it is not offered."""
    module = (found.extra or {}).get("module")
    if found.code != "PYTHON_MODULE_NOT_FOUND" or run.cwd is None or not isinstance(module, str):
        return found
    script = _script(list(run.argv))
    file = (found.location or {}).get("file")
    local = python_paths.find(module, python_paths.starts(run.cwd, file, script))
    if local is None:
        return found
    mode, target, _ = _options_end(list(run.argv))
    fix, actions, facts = python_paths.python_fix(local, run.argv, run.cwd, script, installer_for(run.argv[0]),
                                                  target=target if mode == "-m" else None)
    extra = {k: v for k, v in (found.extra or {}).items() if k not in ("distribution", "distribution_guess")}
    return found.replace(suggested_fix=fix, code_actions=actions, extra={**extra, **facts})


class PythonAdapter(BaseAdapter):
    codes = tuple(DECLARED.values())
    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)

    def subcommand(self, argv: list[str]) -> str | None:
        mode, module, after = _options_end(argv)
        if mode == "-m" and module:
            delegate = _delegate_of(argv)
            sub = delegate[0].subcommand(delegate[1]) if delegate else None
            return f"-m {module}" + (f" {sub}" if sub else "")
        return mode

    def environment(self, argv: list[str]) -> dict[str, str]:
        delegate = _delegate_of(argv)
        return {**super().environment(argv), **(delegate[0].environment(delegate[1]) if delegate else {})}

    def presentation(self, argv: list[str]) -> Presentation:
        delegate = _delegate_of(argv)
        return presentation_of(delegate[0], delegate[1]) if delegate else super().presentation(argv)

    def effects(self, argv: list[str]) -> Effects:
        delegate = _delegate_of(argv)
        if delegate:
            return delegate[0].effects(delegate[1])
        found = super().effects(argv)
        return found._replace(read_only=False) if found.read_only and _module_writes(argv) else found

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        delegate = _delegate_of(argv)
        if delegate:
            adapter, sub_argv, prefix = delegate
            fix, actions = adapter.prompt_help(sub_argv, prompt, input_kind)
            if fix or actions:
                return fix, list(_rewrite(actions, sub_argv[0], prefix))
        return super().prompt_help(argv, prompt, input_kind)

    def parse(self, run: CapturedRun) -> Any:
        match = _VERSION.search(run.text()) if run.subcommand == "--version" else None
        return {"version": match.group("version")} if match else None

    def declarations(self) -> list[ProblemCode]:
        # and what `python -m pip` / `python -m pytest` report through their adapters
        return merge_codes(super().declarations(), *(a.declarations() for a in _DELEGATES.values()))

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        return f"Python {data['version']}" if isinstance(data, dict) and "version" in data else None

    def interpret(self, run: CapturedRun) -> Interpretation:
        delegate = _delegate_of(list(run.argv))
        if delegate is None:
            return super().interpret(run)
        adapter, sub_argv, prefix = delegate
        interp = adapter.interpret(run._replace(argv=tuple(sub_argv), subcommand=adapter.subcommand(sub_argv)))
        problems = tuple(p._replace(code_actions=_rewrite(p.code_actions, sub_argv[0], prefix))
                         for p in interp.problems)
        error = next((p for p in problems if interp.error is not None and p.detail == interp.error.detail
                      and p.code == interp.error.code), None)
        if interp.error is not None and error is None:
            error = interp.error._replace(code_actions=_rewrite(interp.error.code_actions, sub_argv[0], prefix))
        return interp._replace(problems=problems, error=error)


ADAPTER: Adapter = PythonAdapter(Spec.from_toml(SPEC_FILE))
