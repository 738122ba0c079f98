"""node through agentwrap, where a failure is told: an import of a name the module does not export is a
missing export (not a syntax error) with a fix naming both; a failed assertion, in a plain script or a test,
is located at the first frame in the user's files; and the concise envelope says each fact once (no stack or
code frame left in the text beside the problem that says it)."""

from __future__ import annotations

import shutil

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("node"), reason="node not installed")

def _concise_output(*args: str) -> object:
    """The text the concise envelope (what an agent reads) keeps beside its problems."""
    return aw(*args, detail="concise").env.get("output")


CHECK = ("const assert = require('node:assert');\nfunction check(n) {\n  assert.strictEqual(n, 3);\n}\n"
         "check(2);\n")


def test_import_of_a_name_not_exported_is_a_missing_export(tmp_path):
    (tmp_path / "a.mjs").write_text("export const y = 1;\n")
    (tmp_path / "b.mjs").write_text("import { x } from './a.mjs';\nconsole.log(x);\n")
    a = aw("--cwd", str(tmp_path), "node", "b.mjs")
    assert a.error["code"] == "NODE_MISSING_EXPORT"
    assert a.error["location"] == {"file": "b.mjs", "line": 1, "column": 10}
    assert (a.error["module"], a.error["export"]) == ("./a.mjs", "x")
    assert "'./a.mjs' does not export 'x'" in a.error["suggested_fix"]
    assert "syntax" not in a.error["suggested_fix"].lower()
    # the code frame is the problem's evidence, node's frames are internal
    assert _concise_output("--cwd", str(tmp_path), "node", "b.mjs") is None


def test_named_import_from_commonjs_says_to_import_the_default(tmp_path):
    (tmp_path / "c.cjs").write_text("module.exports = { ['y']: 1 };\n")
    (tmp_path / "d.mjs").write_text("import { x } from './c.cjs';\n")
    a = aw("--cwd", str(tmp_path), "node", "d.mjs")
    assert a.error["code"] == "NODE_MISSING_EXPORT" and a.error["export"] == "x"
    assert "import pkg from './c.cjs'; const { x } = pkg;" in a.error["suggested_fix"]


def test_assertion_in_a_plain_script_is_located_in_the_users_file(tmp_path):
    (tmp_path / "check.js").write_text(CHECK)
    a = aw("--cwd", str(tmp_path), "node", "check.js")
    assert a.error["code"] == "NODE_ASSERTION_FAILED"
    assert a.error["location"] == {"file": "check.js", "line": 3, "column": 10}
    assert a.error["detail"] == ("AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: "
                                 "2 !== 3")
    assert [f["function"] for f in a.error["stack"]] == ["check", "Object.<anonymous>"]  # node's own left out
    # node:assert's throw line, the operands and node's version say nothing the problem does not
    assert _concise_output("--cwd", str(tmp_path), "node", "check.js") is None


def test_async_assertion_is_located_past_nodes_promise_handler(tmp_path):
    """node prints `node:internal/process/promises:391` above the error: that is never the place to fix."""
    (tmp_path / "a.js").write_text("const assert = require('node:assert/strict');\nasync function main() {\n"
                                   "  await null;\n  assert.deepEqual({a: 1}, {a: 2});\n}\nmain();\n")
    a = aw("--cwd", str(tmp_path), "node", "a.js")
    assert a.error["location"] == {"file": "a.js", "line": 4, "column": 10}


def test_tap_failure_is_located_at_the_assertion_with_its_whole_message(tmp_path):
    (tmp_path / "t.test.js").write_text("const test = require('node:test');\n"
                                        "const assert = require('node:assert');\n"
                                        "test('adds', () => {\n  assert.strictEqual(1 + 1, 3);\n});\n")
    a = aw("--cwd", str(tmp_path), "node", "--test", "--test-reporter=tap", "t.test.js")
    assert a.error["code"] == "NODE_TEST_FAILED" and a.error["test"] == "adds"
    assert a.error["location"] == {"file": "t.test.js", "line": 4, "column": 10}
    assert a.error["detail"] == "test 'adds' failed: Expected values to be strictly equal: 2 !== 3"
    # the failed test's TAP block is the problem; the counts are the summary's and data's
    tap = ("--cwd", str(tmp_path), "node", "--test", "--test-reporter=tap", "t.test.js")
    assert _concise_output(*tap) is None
