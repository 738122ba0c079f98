"""The hook leaves a read of a small plain file to the host, and sends every other read through agentwrap.

Each case is judged from real files, and every read left alone is run for real: what the host's shell then
prints must be what agentwrap would have shown (its envelope's stdout text), within the inline budget, so
the agent loses nothing by the shortcut.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agentwrap.hooks.plain_read import left_raw
from agentwrap.options import AGENT_INLINE_BYTES
from tests.conftest import ROOT

SOURCE = "".join(f"def f{i}(x):\n    return \"value {i}\" * x\n\n" for i in range(400))  # ~14 KB


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "small.py").write_text(SOURCE[:900])
    (tmp_path / "big.py").write_text(SOURCE)
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "no-newline.txt").write_text("one\ntwo")
    (tmp_path / "tabs.mk").write_text("all:\n\tcc -o x x.c\n")
    (tmp_path / "colour.log").write_text("\x1b[31mFAILED\x1b[0m test_a\n")
    (tmp_path / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    (tmp_path / ".env").write_text("DATABASE_URL=postgres://app:s3cr3t-pass@db/app\n")
    (tmp_path / "key.txt").write_text("token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "\n")
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "pipe")
    return tmp_path


RAW = ["cat small.py", "cat small.py tabs.mk", "cat -- small.py", "cat empty.txt", "cat no-newline.txt",
       "cat tabs.mk", "head small.py", "head -5 big.py", "head -n 5 big.py", "head -n5 big.py", "head --lines=5 big.py",
       "tail -3 small.py", "tail -n 2 big.py", "sed -n 5p big.py", "sed -n 10,30p big.py", "sed -n '1190,$p' big.py"]
WRAPPED = ["cat big.py", "cat small.py big.py", "head -400 big.py", "sed -n 1,400p big.py", "sed -n '2,$p' big.py",
           "cat colour.log", "cat crlf.txt", "cat latin1.txt", "cat .env", "cat key.txt", "cat missing.txt",
           "cat sub", "cat pipe", "cat", "cat -n small.py", "cat -", "head -c 10 small.py", "head -n -2 small.py",
           "head small.py tabs.mk", "tail -f small.py", "tail -n +2 small.py", "sed -i 5d small.py",
           "sed -n 5,3p big.py", "sed -n 0p big.py", "sed 5p small.py", "sed -n /def/p small.py", "grep def small.py"]


@pytest.mark.parametrize("line", RAW)
def test_a_small_plain_read_is_left_raw_and_prints_what_agentwrap_would_show(tree: Path, line: str) -> None:
    assert left_raw(shlex.split(line), str(tree))
    raw = subprocess.run(["bash", "-c", line], cwd=tree, capture_output=True, timeout=30, check=True).stdout
    assert len(raw) <= AGENT_INLINE_BYTES
    envelope = json.loads(subprocess.run(
        [sys.executable, "-m", "agentwrap", "--agent", "--no-pty", "--", *shlex.split(line)], cwd=tree,
        capture_output=True, timeout=60, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout)
    assert envelope["status"] == "success"
    assert raw.decode() == envelope.get("output", {}).get("stdout", {}).get("text", "")


@pytest.mark.parametrize("line", WRAPPED)
def test_any_other_read_goes_through_agentwrap(tree: Path, line: str) -> None:
    assert not left_raw(shlex.split(line), str(tree))


def test_a_secret_from_the_environment_is_never_left_raw(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tree / "notes.txt").write_text("deploy with hunter2-but-longer\n")
    assert left_raw(["cat", "notes.txt"], str(tree))
    monkeypatch.setenv("DEPLOY_TOKEN", "hunter2-but-longer")
    assert not left_raw(["cat", "notes.txt"], str(tree))


def test_the_budget_is_the_whole_output_of_several_files(tree: Path) -> None:
    (tree / "half.txt").write_text("x" * (AGENT_INLINE_BYTES // 2 + 1))
    assert left_raw(["cat", "half.txt"], str(tree))
    assert not left_raw(["cat", "half.txt", "half.txt"], str(tree))


def hook_answer(line: str, cwd: Path, env: dict[str, str] | None = None) -> str | None:
    data = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(cwd), "tool_input": {"command": line}}
    proc = subprocess.run([sys.executable, "-m", "agentwrap", "hook", "claude-code"], input=json.dumps(data).encode(),
                          capture_output=True, timeout=60, check=True, cwd="/",
                          env={**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_HOOK_PROGRAM": "agentwrap",
                               "HOME": str(cwd), **(env or {})})
    out = proc.stdout.decode().strip()
    return json.loads(out)["hookSpecificOutput"]["updatedInput"]["command"] if out else None


def test_the_hook_reads_the_files_in_the_hosts_folder_not_its_own(tree: Path) -> None:
    assert hook_answer("cat small.py", tree) is None  # the hook runs in /, the line in `cwd`
    assert hook_answer("cat big.py", tree) == "agentwrap --agent --timeout 115s -- cat big.py"
    wrapped = "cd sub && agentwrap --agent --timeout 115s -- cat ../small.py"
    assert hook_answer("cd sub && cat ../small.py", tree) == wrapped


def test_every_read_can_be_sent_through_agentwrap(tree: Path) -> None:
    wrapped = "agentwrap --agent --timeout 115s -- cat small.py"
    assert hook_answer("cat small.py", tree, {"AGENTWRAP_HOOK_READS": "wrap"}) == wrapped
