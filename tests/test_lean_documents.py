"""The concise text judges a line by its words, but a printed document is no set of lines: it is kept whole
or left out whole, never cut into a text that is no longer the document. A source line a fix edits stays
unless a problem carries it verbatim, and a line whose numbers differ from the detail's is no restatement
of it. On real runs and captured fixtures."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from conftest import ROOT
from test_lean_failures import run

from agentwrap import fixtures, registry
from agentwrap.outcome import documents, lean
from agentwrap.problem import Problem
from agentwrap.render import views

CASES = {(c.adapter, c.name): c for c in fixtures.cases(ROOT / "fixtures")}


def concise_text(adapter: str, name: str, stream: str) -> str:
    view = views.concise(fixtures.replay_record(registry.builtin(adapter), CASES[adapter, name]))
    return str(((view.get("output") or {}).get(stream) or {}).get("text", ""))


def printed(adapter: str, name: str, suffix: str) -> str:
    return CASES[adapter, name].path(suffix).read_text().replace("\r\n", "\n")


# --- a printed document ---------------------------------------------------------------------------
def test_a_json_document_a_failing_program_printed_stays_whole():
    """python printed its config as JSON, then raised with a detail naming two of its values: the lines
    `"retries": 3,` and `"timeout": 30,` went as restatements, leaving a document that was not the one printed."""
    text = concise_text("python", "json-then-exception", "stdout")
    assert json.loads(text) == json.loads(printed("python", "json-then-exception", ".out"))


def test_npm_ls_json_is_the_text_or_the_data_never_both():
    """`npm ls --json` with a missing dependency: the concise envelope gave the document whole and data that
    said it again (~400 bytes over the raw output). Its data now holds every fact of the document, and the
    envelope gives the cheaper of the two: here the data, which still says what is missing and the range."""
    view = views.concise(fixtures.replay_record(registry.builtin("npm"), CASES["npm", "ls-json-missing"]))
    assert "stdout" not in (view.get("output") or {}), view["output"]
    assert view["data"] == {"dependencies": [{"name": "left-pad", "required": "^1.3.0", "missing": True}]}
    assert view["error"]["detail"] == "missing: left-pad@^1.3.0, required by demo@1.0.0"


def test_npm_ls_json_data_holds_every_fact_of_the_document():
    record = fixtures.replay_record(registry.builtin("npm"), CASES["npm", "ls-json-missing"])
    printed_doc = json.loads(printed("npm", "ls-json-missing", ".out"))
    data = record.standard()["data"]
    assert (data["name"], data["version"], data["problems"]) == (
        printed_doc["name"], printed_doc["version"], printed_doc["problems"])
    for entry in data["dependencies"]:
        said = {k: v for k, v in printed_doc["dependencies"][entry.pop("name")].items() if k != "problems"}
        assert {k: v for k, v in entry.items() if v is not None} == said


def test_a_document_whose_every_line_restates_goes_whole():
    said = lean.facts_said([], {"name": "billing", "retries": 3}, "")
    text = 'before it\n{\n  "name": "billing",\n  "retries": 3\n}\nafter it\n'
    out, _, restated, _ = lean.lean_text(text, [], said, layout=False)
    assert out == "before it\nafter it\n" and restated == 4, out


def test_a_document_is_found_only_where_it_parses():
    lines = ["int main(void) {", "{", '  "a": [1, 2],', '  "b": {}', "}", "[ 40%]", "[", "  oops", "]"]
    assert lean.documents(lines) == [(1, 5)]


def test_a_yaml_document_a_failing_program_printed_stays_whole():
    """python printed its config as YAML, then raised naming two of its values: `retries: 3` and
    `timeout: 30` went as restatements, and the text left still read as a config, one it never printed."""
    assert concise_text("python", "yaml-then-exception", "stdout") == printed("python", "yaml-then-exception", ".out")


def test_a_toml_document_a_failing_program_printed_stays_whole():
    text = concise_text("python", "toml-then-exception", "stdout")
    assert tomllib.loads(text) == tomllib.loads(printed("python", "toml-then-exception", ".out"))


def test_a_file_cat_reads_stays_verbatim_beside_a_missing_one(tmp_path: Path):
    """`cat pyproject.toml missing.toml`: the detail names the missing file, and the TOML line that names it too
    went as a restatement, out of the file the agent edits by its exact lines."""
    toml = '[tool.docs]\nfile = "missing.toml"\nwidth = 100\n'
    (tmp_path / "pyproject.toml").write_text(toml)
    env = run("cat", "pyproject.toml", "missing.toml", cwd=tmp_path)
    assert env["error"]["detail"] == "no such file or directory: missing.toml"
    assert env["output"]["stdout"]["text"] == toml


def test_a_yaml_document_whose_every_line_restates_goes_whole():
    said = lean.facts_said([], {"name": "billing", "retries": 3}, "")
    text = "before it\nservice:\n  name: billing\n  retries: 3\nafter it\n"
    out, _, restated, _ = lean.lean_text(text, [], said, layout=False)
    assert out == "before it\nafter it\n" and restated == 3, out


def test_a_long_json_document_is_read_past_the_first_window():
    """JSON is decoded in a window that grows (a log's many `[ 40%]` lines each failed over the whole text):
    a document longer than the window, with strings cut at its edges, is still found whole."""
    body = json.dumps({f"k{i}": ["x" * 50, {"a": 'has \\" a quote'}] for i in range(300)}, indent=2).splitlines()
    lines = ["[ 40%] x", *body, "[", '  "a",', '  "b', "]"]
    assert documents.json_documents(lines) == [(1, len(body) + 1)]


def test_yaml_is_found_by_keys_that_nest():
    pod = ["apiVersion: v1", "items:", "- apiVersion: v1", "  metadata:", "    name: web", "  spec:",
           "    containers:", "    - image: nginx", "      args: |", "        --port: 80", "kind: List"]
    assert documents.yaml_documents(["NAME READY", *pod, "done."]) == [(1, 12)]
    assert documents.yaml_documents(["---", "a:", "  b: 1"]) == [(0, 3)]
    # a flat listing (`pip show`, git's `Author:`), a log's `error: x`, a list of items alone: no document
    assert documents.yaml_documents(["Name: agentwrap", "Version: 0.1.0", "Requires:", "Required-by:"]) == []
    assert documents.yaml_documents(["error: no such file", "  hint: see --help"]) == []
    assert documents.yaml_documents(["- one", "- two"]) == []
    # a block that goes on in lines of another shape is not all YAML (apt policy's `Version table:`)
    assert documents.yaml_documents(["jq:", "  Installed: (none)", "  Version table:", "     1.6 500"]) == []
    assert documents.yaml_documents(["total 8:", "-rw-r--r-- 1 a b 0 x", "-rw-r--r-- 1 a b 0 y"]) == []


def test_toml_is_found_where_tomllib_reads_it():
    toml = ["[project]", 'name = "agentwrap"', "dependencies = [", '    "pexpect>=4.8",  # [why]', "]", "",
            "[tool.ruff]", "line-length = 120"]
    assert documents.toml_documents(["$ cat pyproject.toml", *toml, "$ next"]) == [(1, 9)]
    assert documents.toml_documents(["[INFO] building", "x = 1"]) == []  # one line of TOML
    assert documents.toml_documents(["[a]", "x = oops", "y = 2"]) == []  # no TOML: `oops` is no value


# --- a source line -------------------------------------------------------------------------------
def test_a_traceback_keeps_the_source_line_its_detail_happens_to_name():
    """The raise line's words are the detail's but for `raise`: it went as a restatement, and with it the
    line the fix edits (the location gives only its number)."""
    text = concise_text("python", "json-then-exception", "stderr")
    source = next(line for line in printed("python", "json-then-exception", ".err").splitlines()
                  if line.strip().startswith("raise ValueError("))
    assert source in text.splitlines(), text


def test_a_source_line_goes_when_a_problem_quotes_it_verbatim():
    row = "   12 |     total = price * count"
    text = f"a.c:12:13: error: line 12: total price count\n{row}\n      |             ^~~~~\n"
    fields = {"type": "urn:t", "title": "t", "status": 422, "detail": "line 12: total price count", "code": "X",
              "category": "validation", "retryable": False, "safe_to_retry": True}
    bare, quoting = Problem(**fields), Problem(**fields, extra={"evidence": [row.strip()]})
    kept, _, _, _ = lean.lean_text(text, [], lean.facts_said([bare], None), layout=False)
    assert row in kept.splitlines() and "^~~~~" in kept, kept
    dropped, _, _, _ = lean.lean_text(text, [], lean.facts_said([quoting], None), layout=False)
    assert row not in dropped and "^~~~~" not in dropped, dropped


def test_ruff_keeps_the_config_row_its_error_points_at():
    """ruff's invalid configuration quotes `1 | [tool.ruff]` under a caret: the problem does not carry it."""
    text = concise_text("ruff", "config-invalid", "stderr").splitlines()
    assert "1 | [tool.ruff]" in text, text


# --- a number -------------------------------------------------------------------------------------
def test_a_line_with_the_details_words_but_other_numbers_stays(tmp_path: Path):
    (tmp_path / "check.py").write_text('print("checked width: expected 3 got 4")\n'
                                       'raise ValueError("checked width: expected 4 got 3")\n')
    env = run("python3", "check.py", cwd=tmp_path)
    assert env["error"]["detail"] == "ValueError: checked width: expected 4 got 3"
    stdout = env["output"]["stdout"]["text"]
    assert stdout == "checked width: expected 3 got 4\n", stdout


def test_a_numbered_line_beside_the_same_numbers_still_restates():
    said = lean.facts_said([], None, "checked width: expected 4 got 3")
    assert lean.restates("width checked: expected 4, got 3", said)
    assert not lean.restates("width checked: expected 3, got 4", said)


def test_a_traceback_frame_at_another_line_is_no_restatement():
    """json's decoder frames: `line 353` is said, `line 337` of the same file is not (its words were)."""
    text = concise_text("python", "library-frame", "stderr")
    assert 'json/decoder.py", line 337, in decode' in text, text


def test_a_progress_mark_is_no_number_to_place():
    said = lean.facts_said([], None, "tests/test_m.py::test_area failed; 398 failed")
    assert lean.restates("tests/test_m.py::test_area FAILED  [ 38%]", said)
