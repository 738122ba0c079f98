"""Failures under `--agent` (CONTRACT 2a), on real tools: each fact once. The summary is ours (counts, which
step failed) and never the error's detail again; the error is whole but has no member that only repeats
its detail; a fix that says nothing specific is not produced; the text keeps no line a problem already
stands for. The standard envelope keeps every member (checked beside the concise one)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, check_envelope

PY = sys.executable


def run(*args: str, cwd: Path, detail: str | None = None, shell: str | None = None) -> dict:
    """`agentwrap --agent [--detail D] -- ARGS` (or `--shell LINE`), as an agent's tool runs it."""
    extra = ["--detail", detail] if detail else []
    command = ["--shell", shell] if shell is not None else ["--", *args]
    proc = subprocess.run([PY, "-m", "agentwrap", "--agent", *extra, *command], capture_output=True, timeout=120,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_NO_STATS": "1"},
                          stdin=subprocess.DEVNULL)
    assert b"Traceback" not in proc.stderr, proc.stderr
    env = json.loads(proc.stdout)
    check_envelope(env, proc.returncode)
    return env


def texts(env: dict) -> str:
    return "".join(s.get("text", "") for s in (env.get("output") or {}).values())


def _said_once(env: dict) -> None:
    assert env["error"]["detail"] not in env["summary"], "the summary repeats the error's detail"


WINDOW_C = """#include <stdio.h>
int main(void) {
    long width = 3;
    printf("%ld\\n", widht);
    return 0;
}
"""


@pytest.mark.skipif(not shutil.which("gcc") or not shutil.which("make"), reason="gcc/make not installed")
def test_make_compiler_error_is_said_once_with_its_fix_it(tmp_path):
    (tmp_path / "native").mkdir()
    (tmp_path / "native" / "window.c").write_text(WINDOW_C)
    (tmp_path / "native" / "Makefile").write_text("window: window.c\n\tcc -O2 -o window window.c\n")
    env = run("make", "-C", "native", cwd=tmp_path)
    _said_once(env)
    assert env["summary"] == "make: the recipe for target 'window' failed with status 1 (1 compiler error)"
    error = env["error"]
    assert error["code"] == "GCC_ERROR" and error["location"]["file"] == "native/window.c"
    edit = error["code_actions"][0]
    assert edit["kind"] == "edit" and edit["edit"]["replace"] == "width"
    # gcc's `message` is the detail less its place; the fix-it's title is the fix: neither is said twice
    assert "message" not in error and "suggested_fix" not in error
    text = texts(env)
    assert "width\n" not in text and "|" not in text, "the fix-it row leaked into the text"
    assert "cc -O2" not in text, "make's echo of the compile command"
    assert "reported only once" not in json.dumps(env)
    assert "problems" not in env, "the failed recipe is the summary's: the compiler error explains it"
    assert "data" not in env, "the compiler counts are the summary's"
    standard = run("make", "-C", "native", cwd=tmp_path, detail="standard")
    assert standard["error"]["message"].startswith("‘widht’ undeclared"), "the standard envelope keeps every member"


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed")
def test_ruff_violation_counts_in_the_summary_and_says_its_fix_once(tmp_path):
    (tmp_path / "a.py").write_text("import math\nimport os\n\nprint(math.pi)\n")
    env = run("ruff", "check", "--no-cache", "--isolated", "a.py", cwd=tmp_path)
    _said_once(env)
    assert env["summary"] == "ruff: 1 error in 1 file (1 fixable)"
    assert "data" not in env and "output" not in env, "the counts and `[*] 1 fixable` restate the problems"
    error = env["error"]
    assert error["suggested_fix"] == "Remove unused import: `os`"
    assert "docs_url" not in error, "no link that is not the rule's own"
    assert "rule" not in error and "F401" in error["detail"]
    assert error["code_actions"][0]["command"][-2:] == ["F401", "a.py"] and "kind" not in error["code_actions"][0]
    assert run("ruff", "check", "--no-cache", "--isolated", "a.py", cwd=tmp_path,
               detail="standard")["error"]["rule"] == "F401"


@pytest.mark.skipif(shutil.which("mypy") is None, reason="mypy not installed")
def test_mypy_type_error_carries_no_templated_fix(tmp_path):
    (tmp_path / "m.py").write_text("def f() -> str:\n    return 1\n")
    env = run("mypy", "--no-incremental", "m.py", cwd=tmp_path)
    assert env["summary"].startswith("mypy: 1 error in 1 file")
    _said_once(env)
    assert "suggested_fix" not in env["error"] and env["error"]["docs_url"].endswith("code-return-value")


CRATE_RS = "pub fn best(sums: &[i64]) -> i64 {\n    let best: i64 = sums.iter().max();\n    best\n}\n"


@pytest.mark.skipif(not shutil.which("cargo"), reason="cargo not installed")
def test_cargo_type_error_points_at_its_explanation_once(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "window"\nversion = "0.1.0"\nedition = "2021"\n')
    (tmp_path / "src" / "lib.rs").write_text(CRATE_RS)
    env = run("cargo", "build", "--offline", cwd=tmp_path)
    _said_once(env)
    assert env["summary"] == "cargo build: could not compile `window` (lib), 1 error"
    error = env["error"]
    assert error["code"] == "E0308" and error["docs_url"].endswith("E0308.html")
    assert "rustc_code" not in error and "suggested_fix" not in error, "the code and docs_url say them"
    assert "rustc --explain" not in texts(env)
    assert "problems" not in env, "cargo's `could not compile` (crate and target) is the summary's"


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_pytest_does_not_offer_to_rerun_the_test_it_just_ran_alone(tmp_path):
    (tmp_path / "test_a.py").write_text("def test_one():\n    assert 1 == 2\n\ndef test_two():\n    assert 1 == 3\n")
    alone = run(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_a.py::test_one", cwd=tmp_path)
    assert alone["error"]["location"] == {"file": "test_a.py", "line": 2}
    assert "code_actions" not in alone["error"] and "suggested_fix" not in alone["error"]
    first = run(PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", cwd=tmp_path)
    assert first["error"]["code_actions"][0]["title"] == "Re-run only this test"
    assert "stopping after" not in texts(first), "-x is the caller's own option"
    _said_once(first)


NODE_TEST = """import test from 'node:test';
import assert from 'node:assert';
test('adds', () => { assert.strictEqual(1 + 1, 2); });
test('window sums (all)', () => { assert.deepStrictEqual([8, 6, 10], [8, 6, 11]); });
"""


@pytest.mark.skipif(not shutil.which("node"), reason="node not installed")
def test_node_test_failure_counts_and_names_its_rerun(tmp_path):
    (tmp_path / "w.test.mjs").write_text(NODE_TEST)
    env = run("node", "--test", "w.test.mjs", cwd=tmp_path)
    _said_once(env)
    assert env["summary"] == "node --test: 1 passed, 1 failed"
    assert "data" not in env, "the counts are the summary's"
    assert "failing tests" not in texts(env)
    assert env["error"]["suggested_fix"].endswith(
        "`node --test --test-name-pattern '^window sums \\(all\\)$' w.test.mjs`.")  # anchored: this test only
