"""ESLint through agentwrap: its stylish report becomes located problems equal to ESLint's own JSON output
(`-f json`), warnings alone are a success, `eslint --fix FILE` is offered for auto-fixable rules and really
fixes them, and ESLint's own failures (no config, unknown rule, no files) are named.

Needs eslint on PATH (`npm install -g eslint`); skipped otherwise. The configs here use core rules only, so
no plugin package (not even @eslint/js) has to be resolvable from the temporary project.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.adapter import CapturedRun
from agentwrap.adapters.eslint import ADAPTER
from agentwrap.capture import StreamResult

ESLINT = shutil.which("eslint")
needs_eslint = pytest.mark.skipif(ESLINT is None, reason="eslint not installed (npm install -g eslint)")

CONFIG = '''export default [{
  languageOptions: { globals: { console: "readonly" } },
  rules: { "no-var": "warn", "prefer-const": "warn", eqeqeq: "error", semi: ["warn", "always"],
           "no-undef": "error", "no-unused-vars": "error" },
}];
'''
APP = '''var unused = 1;
let total = 2
if (total == 3) {
  undefinedFn();
}
'''
LIB = 'let name = "lib";\nconsole.log(name)\n'


def _project(tmp: Path) -> Path:
    (tmp / "eslint.config.mjs").write_text(CONFIG)
    (tmp / "app.js").write_text(APP)
    (tmp / "lib.js").write_text(LIB)
    return tmp


def _own(project: Path, *files: str) -> list[dict]:
    assert ESLINT is not None
    out = subprocess.run([ESLINT, "-f", "json", *files], capture_output=True, text=True, cwd=project)
    return list(json.loads(out.stdout))


@needs_eslint
def test_locations_severities_and_rules_equal_eslints_json(tmp_path):
    assert ESLINT is not None
    project = _project(tmp_path)
    answer = aw("--", ESLINT, "app.js", "lib.js", cwd=project)
    own = [(os.path.relpath(f["filePath"], project), m["line"], m["column"],  # locations are relative to cwd
            {1: "warning", 2: "error"}[m["severity"]], m["ruleId"])
           for f in _own(project, "app.js", "lib.js") for m in f["messages"]]
    assert len(own) == 8
    assert [(p["location"]["file"], p["location"]["line"], p["location"]["column"], p["severity"], p["rule"])
            for p in answer.env["problems"]] == own
    assert answer.code == 1 and answer.env["command"]["adapter"] == "eslint"
    assert answer.error["severity"] == "error" and answer.error["rule"] == "no-unused-vars"
    assert answer.env["data"] == {"errors": 3, "warnings": 5, "files": 2, "fixable_errors": 0,
                                  "fixable_warnings": 5}


@pytest.mark.slow
@needs_eslint
def test_fix_action_only_for_fixable_rules_and_it_fixes_them(tmp_path):
    assert ESLINT is not None
    project = _project(tmp_path)
    answer = aw("--", ESLINT, "lib.js", cwd=project)
    fixable = {m["ruleId"] for f in _own(project, "lib.js") for m in f["messages"] if m.get("fix")}
    offered = {p["rule"] for p in answer.env["problems"] if p["code_actions"]}
    assert offered == fixable == {"prefer-const", "semi"}
    action = answer.env["problems"][0]["code_actions"][0]
    assert action["command"] == [ESLINT, "--fix", str(project / "lib.js")]
    assert action["applicability"] == "machine_applicable"
    subprocess.run(action["command"], cwd=project, capture_output=True)
    assert [m["ruleId"] for f in _own(project, "lib.js") for m in f["messages"]] == []


@needs_eslint
def test_concise_says_each_place_once_leaves_the_footer_to_the_data_and_offers_fix_over_the_same_paths(tmp_path):
    """ESLint prints absolute paths: a problem's detail is the message, its place the location's (relative to
    the folder eslint ran in); the `✖ N problems` footer's counts are the data and the summary; ESLint's
    "N errors and M warnings potentially fixable" becomes `eslint --fix` over the paths the caller gave
    (stylish does not say which messages, so the run's own action says it once), and that fixes them."""
    assert ESLINT is not None
    project = tmp_path / "proj"
    (project / "lib").mkdir(parents=True)
    (project / "eslint.config.mjs").write_text(CONFIG)
    (project / "lib" / "a.js").write_text(APP)
    (project / "lib" / "b.js").write_text(LIB)
    c = aw("--", ESLINT, "lib", cwd=project, detail="concise").env
    shown = [c["error"], *c["problems"]]
    assert len(shown) == 8 and {p["location"]["file"] for p in shown} == {"lib/a.js", "lib/b.js"}
    for p in shown:
        assert str(project) not in p["detail"] and not p["detail"].startswith(p["location"]["file"]), p
        assert not p["detail"].startswith(("error:", "warning:")), p
    stdout = c.get("output", {}).get("stdout", {}).get("text", "")
    assert "problems (" not in stdout and "potentially fixable" not in stdout, stdout
    assert c["data"] == {"fixable_warnings": 5}  # the errors and warnings are the summary's
    fix = [a for a in c["error"].get("code_actions", []) if "--fix" in a["command"]]
    assert [(a["command"], a["applicability"]) for a in fix] == [([ESLINT, "--fix", "lib"], "machine_applicable")]
    subprocess.run(fix[0]["command"], cwd=project, capture_output=True)
    after = aw("--", ESLINT, "lib", cwd=project, detail="concise").env
    assert after["summary"] == "eslint: 3 errors, 0 warnings in 1 file" and "data" not in after
    assert "code_actions" not in after["error"]


@needs_eslint
def test_warnings_only_is_a_success_and_max_warnings_is_not(tmp_path):
    assert ESLINT is not None
    project = _project(tmp_path)
    (project / "warn.js").write_text("let w = 1;\nconsole.log(w);\n")
    ok = aw("--", ESLINT, "warn.js", cwd=project)
    assert ok.code == 0 and ok.env["summary"] == "eslint: 0 errors, 1 warning in 1 file"
    assert [p["severity"] for p in ok.env["problems"]] == ["warning"]
    strict = aw("--", ESLINT, "--max-warnings", "0", "warn.js", cwd=project)
    assert strict.code == 1 and strict.error["code"] == "ESLINT_TOO_MANY_WARNINGS"


@pytest.mark.slow
@needs_eslint
def test_eslints_own_failures_are_named(tmp_path):
    assert ESLINT is not None
    project = _project(tmp_path)
    assert aw("--", ESLINT, "nothere.js", cwd=project).error["code"] == "ESLINT_NO_FILES"
    (project / "broken.js").write_text("const x = ;\n")
    parse = aw("--", ESLINT, "broken.js", cwd=project)
    assert parse.error["code"] == "ESLINT_PARSE_ERROR" and parse.error["location"]["line"] == 1
    (project / "eslint.config.mjs").write_text('export default [{ rules: { "no-such-rule": "error" } }];\n')
    assert aw("--", ESLINT, "app.js", cwd=project).error["code"] == "ESLINT_RULE_NOT_FOUND"
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "x.js").write_text("var a = 1\n")
    if not any((p / name).exists() for p in bare.parents for name in ("eslint.config.js", "eslint.config.mjs")):
        assert aw("--", ESLINT, "x.js", cwd=bare).error["code"] == "ESLINT_CONFIG_NOT_FOUND"


def test_effects_know_fix_writes():
    assert ADAPTER.effects(["eslint", "."]).read_only is True
    assert ADAPTER.effects(["eslint", "--fix", "."]).read_only is False
    assert ADAPTER.effects(["eslint", "--fix-dry-run", "."]).read_only is True


_EMPTY = StreamResult("", 0, 0, False, 0, None)


def test_saved_logs_need_a_file_line_above_the_rows():
    text = "main.c:3:5: error: expected ';'\n  12:5  error  stray row without a file  no-undef\n"
    run = CapturedRun(argv=("eslint",), program="eslint", exit_code=1, signal=None, stdout=_EMPTY, stderr=_EMPTY,
                      duration_ms=0, stdout_text=text, stderr_text="", complete=True, subcommand=None)
    assert ADAPTER.find_problems(run) == []
    log = text + "\n/repo/src/a.js\n  3:1  warning  Unexpected var  no-var\n\n✖ 1 problem (0 errors, 1 warning)\n"
    run = run._replace(stdout_text=log)
    assert [(p.code, p.location, p.severity, p.extra["rule"]) for p in ADAPTER.find_problems(run)] == [
        ("ESLINT_RULE_VIOLATION", {"file": "/repo/src/a.js", "line": 3, "column": 1}, "warning", "no-var")]
