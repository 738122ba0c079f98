"""`npx TOOL`, `npm exec TOOL` and an npm script that runs TOOL: the output is TOOL's, so TOOL's adapter reads
it (tsc's errors are located TSC problems, counted in the summary), on the real text tsc printed
(fixtures/npm/npx-tsc-type-errors); npm's own reading stands when TOOL's finds nothing. npm names the
command (npm.spec.toml's `[launcher]`, a script's header); the run's reader finds TOOL's adapter
(agentwrap.outcome.interpret), so no table in npm.py lists the tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentwrap import registry
from agentwrap.adapters.npm import ADAPTER
from agentwrap.capture import StreamResult
from agentwrap.outcome.interpret import interpret
from agentwrap.sdk import CapturedRun, Interpretation

FIXTURES = Path(__file__).parent.parent / "fixtures/npm"
TSC_OUT = (FIXTURES / "npx-tsc-type-errors.out").read_text()


def _run(argv: tuple[str, ...], stdout: str, exit_code: int = 2) -> CapturedRun:
    empty = StreamResult("", 0, 0, False, 0, None)
    return CapturedRun(argv=argv, program="/usr/bin/npm", exit_code=exit_code, signal=None, stdout=empty,
                       stderr=empty, stdout_text=stdout, subcommand=ADAPTER.subcommand(list(argv)))


def _read(run: CapturedRun) -> Interpretation:
    adapter, _ = registry.find(run.argv[0])
    interp, notes = interpret(adapter, run)
    assert notes == []
    return interp


@pytest.mark.parametrize(("argv", "summary"), [
    (("npx", "tsc"), "npx tsc: 2 errors in 1 file"),
    (("npx", "--yes", "-p", "typescript", "tsc", "--noEmit"), "npx --yes -p typescript tsc: 2 errors in 1 file"),
    (("npm", "exec", "--", "tsc"), "npm exec -- tsc: 2 errors in 1 file"),
    (("npm", "x", "tsc"), "npm x tsc: 2 errors in 1 file")])
def test_npx_runs_are_read_by_the_tools_adapter(argv, summary):
    interp = _read(_run(argv, TSC_OUT))
    assert interp.error is not None and interp.error.code == "TSC_TYPE_ERROR"
    assert [p.location for p in interp.problems if p.location] == [
        {"file": "src/a.ts", "line": 1, "column": 7}, {"file": "src/a.ts", "line": 2, "column": 40}]
    assert interp.summary == summary


@pytest.mark.parametrize("command", ["tsc", "tsc -p tsconfig.json", "tsc --noEmit && node dist/x.js",
                                     "rm -rf dist && tsc", "NODE_ENV=production tsc", "npx tsc"])
def test_a_script_running_tsc_is_read_by_tscs_adapter(command):
    stdout = f"\n> app@1.0.0 build\n> {command}\n\n{TSC_OUT}"
    interp = _read(_run(("npm", "run", "build"), stdout))
    assert interp.error is not None and interp.error.code == "TSC_TYPE_ERROR"
    assert interp.summary.startswith("npm run build: ") and interp.summary.endswith("tsc: 2 errors in 1 file")


def test_npms_own_reading_stands_when_the_tool_printed_nothing_it_knows():
    stdout = "\n> app@1.0.0 build\n> tsc\n\nsh: 1: tsc: not found\n"
    interp = _read(_run(("npm", "run", "build"), stdout, exit_code=127))
    assert interp.error is not None and interp.error.code == "NPM_SCRIPT_FAILED"


def test_a_script_that_is_node_test_alone_is_read_by_node():
    """`npm test` whose script is `node --test`: node's adapter reads it, as `node --test` run directly
    would be (the counts are the summary, node's noise rules apply); npm's "script exited 1" says nothing
    the summary does not."""
    case = "test-script-fails"
    stdout = (FIXTURES / f"{case}.out").read_text()
    interp = _read(_run(("npm", "test"), stdout, exit_code=1))
    assert [p.code for p in interp.problems] == ["NODE_TEST_FAILED"]
    assert interp.summary == "npm test: node --test: 1 passed, 1 failed, 1 skipped"


def test_npms_own_reading_stands_for_a_script_of_several_commands():
    """A script that runs node's tests among other commands is read by npm, which reads node's errors in
    any script: its NPM_SCRIPT_FAILED and `tests` counts stay."""
    stdout = (FIXTURES / "test-script-fails.out").read_text().replace("> node --test", "> tsc && node --test")
    interp = _read(_run(("npm", "test"), stdout, exit_code=1))
    assert [p.code for p in interp.problems] == ["NODE_TEST_FAILED", "NPM_SCRIPT_FAILED"]
    assert interp.data is not None and interp.data["tests"]["failed"] == 1


def test_npm_declares_its_own_codes_only():
    """The tools it launches declare theirs: npm's list does not grow with every adapter a script may run."""
    codes = set(ADAPTER.problem_codes())
    assert {"NPM_PEER_CONFLICT", "NPM_SCRIPT_FAILED", "NODE_TEST_FAILED"} <= codes
    assert "TSC_TYPE_ERROR" not in codes


def test_npm_names_the_command_npx_and_npm_exec_run():
    assert ADAPTER.inner_command(["npx", "--yes", "-p", "typescript", "tsc", "-p", "."]) == ["tsc", "-p", "."]
    assert ADAPTER.inner_command(["npm", "--prefix", "web", "exec", "--", "eslint", "."]) == ["eslint", "."]
    assert ADAPTER.inner_command(["npm", "run", "build"]) is None
    assert ADAPTER.inner_command(["npx"]) is None
