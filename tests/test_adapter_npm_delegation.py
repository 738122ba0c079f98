"""`npx TOOL`, `npm exec TOOL` and an npm script that runs TOOL: the output is TOOL's, so TOOL's adapter reads
it (tsc's errors are located TSC problems, counted in the summary), on the real text tsc printed
(fixtures/npm/npx-tsc-type-errors); npm's own reading stands when TOOL's finds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentwrap.adapters.npm import ADAPTER
from agentwrap.capture import StreamResult
from agentwrap.sdk import CapturedRun

TSC_OUT = (Path(__file__).parent.parent / "fixtures/npm/npx-tsc-type-errors.out").read_text()


def _run(argv: tuple[str, ...], stdout: str, exit_code: int = 2) -> CapturedRun:
    empty = StreamResult("", 0, 0, False, 0, None)
    return CapturedRun(argv=argv, program="/usr/bin/npm", exit_code=exit_code, signal=None, stdout=empty,
                       stderr=empty, stdout_text=stdout, subcommand=ADAPTER.subcommand(list(argv)))


@pytest.mark.parametrize("argv", [("npx", "tsc"), ("npx", "--yes", "-p", "typescript", "tsc", "--noEmit"),
                                  ("npm", "exec", "--", "tsc"), ("npm", "x", "tsc")])
def test_npx_runs_are_read_by_the_tools_adapter(argv):
    interp = ADAPTER.interpret(_run(argv, TSC_OUT))
    assert interp.error is not None and interp.error.code == "TSC_TYPE_ERROR"
    assert [p.location for p in interp.problems if p.location] == [
        {"file": "src/a.ts", "line": 1, "column": 7}, {"file": "src/a.ts", "line": 2, "column": 40}]
    assert interp.summary == "tsc: 2 errors in 1 file"


@pytest.mark.parametrize("command", ["tsc", "tsc -p tsconfig.json", "tsc --noEmit && node dist/x.js"])
def test_a_script_running_tsc_is_read_by_tscs_adapter(command):
    stdout = f"\n> app@1.0.0 build\n> {command}\n\n{TSC_OUT}"
    interp = ADAPTER.interpret(_run(("npm", "run", "build"), stdout))
    assert interp.error is not None and interp.error.code == "TSC_TYPE_ERROR"
    assert interp.summary == "npm run build: tsc: 2 errors in 1 file"


def test_npms_own_reading_stands_when_the_tool_printed_nothing_it_knows():
    stdout = "\n> app@1.0.0 build\n> tsc\n\nsh: 1: tsc: not found\n"
    interp = ADAPTER.interpret(_run(("npm", "run", "build"), stdout, exit_code=127))
    assert interp.error is not None and interp.error.code == "NPM_SCRIPT_FAILED"


def test_npm_declares_the_codes_of_the_tools_it_reads():
    assert {"TSC_TYPE_ERROR", "NPM_PEER_CONFLICT", "NODE_TEST_FAILED"} <= set(ADAPTER.problem_codes())
