"""`node --test` results as facts: the totals and each failed test, from the spec reporter (its `failing
tests:` recap) or TAP (`not ok` entries and their YAML diagnostics).

Shared by the node and npm adapters (js_stacks re-exports them). Pure functions of cleaned text.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from agentwrap.adapters.js_frames import Frame, file_path, parse_frame, user_frames
from agentwrap.lazyre import lazy
from agentwrap.sdk import Problem, ProblemCode, problem

TEST_FAILED = ProblemCode(code="NODE_TEST_FAILED", title="Test failed", category="validation", status=422)

_TEST_COUNT = lazy(r"^(?:ℹ|#) (?P<key>tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) "
                   r"(?P<value>[\d.]+)$", re.M)
_TEST_AT = lazy(r"^test at (?P<file>.+?):(?P<line>\d+):(?P<column>\d+)$")
_TEST_FAIL = lazy(r"^\s*✖ (?P<name>.+?)(?: \([\d.]+m?s\))?$")
_TAP_FAIL = lazy(r"^(?P<indent>\s*)not ok \d+ - (?P<name>.+?)(?: # .*)?$")
_TAP_LOCATION = lazy(r"^\s+location: '(?P<file>.+?):(?P<line>\d+):(?P<column>\d+)'$")


def runner_counts(text: str) -> dict[str, Any] | None:
    """`node --test` totals (spec reporter `ℹ tests 3` or TAP `# tests 3`)."""
    counts: dict[str, Any] = {}
    for m in _TEST_COUNT.finditer(text):
        key = {"pass": "passed", "fail": "failed", "tests": "total"}.get(m.group("key"), m.group("key"))
        counts[key] = float(m.group("value")) if "." in m.group("value") else int(m.group("value"))
    if "total" not in counts:
        return None
    if "duration_ms" in counts:
        counts["duration_ms"] = round(counts["duration_ms"])
    return counts


def runner_failures(text: str, tool: str, exit_code: int | None) -> list[Problem]:
    """Failed `node --test` tests: the spec reporter's `failing tests:` list, or TAP `not ok` entries."""
    lines = text.splitlines()
    if "✖ failing tests:" in lines:
        return _spec_failures(lines, tool, exit_code)
    out: list[Problem] = []
    for i, line in enumerate(lines):
        m = _TAP_FAIL.match(line)
        if not m:
            continue
        block = lines[i + 1:i + 60]
        block = block[:next((k for k, b in enumerate(block) if b.strip() == "..."), len(block))]
        if "failureType: 'subtestsFailed'" in "\n".join(block[:8]):
            continue  # a suite whose subtests failed: each of them is a problem of its own
        loc = next((x.groupdict() for x in map(_TAP_LOCATION.match, block) if x), None)
        reason = " ".join(_yaml_text(block, "error"))[:300]
        frames = [f for ln in _yaml_text(block, "stack") if (f := parse_frame(f"    at {ln}"))]
        problem = _test_problem(tool, m.group("name"), reason, loc, _site(frames), exit_code)
        first = i - 1 if i and lines[i - 1].strip().startswith("# Subtest: ") else i
        out.append(problem._replace(matched="\n".join(lines[first:i + len(block) + 2])))  # to its `...`
    return out


def _spec_failures(lines: list[str], tool: str, exit_code: int | None) -> list[Problem]:
    """The spec reporter's recap: `test at FILE:L:C`, `✖ NAME`, the error's message and its frames."""
    out: list[Problem] = []
    for i in range(lines.index("✖ failing tests:"), len(lines) - 1):
        at, name = _TEST_AT.match(lines[i]), _TEST_FAIL.match(lines[i + 1])
        if not (at and name):
            continue
        end = next((j for j in range(i + 1, len(lines)) if _TEST_AT.match(lines[j])), len(lines))
        body = [ln.strip() for ln in lines[i + 2:end]]
        message = body[:next((k for k, b in enumerate(body) if b.startswith(("at ", "test at "))), len(body))]
        reason = " ".join(" ".join(b.split()) for b in message if b)[:300]
        frames = [f for ln in lines[i + 2:end] if (f := parse_frame(ln))]
        problem = _test_problem(tool, name.group("name"), reason, at.groupdict(), _site(frames), exit_code)
        # the problem stands for its block (printed twice: in the run and in the recap)
        out.append(problem._replace(matched="\n".join(lines[i:end])))
    return out


def _yaml_text(block: list[str], key: str) -> list[str]:
    """The lines of a TAP diagnostic's `key: |-` block scalar (more indented than the key), stripped."""
    for k, line in enumerate(block):
        if line.strip() in (f"{key}: |-", f"{key}: |"):
            indent = len(line) - len(line.lstrip())
            rest = block[k + 1:]
            stop = next((j for j, r in enumerate(rest) if r.strip() and len(r) - len(r.lstrip()) <= indent),
                        len(rest))
            return [r.strip() for r in rest[:stop] if r.strip()]
        if line.strip().startswith(f"{key}: "):
            return [line.strip()[len(key) + 2:].strip("'\"")]
    return []


def _site(frames: list[Frame]) -> dict[str, Any] | None:
    """Where a failed test threw: its first frame in the user's files, not in node's test runner."""
    user = user_frames(frames)
    return {"file": user[0].file, "line": user[0].line, "column": user[0].column} if user else None


def _test_problem(tool: str, name: str, reason: str, declared: dict[str, str] | None,
                  site: dict[str, Any] | None, exit_code: int | None) -> Problem:
    """One failed test, located where it threw (else where it is declared), with the command re-running it."""
    test_file = file_path(declared["file"]) if declared else None
    location = site or ({"file": test_file, "line": int(declared["line"]), "column": int(declared["column"])}
                        if declared and test_file else None)
    # the one command that re-runs this test, spelt out (the test name is a pattern: escaped, then quoted)
    pattern = re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", name)
    rerun = (f"node --test --test-name-pattern {shlex.quote(pattern)} {shlex.quote(test_file)}" if test_file
             else "node --test --test-name-pattern NAME FILE")
    return problem(tool, TEST_FAILED, f"test '{name}' failed" + (f": {reason}" if reason else ""),
                   exit_code=exit_code, location=location, extra={"test": name},
                   suggested_fix=f"Fix the code or the test; re-run just this test with `{rerun}`.")
