"""ruff through agentwrap: violations are located problems equal to ruff's own JSON output (in its default full
format and in the concise one), the `ruff check --fix` action exists only where ruff marks a fix and really
removes the violation, `ruff format --check` names the file to reformat, and --read-only knows --fix writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.adapter import CapturedRun
from agentwrap.adapters.ruff import ADAPTER
from agentwrap.capture import StreamResult

pytestmark = pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed")

CONFIG = '[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = ["E", "F", "I", "UP", "B"]\n'
APP = '''import os
import sys
from typing import List


def total(values: List[int]) -> int:
    result = 0
    unused = 1
    for v in values:
        result += v
    return result == None
'''
HELPERS = '''import json


def load(path):
    try:
        return json.load(open(path))
    except:
        return undefined_name
'''


def _project(tmp: Path) -> Path:
    (tmp / "pyproject.toml").write_text(CONFIG)
    (tmp / "app.py").write_text(APP)
    (tmp / "helpers.py").write_text(HELPERS)
    return tmp


def _ruff_json(project: Path, *files: str) -> list[dict]:
    out = subprocess.run(["ruff", "check", "--no-cache", "--output-format", "json", *files], capture_output=True,
                         text=True, cwd=project)
    return list(json.loads(out.stdout))


@pytest.mark.parametrize("form", [[], ["--output-format", "concise"]], ids=["full", "concise"])
def test_locations_rules_and_fixability_equal_ruffs_json(tmp_path, form):
    project = _project(tmp_path)
    answer = aw("--", "ruff", "check", "--no-cache", *form, "app.py", "helpers.py", cwd=project)
    own = _ruff_json(project, "app.py", "helpers.py")
    assert answer.code == 1

    def ours(p):
        loc = p["location"]
        return (os.path.join(project, loc["file"]), loc["line"], loc["column"], p["rule"])

    assert sorted(map(ours, answer.env["problems"])) == sorted(
        (d["filename"], d["location"]["row"], d["location"]["column"], d["code"]) for d in own)
    safe = {(d["location"]["row"], d["code"]) for d in own if d["fix"] and d["fix"]["applicability"] == "safe"}
    with_fix = {(p["location"]["line"], p["rule"]) for p in answer.env["problems"]
                if any(a["applicability"] == "machine_applicable" for a in p["code_actions"])}
    assert with_fix == safe
    assert answer.env["data"]["errors"] == len(own)
    assert answer.env["data"]["fixable"] == len(safe)


def test_the_fix_action_removes_the_violation(tmp_path):
    project = _project(tmp_path)
    answer = aw("--", "ruff", "check", "--no-cache", "app.py", cwd=project)
    f401 = next(p for p in answer.env["problems"] if p["rule"] == "F401")
    action = f401["code_actions"][0]
    assert action["command"] == ["ruff", "check", "--fix", "--select", "F401", "app.py"]
    assert action["applicability"] == "machine_applicable"
    subprocess.run(action["command"], cwd=project, capture_output=True)
    left = {d["code"] for d in _ruff_json(project, "app.py")}
    assert "F401" not in left and "E711" in left  # only the selected rule was fixed
    unsafe = next(p for p in answer.env["problems"] if p["rule"] == "E711")
    assert unsafe["code_actions"][0]["applicability"] == "maybe_incorrect"
    assert "--unsafe-fixes" in unsafe["code_actions"][0]["command"]


def test_clean_and_exit_zero_are_successes(tmp_path):
    project = _project(tmp_path)
    (project / "ok.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    clean = aw("--", "ruff", "check", "--no-cache", "ok.py", cwd=project)
    assert clean.code == 0 and clean.env["summary"] == "ruff: all checks passed"
    zero = aw("--", "ruff", "check", "--no-cache", "--exit-zero", "helpers.py", cwd=project)
    assert zero.code == 0 and zero.env["data"]["errors"] == 2
    assert {p["rule"] for p in zero.env["problems"]} == {"E722", "F821"}


def test_format_check_names_the_file_and_the_fix(tmp_path):
    project = _project(tmp_path)
    (project / "ugly.py").write_text("def ugly( a,b ):\n  return a+b\n")
    answer = aw("--", "ruff", "format", "--no-cache", "--check", "ugly.py", cwd=project)
    assert answer.error["code"] == "RUFF_UNFORMATTED"
    assert answer.error["location"]["file"] == "ugly.py"
    assert answer.error["code_actions"][0]["command"] == ["ruff", "format", "ugly.py"]
    subprocess.run(answer.error["code_actions"][0]["command"], cwd=project, capture_output=True)
    assert aw("--", "ruff", "format", "--no-cache", "--check", "ugly.py", cwd=project).code == 0


def test_configuration_and_usage_failures(tmp_path):
    project = _project(tmp_path)
    unknown = aw("--", "ruff", "check", "--select", "XYZ123", "app.py", cwd=project)
    assert unknown.error["code"] == "RUFF_UNKNOWN_RULE" and "XYZ123" in unknown.error["detail"]
    (project / "pyproject.toml").write_text("[tool.ruff]\nline-lenght = 3\n")
    bad = aw("--", "ruff", "check", "app.py", cwd=project)
    assert bad.error["code"] == "RUFF_CONFIG_INVALID" and "line-lenght" in bad.error["detail"]
    assert bad.error["location"]["file"].endswith("pyproject.toml")
    usage = aw("--", "ruff", "check", "--no-such-flag", cwd=project)
    assert usage.error["code"] == "RUFF_USAGE"


def test_effects_know_which_invocations_write():
    # (agentwrap's --read-only is not available yet; it will refuse what these call mutating)
    assert ADAPTER.effects(["ruff", "check", "app.py"]).read_only is True
    assert ADAPTER.effects(["ruff", "check", "--fix", "app.py"]).read_only is False
    assert ADAPTER.effects(["ruff", "check", "--fix", "--diff", "x.py"]).read_only is True
    assert ADAPTER.effects(["ruff", "--config", "x.toml", "check", "--unsafe-fixes", "--fix", "."]).read_only is False
    assert ADAPTER.effects(["ruff", "format", "x.py"]).read_only is False
    assert ADAPTER.effects(["ruff", "format", "--check", "x.py"]).read_only is True


_EMPTY = StreamResult("", 0, 0, False, 0, None)


def test_saved_logs_read_only_python_files():
    text = ("main.c:3:5: error: expected ';'\nsrc/a.ts:1:7 - error TS2322: Type\n"
            "a.py:3: error: Name \"x\" is not defined  [name-defined]\nlib.rs:1:1: E0425 nope\n")
    run = CapturedRun(argv=("ruff",), program="ruff", exit_code=1, signal=None, stdout=_EMPTY, stderr=_EMPTY,
                      duration_ms=0, stdout_text=text, stderr_text="", complete=True, subcommand=None)
    assert ADAPTER.find_problems(run) == []
    run = run._replace(stdout_text=text + "pkg/m.py:4:1: E402 Module level import not at top of file\n")
    assert [(p.code, p.location, p.extra["rule"]) for p in ADAPTER.find_problems(run)] == [
        ("RUFF_VIOLATION", {"file": "pkg/m.py", "line": 4, "column": 1}, "E402")]
