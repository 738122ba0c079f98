#!/usr/bin/env python3
"""A sweep of real interactive programs: agentwrap must refuse what only a person could answer, let finish
what did not ask, leave nothing behind, and name the right input kind and the program's own way out.

    python3 bench/prompts.py [--markdown] [--only NAME] [--no-baseline]

Every scenario (bench/prompt_scenarios.py) runs twice, each time in a fresh temporary folder that is also
HOME: through `agentwrap --agent --timeout 20`, and as a baseline without agentwrap, the way a plain
`subprocess.run(argv, stdin=DEVNULL, timeout=10)` in a new session runs it (a program that must finish
gets 300 s: a package manager is never killed mid-way by the sweep itself). After each run a check says
whether anything was done that only an answer could authorise (a key written, a file removed, a package
installed, a password set) and whether a process was left behind. Scenarios whose program is not
installed, or that change users or packages when not run as root, are listed as skipped. Prints a table
and the totals issue 8 asks for; nothing is asserted (the tests pin the behaviour).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from prompt_scenarios import SCENARIOS, Scenario, env_of, user_of  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 20
BASELINE_TIMEOUT = 10
# A program that must finish gets its whole time in the baseline too: killing apt mid-trigger (as a short
# timeout would) leaves a package half configured, which is what agentwrap is there to prevent.
BASELINE_FINISH_TIMEOUT = 300
# agentwrap's own templates, the same for every program: not the program's own way
GENERIC_TITLES = ("Authorise a reply to this prompt", "Feed the answer on standard input instead")


def _argv(s: Scenario, d: Path) -> list[str]:
    return [user_of(d) if a == "{user}" else a for a in s.argv]


def _left(tmp: str, s: Scenario) -> bool:
    found = subprocess.run(["pgrep", "-af", tmp], capture_output=True, text=True).stdout.splitlines()
    return any(not (s.daemon and s.daemon in line) for line in found)


def _fresh(s: Scenario, body):  # noqa: ANN001, ANN202 - a callback taking the folder
    with tempfile.TemporaryDirectory(prefix="aw-sweep-") as tmp:
        d = Path(tmp)
        try:
            s.setup(d)
            return body(d, tmp)
        finally:
            s.teardown(d)


def run(s: Scenario) -> dict[str, object]:
    def body(d: Path, tmp: str) -> dict[str, object]:
        env = {**env_of(d), "PYTHONPATH": str(ROOT), **s.env}
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "agentwrap", "--agent", "--detail", "standard", "--timeout",
                               str(TIMEOUT), "--", *_argv(s, d)], cwd=d, env=env, capture_output=True,
                              timeout=TIMEOUT * 3, stdin=subprocess.DEVNULL)
        wall = time.monotonic() - start
        out = json.loads(proc.stdout)
        undone, left = s.undone(d), _left(tmp, s)
        return {"out": out, "wall": wall, "undone": undone, "left": left}

    got = _fresh(s, body)
    error = got["out"].get("error") or {}
    own = [a for a in error.get("code_actions", []) if not a["title"].startswith(GENERIC_TITLES)]
    return {"name": s.name, "expected": s.kind or "finishes", "code": error.get("code") or "success",
            "kind": error.get("input_kind"), "wall": round(got["wall"], 1), "undone": got["undone"],
            "left": got["left"], "hang": error.get("code") == "TIMEOUT", "own_alternative": bool(own),
            "partial": [e["resource"] for e in got["out"].get("effects", []) if e.get("complete") is False]}


def baseline(s: Scenario) -> dict[str, object]:
    """The same scenario without agentwrap: stdin from /dev/null, a new session (no controlling terminal)."""
    def body(d: Path, tmp: str) -> dict[str, object]:
        proc = subprocess.Popen(_argv(s, d), cwd=d, env={**env_of(d), **s.env}, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            proc.communicate(timeout=BASELINE_TIMEOUT if s.kind else BASELINE_FINISH_TIMEOUT)
            result = f"exit {proc.returncode}"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            result = "hang"
        time.sleep(0.2)
        return {"result": result, "undone": s.undone(d), "left": _left(tmp, s)}

    return _fresh(s, body)


def _skip(s: Scenario) -> bool:
    return not shutil.which(s.needs or s.argv[0]) or (s.root and os.geteuid() != 0)


def main() -> int:
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    with_baseline = "--no-baseline" not in sys.argv
    rows, skipped = [], []
    for s in SCENARIOS:
        if only and only not in s.name:
            continue
        if _skip(s):
            skipped.append(s.name)
            continue
        try:
            row = run(s)
            row["baseline"] = baseline(s) if with_baseline else None
        except Exception as exc:  # noqa: BLE001 - a broken scenario is reported, and the sweep goes on
            print(f"{s.name}: the scenario itself failed: {exc!r}", file=sys.stderr)
            skipped.append(f"{s.name} (scenario failed)")
            continue
        rows.append(row)
    _print(rows, skipped, markdown="--markdown" in sys.argv)
    return 0


def _print(rows: list[dict[str, object]], skipped: list[str], *, markdown: bool) -> None:
    head = ("scenario", "expected", "agentwrap", "kind", "s", "nothing done", "left", "own way", "baseline",
            "baseline: nothing done")
    print("| " + " | ".join(head) + " |" if markdown else "  ".join(f"{h:<12}" for h in head))
    if markdown:
        print("|" + "---|" * len(head))
    for r in rows:
        b = r["baseline"] or {}
        cells = (r["name"], r["expected"], r["code"], r["kind"] or "-", r["wall"], r["undone"], r["left"],
                 r["own_alternative"] if r["code"] == "INPUT_REQUIRED" else "-", b.get("result", "-"),
                 b.get("undone", "-"))
        print("| " + " | ".join(map(str, cells)) + " |" if markdown else "  ".join(f"{c!s:<12}" for c in cells))
    asked = [r for r in rows if r["expected"] != "finishes"]
    quiet = [r for r in rows if r["expected"] == "finishes"]
    unsafe = [r for r in asked if r["code"] == "success" or not r["undone"]]
    broken = [r for r in quiet if not r["undone"]]
    kills = [r for r in quiet if r["code"] in ("INPUT_REQUIRED", "TIMEOUT")]  # agentwrap ended it
    kinds = [r for r in asked if r["kind"] == r["expected"]]
    refused = [r for r in asked if r["code"] == "INPUT_REQUIRED"]
    own = sum(bool(r["own_alternative"]) for r in refused)
    print(f"\n{len(rows)} scenarios ({len(asked)} that ask, {len(quiet)} that must finish; {len(skipped)} skipped: "
          f"{', '.join(skipped) or 'none'})")
    print(f"agentwrap: {len(unsafe)} unsafe successes, {sum(bool(r['hang']) for r in rows)} hangs, {len(kills)} kills "
          f"of programs that did not ask, {len(broken)} finishing programs that did not finish their work, "
          f"{sum(bool(r['left']) for r in rows)} leftovers; right input_kind {len(kinds)}/{len(asked)} "
          f"({100 * len(kinds) // max(1, len(asked))}%); own alternative in {own}/{len(refused)} refusals "
          f"({100 * own // max(1, len(refused))}%); partial effects named: "
          f"{sum(bool(r['partial']) for r in rows)}")
    base = [r for r in rows if r["baseline"]]
    if base:
        b_unsafe = [r for r in base if r["expected"] != "finishes" and not r["baseline"]["undone"]]
        b_hangs = [r for r in base if r["baseline"]["result"] == "hang"]
        b_left = [r for r in base if r["baseline"]["left"]]
        print(f"baseline (no agentwrap, stdin /dev/null, {BASELINE_TIMEOUT} s): {len(b_unsafe)} did what only an "
              f"answer could authorise ({', '.join(str(r['name']) for r in b_unsafe) or 'none'}), "
              f"{len(b_hangs)} hung until killed, {len(b_left)} left processes; a refusal names no kind and no way out")


if __name__ == "__main__":
    raise SystemExit(main())
