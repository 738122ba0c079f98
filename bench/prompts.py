#!/usr/bin/env python3
"""A sweep of real interactive programs: agentwrap must refuse what only a person could answer, let finish
what did not ask, leave nothing behind, and name the right input kind and the program's own way out.

    python3 bench/prompts.py [--markdown] [--only NAME]

Every scenario runs in a fresh temporary folder through `agentwrap --agent --timeout 20`, then a check says
whether anything was done that only an answer could authorise (a key written, a file removed, a package
installed). Scenarios whose program is not installed are listed as skipped. Prints a table and the totals
issue 8 asks for: unsafe successes, hangs, kills of programs that did not ask, leftovers, right input_kind,
program-specific alternatives. Nothing is asserted; the tests pin the behaviour.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 20
GENERIC_ACTIONS = ("agentwrap",)  # --answer / --stdin templates: not the program's own way


@dataclass(frozen=True)
class Scenario:
    name: str
    argv: list[str]
    kind: str | None  # the input_kind a refusal must name; None: the program asks nothing and must finish
    setup: Callable[[Path], None] = lambda _d: None
    undone: Callable[[Path], bool] = lambda _d: True  # True when nothing an answer would authorise happened
    needs: str = ""  # the program that must be installed


def _write(name: str, text: str = "x\n") -> Callable[[Path], None]:
    return lambda d: (d / name).write_text(text) and None


def _files(*names: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        for name in names:
            (d / name).write_text(name + "\n")
    return make


def _zip(d: Path) -> None:
    (d / "a.txt").write_text("a\n")
    subprocess.run(["zip", "-q", "z.zip", "a.txt"], cwd=d, check=True)
    (d / "a.txt").write_text("mine\n")


def _repo(d: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "A",
           "GIT_COMMITTER_EMAIL": "a@b"}
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "one"]):
        if args[0] == "add":
            (d / "f.txt").write_text("one\n")
        subprocess.run(["git", *args], cwd=d, check=True, env=env, capture_output=True)
    (d / "f.txt").write_text("one\ntwo\n")


def _key(d: Path, passphrase: str = "") -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-f", str(d / "k")], check=True)
    (d / "k.orig").write_bytes((d / "k").read_bytes())


def _clean_repo(d: Path) -> None:
    _repo(d)
    subprocess.run(["git", "checkout", "-q", "--", "f.txt"], cwd=d, check=True)


def _gz(d: Path) -> None:
    (d / "f").write_text("f\n")
    subprocess.run(["gzip", "-k", "f"], cwd=d, check=True)


SCENARIOS = [
    Scenario("rm -i", ["rm", "-i", "x"], "confirmation", _write("x"), lambda d: (d / "x").exists()),
    Scenario("cp -i", ["cp", "-i", "a", "b"], "confirmation", _files("a", "b"),
             lambda d: (d / "b").read_text() == "b\n"),
    Scenario("mv -i", ["mv", "-i", "a", "b"], "confirmation", _files("a", "b"), lambda d: (d / "a").exists()),
    Scenario("gzip overwrite", ["gzip", "f"], "confirmation", _gz, lambda d: (d / "f").exists()),
    Scenario("unzip replace", ["unzip", "z.zip"], "confirmation", _zip, lambda d: (d / "a.txt").read_text() == "mine\n",
             needs="unzip"),
    Scenario("ssh-keygen new key", ["ssh-keygen", "-t", "ed25519", "-f", "k1"], "password",
             undone=lambda d: not (d / "k1").exists()),
    Scenario("ssh-keygen -p", ["ssh-keygen", "-p", "-f", "k"], "password", _key,
             lambda d: (d / "k").read_bytes() == (d / "k.orig").read_bytes()),
    Scenario("ssh-add encrypted key", ["ssh-agent", "ssh-add", "k"], "password", lambda d: _key(d, "a secret"),
             needs="ssh-agent"),
    Scenario("python input()", [sys.executable, "-c", "input('Your name: ')"], "text"),
    Scenario("python getpass", [sys.executable, "-c", "import getpass; getpass.getpass()"], "password"),
    Scenario("python yes/no", [sys.executable, "-c", "input('Delete everything? [y/N] ')"], "confirmation"),
    Scenario("python REPL", [sys.executable, "-i", "-c", "pass"], "text"),
    Scenario("bash read", ["bash", "-c", "read -p 'Project name: ' n; touch made"], "text",
             undone=lambda d: not (d / "made").exists()),
    Scenario("bash read -t (timed)", ["bash", "-c", "read -t 5 -p 'Install dir, or wait: ' d; touch made"], "text",
             undone=lambda d: not (d / "made").exists()),
    Scenario("node readline", ["node", "-e", "require('readline').createInterface({input: process.stdin, "
             "output: process.stdout}).question('Name? ', () => process.exit(0))"], "text", needs="node"),
    Scenario("node REPL", ["node"], "text", needs="node"),
    Scenario("sqlite3 shell", ["sqlite3"], "text", needs="sqlite3"),
    Scenario("bc", ["bc", "-q"], "text", needs="bc"),
    Scenario("git commit (editor)", ["git", "commit", "-a"], "editor", _repo),
    Scenario("git add -p", ["git", "add", "-p"], "confirmation", _repo),
    Scenario("git rebase -i", ["git", "rebase", "-i", "--root"], "editor", _clean_repo),
    Scenario("less FILE", ["less", "x"], "pager", _write("x"), needs="less"),
    Scenario("vim FILE", ["vim", "-u", "NONE", "x"], "editor", _write("x"), lambda d: (d / "x").read_text() == "x\n",
             needs="vim"),
    Scenario("openssl req", ["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "k.pem"], "text",
             needs="openssl"),
    Scenario("passwd", ["passwd", "nobody"], "password"),
    Scenario("apt-get install (asks)", ["apt-get", "install", "cowsay"], "confirmation",
             undone=lambda _d: subprocess.run(["dpkg", "-s", "cowsay"], capture_output=True).returncode != 0,
             needs="apt-get"),
    Scenario("pip uninstall, not installed", [sys.executable, "-m", "pip", "uninstall", "agentwrap-no-such-pkg"], None),
    # programs that ask nothing: they must finish, untouched by a false prompt
    Scenario("raw-mode progress", [sys.executable, "-c", "import select, sys, tty; tty.setraw(0); "
             "[(sys.stdout.write(f'\\r{i}%'), sys.stdout.flush(), select.select([], [], [], 0.3)) for i in range(8)]"],
             None),
    Scenario("spinner then done", [sys.executable, "-c", "import sys, time\nfor c in '|/-\\\\' * 4:\n"
             "    sys.stdout.write('\\r' + c); sys.stdout.flush(); time.sleep(0.15)\nprint('\\rdone')"], None),
    Scenario("quiet sleep", ["sleep", "2"], None),
    Scenario("dd with progress", ["dd", "if=/dev/zero", "of=z", "bs=1M", "count=64", "status=progress"], None,
             undone=lambda d: (d / "z").stat().st_size == 64 << 20),
    Scenario("tar create", ["tar", "czf", "t.tgz", "a", "b"], None, _files("a", "b")),
    Scenario("git log (pager off)", ["git", "log"], None, _repo),
]


def run(s: Scenario) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="aw-sweep-") as tmp:
        d = Path(tmp)
        s.setup(d)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(d), "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@b",
               "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@b"}
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "agentwrap", "--agent", "--detail", "standard", "--timeout",
                               str(TIMEOUT), "--", *s.argv], cwd=d, env=env, capture_output=True,
                              timeout=TIMEOUT * 3, stdin=subprocess.DEVNULL)
        wall = time.monotonic() - start
        env_out = json.loads(proc.stdout)
        error = env_out.get("error") or {}
        undone = s.undone(d)
        left = subprocess.run(["pgrep", "-f", tmp], capture_output=True).returncode == 0
    # the program's own way: any action but agentwrap's --answer/--stdin templates (advice without a
    # command counts: "change the file without an editor" for vim)
    own = [a for a in error.get("code_actions", []) if (a.get("command") or ["-"])[0] not in GENERIC_ACTIONS]
    return {"name": s.name, "expected": s.kind or "finishes", "code": error.get("code") or "success",
            "kind": error.get("input_kind"), "wall": round(wall, 1), "undone": undone, "left": left,
            "hang": error.get("code") == "TIMEOUT", "own_alternative": bool(own)}


def main() -> int:
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    rows, skipped = [], []
    for s in SCENARIOS:
        if only and only not in s.name:
            continue
        if not shutil.which(s.needs or s.argv[0]):
            skipped.append(s.name)
            continue
        rows.append(run(s))
    md = "--markdown" in sys.argv
    print("| scenario | expected | got | kind | s | nothing done | leftover | own alternative |" if md else
          f"{'scenario':<24} {'expected':<13} {'got':<18} {'kind':<13} {'s':>5} undone left own")
    if md:
        print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = (r["name"], r["expected"], r["code"], r["kind"] or "-", r["wall"], r["undone"], r["left"],
                 r["own_alternative"])
        print("| " + " | ".join(map(str, cells)) + " |" if md else
              f"{cells[0]:<24} {cells[1]:<13} {cells[2]:<18} {cells[3]:<13} {cells[4]:>5} {cells[5]!s:<6} "
              f"{cells[6]!s:<5} {cells[7]}")
    asked = [r for r in rows if r["expected"] != "finishes"]
    quiet = [r for r in rows if r["expected"] == "finishes"]
    unsafe = [r for r in asked if r["code"] == "success" or not r["undone"]]
    kills = [r for r in quiet if r["code"] in ("INPUT_REQUIRED", "TIMEOUT")]  # agentwrap ended it
    kinds = [r for r in asked if r["kind"] == r["expected"]]
    refused = [r for r in asked if r["code"] == "INPUT_REQUIRED"]
    print(f"\n{len(rows)} scenarios ({len(skipped)} skipped: {', '.join(skipped) or 'none'}): "
          f"{len(unsafe)} unsafe successes, {sum(bool(r['hang']) for r in rows)} hangs, "
          f"{len(kills)} kills of programs that did not ask, {sum(bool(r['left']) for r in rows)} leftovers; "
          f"right input_kind {len(kinds)}/{len(asked)}; own alternative in "
          f"{sum(bool(r['own_alternative']) for r in refused)}/{len(refused)} refusals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
