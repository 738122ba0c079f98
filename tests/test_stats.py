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
    assert set(first) == {"ts", "program", "adapter", "run", "status", "code", "exit_code", "detail", "raw_bytes",
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


def test_a_torn_last_line_does_not_swallow_the_next_run(state: dict[str, str]) -> None:
    aw("--", "true", env=state)
    path = Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl"
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])  # a run killed mid-write (or a full disk) left half a line
    aw("--", "echo", "after", env=state)
    data = aw("stats", env=state).env["data"]
    assert data["runs"] == 1 and data["by_program"][0]["program"] == "echo"  # the next run is still counted
    assert data["skipped_lines"] == 1  # and the torn one is said to be left out, not silently dropped


def test_lines_that_are_not_ledger_lines_are_counted_as_skipped(state: dict[str, str]) -> None:
    aw("--", "true", env=state)
    path = Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl"
    with path.open("ab") as handle:
        handle.write(b'\x00\xff garbage\n[1, 2]\n{"ts": 5, "status": "error"}\n')
        handle.write(b'{"ts": "2026-13-45T99:99:99Z", "status": "error", "raw_bytes": 7}\n\n')
    data = aw("stats", env=state).env["data"]
    assert data["runs"] == 1 and data["errors"] == 0 and data["raw_bytes"] == 0
    assert data["last"] == _ledger_first_ts(path) and data["skipped_lines"] == 4  # the empty line is no damage
    assert {row["program"] for row in data["by_program"]} == {"true"}  # no "?" row made of garbage


def _ledger_first_ts(path: Path) -> object:
    return json.loads(path.read_bytes().splitlines()[0])["ts"]


def test_reading_a_huge_line_keeps_memory_flat(state: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    import tracemalloc

    from agentwrap import ledger

    monkeypatch.setenv("AGENTWRAP_STATE_DIR", state["AGENTWRAP_STATE_DIR"])
    line = ledger.entry(program="git", adapter="git", status="success", code=None, exit_code=0,
                        detail="concise", raw_bytes=10, envelope_bytes=5, duration_ms=1)
    ledger.append(line)
    with ledger.ledger_path().open("ab") as handle:
        handle.write(b"a" * (24 * 1024 * 1024) + b"\n")  # 24 MiB without a newline: damage, not a run
    ledger.append(line)
    tracemalloc.start()
    try:
        runs = sum(1 for _ in ledger.read())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert runs == 2
    assert peak < 2 * 1024 * 1024  # pieces of MAX_LINE, never the whole line
    reading = ledger.Reading()
    assert sum(1 for _ in ledger.read(None, reading)) == 2 and reading.skipped_lines == 1


def test_switching_on_and_off_where_the_state_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state folder should be\n")
    env = {"AGENTWRAP_STATE_DIR": str(blocker)}
    off = aw("stats", "--off", env=env)
    assert off.code == 125 and off.error and off.error["code"] == "USAGE"  # not INTERNAL's "retry once"
    assert "AGENTWRAP_NO_STATS=1" in off.error["suggested_fix"]
    on = aw("stats", "--on", env=env)
    assert on.code == 0 and on.env["data"]["enabled"] is True  # already on: nothing to remove, no failure
    data = aw("stats", env=env).env["data"]
    assert data["writable"] is False and data["runs"] == 0  # "0 runs" says why: new runs cannot be kept


def test_an_unreadable_ledger_is_named(state: dict[str, str]) -> None:
    (Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl").mkdir(parents=True)  # readable by no one, as root too
    data = aw("stats", env=state).env["data"]
    assert data["runs"] == 0 and data["unreadable"] == [str(Path(state["AGENTWRAP_STATE_DIR"]) / "stats.jsonl")]
    pretty = aw("stats", "--format", "pretty", env=state, check=False)
    assert b"unreadable: " in pretty.stdout


@pytest.mark.slow
def test_twenty_concurrent_runs_each_leave_one_whole_line(state: dict[str, str]) -> None:
    import subprocess

    env = {**__import__("os").environ, **state}
    procs = [subprocess.Popen([sys.executable, "-m", "agentwrap", "--agent", "--", "true"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(20)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert len(_ledger(state)) == 20  # each parses: no interleaved or torn line
    data = aw("stats", env=state).env["data"]
    assert data["runs"] == 20 and "skipped_lines" not in data
