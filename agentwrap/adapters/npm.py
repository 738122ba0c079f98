"""npm and npx: registry, resolution and script failures as problems; `npm ls/outdated/view` and installs as data."""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from agentwrap.adapters import _npm_parse as p
from agentwrap.adapters._npm_parse import ALIASES
from agentwrap.adapters._npm_scripts import missing_script, script_line
from agentwrap.adapters.js_stacks import FACTS as NODE_CODES
from agentwrap.adapters.js_stacks import runner_counts, test_run_problems
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Presentation,
    Problem,
    Spec,
)

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "npm.spec.toml")

_SCRIPT_SUBS = {"run", "test", "start", "stop", "restart", "exec", "install-test", "install-ci-test"}
_RUN_SUBS = ("run", "test", "start", "stop", "restart")  # each runs one script package.json names
_PARSERS = {"ls": p.parse_ls, "outdated": p.parse_outdated, "view": p.parse_view,
            **dict.fromkeys(("install", "ci", "uninstall", "update", "dedupe", "prune", "audit fix"),
                            p.parse_install)}
_PY_CODES = ["NPM_PEER_CONFLICT", "NPM_MISSING_SCRIPT", "NPM_SCRIPT_FAILED", "NPM_ERROR"]
_LS_JSON = frozenset({"--json", "--json=true"})
_LS_LONG = frozenset({"--long", "-l", "--long=true", "--parseable", "-p", "--parseable=true"})


_PUBLIC_KEY = "//registry.npmjs.org/"


def _registry_of(argv: list[str]) -> str | None:
    """The `--registry URL` (or `--registry=URL`) the caller gave npm, if any."""
    for i, arg in enumerate(argv[1:], 1):
        if arg.startswith("--registry="):
            return arg.split("=", 1)[1] or None
        if arg == "--registry" and i + 1 < len(argv):
            return argv[i + 1]
    return None


_FETCH_ERROR = re.compile(p.ERR + r"FetchError: request to (?P<url>\S+) failed, reason: (?P<reason>.+)$", re.M)


def _network(found: Problem, run: CapturedRun) -> Problem:
    """npm's unreachable-registry block as one problem: the URL and reason in the detail, the block (its
    minipass-fetch frames and error object) its own; the registry a `--registry` named is the one to check."""
    fetch = _FETCH_ERROR.search(run.text())
    if found.code != "NPM_NETWORK_ERROR" or not fetch:
        return found
    block = [ln for ln in run.text().splitlines() if re.match(p.ERR, ln) and not p.LOG.search(ln)]
    detail = f"npm could not reach {fetch.group('url')}: {fetch.group('reason').strip()}"
    registry = _registry_of(list(run.argv))
    if registry is None:
        return found._replace(detail=detail, matched="\n".join(block))
    fix = (f"The registry given with --registry ({registry}) is unreachable: check that URL, the proxy settings "
           "and the network; then retry.")
    return found._replace(detail=detail, matched="\n".join(block), suggested_fix=fix, code_actions=())


_TEST_CODES = frozenset({"NODE_TEST_FAILED", "NODE_TEST_FILE_FAILED"})
_AUDIT_ANSWER = re.compile(r"^npm (?:warn|WARN) audit (?P<reason>.+?)\s*$", re.M)
# Problems whose fix names npm's debug log, or whose facts are another program's output: npm's lines stay
_LOG_NEEDED = frozenset({"NPM_ERROR", "NPM_SCRIPT_FAILED"})


def _audit(found: Problem, run: CapturedRun) -> Problem:
    """The registry's answer to `npm audit` (npm warns it, then errors with no reason) is the detail."""
    answer = _AUDIT_ANSWER.search(run.text())
    if found.code != "NPM_AUDIT_ENDPOINT_ERROR" or answer is None:
        return found
    return found._replace(detail=f"npm audit got no advisories: the registry answered {answer['reason']}",
                          matched=f"{answer.group(0)}\n{found.matched}")


def _owning_block(found: Problem, run: CapturedRun) -> Problem:
    """An npm problem read from one line stands for npm's whole `npm error` block: the lines around it
    (`npm error code E404`, `404 Note that you can also install from a tarball...`) and the debug log's
    path say nothing the problem does not, so concise text does not keep them beside it. Not for a
    problem whose fix sends the reader to that log, nor for a script's own failure."""
    if not found.code.startswith("NPM_") or found.code in _LOG_NEEDED:
        return found
    block = [ln for ln in run.text().splitlines() if re.match(p.ERR, ln)]
    return found._replace(matched="\n".join([found.matched, *block]))


def _is_npx(argv: list[str] | tuple[str, ...]) -> bool:
    return os.path.basename(argv[0]).startswith("npx")


def _runs_scripts(run: CapturedRun) -> bool:
    return _is_npx(run.argv) or (run.subcommand or "").split(" ")[0] in _SCRIPT_SUBS


def _diagnostics(run: CapturedRun) -> list[Problem]:
    found = [*p.eresolve(run), *missing_script(run)]
    if _runs_scripts(run):
        if not _runs_node_test(run):  # `node --test` itself is read by the node adapter, as a launched tool
            found += test_run_problems(run.stdout_text, run.text(), "npm", run.exit_code)
        found += p.script_failed(run)
    return found


def _runs_node_test(run: CapturedRun) -> bool:
    """The script is `node --test ...` alone: node's adapter reads it whole (counts as the summary, its
    noise rules on the text), so npm does not read it a second, lesser way."""
    if _is_npx(run.argv):
        return False
    script = p.script_command(run)
    commands = p.commands_of(script[1]) if script else []
    return len(commands) == 1 and os.path.basename(commands[0][0]) == "node" and "--test" in commands[0][1:]


_NPX_LIST = re.compile(r"\[(?:\s*\"[^\"]*\"\s*,?)+\]")  # npx's `["cowsay@1.6.0", "x"]`


def _npx_names(found: Problem) -> Problem:
    """npx names the packages it would download as a JSON list: said as plain words (`cowsay@1.6.0`)."""
    def words(m: re.Match[str]) -> str:
        return ", ".join(re.findall(r'"([^"]*)"', m.group(0)))
    return found._replace(detail=_NPX_LIST.sub(words, found.detail)) if found.detail else found


def _script_summary(run: CapturedRun, error: Problem) -> str:
    """`npm run lint: eslint exited with status 2`: the script a run ran and what failed in it (the program
    when the script is one command), not the code's title that names neither."""
    extra = error.extra or {}
    script, command = str(extra.get("script", "")), str(extra.get("command", ""))
    head = f"npm run {script}" if run.subcommand == "run" else f"npm {run.subcommand or ''} ".rstrip()
    commands = p.commands_of(command)
    who = f"{os.path.basename(commands[0][0])}" if len(commands) == 1 else "the script"
    if extra.get("missing_command"):
        return f"{head}: `{extra['missing_command']}` is not installed"
    return f"{head}: {who} exited with status {run.exit_code}"


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

    def presentation(self, argv: list[str]) -> Presentation:
        """`npm ls --json` is parsed whole: its data holds every fact of the document, so the envelope gives
        the text or the data, whichever costs less, never both (`--long` prints more than the data keeps)."""
        shown = super().presentation(argv)
        if self.subcommand(argv) == "ls" and _LS_JSON.intersection(argv) and not _LS_LONG.intersection(argv):
            return dataclasses.replace(shown, parsed_whole=True)
        return shown

    def effects(self, argv: list[str]) -> Effects:
        if _is_npx(argv):
            return Effects()
        return super().effects(argv)

    def parse(self, run: CapturedRun) -> Any:
        sub = run.subcommand or ""
        if _runs_scripts(run):
            counts = None if _runs_node_test(run) else runner_counts(run.stdout_text)
            return {"tests": counts} if counts else None
        parser = _PARSERS.get(sub) or _PARSERS.get(sub.split(" ")[0])
        if parser is None or (run.failed and sub != "ls" and not self._outdated_found(run)):
            return None
        return parser(run)

    @staticmethod
    def _outdated_found(run: CapturedRun) -> bool:
        """`npm outdated` exits 1 when something is outdated: that is its answer, not a failure."""
        return run.subcommand == "outdated" and run.exit_code == 1 and not re.search(p.ERR, run.text(), re.M)

    def inner_commands_of(self, run: CapturedRun) -> list[list[str]]:
        """What `npx TOOL`/`npm exec TOOL` names (npm.spec.toml's `[launcher]`), else the commands of the
        script `npm run`/`npm test` ran, as its header says (`> tsc -p . && node x.js`): their adapters read
        the output (agentwrap.outcome.interpret)."""
        named = super().inner_commands_of(run)
        if named or (run.subcommand or "").split(" ")[0] not in _SCRIPT_SUBS:
            return named
        script = p.script_command(run)
        return p.commands_of(script[1]) if script else []

    def script_commands(self, argv: list[str], cwd: str) -> list[list[str]]:
        """Before the run, the commands of the script `npm run NAME`/`npm test` will run, as package.json in
        `cwd` (or --prefix) says: their adapters' environment is the run's (tsc's NO_COLOR, which keeps its
        related places), as when the caller runs them directly; [] for any other npm command."""
        sub = self.subcommand(argv)
        if sub not in _RUN_SUBS or self.spec is None:
            return []
        name: str | None = sub
        if sub == "run":  # the script is the word after `run` (`npm --silent run build -- --watch`)
            valued = self.spec.options_with_value
            at = self.spec._words_start(argv, self.spec._words_start(argv, 1, valued) + 1, valued)
            name = argv[at] if at < len(argv) and argv[at] != "--" else None
        folder = os.path.join(cwd, p.argv_value(tuple(argv), "--prefix", "-C") or "")
        line = script_line(folder, name) if name else None
        return p.commands_of(line) if line else []

    def interpret(self, run: CapturedRun) -> Interpretation:
        if self._outdated_found(run):
            run = run._replace(exit_code=0)
        interp = super().interpret(run)
        if interp.error is not None and interp.error.code == "NPM_NETWORK_ERROR":
            error = _network(interp.error, run)
            summary = error.detail if interp.summary == interp.error.detail else interp.summary
            interp = interp._replace(error=error, summary=summary,
                                     problems=tuple(_network(x, run) for x in interp.problems))
        if interp.error is not None and interp.error.code.startswith("NPM_"):
            code = interp.error.code

            def own(x: Problem) -> Problem:
                return _owning_block(_audit(x, run), run) if x.code == code else x
            error = own(interp.error)
            summary = error.detail if interp.summary == interp.error.detail else interp.summary
            interp = interp._replace(error=error, summary=summary, problems=tuple(own(x) for x in interp.problems))
        if interp.error is not None and interp.error.code == "NPM_NPX_NOT_CONFIRMED":
            error = _npx_names(interp.error)
            summary = error.detail if interp.summary == interp.error.detail else interp.summary
            interp = interp._replace(error=error, summary=summary, problems=tuple(
                _npx_names(x) if x.code == error.code else x for x in interp.problems))
        if interp.error is not None and interp.error.code == "NPM_SCRIPT_FAILED":
            interp = interp._replace(summary=_script_summary(run, interp.error))
        tests = interp.data.get("tests") if isinstance(interp.data, dict) else None
        if interp.error is not None and interp.error.code in _TEST_CODES and isinstance(tests, dict):
            # the counts, in our words, of a runner no adapter of its own read (mocha): not the first failure again
            head = f"npm {run.subcommand}" if run.subcommand else os.path.basename(run.argv[0])
            said = f"{head}: {tests.get('passed', 0)} passed, {tests.get('failed', 0)} failed"
            interp = interp._replace(summary=said)
        if interp.error is None or interp.error.code.startswith(("NPM_", "NODE_")):
            return interp
        fallback = p.npm_error_code(run)  # npm named its own code: better than an unexplained exit
        if not fallback:
            return interp
        # the summary in our words (the detail says npm's message once, in the error)
        summary = f"npm {run.subcommand or ''}: npm error {(fallback[0].extra or {}).get('npm_code')}"
        return interp._replace(error=fallback[0], problems=(*fallback, *interp.problems),
                               summary=summary.replace("npm : ", "npm: "))

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
