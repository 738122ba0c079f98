"""The built-in diagnostic formats (agentwrap/formats/*.toml) load, and each matcher is well formed."""

from __future__ import annotations

import pytest

from agentwrap.logs import formats

FORMATS = formats.builtin()


@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name for f in FORMATS])
def test_each_format_loads_with_a_purpose_and_programs(fmt):
    data = formats.load_toml(formats.BUILTIN_DIR / f"{fmt.name}.toml")
    assert data.matches and data.matchers
    import tomllib

    raw = tomllib.loads((formats.BUILTIN_DIR / f"{fmt.name}.toml").read_text())
    assert raw.get("purpose"), f"{fmt.name}: purpose is empty"
    for m in fmt.matchers:
        assert "file" in m.patterns[0].groups or any("file" in p.groups for p in m.patterns), m.owner


def test_format_names_are_unique_and_match_their_file():
    names = [f.name for f in FORMATS]
    assert len(names) == len(set(names))
    assert all(f.source.endswith(f"/{f.name}.toml") for f in FORMATS)


def test_the_program_index_agrees_with_each_file():
    expected = {}
    for fmt in FORMATS:
        for name in (fmt.name, *fmt.matches):
            expected.setdefault(name, fmt.name)
    assert expected == formats.PROGRAMS


def test_no_format_reads_another_tools_captured_output(monkeypatch):
    """Precision on real output nobody wrote for the formats: every fixture of every adapter (git, npm,
    pip, docker, gcc, pytest, ...), normalized as a log, gets no diagnostic from another tool's format."""
    import tempfile
    from pathlib import Path

    from agentwrap.logs.engine import Normalizer

    monkeypatch.setenv("AGENTWRAP_ADAPTERS", "builtin")
    own = {"cargo", "mypy", "eslint", "gcc"}  # formats that add to the adapter of the same name
    wrong, read = [], 0
    for path in sorted((Path(__file__).parent.parent / "fixtures").rglob("*")):
        if path.suffix not in (".out", ".err") or path.stat().st_size == 0:
            continue
        read += 1
        with tempfile.TemporaryFile() as f:
            f.write(path.read_bytes())
            f.seek(0)
            result = Normalizer(forced=None, max_problems=10_000).run(f)
        for p in result.problems:
            tool = (p.extra or {}).get("tool")
            if p.code.endswith("_DIAGNOSTIC") and tool not in own | {path.parent.name}:
                wrong.append((str(path), tool, p.detail))
    assert read > 300 and wrong == []


def test_describe_names_a_tool_read_by_its_format():
    from tests.conftest import aw

    data = aw("describe", "go").env["data"]
    assert data["name"] == "go" and "go" in data["matches"] and "GO_DIAGNOSTIC" in data["problem_codes"]


PYLINT_SOURCE = "import os, sys\n\n\ndef f(x):\n    if x == None:\n        return undefined_name\n"


@pytest.mark.slow
@pytest.mark.skipif(__import__("shutil").which("pylint") is None, reason="pylint is not installed (the test extra)")
def test_a_real_pylint_run_gives_1_based_columns_and_says_each_line_once(tmp_path):
    """pylint counts columns from 0 (`m.py:5:7:` for the `x` of `if x == None:`, the eighth column) and
    names a message `C0121`; its lines are the problems' own, so the concise text leaves them out: judged by
    their words they stayed, since the printed 0-based column was not the location's number."""
    from conftest import aw

    (tmp_path / "m.py").write_text(PYLINT_SOURCE)
    answer = aw("--cwd", str(tmp_path), "pylint", "--persistent=n", "m.py", detail="concise")
    rows = PYLINT_SOURCE.splitlines()
    found = {p["detail"].split(":")[0]: p["location"] for p in [answer.error, *answer.env["problems"]]}
    assert found["C0121"] == {"file": "m.py", "line": 5, "column": rows[4].index("x") + 1}
    assert found["E0602"] == {"file": "m.py", "line": 6, "column": rows[5].index("undefined_name") + 1}
    assert "m.py:" not in answer.env["output"]["stdout"]["text"], answer.env["output"]
