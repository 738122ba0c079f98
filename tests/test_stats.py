"""`agentwrap stats` and the ledger every run writes: sizes only, never output or arguments."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import aw


@pytest.fixture
def state(tmp_path: Path) -> dict[str, str]:
    return {"AGENTWRAP_STATE_DIR": str(tmp_path / "state")}


def _ledger(env: dict[str, str]) -> list[dict[str, object]]:
    path = Path(env["AGENTWRAP_STATE_DIR"]) / "stats.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_no_byte_of_arguments_or_output_reaches_the_ledger(state: dict[str, str]) -> None:
    marker = "zq7MARKERx91"
    code = f"import sys; print('{marker}' * 50); sys.stderr.write('{marker[::-1]}'); sys.exit(3)"
    aw("--", sys.executable, "-c", code, f"--flag={marker}", env=state)
    aw("--", "echo", marker, env=state)
    aw("--", "ls", f"/nonexistent/{marker}", env=state)
    raw = (Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl").read_bytes()
    assert marker.encode() not in raw and marker[::-1].encode() not in raw
    assert b"MARKER" not in raw and b"nonexistent" not in raw
    lines = _ledger(state)
    assert [line["program"] for line in lines] == [Path(sys.executable).name, "echo", "ls"]
    first = lines[0]
    assert first["status"] == "error" and first["exit_code"] == 3 and first["code"]
    assert first["raw_bytes"] > 50 * len(marker)  # the sizes are there, the bytes are not
    assert set(first) == {"ts", "program", "adapter", "status", "code", "exit_code", "detail", "raw_bytes",
                          "envelope_bytes", "raw_tokens_est", "envelope_tokens_est", "duration_ms"}


def test_opt_out_by_variable_and_by_switch(state: dict[str, str]) -> None:
    aw("--", "true", env={**state, "AGENTWRAP_NO_STATS": "1"})
    assert not (Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl").exists()
    off = aw("stats", "--off", env=state)
    assert off.env["data"]["enabled"] is False
    aw("--", "true", env=state)
    assert not (Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl").exists()
    assert aw("stats", env=state).env["data"]["enabled"] is False
    aw("stats", "--on", env=state)
    aw("--", "true", env=state)
    assert len(_ledger(state)) == 1


def test_tables_savings_and_since(state: dict[str, str]) -> None:
    big = "import sys; sys.stdout.write('x' * 200000)"
    aw("--", sys.executable, "-c", big, env=state)  # large output: the envelope is far smaller
    aw("--", "echo", "hi", env=state)
    aw("--", "echo", "there", env=state)
    data = aw("stats", env=state).env["data"]
    assert data["runs"] == 3
    progs = {row["program"]: row for row in data["by_program"]}
    assert progs["echo"]["runs"] == 2 and data["by_program"][0]["program"] == "echo"
    py = progs[Path(sys.executable).name]
    assert py["raw_bytes"] >= 200000 and py["saved_tokens_est"] > 40000
    assert data["saved_tokens_est"] == data["raw_tokens_est"] - data["envelope_tokens_est"]
    assert {row["adapter"] for row in data["by_adapter"]} >= {"generic"}
    lines = _ledger(state)
    lines[0]["ts"] = "2020-01-01T00:00:00Z"  # an old run, rewritten in place
    path = Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "not json\n")
    recent = aw("stats", "--since", "7d", env=state).env["data"]
    assert recent["runs"] == 2 and "since" in recent
    assert aw("stats", "--since", "2019-12-31", env=state).env["data"]["runs"] == 3
    pretty = aw("stats", "--format", "pretty", env=state, check=False)
    assert b"program" in pretty.stdout and b"echo" in pretty.stdout


def test_bad_since_is_a_usage_problem(state: dict[str, str]) -> None:
    answer = aw("stats", "--since", "soon", env=state)
    assert answer.code == 125 and answer.error and answer.error["code"] == "USAGE"


def test_ledger_rotates_and_reads_both_generations(state: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from agentwrap import ledger

    monkeypatch.setenv("AGENTWRAP_STATE_DIR", state["AGENTWRAP_STATE_DIR"])
    monkeypatch.setattr(ledger, "ROTATE_BYTES", 2000)
    line = ledger.entry(program="/usr/bin/git", adapter="git", status="success", code=None, exit_code=0,
                        detail="concise", raw_bytes=10, envelope_bytes=5, duration_ms=1)
    for _ in range(40):
        ledger.append(line)
    path = ledger.ledger_path()
    assert path.with_name("stats.jsonl.1").exists()
    assert not path.exists() or path.stat().st_size <= 2000 + 300  # a rotation leaves no current file
    assert 0 < sum(1 for _ in ledger.read()) <= 40
