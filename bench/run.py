#!/usr/bin/env python3
"""agentwrap benchmarks, printed as ratios against reference runs made in the same process.

    python3 bench/run.py [startup] [throughput] [memory] [--quick] [--no-install] [--runs=N] [--against=REV]

startup     `agentwrap --agent true` against a bare `python -c pass` of the same interpreter (median of
            interleaved pairs), in each way a newcomer gets agentwrap: a fresh clone of this checkout's
            HEAD installed with `pip install .` and with `pip install -e .` into new venvs (pip fetches
            the dependencies), and this checkout itself (`python -m agentwrap`). The editable install is
            measured twice: with PYTHONDONTWRITEBYTECODE=1 (no bytecode is ever written, so every module
            is compiled at each start) and once its bytecode is written. --no-install skips the venvs.
            --against=REV installs a fresh clone of REV too and runs it interleaved with HEAD's install:
            their difference holds when the machine's speed drifts between runs (it does on shared CI).
throughput  `agentwrap --agent cat FILE` (64 MiB of text, then of coloured text) against
            `script -qc 'cat FILE' /dev/null` and `unbuffer cat FILE` (Debian package expect), all writing
            to the same pipe, in interleaved rounds (--runs=N, default 3; the minimum is kept); then the
            terminal cleaner alone, in process, on text, coloured text and carriage-return progress redraws; then
            the whole output pipeline (cleaner, redactor, capture, salient lines, artifact), in process, on
            text and coloured text in 256 KiB batches (what the runner hands it): the work that bounds the
            wall time once the terminal is read in another process
memory      agentwrap's peak RSS (its own process) for 10 MB, 100 MB and 1 GB of output

Start-up runs use the default cache and configuration folders (XDG_CACHE_HOME and XDG_CONFIG_HOME point
to empty temporary folders): the code path of a real first-time user, without touching theirs.
Nothing here is asserted: the figures are for people (and the README), measured on this machine.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
AGENTWRAP = [PY, "-m", "agentwrap"]
SCRATCH = Path(tempfile.mkdtemp(prefix="aw-bench-"))
atexit.register(shutil.rmtree, SCRATCH, True)
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_CACHE_DIR": str(SCRATCH / "cache")}
# An installed package has its bytecode compiled by pip; measure that, not a compile of every module per
# run (some environments export PYTHONDONTWRITEBYTECODE=1).
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
_compiled = False
RUNS = 3  # rounds of the throughput comparison (--runs=N)


def _compile_checkout() -> None:
    global _compiled
    if not _compiled:
        subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "agentwrap")], check=True, env=ENV)
        _compiled = True


def _time(argv: list[str], *, stdout: int | None = subprocess.DEVNULL) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=stdout, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=ENV, check=False)
    return time.perf_counter() - start


def _startup_env(**extra: str) -> dict[str, str]:
    """A newcomer's environment: no agentwrap overrides, default (but empty, private) cache and config."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("AGENTWRAP_") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")}
    home = SCRATCH / "home"
    env.update(XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"), **extra)
    return env


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system, the process and what it waited for) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime


def _pairs(label: str, bare_cmd: list[str], wrapped_cmd: list[str], env: dict[str, str], cwd: Path,
           runs: int, before: Callable[[], object] = lambda: None) -> None:
    """Bare and wrapped runs interleaved, so drift in the machine's speed hits both alike. CPU time is printed
    beside the wall clock: on a busy machine it varies less. `before` runs before each pair."""
    _timed(bare_cmd, env, cwd), _timed(wrapped_cmd, env, cwd)  # warm caches (not counted)
    pairs = [(before(), _timed(bare_cmd, env, cwd), _timed(wrapped_cmd, env, cwd))[1:] for _ in range(runs)]
    bare = statistics.median(b[0] for b, _ in pairs)
    wrapped = statistics.median(w[0] for _, w in pairs)
    overhead = statistics.median(w[0] - b[0] for b, w in pairs)
    cpu = statistics.median(w[1] - b[1] for b, w in pairs)
    print(f"startup   {label:<52} bare {bare * 1000:5.1f} ms | agentwrap {wrapped * 1000:5.1f} ms | "
          f"overhead {overhead * 1000:5.1f} ms, CPU {cpu * 1000:5.1f} ms (goal < 60 ms)", flush=True)


def _fresh_clone(dest: Path) -> str:
    """A clone of HEAD, as a newcomer gets it; says which commit, and whether the checkout differs."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False)
    if head.returncode != 0:  # not a git checkout (an unpacked sdist): copy the sources instead
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(".git", "__pycache__", "build", "*.egg-info"))
        return "a copy of this folder"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=False).stdout.strip()
    return f"HEAD {head.stdout.strip()}" + (" (this checkout has uncommitted changes it lacks)" if dirty else "")


def _venv(name: str, clone: Path, *pip_args: str) -> Path | None:
    venv = SCRATCH / name
    try:
        subprocess.run([PY, "-m", "venv", str(venv)], check=True, capture_output=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        *pip_args, str(clone)], check=True, capture_output=True, env=_startup_env())
    except subprocess.CalledProcessError as exc:
        tail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()[-1:]
        print(f"startup   {name}: skipped, could not install ({' '.join(tail) or exc})", flush=True)
        return None
    return venv / "bin"


def _against(rev: str, head_bin: Path, cwd: Path, runs: int) -> None:
    """HEAD's and REV's `pip install .` in rounds of three (bare, HEAD, REV), so drift hits all three."""
    clone = SCRATCH / "clone-against"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    if subprocess.run(["git", "-C", str(clone), "checkout", "-q", rev], check=False).returncode != 0:
        print(f"startup   --against={rev}: skipped, no such revision", flush=True)
        return
    rev_bin = _venv("venv-against", clone)
    if rev_bin is None:
        return
    env, bare = _startup_env(), [str(head_bin / "python"), "-c", "pass"]
    repo = SCRATCH / "repo"  # an adapter's command too: a git run loads the git adapter and its spec
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def ms(values: Iterable[float]) -> float:
        return statistics.median(values) * 1000

    for args, where in ((["true"], cwd), (["git", "status"], repo)):
        head, other = [str(head_bin / "agentwrap"), "--agent", *args], [str(rev_bin / "agentwrap"), "--agent", *args]
        _timed(bare, env, where), _timed(head, env, where), _timed(other, env, where)  # warm caches (not counted)
        rounds = [(_timed(bare, env, where)[1], _timed(head, env, where)[1], _timed(other, env, where)[1])
                  for _ in range(runs)]
        head_ms, rev_ms = ms(h - b for b, h, _ in rounds), ms(o - b for b, _, o in rounds)
        gain = ms(h - o for _, h, o in rounds)
        print(f"startup   `agentwrap --agent {' '.join(args)}`, pip install . of HEAD and of {rev}, CPU over bare: "
              f"HEAD {head_ms:5.1f} ms | {rev} {rev_ms:5.1f} ms | HEAD - {rev} {gain:+5.1f} ms"
              f" (median of {runs} rounds)", flush=True)


def startup(quick: bool, install: bool = True, against: str | None = None) -> None:
    runs = 7 if quick else 31
    if install:
        clone = SCRATCH / "clone"
        what = _fresh_clone(clone)
        print(f"startup   fresh clone: {what}; venvs made with {PY} -m venv", flush=True)
        bin_dir = _venv("venv-install", clone)
        if bin_dir is not None:
            _pairs("pip install .  (the venv's bin/agentwrap)", [str(bin_dir / "python"), "-c", "pass"],
                   [str(bin_dir / "agentwrap"), "--agent", "true"], _startup_env(), clone, runs)
            if against:
                _against(against, bin_dir, clone, runs)
        edit_clone = SCRATCH / "clone-editable"
        _fresh_clone(edit_clone)
        bin_dir = _venv("venv-editable", edit_clone, "-e")
        if bin_dir is not None:
            bare, wrapped = [str(bin_dir / "python"), "-c", "pass"], [str(bin_dir / "agentwrap"), "--agent", "true"]
            _pairs("pip install -e .  PYTHONDONTWRITEBYTECODE=1 (compiles)", bare, wrapped,
                   _startup_env(PYTHONDONTWRITEBYTECODE="1"), edit_clone, runs)
            _timed(wrapped, _startup_env(), edit_clone)  # writes the bytecode
            _pairs("pip install -e .  bytecode written", bare, wrapped, _startup_env(), edit_clone, runs)
    _compile_checkout()
    bare, wrapped, env = [PY, "-c", "pass"], [*AGENTWRAP, "--agent", "true"], _startup_env(PYTHONPATH=str(ROOT))
    _pairs("this checkout: python -m agentwrap, bytecode", bare, wrapped, env, ROOT, runs)
    # `-m` puts the working directory on sys.path; files appearing in it (an editor, a build) change it
    busy = SCRATCH / "busy"
    busy.mkdir()
    _pairs("... from a working directory changed before each run", bare, wrapped, env, busy, runs,
           before=lambda: (busy / f"{time.monotonic_ns()}.tmp").touch())


PLAIN_LINE = b"the quick brown fox jumps over the lazy dog 0123456789\n"
COLOUR_LINE = b"\x1b[32mINFO\x1b[0m 2026-01-01 the quick brown fox \x1b[1;34mjumps\x1b[0m over \x1b[33m0123\x1b[0m\n"


def _text_file(size: int, line: bytes = PLAIN_LINE, kind: str = "txt") -> Path:
    path = Path(tempfile.gettempdir()) / f"aw-bench-{size}.{kind}"
    if not path.exists() or path.stat().st_size != size:
        with path.open("wb") as f:
            f.write((line * (size // len(line) + 1))[:size])
    return path


def _cleaner_rate(data: bytes) -> float:
    sys.path.insert(0, str(ROOT))
    from agentwrap.terminal import TerminalCleaner

    cleaner = TerminalCleaner()
    start = time.perf_counter()
    for i in range(0, len(data), 65536):
        cleaner.feed(data[i:i + 65536])
    cleaner.finish()
    return len(data) / (time.perf_counter() - start) / 1e6


def _pipeline_rate(data: bytes) -> float:
    """The whole output pipeline, in process, fed as the runner feeds it (256 KiB batches)."""
    sys.path.insert(0, str(ROOT))
    from agentwrap.artifacts import ArtifactStore
    from agentwrap.pipeline import Pipeline

    store = ArtifactStore(Path(tempfile.mkdtemp(dir=SCRATCH)))
    pipeline = Pipeline(max_inline_bytes=16384, store=store, secrets=[])
    start = time.perf_counter()
    for i in range(0, len(data), 1 << 18):
        pipeline.output("stdout", data[i:i + (1 << 18)])
    pipeline.finish()
    elapsed = time.perf_counter() - start
    shutil.rmtree(store.root, ignore_errors=True)
    return len(data) / elapsed / 1e6


def throughput(quick: bool) -> None:
    _compile_checkout()
    size = (16 if quick else 64) << 20
    for kind, line in (("text", PLAIN_LINE), ("coloured text", COLOUR_LINE)):
        _pty_throughput(size, _text_file(size, line, kind.replace(" ", "-")), kind, quick)
    for kind, line in (("text", PLAIN_LINE), ("coloured text", COLOUR_LINE),
                       ("\\r progress redraws", b"\r 45% [#####     ] 12.3 MB/s eta 0:00:07")):
        data = line * (size // len(line))
        rate = max(_cleaner_rate(data) for _ in range(1 if quick else 3))
        goal = " (goal >= 60 MB/s)" if kind == "coloured text" else ""
        print(f"cleaner   {kind:<22} {rate:6.1f} MB/s (agentwrap.terminal, in process){goal}")
    for kind, line in (("text", PLAIN_LINE), ("coloured text", COLOUR_LINE)):
        data = _text_file(size, line, kind.replace(" ", "-")).read_bytes()
        rate = max(_pipeline_rate(data) for _ in range(1 if quick else 3))
        print(f"pipeline  {kind:<22} {rate:6.1f} MB/s (agentwrap.pipeline, in process, 256 KiB batches)")
    seq = "".join(f"{i}\n" for i in range(size // 8))[:size]
    for kind, text in (("seq", seq), ("gcc log, UTF-8 quotes", _compiler_log("\u2018", "\u2019", size)),
                       ("gcc log, ASCII", _compiler_log("'", "'", size))):
        rate = max(_redactor_rate(text) for _ in range(1 if quick else 3))
        print(f"redactor  {kind:<22} {rate:6.1f} MB/s (agentwrap.redact, in process, CPU time, no secret)")


def _redactor_rate(text: str) -> float:
    """The redactor alone over secret-free output in 64 KiB line-aligned chunks (CPU seconds)."""
    sys.path.insert(0, str(ROOT))
    from agentwrap.redact import Redactor

    chunks, pos = [], 0
    while pos < len(text):
        end = text.find("\n", pos + 65536) + 1 or len(text)
        chunks.append(text[pos:end])
        pos = end
    redactor = Redactor()
    start = time.process_time()
    for chunk in chunks:
        redactor.redact(chunk)
    return len(text.encode()) / (time.process_time() - start) / 1e6


def _compiler_log(q: str, p: str, size: int) -> str:
    """gcc/make/rustc-style output (diagnostics, source echo, command lines), no secret, about `size` bytes."""
    block = "".join(
        f"make[2]: Entering directory '/build/src/lib{i}'\n"
        f"cc -O2 -g -Wall -Wextra -DNDEBUG -I/usr/include/python3.11 -c src/mod_{i}.c -o build/mod_{i}.o\n"
        f"src/mod_{i}.c: In function {q}parse_{i}{p}:\n"
        f"src/mod_{i}.c:{i}:29: error: expected {q};{p} before {q}}}{p} token\n"
        f"   {i} |     int count = {i} return count;\n"
        f"      |                             ^~~~~~\n"
        f"src/mod_{i}.c:{i}:12: warning: unused variable {q}buf_{i}{p} [-Wunused-variable]\n"
        f"warning: unused variable: `tokenizer_{i}` --> src/lib.rs:{i}:9 (see https://doc.rust-lang.org/)\n"
        for i in range(2000)
    )
    return (block * (size // len(block.encode()) + 1))[: size - 4096]


def _check_run(argv: list[str], size: int) -> None:
    """A timing of a run that failed (a missing dependency, a crash) is no timing: stop and say so."""
    done = subprocess.run([*argv[:4], "--detail", "standard", *argv[4:]], capture_output=True, env=ENV,
                          stdin=subprocess.DEVNULL, check=False)
    try:
        envelope = json.loads(done.stdout)
        seen = envelope["output"]["stdout"]["bytes"]
    except (ValueError, KeyError, TypeError):
        envelope, seen = {}, None
    if done.returncode or envelope.get("status") != "success" or seen is None or seen < size:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        sys.exit(f"throughput: `{' '.join(argv)}` did not succeed (exit {done.returncode}, "
                 f"{seen} of {size} bytes seen): {' | '.join(tail) or done.stdout[:300]!r}")


def _pty_throughput(size: int, path: Path, kind: str, quick: bool) -> None:
    runs = 1 if quick else RUNS
    rows = {"agentwrap": [*AGENTWRAP, "--agent", "cat", str(path)],
            "script": ["script", "-qc", f"cat {path}", "/dev/null"]}
    if shutil.which("unbuffer"):
        rows["unbuffer"] = ["unbuffer", "cat", str(path)]
    # Interleaved (one run of each per round), so a burst of load on this shared machine weighs on every
    # row alike; the minimum of the rounds is kept.
    _check_run(rows["agentwrap"], size)
    samples: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(runs):
        for name, argv in rows.items():
            samples[name].append(_time(argv, stdout=subprocess.PIPE))
    times = {name: min(values) for name, values in samples.items()}
    mb = size / 1e6
    parts = [f"{name} {t:5.2f} s ({mb / t:6.1f} MB/s)" for name, t in times.items()]
    ratio = times["agentwrap"] / times["script"]
    line = (f"throughput {size >> 20} MiB of {kind}: " + " | ".join(parts)
            + f" | agentwrap/script {ratio:4.2f}x (goal <= 1.2x)")
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
    _compile_checkout()
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
    RUNS = next((int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--runs=")), 3)
    for name in args or ["startup", "throughput", "memory"]:
        if name == "startup":
            against = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--against=")), None)
            startup(quick, install="--no-install" not in sys.argv, against=against)
        else:
            {"throughput": throughput, "memory": memory}[name](quick)
