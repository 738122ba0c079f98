"""What a person sees on a terminal (`--format pretty` picked by a real pty, read back through a terminal
emulator): a replay says it is one, the full output is offered only when something was cut, agentwrap's
own lines wrap at spaces to the terminal's width, and `artifact show` prints the text itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pyte
import pytest
from conftest import ROOT

ROWS = 300  # tall enough that nothing scrolls off the emulated screen


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_CACHE_DIR": str(tmp_path / "cache"),
            "AGENTWRAP_STATE_DIR": str(tmp_path / "state")}
    full.pop("COLUMNS", None)
    return full


def screen(env: dict[str, str], *args: str, cols: int = 100) -> list[str]:
    """The rows a terminal `cols` wide shows after `agentwrap ARGS`, trailing blanks dropped."""
    child = pexpect.spawn(sys.executable, ["-m", "agentwrap", *args], env=env, timeout=60,
                          dimensions=(ROWS, cols))
    child.expect(pexpect.EOF)
    child.close()
    term = pyte.Screen(cols, ROWS)
    pyte.ByteStream(term).feed(child.before)
    rows = [row.rstrip() for row in term.display]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def as_json(env: dict[str, str], *args: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-m", "agentwrap", "--format", "json", *args], env=env,
                          capture_output=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    answer: dict[str, object] = json.loads(proc.stdout)
    return answer


def test_a_replayed_run_says_it_was_replayed(env):
    first = screen(env, "--idempotency-key", "k-pretty", "--", "echo", "hello")
    second = screen(env, "--idempotency-key", "k-pretty", "--", "echo", "hello")
    assert "replayed" not in " ".join(first)
    assert second[:2] == first[:2]  # the same command and output...
    said = " ".join(" ".join(second).split())
    assert "replayed: the recorded result of op_" in said and "nothing ran now" in said  # ...said to be old


def test_the_full_output_is_offered_only_when_something_was_cut(env, tmp_path):
    # git's log is read whole into data, and an artifact is kept for the agent's shorter view; the
    # person saw every byte of it, so there is nothing more to fetch.
    whole = screen(env, "--", "git", "-C", str(ROOT), "log", "--oneline", "-1")
    assert not any("artifact show" in row for row in whole)
    long = tmp_path / "long.txt"
    long.write_text("".join(f"row {i}\n" for i in range(5000)))
    cut = screen(env, "--", "cat", str(long))
    offered = [row for row in cut if "full stdout: agentwrap artifact show art_" in row]
    assert len(offered) == 1


def test_own_lines_wrap_at_spaces_to_the_width(env):
    cols = 48
    args = ["--", "sh", "-c", "echo 'frobnicator: the flux capacitor is misaligned today' >&2; exit 3"]
    rows = screen(env, *args, cols=cols)
    answer = as_json(env, *args)
    ours = rows[2:]  # after the command line and the program's own line
    assert all(len(row) <= cols for row in rows)
    words = " ".join(str(w["message"]) for w in answer["warnings"]).split()  # type: ignore[attr-defined]
    words += str(answer["error"]["suggested_fix"]).split()  # type: ignore[index]
    shown = {word for row in ours for word in row.split()}
    assert [w for w in words if w not in shown] == []  # no word split by the terminal's hard wrap


def test_artifact_show_prints_the_text_itself(env, tmp_path):
    long = tmp_path / "long.txt"
    long.write_text("".join(f"row {i} says \"hi\"\n" for i in range(5000)))
    art = str(as_json(env, "--", "cat", str(long))["output"]["stdout"]["artifact"])  # type: ignore[index]
    page = screen(env, "artifact", "show", art, "--lines", "2:3")
    assert page[:2] == ['row 1 says "hi"', 'row 2 says "hi"']
    assert not any('"text"' in row or "full" in row for row in page)
    found = screen(env, "artifact", "show", art, "--grep", "^row 4999 ")
    assert found[0] == '5000: row 4999 says "hi"'
