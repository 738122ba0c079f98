"""Node.js: uncaught errors as located problems, missing packages with an install action, `node --test` results."""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters.js_stacks import FACTS, runner_counts, test_run_problems
from agentwrap.adapters.js_test_results import nothing_ran
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Interpretation, Problem, Spec

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "node.spec.toml")

_READ_ONLY_FLAGS = {"--check", "-c", "--version", "-v", "--help", "-h", "--v8-options"}


def _diagnostics(run: CapturedRun) -> list[Problem]:
    return test_run_problems(run.stdout_text, run.text(), "node", run.exit_code)


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

    # "node --test: 2 passed, 1 failed": the counts in our words; the error quotes the failed test's message
    summarize_failures = True

    def interpret(self, run: CapturedRun) -> Interpretation:
        base = super().interpret(run)
        error = base.error
        if error is not None and (error.extra or {}).get("thrown_by") == "JSON.parse" and error.code == (
                "NODE_UNCAUGHT_EXCEPTION"):
            return base._replace(summary="node: Uncaught exception (bad JSON input to JSON.parse)")
        return base

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        tests = (data or {}).get("tests")
        if not tests:
            return None
        if nothing_ran(tests):  # exit 0, yet nothing was tested: never a bare count that reads as a pass
            total = tests.get("total", 0)
            return f"node --test: no test ran ({tests.get('skipped', 0)} of {total} skipped)" if total else \
                "node --test: no test found"
        counts = [f"{tests.get('passed', 0)} passed", f"{tests.get('failed', 0)} failed"]
        # every other count that is not zero, so that the summary says all of `tests` (concise leaves it out)
        counts += [f"{tests[k]} {k}" for k in ("cancelled", "skipped", "todo") if tests.get(k)]
        return "node --test: " + ", ".join(counts)


ADAPTER: Adapter = NodeAdapter(Spec.from_toml(SPEC_FILE))
