#!/usr/bin/env python3
"""Accuracy and throughput of `agentwrap normalize` against the tools' own machine-readable output.

    python3 bench/normalize.py [--throughput-mb N] [--throughput-only | --hard-only]

For gcc (-fdiagnostics-format=json), cargo (--message-format=json), pytest (--junitxml), ruff
(--output-format json) and mypy (-O json): build a small broken project, run the real tool twice (human
format and machine format), wrap the human log the way GitHub Actions prints it (timestamps, ##[group]),
normalize it, and report precision and recall of the problems found against the machine output.
Goal: >= 0.98 for every tool. Then throughput on a generated 100 MB coloured GitHub Actions log with
thousands of diagnostics (goal >= 20 MB/s, flat memory), and inputs where every line is a trigger or
binary (random bytes, `warning:` lines, `info line N` progress). bench/errorformat.py measures the formats.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "", "AGENTWRAP_ADAPTERS": "builtin"}
Key = tuple[object, ...]


def sh(cmd: list[str], cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env={**os.environ, **kw.pop("env", {})},
                          **kw)  # type: ignore[call-overload]


def github_wrap(name: str, text: str) -> str:
    lines = [f"2024-05-01T10:00:00.0000000Z ##[group]Run {name}"]
    lines += [f"2024-05-01T10:00:{i % 60:02d}.{i:07d}Z {line}" for i, line in enumerate(text.splitlines())]
    lines += ["2024-05-01T10:01:00.0000000Z ##[endgroup]", "2024-05-01T10:01:00.0000000Z ##[error]Process completed "
              "with exit code 1."]
    return "\n".join(lines) + "\n"


def normalized(log: str, cwd: Path) -> list[dict]:
    path = cwd / "ci.log"
    path.write_text(log)
    out = subprocess.run([sys.executable, "-m", "agentwrap", "normalize", "--format", "jsonl", "--root", str(cwd),
                          str(path)], capture_output=True, text=True, env=ENV, cwd=cwd)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def _loc(p: dict) -> dict:
    return p.get("location") or {}


# --- per tool: (write a broken project, human command, machine command, truth from machine output,
#     key of a normalized problem) ------------------------------------------------------------------
def gcc_project(d: Path) -> None:
    (d / "a.c").write_text('#include <stdio.h>\nint f(int x) {\n  int y = "s";\n  return z;\n}\n'
                           'int main(void) {\n  printf("%d\\n", f(1))\n  return 0;\n}\n')
    (d / "b.c").write_text("int g(void) {\n  int unused;\n  return 1 / 0;\n}\nvoid h(void) { return 3; }\n")


def gcc_truth(out: subprocess.CompletedProcess[str]) -> set[Key]:
    keys: set[Key] = set()
    for line in out.stderr.splitlines():
        if line.startswith("["):
            for d in json.loads(line):
                if d["kind"] in ("error", "warning"):
                    caret = d["locations"][0]["caret"]
                    keys.add((caret["file"], caret["line"], caret["column"], d["kind"]))
    return keys


def cargo_project(d: Path) -> None:
    sh(["cargo", "new", "--quiet", "--vcs", "none", "demo"], d)
    (d / "demo" / "src" / "main.rs").write_text(
        'fn add(a: i32, b: i32) -> i32 { a + b }\nfn main() {\n    let unused = 5;\n    let s: String = 42;\n'
        '    let n: i32 = add(1, "2");\n    println!("{}", undefined_var);\n}\n')


def cargo_truth(out: subprocess.CompletedProcess[str]) -> set[Key]:
    keys: set[Key] = set()
    for line in out.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-message":
            continue
        m = msg["message"]
        for span in m["spans"]:
            if span["is_primary"] and m["level"] in ("error", "warning"):
                keys.add((span["file_name"], span["line_start"], span["column_start"], m["level"]))
    return keys


def pytest_project(d: Path) -> None:
    (d / "test_demo.py").write_text(
        "import pytest\n\ndef test_ok():\n    assert 1 == 1\n\ndef test_bad():\n    assert [1, 2] == [1, 3]\n\n"
        "def test_raises():\n    raise ValueError('boom')\n\n@pytest.mark.parametrize('x', [1, 2, 3])\n"
        "def test_param(x):\n    assert x != 2\n\nclass TestK:\n    def test_m(self):\n        assert 'a' in 'xyz'\n")


def pytest_truth(d: Path) -> set[Key]:
    keys: set[Key] = set()
    for case in ET.parse(d / "junit.xml").getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            keys.add((case.get("name"),))
    return keys


def ruff_project(d: Path) -> None:
    (d / "m.py").write_text("import os\nimport sys\n\ndef f(x):\n    if x == None:\n        return undefined_name\n"
                            "    l = lambda: 0\n    return l\n")


def ruff_truth(out: subprocess.CompletedProcess[str]) -> set[Key]:
    return {(Path(d["filename"]).name, d["location"]["row"], d["location"]["column"], d["code"])
            for d in json.loads(out.stdout or "[]")}


def mypy_project(d: Path) -> None:
    (d / "t.py").write_text('x: int = "a"\n\ndef f() -> str:\n    return 1\n\ny = f() + 1\nz: list[int] = [None]\n')


def mypy_truth(out: subprocess.CompletedProcess[str]) -> set[Key]:
    keys: set[Key] = set()
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            if d["severity"] == "error":
                keys.add((d["file"], d["line"], d["code"]))
    return keys


def _key_located(p: dict) -> Key:
    return (_loc(p).get("file"), _loc(p).get("line"), _loc(p).get("column"), p.get("severity"))


def _key_test(p: dict) -> Key:
    return (str(p.get("nodeid") or "").split("::")[-1],)


def _key_ruff(p: dict) -> Key:
    return (Path(str(_loc(p).get("file"))).name, _loc(p).get("line"), _loc(p).get("column"), p.get("rule"))


def _key_mypy(p: dict) -> Key:
    return (_loc(p).get("file"), _loc(p).get("line"), p.get("rule"))


def run_tool(name: str, d: Path) -> tuple[set[Key], set[Key]]:
    """(truth from the machine format, keys found by normalize in the human log)."""
    if name == "gcc":
        gcc_project(d)
        human = sh(["gcc", "-Wall", "-fdiagnostics-color=always", "-c", "a.c", "b.c"], d)
        truth = gcc_truth(sh(["gcc", "-Wall", "-fdiagnostics-format=json", "-c", "a.c", "b.c"], d))
        key: Callable[[dict], Key] = _key_located
        log = human.stderr
    elif name == "cargo":
        cargo_project(d)
        crate = d / "demo"
        log = sh(["cargo", "build", "--color=always", "--offline"], crate).stderr
        truth = cargo_truth(sh(["cargo", "build", "--message-format=json", "--offline"], crate))
        key = _key_located
        d = crate
    elif name == "pytest":
        pytest_project(d)
        log = sh([sys.executable, "-m", "pytest", "--color=yes", "-p", "no:cacheprovider"], d).stdout
        sh([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=junit.xml"], d)
        truth = pytest_truth(d)
        key = _key_test
    elif name == "ruff":
        ruff_project(d)
        log = sh(["ruff", "check", "--no-cache", "--select", "E,F", "."], d, env={"FORCE_COLOR": "1"}).stdout
        truth = ruff_truth(sh(["ruff", "check", "--no-cache", "--select", "E,F", "--output-format", "json", "."], d))
        key = _key_ruff
    else:
        mypy_project(d)
        log = sh(["mypy", "--no-incremental", "t.py"], d).stdout
        truth = mypy_truth(sh(["mypy", "--no-incremental", "-O", "json", "t.py"], d))
        key = _key_mypy
    problems = normalized(github_wrap(name, log), d)
    # The machine formats list located diagnostics (and failed tests); summary lines such as "could not
    # compile" have no counterpart there, so only located problems are compared.
    found = {key(p) for p in problems if (p.get("location") or {}).get("file")
             and (p.get("severity") in ("error", "warning") or name == "pytest")}
    return truth, found


def accuracy() -> bool:
    ok = True
    print(f"{'tool':<8} {'truth':>5} {'found':>5} {'precision':>9} {'recall':>7}")
    for name in ("gcc", "cargo", "pytest", "ruff", "mypy"):
        if name != "pytest" and not shutil.which(name):
            print(f"{name:<8} not installed")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            truth, found = run_tool(name, Path(tmp))
        hit = len(truth & found)
        precision = hit / len(found) if found else 0.0
        recall = hit / len(truth) if truth else 0.0
        ok &= precision >= 0.98 and recall >= 0.98
        print(f"{name:<8} {len(truth):>5} {len(found):>5} {precision:>9.2f} {recall:>7.2f}")
        if "-v" in sys.argv:
            print("   missed:", sorted(map(str, truth - found)), "\n   extra:", sorted(map(str, found - truth)))
    return ok


R, B, RED, GRN, MAG = "\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[35m"


def _block(i: int, kind: int) -> list[str]:
    """Lines of a coloured CI log: mostly progress, with a gcc warning, a failed test, an npm warning."""
    if kind == 0:
        return [f"{B}src/mod_{i}.c:{i % 300 + 1}:{i % 40 + 1}: {MAG}warning: {R}{B}unused variable \u2018x{i}\u2019 "
                f"[{MAG}-Wunused-variable{R}{B}]{R}", f"  {i % 300 + 1} |     int x{i};", f"      |         {GRN}^~{R}"]
    if kind == 1:
        return [f"{RED}=========== short test summary info ==========={R}",
                f"{RED}FAILED{R} tests/test_m{i}.py::test_bad_{i} - assert {i} == {i + 1}"]
    if kind == 2:
        return [f"npm {RED}warn{R} deprecated pkg{i}@1.0.{i % 9}: use something else"]
    return [f"{GRN}[{i % 40}/40]{R} Building C object src/CMakeFiles/app.dir/mod_{i}.c.o",
            f"tests/test_m{i}.py::test_case_{i} {GRN}PASSED{R}{' ' * 20}[ {i % 100}%]",
            f"make[2]: Entering directory '/home/runner/work/p/p/build/sub{i % 5}'",
            f"cc -O2 -Wall -c mod_{i}.c -o mod_{i}.o",
            f"  Downloading package_{i}-1.2.3-py3-none-any.whl (123 kB)",
            f"     {GRN}\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501{R} 123.4/123.4 kB 5.0 MB/s eta 0:00:00",
            f"ok {i} - some tap test passes", f"  compiling module_{i}.o -O2 -Wall ... done in {i % 97}ms"]


def generate(path: Path, mb: int, every: int = 60) -> int:
    """A GitHub-Actions-style log of `mb` MB: timestamps, groups, colour; a diagnostic every `every` blocks."""
    size = i = 0
    with path.open("w", encoding="utf-8") as f:
        f.write("2024-05-01T10:00:00.0000000Z ##[group]Run make -j2\n")
        while size < mb * 1_000_000:
            kind = (i // every) % 3 if i % every == 0 else 3
            for line in _block(i, kind):
                text = f"2024-05-01T10:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 10_000_000:07d}Z {line}\n"
                f.write(text)
                size += len(text)
            i += 1
            if i % 20000 == 0:
                f.write("2024-05-01T10:00:00.0000000Z ##[endgroup]\n"
                        f"2024-05-01T10:00:00.0000000Z ##[group]Run step {i}\n")
        f.write("2024-05-01T10:00:00.0000000Z ##[endgroup]\n")
    return i // every


def throughput(mb: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "big.log"
        diagnostics = generate(log, mb)
        size = log.stat().st_size
        start = time.perf_counter()
        argv = [sys.executable, "-m", "agentwrap", "--agent", "normalize", str(log)]
        out = Path(tmp) / "envelope.json"
        pid = os.posix_spawn(sys.executable, argv, ENV, file_actions=[(os.POSIX_SPAWN_OPEN, 1, str(out),
                                                                        os.O_WRONLY | os.O_CREAT, 0o600)])
        _, _, usage = os.wait4(pid, 0)  # this process's own peak, not an earlier rustc's
        elapsed = time.perf_counter() - start
        peak = usage.ru_maxrss / 1024
        cpu = usage.ru_utime + usage.ru_stime
        reported = json.loads(out.read_text())["data"]["problems_total"]
        print(f"throughput {size / 1e6:.0f} MB coloured GitHub Actions log, {diagnostics} diagnostics written, "
              f"{reported} problems reported: "
              f"{elapsed:.1f} s wall ({size / 1e6 / elapsed:.1f} MB/s), {cpu:.1f} s CPU ({size / 1e6 / cpu:.1f} MB/s; "
              f"goal >= 20), peak RSS {peak:.0f} MiB")


def _hard(path: Path, kind: str) -> None:
    """Inputs where every line used to cost: random bytes, `warning:` lines, `line N` progress."""
    if kind == "binary 3 MB":
        path.write_bytes(os.urandom(3_000_000))
        return
    with path.open("w") as f:
        for i in range(40_000 if kind.startswith("warning") else 400_000):
            f.write(f"warning: none {i} of these lines is a problem\n" if kind.startswith("warning")
                    else f"2024-01-01T00:00:00.0000000Z info line {i} all fine\n")


def hard_inputs() -> None:
    for kind in ("binary 3 MB", "warning: lines 40k", "info line N 400k lines"):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "hard.log"
            _hard(log, kind)
            start = time.perf_counter()
            argv = [sys.executable, "-m", "agentwrap", "--agent", "normalize", str(log)]
            pid = os.posix_spawn(sys.executable, argv, ENV, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull,
                                                                            os.O_WRONLY, 0)])
            _, _, usage = os.wait4(pid, 0)
            print(f"hard input {kind} ({log.stat().st_size / 1e6:.1f} MB): {time.perf_counter() - start:.1f} s wall, "
                  f"{usage.ru_utime + usage.ru_stime:.1f} s CPU")


if __name__ == "__main__":
    mb = int(sys.argv[sys.argv.index("--throughput-mb") + 1]) if "--throughput-mb" in sys.argv else 100
    good = True if "--throughput-only" in sys.argv or "--hard-only" in sys.argv else accuracy()
    if "--hard-only" not in sys.argv:
        throughput(mb)
    hard_inputs()
    raise SystemExit(0 if good else 1)
