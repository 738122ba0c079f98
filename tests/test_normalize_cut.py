"""`agentwrap normalize --max-problems N` in the formats that have no envelope (jsonl, github, SARIF): the
cut is said on stderr, and inside the output where the format has a place for it."""

from __future__ import annotations

import json

from conftest import aw

# Three real gcc diagnostics (gcc 12, `gcc -Wall -c main.c`).
LOG = """main.c: In function \u2018main\u2019:
main.c:4:20: error: \u2018undefined_var\u2019 undeclared (first use in this function)
main.c:3:9: warning: unused variable \u2018unused\u2019 [-Wunused-variable]
main.c:5:5: warning: implicit declaration of function \u2018f\u2019 [-Wimplicit-function-declaration]
"""
SAID = "2 more problems were found and left out (--max-problems 1)"


def _normalize(tmp_path, fmt):
    log = tmp_path / "build.log"
    log.write_text(LOG)
    return aw("normalize", "--format", fmt, "--max-problems", "1", str(log), check=False)


def test_jsonl_says_the_cut_on_stderr(tmp_path):
    a = _normalize(tmp_path, "jsonl")
    assert len(a.stdout.splitlines()) == 1
    assert a.stderr.decode().splitlines() == [f"agentwrap normalize: {SAID}"]


def test_github_warns_in_the_jobs_log(tmp_path):
    a = _normalize(tmp_path, "github")
    lines = a.stdout.decode().splitlines()
    assert lines[0].startswith("::error file=main.c,line=4") and lines[1:] == [f"::warning::{SAID}"]
    assert SAID in a.stderr.decode()


def test_sarif_says_the_cut_in_the_run(tmp_path):
    a = _normalize(tmp_path, "sarif")
    run = json.loads(a.stdout)["runs"][0]
    assert len(run["results"]) == 1
    [notice] = run["invocations"][0]["toolExecutionNotifications"]
    assert notice["level"] == "warning" and notice["message"]["text"] == SAID
    assert notice["properties"]["problems_cut"] == 2
    assert SAID in a.stderr.decode()


def test_nothing_is_said_when_nothing_was_cut(tmp_path):
    log = tmp_path / "build.log"
    log.write_text(LOG)
    a = aw("normalize", "--format", "sarif", str(log), check=False)
    assert "invocations" not in json.loads(a.stdout)["runs"][0] and not a.stderr
