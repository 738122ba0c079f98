"""Recall on real logs (tests/data/normalize/real, see its README): every diagnostic a tool printed with a
file and line comes out of `agentwrap normalize` with that file and line, once per diagnostic.

What the log holds is read here by a reading of each layout written apart from agentwrap's formats and
adapters (the line a tool prints per diagnostic), so the expectation comes from the log, not the code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentwrap.logs import formats
from agentwrap.logs.engine import Normalizer

REAL = Path(__file__).parent / "data" / "normalize" / "real"

# one regex per layout; each match is one diagnostic at (file, line)
_FILE_LINE = r"^(?:\./)?(?P<file>[\w./-]+\.\w+):(?P<line>\d+):(?:\d+:)? ?(?:error|warning|note|[A-Z]+\d+)\b"
LAYOUTS = {
    "bandit-1.9.4.log": r"^\s+Location: (?:\./)?(?P<file>[\w./-]+):(?P<line>\d+):\d+$",
    "pylint-4.1.5.log": r"^(?P<file>[\w./-]+\.py):(?P<line>\d+):\d+: [CRWEF]\d{4}: ",
    "flake8-7.5.0.log": r"^(?P<file>[\w./-]+\.py):(?P<line>\d+):\d+: [A-Z]\d{3} ",
    "yamllint-1.38.0-parsable.log": r"^(?P<file>[\w./-]+):(?P<line>\d+):\d+: \[(?:error|warning)\] ",
    "shellcheck-0.11.0-gcc.log": _FILE_LINE,
    "javac-17.log": r"^(?P<file>[\w./-]+\.java):(?P<line>\d+): (?:error|warning): ",
    "tsc-7.0.2.log": r"^(?P<file>[\w./-]+\.ts)\((?P<line>\d+),\d+\): error TS\d+",
    "tsc-7.0.2-pretty.log": r"^(?:\x1b\[\d+m)*(?P<file>[\w./-]+\.ts)(?:\x1b\[\d+m)*:(?:\x1b\[\d+m)*(?P<line>\d+)"
                            r"(?:\x1b\[\d+m)*:(?:\x1b\[\d+m)*\d+(?:\x1b\[\d+m)* - (?:\x1b\[\d+m)*error",
    "mypy-2.4.1.log": r"^(?P<file>[\w./-]+\.py):(?P<line>\d+): error: ",
    "gcc-12.2.log": r"^(?P<file>[\w./-]+\.c):(?P<line>\d+):\d+: (?:error|warning): ",  # a note joins its error
    "rustc-1.95.log": r"^\s*--> (?P<file>[\w./-]+\.rs):(?P<line>\d+):\d+$",
    "clippy-1.95.log": r"^\s*--> (?P<file>[\w./-]+\.rs):(?P<line>\d+):\d+$",
}
STYLISH = {"yamllint-1.38.0.log", "eslint-10.16.0.log"}  # a file line, then `  L:C  severity  message`
SHELLCHECK_TTY = {"shellcheck-0.11.0.log"}  # `In FILE line L:`, then one `SCnnnn (level):` per diagnostic


def printed(name: str) -> list[tuple[str, int]]:
    """The (file, line) of each diagnostic the log shows, in order."""
    text = (REAL / name).read_text()
    out: list[tuple[str, int]] = []
    current: tuple[str, int] | None = None
    for line in text.splitlines():
        if name in STYLISH:
            if line and not line[0].isspace() and re.fullmatch(r"[\w./-]+", line):
                current = (line, 0)
            elif current and (m := re.match(r"^\s+(\d+):\d+\s+(?:error|warning)\s", line)):
                out.append((current[0], int(m.group(1))))
        elif name in SHELLCHECK_TTY:
            if m := re.match(r"^In (\S+) line (\d+):$", line):
                current = (m.group(1), int(m.group(2)))
            elif current and re.search(r"\^-* SC\d{4} \((?:error|warning|info|style)\): ", line):
                out.append(current)
        elif m := re.match(LAYOUTS[name], line):
            out.append((m.group("file"), int(m.group("line"))))
    return out


def found(name: str) -> list[tuple[str, int]]:
    with (REAL / name).open("rb") as stream:
        result = Normalizer(forced=None, max_problems=10_000).run(stream)
    return [(p.location["file"], p.location.get("line", 0)) for p in result.problems if p.location]


def _same_file(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)  # a stylish header is an absolute path


def missed(name: str) -> list[tuple[str, int]]:
    pool, lost = found(name), []
    for file, line in printed(name):
        hit = next((i for i, (f, n) in enumerate(pool) if n == line and _same_file(f, file)), None)
        if hit is None:
            lost.append((file, line))
        else:
            pool.pop(hit)  # one problem answers one diagnostic
    return lost


LOGS = sorted([*LAYOUTS, *STYLISH, *SHELLCHECK_TTY])
KNOWN_MISSES: dict[str, list[tuple[str, int]]] = {}  # none: each printed diagnostic comes out


def test_every_real_log_is_listed_and_shows_diagnostics() -> None:
    assert sorted(p.name for p in REAL.glob("*.log")) == LOGS
    assert all(printed(name) for name in LOGS)  # a layout regex that reads nothing would prove nothing


@pytest.mark.parametrize("name", LOGS)
def test_each_printed_location_comes_out(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("AGENTWRAP_ADAPTERS", "builtin")
    assert missed(name) == KNOWN_MISSES.get(name, [])


def test_bandit_screen_report_keeps_its_rule_severity_and_column(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTWRAP_ADAPTERS", "builtin")
    with (REAL / "bandit-1.9.4.log").open("rb") as stream:
        problems = Normalizer(forced=None, max_problems=100).run(stream).problems
    by_line = {p.location["line"]: p for p in problems if p.location}
    shell = by_line[5]  # `   Location: ./src/bad.py:5:4`, `Severity: High`, [B602:...]
    assert shell.location == {"file": "src/bad.py", "line": 5, "column": 5}  # col_offset 4 is column 5
    assert shell.severity == "error" and (shell.extra or {}).get("rule") == "B602"
    assert json.dumps(shell.detail).startswith('"subprocess call with shell=True')


def test_two_diagnostics_at_one_place_stay_two_and_one_read_twice_stays_one(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """flake8's `import os, sys`: two F401 at 1:1 that differ only in their message were one problem (the
    ruff adapter's key had the rule, not the message). The same lines read again by a problem matcher
    a workflow adds must not come out twice."""
    monkeypatch.setenv("AGENTWRAP_ADAPTERS", "builtin")
    flake8 = {"owner": "flake8", "pattern": [{"regexp": r"^(.+?):(\d+):(\d+): ([A-Z]\d{3} .+)$", "file": 1,
                                                "line": 2, "column": 3, "message": 4}]}
    (tmp_path / "flake8.json").write_text(json.dumps({"problemMatcher": [flake8]}))
    lines = (REAL / "flake8-7.5.0.log").read_text().splitlines()
    for extra in ([], formats.load_matcher_file(tmp_path / "flake8.json")):
        with (REAL / "flake8-7.5.0.log").open("rb") as stream:
            problems = Normalizer(forced=None, max_problems=100, extra_formats=extra).run(stream).problems
        messages = [p.detail.split(": ", 1)[-1] for p in problems]
        assert sorted(messages) == sorted(line.split(": ", 1)[1] for line in lines), messages


def test_pylint_keeps_its_message_id_and_counts_columns_from_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """pylint prints `src/bad.py:4:8: E0602: ...`: the rule is `E0602` (it was `0602`, the letter lost),
    and the column, counted from 0 there, is 9 in the location."""
    monkeypatch.setenv("AGENTWRAP_ADAPTERS", "builtin")
    with (REAL / "pylint-4.1.5.log").open("rb") as stream:
        problems = Normalizer(forced=None, max_problems=100).run(stream).problems
    printed = re.findall(r"^[\w./-]+:(\d+):(\d+): ([CRWEF]\d{4}): ", (REAL / "pylint-4.1.5.log").read_text(), re.M)
    got = [(p.location["line"], p.location["column"], (p.extra or {}).get("rule")) for p in problems if p.location]
    assert sorted(got) == sorted((int(line), int(col) + 1, rule) for line, col, rule in printed)
