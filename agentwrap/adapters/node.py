"""Node.js: uncaught errors as located problems, missing packages with an install action, `node --test` results."""

from __future__ import annotations

from typing import Any

from agentwrap.adapters.js_stacks import FACTS, node_errors, runner_counts, runner_failures
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Problem, Spec

SPEC: dict[str, Any] = {
    "name": "node",
    "matches": ["node"],
    "has_subcommands": False,
    "descriptor": {
        "purpose": "Run JavaScript with node; an uncaught error becomes one problem at its throw site.",
        "use_when": "Running a script (`node app.js`), `node -e`, `node --check` or `node --test`.",
        "do_not_use_when": "Running a package.json script (use npm run / npm test) or starting the REPL.",
        "returns": "Problems with error type, message, file:line:column and stack; test counts in data.",
        "limitations": "Errors a program catches and prints in its own format are only seen as text.",
    },
    "env": {"NODE_DISABLE_COLORS": "1"},
    "noise": [  # the test runner's counts (in data) and passing tests; frames inside node itself
        {"pattern": r"^ℹ (?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$"},
        {"pattern": r"^\s*✔ "},
        {"pattern": r"^\s+at (?:async )?(?:\S+ \()?node:internal/"},
    ],
    "effects": {"default": {}},
    "prompts": [{
        "pattern": r"^> ?$", "input_kind": "text",
        "suggested_fix": "node started its interactive REPL; give it a script file or code with -e/-p instead.",
        "code_actions": [{"title": "Run code non-interactively (replace <CODE>)", "command": ["node", "-e", "<CODE>"],
                          "applicability": "has_placeholders", "is_preferred": True}],
    }],
    "rules": [
        {"code": "NODE_OUT_OF_MEMORY", "pattern": r"JavaScript heap out of memory|Reached heap limit",
         "title": "JavaScript heap out of memory", "category": "dependency", "status": 507, "retryable": True,
         "safe_to_retry": False, "detail": "node ran out of JavaScript heap: {match}",
         "suggested_fix": "Raise the heap limit (`node --max-old-space-size=4096 ...`, in MB) or process the "
                          "input in smaller pieces.",
         "code_actions": [{"title": "Run again with a 4 GB heap", "command": ["node", "--max-old-space-size=4096",
                                                                             "{args...}"],
                           "applicability": "maybe_incorrect"}]},
        {"code": "NODE_BAD_OPTION", "pattern": r"^\S*node: (?P<what>bad option|--[\w-]+ is not allowed.*?): ?"
                                                r"(?P<opt>\S*)",
         "title": "Unknown node option", "category": "usage", "status": 400, "retryable": False,
         "safe_to_retry": True, "detail": "node does not accept the option {opt}",
         "suggested_fix": "Remove or correct the option; `node --help` lists them (options for the script go "
                          "after the script name)."},
        {"code": "NODE_WARNING", "pattern": r"^\(node:\d+\) (?P<kind>\w*Warning): (?P<msg>.+)$", "severity": "warning",
         "title": "Node.js runtime warning", "category": "validation", "status": 422, "retryable": False,
         "safe_to_retry": True, "detail": "{kind}: {msg}",
         "suggested_fix": "Read the warning; `node --trace-warnings ...` shows where it was raised."},
    ],
}

_READ_ONLY_FLAGS = {"--check", "-c", "--version", "-v", "--help", "-h", "--v8-options"}


def _diagnostics(run: CapturedRun) -> list[Problem]:
    text = run.text()
    return [*runner_failures(run.stdout_text, "node", run.exit_code), *node_errors(text, "node", run.exit_code)]


def _data(run: CapturedRun) -> Any:
    counts = runner_counts(run.stdout_text)
    return {"tests": counts} if counts else None


class NodeAdapter(BaseAdapter):
    codes = tuple(FACTS.values())
    parsers = {"*": _data}  # noqa: RUF012

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)

    def effects(self, argv: list[str]) -> Effects:
        flags = [a for a in argv[1:] if a.startswith("-")]
        script = next((a for a in argv[1:] if not a.startswith("-")), None)
        if flags and set(flags) <= _READ_ONLY_FLAGS and (script is None or "--check" in flags or "-c" in flags):
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        return Effects()  # a script can do anything: unknown

    def parse(self, run: CapturedRun) -> Any:
        return _data(run)  # test counts matter most when tests failed

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        tests = (data or {}).get("tests")
        if tests:
            return f"node --test: {tests.get('passed', 0)} passed, {tests.get('failed', 0)} failed"
        return None


ADAPTER: Adapter = NodeAdapter(Spec.from_dict(SPEC, __file__))
