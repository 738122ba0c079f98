"""Every captured fixture, replayed through its adapter: the adapters' spec is their fixtures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.adapters import INDEX
from agentwrap.artifacts import ArtifactStore
from agentwrap.outcome import lean
from agentwrap.render import views
from agentwrap.schema_files import load

CASES = fixtures.cases(ROOT / "fixtures")
RESULT = jsonschema.Draft202012Validator(load("result"))
CONCISE = jsonschema.Draft202012Validator({**load("result"), "$ref": "#/$defs/concise"})


@pytest.mark.parametrize("case", CASES, ids=[f"{c.adapter}/{c.name}" for c in CASES])
def test_fixture(case, tmp_path):
    expected = case.expected()
    assert expected is not None, f"{case.path('.expected.json')} is missing"
    store = ArtifactStore(tmp_path)
    record = fixtures.replay_record(registry.builtin(case.adapter), case, store=store)
    env, code = record.standard(), record.exit_code
    assert fixtures.mismatches(expected, env) == []
    RESULT.validate(env)
    assert (code == 0) == (env["status"] == "success")
    check_concise(views.concise(record), env, expected, record, store)


FAILING = [c for c in CASES if (c.expected() or {}).get("status") == "error"]


@pytest.mark.parametrize("case", FAILING, ids=[f"{c.adapter}/{c.name}" for c in FAILING])
def test_a_failure_summary_never_restates_its_error_detail(case):
    """CONTRACT 2a rule 1: the summary says what failed and how in our words (the program, and the title or
    the counts); the error's detail, the tool's own line, is said once, in the error."""
    from agentwrap.failure_summary import restates

    record = fixtures.replay_record(registry.builtin(case.adapter), case)
    summary, detail = record.summary, record.error.detail
    assert summary and "\n" not in summary
    assert summary != detail and detail not in summary and summary not in detail, (summary, detail)
    assert not restates(summary, detail), (summary, detail)
    assert views.concise(record)["summary"] == record.standard()["summary"] == summary


def check_concise(view, env, expected, record, store):
    """The agent's default view of the same run: valid, a projection of the standard envelope that invents
    nothing, and every fact the reviewed expectation pins (each problem's code and location) still there."""
    RESULT.validate(view)
    CONCISE.validate(view)
    assert set(view) <= set(env) | {"problems_omitted"}, set(view) - set(env)
    assert (view["status"], view["summary"]) == (env["status"], env["summary"])
    shown = [view["error"]] if "error" in view else []
    shown += view.get("problems", [])
    facts = {(p["code"], place(p.get("location"))) for p in shown}
    # A problem with no place whose detail the summary says whole is said by the summary (cargo's
    # `could not compile`): what the reader gets is still there, once.
    facts |= {(p["code"], place(None)) for p in env["problems"] if not p.get("location") and p["detail"]
              and p["detail"] in view["summary"]}
    wanted = [p for p in [expected.get("error"), *expected.get("problems", [])] if p]
    if "problems_omitted" not in view:
        for p in wanted:
            assert (p["code"], place(p.get("location"))) in facts, p
    for name, stream in view.get("output", {}).items():
        lines = record_text(record, name, store)
        source = {lean.tidy(line) for line in lines} | {lean.one_space_cells(line) for line in lines}
        shown_lines = stream["text"].splitlines()
        for line in shown_lines:
            line = spelled_out(line, shown_lines)
            assert line.startswith(lean.MARKER) or line in source or lean.tidy(line) in source, line


def place(location):
    """A location as the concise view states it: an `end_line` that is the `line` again is said once."""
    if location and location.get("end_line") == location.get("line"):
        location = {k: v for k, v in location.items() if k != "end_line"}
    return json.dumps(location, sort_keys=True)


def spelled_out(row, lines):
    """A long listing's row as ls wrote it (one space apart), with the fields the text said once put back
    where they were: what a reader of the concise text reconstructs."""
    header = next((x for x in lines if x.startswith(lean.SHARED_PREFIX)), None)
    if header is None or row == header:
        return row
    said: dict[str, dict[str, str]] = {}  # "entry", or a kind's letter: the fields said once for it
    for clause in header[len(lean.SHARED_PREFIX):-1].split("; "):
        m = re.match(r"every (?:entry|\w+ \((?P<kind>.)\)) has (?P<fields>.*)$", clause)
        assert m, clause
        said[m.group("kind") or "entry"] = dict(item.split(" ", 1) for item in m.group("fields").split(", "))
    shapes = {"mode": r"\S+", "links": r"\d+", "owner": r"\S+", "group": r"\S+", "size": r"(?:\d+, )?\d+",
              "date": r"\S+ \d+ [\d:]+"}
    kind = row[:1]
    fields = {**said.get("entry", {}), **said.get(kind, {})}
    if "mode" in said.get(kind, {}):
        row = row[2:]  # the kind's letter stands for its mode
    m = re.match("".join(f"(?P<{f}>{shapes[f]}) " for f in shapes if f not in fields) + "(?P<name>.*)$", row)
    if m is None:
        return row
    return " ".join([*(fields.get(f) or m.group(f) for f in shapes), m.group("name")])


def record_text(record, name, store):
    """Every line the run printed on stream `name`: its artifact, else its inline text."""
    stream = record.output[name]
    if stream.artifact:
        return Path(store.get(stream.artifact).path).read_text(encoding="utf-8", errors="replace").splitlines()
    return stream.text.splitlines()


@pytest.mark.parametrize("stem", sorted(set(INDEX.values())))
def test_index_agrees_with_each_adapter(stem):
    adapter = registry.builtin(stem)
    assert adapter.name == stem
    assert sorted(adapter.matches()) == sorted(p for p, s in INDEX.items() if s == stem)
    descriptor = adapter.descriptor()
    for key in ("purpose", "use_when", "do_not_use_when", "returns", "limitations"):
        assert descriptor.get(key), f"{stem}: descriptor.{key} is empty"


@pytest.mark.parametrize("stem", sorted(set(INDEX.values())))
def test_each_builtin_has_fixtures(stem):
    assert [c for c in CASES if c.adapter == stem], f"{stem} has no fixtures"


@pytest.mark.parametrize("stem", [*sorted(set(INDEX.values())), "generic"])
def test_each_builtin_spec_is_valid(stem):
    """Every built-in spec passes the checks a user's does (they also run at load: from_toml validates)."""
    from agentwrap.adapter import generic_spec
    from agentwrap.spec_check import check

    spec = generic_spec() if stem == "generic" else registry.builtin(stem).spec
    assert spec is not None
    check(spec.data, spec.source)
    for rule in spec.rules:
        assert rule.pattern.pattern  # compiles


def test_a_replay_never_reads_the_capturing_machines_files(tmp_path):
    """make -C DIR's fixture names the capture's absolute folder: even where a file of that name exists,
    the replay is the same (adapters read a project's sources only in a live run)."""
    import shutil

    case = next(c for c in CASES if (c.adapter, c.name) == ("make", "recipe-gcc-errors"))
    folder = Path(case.meta()["argv"][-1])
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "main.c").write_text("int x;\n" * 40)  # would turn the fix-it's columns into characters
        env, _ = fixtures.replay(registry.builtin("make"), case)
        assert fixtures.mismatches(case.expected(), env) == []
    finally:
        if made:
            shutil.rmtree(folder.parents[len(folder.parents) - 3], ignore_errors=True)
