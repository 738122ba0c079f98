"""tsc's related information (`'age' is declared here`, where an expected type comes from) is printed only in
its pretty form, which tsc drops when NO_COLOR is set: the tsc adapter keeps NO_COLOR empty so a machine's run
still gets it, as a note of its error; the code frames under each error and related place go with the error
(its location and notes say them), and the closing `Found N errors in M files.` with the summary."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, aw

from agentwrap import fixtures, registry
from agentwrap.render import views

_SOURCE = {"tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}\n',
           "src/a.ts": 'interface P { name: string; age: number }\nconst p: P = { name: "a" };\n'}


def test_a_live_run_keeps_the_related_place_as_a_note(tmp_path: Path):
    if shutil.which("tsc") is None:
        pytest.skip("tsc is not installed")
    for name, text in _SOURCE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    env = aw("--cwd", str(tmp_path), "tsc", "-p", ".", detail="concise").env
    error = env["error"]
    assert error["code"] == "TSC_TYPE_ERROR" and error["location"] == {"file": "src/a.ts", "line": 2, "column": 7}
    assert error["notes"] == ["src/a.ts:1:29: 'age' is declared here."]
    assert "output" not in env  # the code frames and the closing count said nothing more


def test_a_pretty_run_keeps_no_orphaned_code_frames():
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "tsc") if c.name == "related-information")
    record = fixtures.replay_record(registry.builtin("tsc"), case)
    view = views.concise(record)
    assert "output" not in view  # was: each error's frame rows and `~~~` marks, then `Found 8 errors in 2 files.`
    related = next(p for p in [view["error"], *view["problems"]] if "TS2741" in p["detail"])
    assert related["notes"] == ["src/a.ts:4:29: 'age' is declared here."]
    assert [p["location"]["line"] for p in [view["error"], *view["problems"]]] == [2, 3, 5, 1, 2, 3, 4, 5]


def test_no_tsconfig_where_tsc_looked_is_its_own_problem_not_a_bad_option():
    """`tsc -p .` in a folder without tsconfig.json: TS5081 (tsc 7; TS5057 for `-p DIR` in 5.x) was
    TSC_CONFIG_ERROR, 'Fix the option named in the message', though no option is wrong."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "tsc") if c.name == "project-without-tsconfig")
    error = fixtures.replay_record(registry.builtin("tsc"), case).error
    assert error is not None and error.code == "TSC_NO_TSCONFIG" and "TS5081" in error.detail
    assert "tsc --init" in (error.suggested_fix or "") and "option" not in (error.suggested_fix or "")
    from agentwrap.adapters import tsc

    line = "error TS5057: Cannot find a tsconfig.json file at the specified directory: 'web'."
    assert tsc.ADAPTER.diagnostics(_run(line))[0].code == "TSC_NO_TSCONFIG"


def _run(text: str):
    from agentwrap.capture import StreamResult
    from agentwrap.sdk import CapturedRun

    empty = StreamResult("", 0, 0, False, 0, None)
    return CapturedRun(argv=("tsc", "-p", "web"), program="tsc", exit_code=1, signal=None, stdout=empty,
                       stderr=empty, stdout_text=text + "\n")
