"""node through agentwrap: an uncaught error is one problem at the place V8's own call sites name, missing
packages come with `npm install PKG` (never for relative paths), syntax errors and rejections are told apart,
`node --test` failures are named with counts, and the REPL is a prompt with a non-interactive alternative."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("node"), reason="node not installed (apt-get install -y nodejs)")

# V8's structured call sites (Error.prepareStackTrace): the machine-readable location of the first frame
CALLSITES = """
process.on('uncaughtException', (err) => {
  Error.prepareStackTrace = (_, sites) => sites;
  const site = err.stack[0];
  process.stdout.write(JSON.stringify({file: site.getFileName(), line: site.getLineNumber(),
                                       column: site.getColumnNumber()}));
});
"""


def test_uncaught_error_location_equals_v8_call_site(tmp_path):
    script = tmp_path / "app.js"
    script.write_text("function greet(user) {\n  return user.name.toUpperCase();\n}\nconsole.log('start');\n"
                      "greet(undefined);\n")
    (tmp_path / "sites.js").write_text(CALLSITES)
    truth = json.loads(subprocess.run(["node", "-r", str(tmp_path / "sites.js"), str(script)], capture_output=True,
                                      text=True, check=False).stdout.split("start\n", 1)[1])
    a = aw("--cwd", str(tmp_path), "node", "app.js")
    assert a.code == 1
    assert a.error["code"] == "NODE_UNCAUGHT_EXCEPTION"
    assert a.error["error_type"] == "TypeError"
    assert a.error["detail"] == "TypeError: Cannot read properties of undefined (reading 'name')"
    assert a.error["location"] == {**truth, "file": os.path.relpath(truth["file"], tmp_path)}  # from --cwd
    assert a.error["stack"][0]["function"] == "greet"


def test_missing_package_offers_npm_install_but_a_relative_path_does_not(tmp_path):
    (tmp_path / "pkg.js").write_text("const _ = require('lodash/fp');\n")
    (tmp_path / "rel.js").write_text("\nconst h = require('./lib/helper');\n")
    a = aw("--cwd", str(tmp_path), "node", "pkg.js")
    assert a.error["code"] == "NODE_PACKAGE_NOT_FOUND" and a.error["package"] == "lodash"
    assert a.error["location"] == {"file": "pkg.js", "line": 1, "column": 11}
    action = a.error["code_actions"][0]
    assert action["command"] == ["npm", "install", "lodash"] and action["applicability"] == "maybe_incorrect"
    r = aw("--cwd", str(tmp_path), "node", "rel.js")
    assert r.error["code"] == "NODE_MODULE_NOT_FOUND"
    assert r.error["location"]["line"] == 2
    assert not any("npm" in (x.get("command") or []) for x in r.error["code_actions"])


def test_esm_missing_package_names_the_importer(tmp_path):
    (tmp_path / "m.mjs").write_text("import chalk from '@scope/chalkish/sub';\n")
    a = aw("--cwd", str(tmp_path), "node", "m.mjs")
    assert a.error["code"] == "NODE_PACKAGE_NOT_FOUND"
    assert a.error["package"] == "@scope/chalkish"
    assert a.error["location"] == {"file": "m.mjs"}


def test_syntax_error_location_from_the_caret(tmp_path):
    (tmp_path / "bad.js").write_text("function f() {\n  const x = {a: 1,;\n  return x;\n}\n")
    a = aw("--cwd", str(tmp_path), "node", "--check", "bad.js")
    assert a.error["code"] == "NODE_SYNTAX_ERROR"
    assert a.error["location"] == {"file": "bad.js", "line": 2, "column": 19}


def test_json_parse_of_bad_data_is_an_uncaught_exception_not_a_script_syntax_error(tmp_path):
    """JSON.parse throws a SyntaxError while the script runs (`at JSON.parse (<anonymous>)` first in its stack):
    the script's syntax is fine, the data is not, so `node --check` is no advice."""
    (tmp_path / "load.js").write_text('const fs = require("fs");\nconst cfg = JSON.parse("{bad");\n')
    answer = aw("node", "load.js", cwd=tmp_path, detail="concise")
    error = answer.error
    assert error["code"] == "NODE_UNCAUGHT_EXCEPTION"
    assert error["detail"].startswith("SyntaxError: ") and "JSON" in error["detail"]
    assert error["location"] == {"file": "load.js", "line": 2, "column": 18}
    assert error["evidence"] == ["at JSON.parse (<anonymous>)"] and error["thrown_by"] == "JSON.parse"
    assert "--check" not in error["suggested_fix"] and "JSON.parse" in error["suggested_fix"]
    assert answer.env["summary"] == "node: Uncaught exception (bad JSON input to JSON.parse)"
    # the script's own syntax error is still one: no frame outside node's loader
    (tmp_path / "bad.js").write_text("const x = {\n  a: 1,,\n};\n")
    assert aw("node", "bad.js", cwd=tmp_path).error["code"] == "NODE_SYNTAX_ERROR"


def test_unhandled_rejection_and_address_in_use(tmp_path):
    (tmp_path / "rej.js").write_text("Promise.reject('boom');\n")
    a = aw("--cwd", str(tmp_path), "node", "rej.js")
    assert a.error["code"] == "NODE_UNHANDLED_REJECTION"
    assert a.error["detail"] == 'unhandled promise rejection with the reason "boom"'
    (tmp_path / "srv.js").write_text("const http = require('http');\nconst s = http.createServer().listen(0, "
                                     "'127.0.0.1', () => {\n  http.createServer().listen(s.address().port, "
                                     "'127.0.0.1');\n});\n")
    b = aw("--cwd", str(tmp_path), "node", "srv.js")
    assert b.error["code"] == "NODE_ADDRESS_IN_USE"
    assert (b.error["category"], b.error["retryable"]) == ("conflict", True)


def test_node_test_runner_failures_and_counts(tmp_path):
    (tmp_path / "t.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "test('adds', () => { assert.strictEqual(1 + 1, 2); });\n"
        "test('subtracts', () => { assert.strictEqual(3 - 1, 1); });\n")
    a = aw("--cwd", str(tmp_path), "node", "--test", "t.test.js")
    assert a.error["code"] == "NODE_TEST_FAILED" and a.error["test"] == "subtracts"
    # where the assertion threw, in the test's own line (not where the test is declared, nor node's runner)
    assert a.error["location"] == {"file": "t.test.js", "line": 4, "column": 34}
    assert "2 !== 1" in a.error["detail"]
    tests = a.env["data"]["tests"]
    assert (tests["total"], tests["passed"], tests["failed"]) == (2, 1, 1)


NESTED = """import { test, describe, it } from 'node:test';
import assert from 'node:assert';
describe('outer suite', () => {
  it('deep fails', () => { assert.strictEqual(1 + 1, 3); });
  it('deep passes', () => {});
});
test('top with subtests', async (t) => {
  await t.test('sub ok', () => {});
  await t.test('sub fail', () => { assert.deepStrictEqual({a: 1}, {a: 2}); });
  await t.test('async sub', async () => { await null; assert.equal(1, 2); });
});
test('other', () => {});
"""


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.parametrize("reporter", ["spec", "tap"])
def test_each_rerun_command_runs_the_failed_test(tmp_path, reporter):
    """The re-run command in each failed test's fix runs that test: a `t.test` subtest runs only when its
    parent matches the pattern too (a bare 'sub fail' pattern skips everything and exits 0)."""
    (tmp_path / "a.test.mjs").write_text(NESTED)
    a = aw("--cwd", str(tmp_path), "node", "--test", f"--test-reporter={reporter}", "a.test.mjs")
    failed = {p["test"]: p["suggested_fix"] for p in a.env["problems"] if p["code"] == "NODE_TEST_FAILED"}
    assert set(failed) == {"deep fails", "sub fail", "async sub"}
    for name, fix in failed.items():
        command = fix.split("`")[1]
        rerun = aw("--cwd", str(tmp_path), "sh", "-c", command.replace("node --test", "node --test "
                                                                       "--test-reporter=spec", 1))
        ran = [line.strip() for line in rerun.env["output"]["stdout"]["text"].splitlines()]
        assert any(line.startswith(f"✖ {name} (") for line in ran), (name, command, ran)
        assert not any(line.startswith(("✔ other", "✖ other")) for line in ran), command


def test_nothing_ran_is_said_not_counted_as_a_pass(tmp_path):
    (tmp_path / "a.test.mjs").write_text(NESTED)
    a = aw("--cwd", str(tmp_path), "node", "--test", "--test-name-pattern", "sub fail", "a.test.mjs")
    assert a.code == 0 and a.env["summary"] == "node --test: no test ran (4 of 4 skipped)"
    assert [(p["code"], p["severity"]) for p in a.env["problems"]] == [("NODE_NO_TEST_RAN", "warning")]


def test_a_test_file_that_fails_to_load_is_decided_by_its_load_error(tmp_path):
    (tmp_path / "broken.test.js").write_text("const test = require('node:test');\n"
                                             "const x = require('./missing-helper');\ntest('never', () => {});\n")
    (tmp_path / "good.test.js").write_text("const test = require('node:test');\ntest('fine', () => {});\n")
    a = aw("--cwd", str(tmp_path), "node", "--test", "broken.test.js", "good.test.js")
    assert a.error["code"] == "NODE_MODULE_NOT_FOUND"
    assert a.error["location"] == {"file": "broken.test.js", "line": 2, "column": 11}
    assert not any("--test-name-pattern" in (p.get("suggested_fix") or "") for p in a.env["problems"])
    (tmp_path / "broken.test.js").write_text("const test = require('node:test');\ntest('ok', () => {});\n"
                                             "process.exitCode = 3;\n")
    b = aw("--cwd", str(tmp_path), "node", "--test", "broken.test.js")
    assert b.error["code"] == "NODE_TEST_FILE_FAILED"
    assert "`node --test broken.test.js`" in b.error["suggested_fix"]


def test_repl_is_input_required_with_a_non_interactive_alternative(tmp_path):
    a = aw("--cwd", str(tmp_path), "--timeout", "20", "node")
    assert a.code == 125 and a.error["code"] == "INPUT_REQUIRED"
    assert a.error["code_actions"][0]["command"] == ["node", "-e", "<CODE>"]
    assert a.error["code_actions"][0]["applicability"] == "has_placeholders"


def test_effects():
    d = aw("describe", "node").env["data"]
    assert "NODE_PACKAGE_NOT_FOUND" in d["problem_codes"] and "NODE_SYNTAX_ERROR" in d["problem_codes"]
    from agentwrap.adapters.node import ADAPTER

    assert ADAPTER.effects(["node", "--check", "x.js"]).read_only is True
    assert ADAPTER.effects(["node", "x.js"]).read_only is None
