"""npm and npx: registry, resolution and script failures as problems; `npm ls/outdated/view` and installs as data."""

from __future__ import annotations

import importlib
import os
import re
import shlex
from typing import Any

from agentwrap.adapters import _npm_parse as p
from agentwrap.adapters._npm_parse import ALIASES
from agentwrap.adapters.js_stacks import FACTS as NODE_CODES
from agentwrap.adapters.js_stacks import node_errors, runner_counts, runner_failures
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
)

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "npm.spec.toml")

_SCRIPT_SUBS = {"run", "test", "start", "stop", "restart", "exec", "install-test", "install-ci-test"}
_PARSERS = {"ls": p.parse_ls, "outdated": p.parse_outdated, "view": p.parse_view,
            **dict.fromkeys(("install", "ci", "uninstall", "update", "dedupe", "prune", "audit fix"),
                            p.parse_install)}
_PY_CODES = ["NPM_PEER_CONFLICT", "NPM_MISSING_SCRIPT", "NPM_SCRIPT_FAILED", "NPM_ERROR"]


_PUBLIC_KEY = "//registry.npmjs.org/"
# Tools a script or npx runs whose own adapters read their output (node's errors are read for any script):
# program -> the built-in adapter module. The registry cannot pick them, as it sees only `npm`/`npx`.
_DELEGATES = {"tsc": "agentwrap.adapters.tsc", "eslint": "agentwrap.adapters.eslint"}
_SHELL_OPERATOR = re.compile(r"&&|\|\||[;|]")
_NPX_VALUED = {"-p", "--package", "-c", "--call", "-w", "--workspace"}  # npx options that take a value


def _registry_of(argv: list[str]) -> str | None:
    """The `--registry URL` (or `--registry=URL`) the caller gave npm, if any."""
    for i, arg in enumerate(argv[1:], 1):
        if arg.startswith("--registry="):
            return arg.split("=", 1)[1] or None
        if arg == "--registry" and i + 1 < len(argv):
            return argv[i + 1]
    return None


def _is_npx(argv: list[str] | tuple[str, ...]) -> bool:
    return os.path.basename(argv[0]).startswith("npx")


def _runs_scripts(run: CapturedRun) -> bool:
    return _is_npx(run.argv) or (run.subcommand or "").split(" ")[0] in _SCRIPT_SUBS


def _delegate(program: str) -> Adapter | None:
    module = _DELEGATES.get(os.path.basename(program))
    if module is None:
        return None
    adapter: Adapter = importlib.import_module(module).ADAPTER
    return adapter


def _npx_tool(argv: tuple[str, ...]) -> list[str]:
    """`npx [--yes] [-p PKG] TOOL ARGS` / `npm exec [--] TOOL ARGS`: the tool's own command line."""
    args = list(argv[1:])
    if not _is_npx(argv):  # after `exec` (or its alias `x`): npm's first word that is not an option
        args = args[next(i for i, a in enumerate(args) if not a.startswith("-")) + 1:]
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        i += 2 if args[i] in _NPX_VALUED else 1
    return args[i + 1:] if i < len(args) and args[i] == "--" else args[i:]


def _script_tool(command: str) -> list[str] | None:
    """The one delegated tool a script's command line runs (`tsc -p .`, `eslint . && node x`)."""
    try:
        parts = [shlex.split(p) for p in _SHELL_OPERATOR.split(command)]
    except ValueError:
        return None
    tools = [p for p in parts if p and _delegate(p[0])]
    return tools[0] if len(tools) == 1 else None


def _inner(run: CapturedRun) -> tuple[Adapter, CapturedRun] | None:
    """The adapter of the tool npx or a script ran, and the run as that tool's (its argv and subcommand)."""
    sub = (run.subcommand or "").split(" ")[0]
    if _is_npx(run.argv) or sub == "exec":
        argv: list[str] | None = _npx_tool(run.argv)
    else:
        script = p.script_command(run) if sub in _SCRIPT_SUBS else None
        argv = _script_tool(script[1]) if script else None
    adapter = _delegate(argv[0]) if argv else None
    if adapter is None or not argv:
        return None
    return adapter, run._replace(argv=tuple(argv), subcommand=adapter.subcommand(argv))


def _diagnostics(run: CapturedRun) -> list[Problem]:
    found = [*p.eresolve(run), *p.missing_script(run)]
    if _runs_scripts(run):
        found += [*runner_failures(run.stdout_text, "npm", run.exit_code),
                  *node_errors(run.text(), "npm", run.exit_code), *p.script_failed(run)]
    return found


class NpmAdapter(BaseAdapter):
    codes = (*p.CODES, *NODE_CODES.values())  # npm runs node: its errors are node's
    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)

    def subcommand(self, argv: list[str]) -> str | None:
        if _is_npx(argv):
            return None
        sub = super().subcommand(argv)
        if sub is None:
            return None
        first, _, rest = sub.partition(" ")
        first = ALIASES.get(first, first)
        if rest and self.spec is not None and first not in self.spec.nested:
            rest = ""
        return f"{first} {rest}".strip()

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        """A login's token goes to the registry the caller named (`--registry URL`), not the public one."""
        fix, actions = super().prompt_help(argv, prompt, input_kind)
        registry = _registry_of(argv)
        if registry is None:
            return fix, actions
        key = "//" + re.sub(r"^[a-z]+:(?://)?", "", registry).rstrip("/") + "/"
        fix = fix.replace(_PUBLIC_KEY, key) if fix else fix
        return fix, [a._replace(command=tuple(w.replace(_PUBLIC_KEY, key) for w in a.command)) if a.command else a
                     for a in actions]

    def effects(self, argv: list[str]) -> Effects:
        if _is_npx(argv):
            return Effects()
        return super().effects(argv)

    def parse(self, run: CapturedRun) -> Any:
        sub = run.subcommand or ""
        if _runs_scripts(run):
            counts = runner_counts(run.stdout_text)
            return {"tests": counts} if counts else None
        parser = _PARSERS.get(sub) or _PARSERS.get(sub.split(" ")[0])
        if parser is None or (run.failed and sub != "ls" and not self._outdated_found(run)):
            return None
        return parser(run)

    @staticmethod
    def _outdated_found(run: CapturedRun) -> bool:
        """`npm outdated` exits 1 when something is outdated: that is its answer, not a failure."""
        return run.subcommand == "outdated" and run.exit_code == 1 and not re.search(p.ERR, run.text(), re.M)

    def interpret(self, run: CapturedRun) -> Interpretation:
        delegated = self._delegated(run)
        if delegated is not None:
            return delegated
        if self._outdated_found(run):
            run = run._replace(exit_code=0)
        interp = super().interpret(run)
        if interp.error is None or interp.error.code.startswith(("NPM_", "NODE_")):
            return interp
        fallback = p.npm_error_code(run)  # npm named its own code: better than an unexplained exit
        if not fallback:
            return interp
        return interp._replace(error=fallback[0], problems=(*fallback, *interp.problems),
                               summary=fallback[0].detail[:300])

    @staticmethod
    def _delegated(run: CapturedRun) -> Interpretation | None:
        """`npx tsc`, `npm run build` running eslint: the tool's adapter reads the output it printed, and
        decides when it recognised something there (else npm's reading stands: a missing script, E404)."""
        inner = _inner(run)
        if inner is None or not inner[0].find_problems(inner[1]):
            return None
        interp = inner[0].interpret(inner[1])
        script = p.script_command(run) if not _is_npx(run.argv) else None
        if script and interp.summary:  # which script it was: `npm run build: tsc: 2 errors in 1 file`
            interp = interp._replace(summary=f"npm {run.subcommand} {script[0]}: {interp.summary}"[:300])
        return interp

    def declarations(self) -> list[ProblemCode]:
        """npm's codes, and those of the tools whose output it reads when a script or npx runs them."""
        own = super().declarations()
        delegated = [d for name in _DELEGATES if (a := _delegate(name)) for d in a.declarations()]
        return [*own, *(d for d in delegated if d not in own)]

    def problem_codes(self) -> list[str]:
        return sorted({*super().problem_codes(), *_PY_CODES})

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        sub = run.subcommand or ""
        if sub == "ls" and "dependencies" in data:
            return f"{data.get('name')}@{data.get('version')}: {len(data['dependencies'])} direct dependencies"
        if sub == "outdated":
            names = [o["name"] for o in data.get("outdated", [])]
            return f"{len(names)} outdated: {', '.join(names)}" if names else "all dependencies are up to date"
        if sub == "view" and "version" in data and "name" in data:
            return f"{data['name']}@{data['version']} ({data.get('versions', '?')} versions)"
        if "tests" in data:
            t = data["tests"]
            return f"tests: {t.get('passed', 0)} passed, {t.get('failed', 0)} failed"
        if any(k in data for k in ("added", "removed", "changed", "up_to_date")):
            parts = [f"{k} {data[k]} package{'s' * (data[k] != 1)}" for k in ("added", "removed", "changed", "audited")
                     if k in data]
            return f"npm {sub}: " + (", ".join(parts) or "up to date")
        return None


ADAPTER: Adapter = NpmAdapter(Spec.from_toml(SPEC_FILE))
