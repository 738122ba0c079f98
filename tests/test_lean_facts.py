"""The concise text loses no fact and says nothing untrue (CONTRACT 2a): a line leaves it only when the
envelope already holds what it says. On real tools: a diff's lines, a code frame's caret and a printed
object's closing brace are never taken for restatements because they hold no words."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from test_lean_failures import run

from agentwrap.outcome import lean

PY = sys.executable


def text_of(env: dict, stream: str) -> str:
    return str(((env.get("output") or {}).get(stream) or {}).get("text", ""))


# --- lines of no words ---------------------------------------------------------------------------
@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed")
def test_a_format_diff_keeps_every_line_of_its_hunk(tmp_path):
    (tmp_path / "fmt.py").write_text("x=[1,2,\n  3]\ndef  f( a ):\n  return a\n")
    raw = subprocess.run(["ruff", "format", "--diff", "fmt.py"], cwd=tmp_path, capture_output=True, text=True).stdout
    hunk = raw[raw.index("@@"):].rstrip("\n")
    assert "\n+\n+\n+def f(a):" in hunk, raw  # the two blank lines ruff adds before a def
    env = run("ruff", "format", "--diff", "fmt.py", cwd=tmp_path)
    assert hunk in text_of(env, "stdout"), "a diff's `+` lines are the change: none is left out"


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_a_node_error_keeps_its_caret_and_the_closing_brace_of_its_object(tmp_path):
    (tmp_path / "req.js").write_text("require('left-padzz');\n")
    env = run("node", "req.js", cwd=tmp_path)
    assert env["error"]["code"] == "NODE_PACKAGE_NOT_FOUND"
    lines = text_of(env, "stderr").splitlines()
    if "  throw err;" in lines:
        assert lines[lines.index("  throw err;") + 1] == "  ^", "the caret under a line that stays, stays"
    if any(line.startswith("  requireStack:") for line in lines):
        assert "}" in lines, "the object printed with its members keeps its closing brace"
    # brackets whose contents went (the problem says them) do not stay alone: no `[` just before its `]`,
    # no `}` without a `{`
    closes = [bool(re.fullmatch(r"\s*[\]})]+[,;]?\s*", line)) for line in lines]
    opens = [line.rstrip().endswith(("[", "{", "(")) for line in lines]
    assert not any(a and b for a, b in zip(opens, closes[1:], strict=False)), lines
    assert sum(closes) <= sum(opens), lines


def test_a_caret_goes_only_with_the_line_it_marks():
    said = lean.facts_said([], {"file": "a.py", "name": "total_cost"}, "")
    text = "    total_cost\n    ^^^^^^^^^^\n    keep = this(line)\n    ^^^^\n+\n}\n"
    out, _, restated, _ = lean.lean_text(text, [], said, layout=False)
    assert out == "    keep = this(line)\n    ^^^^\n+\n}\n", out
    assert restated == 2


def test_a_banner_of_at_signs_is_no_diff():
    said = lean.facts_said([], {"host": "example", "changed": "key"}, "host key changed")
    banner = "@" * 40
    text = f"{banner}\n@  host key changed  @\n{banner}\nkey changed host\nsomething else entirely here\n"
    out, _, _, _ = lean.lean_text(text, [], said, layout=False)
    assert "key changed host" not in out, "a banner does not protect the lines under it as a hunk"


def show(artifact: str, grep: str, cwd: Path) -> list[str]:
    """The lines of an artifact that match `grep`, as `agentwrap artifact show --grep` numbers them."""
    assert artifact.startswith("art_"), artifact
    proc = subprocess.run([PY, "-m", "agentwrap", "artifact", "show", artifact, "--grep", grep, "--limit", "1048576"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=cwd)
    return [m["text"] for m in json.loads(proc.stdout)["data"]["matches"]]


# --- more failures than the concise envelope lists ---------------------------------------------------
@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_concise_counts_the_problems_it_leaves_out_and_names_the_artifact_that_has_them(tmp_path):
    (tmp_path / "test_many.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('i', range(60))\n"
        "def test_n(i):\n    assert i % 7 == 0, f'value {i} not divisible'\n")
    env = run("pytest", "-q", "-p", "no:randomly", cwd=tmp_path)
    shown = {p["nodeid"] for p in [env["error"], *env["problems"]] if "nodeid" in p} | {
        p["detail"].split(" ", 1)[0] for p in [env["error"], *env["problems"]]}
    assert env["problems_omitted"] == 51 - 1 - len(env["problems"]) == 30
    warning = next(w for w in env["warnings"] if w["code"] == "PROBLEMS_TRUNCATED")
    assert warning["message"].startswith(f"{env['problems_omitted']} more problems were left out"), warning
    whole = "\n".join(show(warning["message"].rsplit(" ", 1)[-1], "^FAILED ", tmp_path))
    failing = {f"test_many.py::test_n[{i}]" for i in range(60) if i % 7}
    left_out = failing - shown
    assert len(left_out) == 30 and all(f"FAILED {nodeid} " in whole for nodeid in left_out), whole


# --- pytest's captured output ----------------------------------------------------------------------
CAPTURING = '''import logging
import pytest


@pytest.fixture
def noisy():
    print("setting up the noisy fixture")
    yield
    raise RuntimeError("teardown boom")


def test_logs():
    print("debug value=42")
    logging.getLogger("app").warning("cache miss for user 17")
    assert 1 + 1 == 3


def test_other():
    print("other value=43")
    assert "a" == "b"


def test_teardown(noisy):
    pass


def test_long():
    for i in range(30):
        print(f"step {i} done")
    assert False
'''


@pytest.fixture(scope="module")
def capturing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    folder = tmp_path_factory.mktemp("captured")
    (folder / "test_cap.py").write_text(CAPTURING)
    return folder, run("pytest", "-q", "-p", "no:randomly", cwd=folder), run(
        "pytest", "-q", "-p", "no:randomly", cwd=folder, detail="standard")


def _by_test(env: dict) -> dict[str, dict]:
    shown = [env["error"], *env.get("problems", [])]
    return {p.get("nodeid") or p["detail"].split(" ", 1)[0].rstrip(":"): p for p in shown}


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_what_a_failing_test_printed_and_logged_is_carried_by_its_problem(capturing):
    _, env, _ = capturing
    tests = _by_test(env)
    assert tests["test_cap.py::test_logs"]["captured"] == {
        "stdout call": ["debug value=42"], "log call": ["WARNING  app:test_cap.py:14 cache miss for user 17"]}
    assert tests["test_cap.py::test_other"]["captured"] == {"stdout call": ["other value=43"]}
    assert tests["test_cap.py::test_teardown"]["captured"]["stdout setup"] == ["setting up the noisy fixture"]
    text = "".join(s.get("text", "") for s in (env.get("output") or {}).values())
    assert "Captured" not in text, "no header is left without the output it heads"


def test_a_long_capture_keeps_its_last_lines_and_says_where_the_rest_is(capturing):
    folder, env, standard = capturing
    long = _by_test(env)["test_cap.py::test_long"]
    assert long["captured"]["stdout call"] == [f"step {i} done" for i in range(10, 30)]
    assert long["captured_omitted"] == {"stdout call": 10}
    warning = next(w for w in env["warnings"] if w["code"] == "OUTPUT_TRUNCATED")
    found = show(warning["message"].rsplit(" ", 1)[-1], "^step [0-9] done$", folder)
    assert found == [f"step {i} done" for i in range(10)], found
    assert standard["output"]["stdout"]["artifact"].startswith("art_")


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_the_standard_text_keeps_the_captured_output(capturing):
    _, _, standard = capturing
    assert "debug value=42" in standard["output"]["stdout"]["text"] or standard["output"]["stdout"]["truncated"]


# --- counts read through a pipe --------------------------------------------------------------------
@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed")
def test_counts_read_from_what_head_let_through_are_not_given_as_totals(tmp_path):
    (tmp_path / "a.py").write_text("".join(f"import m{i}\n" for i in range(9)))
    whole = run(shell="ruff check --select F401 .", cwd=tmp_path)["summary"]
    assert whole.startswith("ruff: 9 errors in 1 file"), whole
    cut = run(shell="ruff check --select F401 . | head -3", cwd=tmp_path)
    assert cut["command"]["decided_by"]["hidden_by_pipe"] is True
    # head's copy of its input holds all ruff wrote when ruff ended first: the counts are then ruff's totals
    assert cut["summary"] == whole or "may not be the total" in cut["summary"], cut["summary"]
    # the line's own head keeps no copy: ruff is read from the 3 lines head let through
    uncopied = run(shell='head() { command head "$@"; }; ruff check --select F401 . | head -3', cwd=tmp_path)
    summary = uncopied["summary"]
    assert "`head -3` let through" in summary and "may not be the total" in summary, summary
    assert run(shell="ruff check --select F401 . | cat", cwd=tmp_path)["summary"] == whole, "cat passes all on"


def test_a_heading_whose_list_the_data_holds_goes_with_its_list(tmp_path):
    from agentwrap import fixtures, registry
    from agentwrap.artifacts import ArtifactStore
    from agentwrap.render import views

    case = next(c for c in fixtures.cases(ROOT / "fixtures") if (c.adapter, c.name) == ("apt", "install-simulated"))
    record = fixtures.replay_record(registry.builtin("apt"), case, store=ArtifactStore(tmp_path))
    raw = case.path(".out").read_text()
    assert "The following NEW packages will be installed:" in raw
    env = views.concise(record)
    text = env.get("output", {}).get("stdout", {}).get("text", "")
    assert "The following NEW packages will be installed:" not in text  # its names are the data's
    assert "Suggested packages:\n  figlet" in text  # a heading whose list stayed keeps it
    assert env["data"]  # the plan the heading introduced


def test_a_full_width_banner_a_problem_was_read_from_is_not_shown_again(tmp_path):
    from agentwrap import fixtures, registry
    from agentwrap.artifacts import ArtifactStore
    from agentwrap.render import views

    case = next(c for c in fixtures.cases(ROOT / "fixtures") if (c.adapter, c.name) == ("pytest", "keyboard-interrupt"))
    assert "KeyboardInterrupt !!!" in case.path(".out").read_text()  # pytest's rule of `!`, terminal-wide
    env = views.concise(fixtures.replay_record(registry.builtin("pytest"), case, store=ArtifactStore(tmp_path)))
    assert env["error"]["code"] == "PYTEST_INTERRUPTED"
    assert "KeyboardInterrupt !!!" not in json.dumps(env.get("output", {}))
