"""agentwrap normalize on a log where gcc's diagnostics sit beside another tool's `file:line:col: error:`
lines: each line is its own tool's, and gcc's warnings group per `-W` flag in SARIF."""

from __future__ import annotations

import json

from conftest import aw

# Captured from `mypy --show-column-numbers src/a.py; gcc -Wall -c main.c` (mypy 1.x, gcc 12).
MIXED = """src/a.py:2:12: error: Incompatible return value type (got "int", expected "str")  [return-value]
Found 1 error in 1 file (checked 1 source file)
main.c: In function \u2018main\u2019:
main.c:4:20: error: \u2018undefined_var\u2019 undeclared (first use in this function)
    4 |     printf("%d\\n", undefined_var);
      |                    ^~~~~~~~~~~~~
main.c:4:20: note: each undeclared identifier is reported only once for each function it appears in
main.c:3:9: warning: unused variable \u2018unused\u2019 [-Wunused-variable]
    3 |     int unused = 3;
      |         ^~~~~~
"""


def test_the_gcc_adapter_reads_no_python_file_as_a_c_file(tmp_path):
    log = tmp_path / "build.log"
    log.write_text(MIXED)
    a = aw("normalize", "--adapter", "gcc", "--format", "jsonl", str(log), check=False)
    problems = [json.loads(line) for line in a.stdout.splitlines()]
    places = [(p["location"]["file"], p["location"]["line"]) for p in problems]
    assert places == [("main.c", 4), ("main.c", 3)]


def test_sarif_groups_gcc_warnings_by_their_flag(tmp_path):
    log = tmp_path / "build.log"
    log.write_text(MIXED)
    a = aw("normalize", "--adapter", "gcc", "--format", "sarif", str(log), check=False)
    run = json.loads(a.stdout)["runs"][0]
    assert "gcc/-Wunused-variable" in [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert [r["ruleId"] for r in run["results"] if r["level"] == "warning"] == ["gcc/-Wunused-variable"]


def test_gcc_fixes_do_not_restate_the_location(tmp_path):
    log = tmp_path / "build.log"
    log.write_text(MIXED)
    a = aw("normalize", "--adapter", "gcc", "--format", "jsonl", str(log), check=False)
    assert [json.loads(line).get("suggested_fix") for line in a.stdout.splitlines()] == [None, None]
