#!/usr/bin/env python3
"""agentwrap benchmarks, printed as ratios against reference runs made in the same process.

    python3 bench/run.py [startup] [throughput] [memory] [--quick]

startup     `agentwrap --agent true` against a bare `python -c pass` of the same interpreter (median)
throughput  `agentwrap --agent cat FILE` (64 MiB of text) against `script -qc 'cat FILE' /dev/null`
            and `unbuffer cat FILE` (Debian package expect), all writing to the same pipe
memory      agentwrap's peak RSS (its own process) for 10 MB, 100 MB and 1 GB of output

Nothing here is asserted: the figures are for people (and the README), measured on this machine.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
AGENTWRAP = [PY, "-m", "agentwrap"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_CACHE_DIR": tempfile.mkdtemp(prefix="aw-bench-")}
# An installed package has its bytecode compiled by pip; measure that, not a compile of every module per
# run (some environments export PYTHONDONTWRITEBYTECODE=1).
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "agentwrap")], check=True, env=ENV)


def _time(argv: list[str], *, stdout: int | None = subprocess.DEVNULL) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=stdout, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=ENV, check=False)
    return time.perf_counter() - start


def _median(argv: list[str], runs: int) -> float:
    _time(argv)  # warm the page cache and .pyc files
    return statistics.median(_time(argv) for _ in range(runs))


def startup(quick: bool) -> None:
    """Bare and wrapped runs interleaved, so drift in the machine's speed hits both alike."""
    runs = 7 if quick else 31
    bare_cmd, wrapped_cmd = [PY, "-c", "pass"], [*AGENTWRAP, "--agent", "true"]
    _time(bare_cmd), _time(wrapped_cmd)  # warm the page cache and .pyc files
    pairs = [(_time(bare_cmd), _time(wrapped_cmd)) for _ in range(runs)]
    bare = statistics.median(b for b, _ in pairs)
    wrapped = statistics.median(w for _, w in pairs)
    overhead = statistics.median(w - b for b, w in pairs)
    print(f"startup   bare python {bare * 1000:6.1f} ms | agentwrap --agent true {wrapped * 1000:6.1f} ms | "
          f"overhead {overhead * 1000:6.1f} ms median of {runs} pairs (goal < 60 ms) | ratio {wrapped / bare:4.2f}x")


def _text_file(size: int) -> Path:
    path = Path(tempfile.gettempdir()) / f"aw-bench-{size}.txt"
    if not path.exists() or path.stat().st_size != size:
        line = b"the quick brown fox jumps over the lazy dog 0123456789\n"
        with path.open("wb") as f:
            f.write((line * (size // len(line) + 1))[:size])
    return path


def throughput(quick: bool) -> None:
    size = (16 if quick else 64) << 20
    path = _text_file(size)
    runs = 1 if quick else 3
    rows = {"agentwrap": [*AGENTWRAP, "--agent", "cat", str(path)],
            "script": ["script", "-qc", f"cat {path}", "/dev/null"]}
    if shutil.which("unbuffer"):
        rows["unbuffer"] = ["unbuffer", "cat", str(path)]
    times = {name: min(_time(argv, stdout=subprocess.PIPE) for _ in range(runs)) for name, argv in rows.items()}
    mb = size / 1e6
    parts = [f"{name} {t:5.2f} s ({mb / t:6.1f} MB/s)" for name, t in times.items()]
    ratio = times["agentwrap"] / times["script"]
    line = f"throughput {size >> 20} MiB: " + " | ".join(parts) + f" | agentwrap/script {ratio:4.2f}x (goal <= 1.2x)"
    if "unbuffer" in times:
        line += f" | agentwrap/unbuffer {times['agentwrap'] / times['unbuffer']:4.2f}x (goal < 1x)"
    else:
        line += " | unbuffer not installed (apt-get install expect)"
    print(line)


def _peak_rss(argv: list[str]) -> int:
    """Peak RSS of agentwrap's own process (its children print the data and are measured apart)."""
    pid = os.posix_spawn(argv[0], argv, ENV, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    peak = 0
    while True:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) * 1024)
        except OSError:
            pass
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return peak
        time.sleep(0.05)


def memory(quick: bool) -> None:
    sizes = [10, 100] if quick else [10, 100, 1000]
    parts = []
    for mb in sizes:
        cmd = f"yes 'the quick brown fox jumps over the lazy dog 0123456789' | head -c {mb * 1000 * 1000}"
        peak = _peak_rss([*AGENTWRAP, "--agent", "sh", "-c", cmd])
        parts.append(f"{mb:>4} MB -> {peak / 2**20:5.1f} MiB")
    print("memory    peak RSS of agentwrap: " + " | ".join(parts) + " (goal: flat, <= 60 MiB at 1 GB)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    for name in args or ["startup", "throughput", "memory"]:
        {"startup": startup, "throughput": throughput, "memory": memory}[name](quick)
