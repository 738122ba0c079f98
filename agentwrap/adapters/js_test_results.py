"""`node --test` results as facts: the totals and each failed test, from the spec reporter (its `failing
tests:` recap) or TAP (`not ok` entries and their YAML diagnostics); mocha's spec reporter is `js_mocha`'s.

Shared by the node and npm adapters (js_stacks re-exports them). Pure functions of cleaned text.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, NamedTuple

from agentwrap.adapters import js_mocha
from agentwrap.adapters.js_frames import Frame, file_path, parse_frame, user_frames
from agentwrap.lazyre import lazy
from agentwrap.sdk import Problem, ProblemCode, problem

TEST_FAILED = ProblemCode(code="NODE_TEST_FAILED", title="Test failed", category="validation", status=422)
#: `node --test` runs each file in a process of its own: one that fails while loading (or outside any test) is
#: reported as a failed "test" named after the file, with the reason 'test failed'
TEST_FILE_FAILED = ProblemCode(code="NODE_TEST_FILE_FAILED", title="Test file failed outside its tests",
                               category="validation", status=422)
NO_TEST_RAN = ProblemCode(code="NODE_NO_TEST_RAN", title="No test ran", category="not_found", status=404)

_TEST_COUNT = lazy(r"^(?:ℹ|#) (?P<key>tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) "
                   r"(?P<value>[\d.]+)$", re.M)
_TEST_AT = lazy(r"^test at (?P<file>.+?):(?P<line>\d+):(?P<column>\d+)$")
_TEST_FAIL = lazy(r"^\s*✖ (?P<name>.+?)(?: \([\d.]+m?s\))?$")
_TAP_FAIL = lazy(r"^(?P<indent>\s*)not ok \d+ - (?P<name>.+?)(?: # .*)?$")
_TAP_LOCATION = lazy(r"^\s+location: '(?P<file>.+?):(?P<line>\d+):(?P<column>\d+)'$")
_SPEC_GROUP = lazy(r"^(?P<indent>\s*)▶ (?P<name>.+)$")  # a suite's or a test's heading, before its subtests
_TAP_GROUP = lazy(r"^(?P<indent>\s*)# Subtest: (?P<name>.+)$")
_SCRIPT_FILE = lazy(r"^(?:/|[A-Za-z]:\\).+\.[cm]?[jt]sx?$")
# a frame of `t.test()`: the failed test was started by a running test, so that test must run for it to
_SUBTEST_CALL = "TestContext.test (node:internal/test_runner/"


def runner_counts(text: str) -> dict[str, Any] | None:
    """`node --test` totals (spec reporter `ℹ tests 3` or TAP `# tests 3`), else mocha's (`1 passing (9ms)`)."""
    counts: dict[str, Any] = {}
    for m in _TEST_COUNT.finditer(text):
        key = {"pass": "passed", "fail": "failed", "tests": "total"}.get(m.group("key"), m.group("key"))
        counts[key] = float(m.group("value")) if "." in m.group("value") else int(m.group("value"))
    if "total" not in counts:
        return js_mocha.counts(text)
    if "duration_ms" in counts:
        counts["duration_ms"] = round(counts["duration_ms"])
    return counts


def nothing_ran(counts: dict[str, Any] | None) -> bool:
    """Every test skipped (or none found): a run that passes without having tested anything."""
    if not counts or counts.get("passed") or counts.get("failed"):
        return False
    return bool(counts.get("skipped", 0) + counts.get("todo", 0) >= counts.get("total", 0))


def no_test_ran(text: str, tool: str, exit_code: int | None) -> list[Problem]:
    """A warning for a run in which no test ran: exit 0 would read as success."""
    counts = runner_counts(text)
    if not counts or not nothing_ran(counts):
        return []
    by_pattern = "# test name does not match pattern" in text
    why = " (their names do not match --test-name-pattern)" if by_pattern else ""
    skipped = f"{counts.get('skipped', 0)} of {counts['total']} skipped" if counts["total"] else "none found"
    return [problem(tool, NO_TEST_RAN, f"no test ran: {skipped}{why}",
                    exit_code=exit_code, severity="warning",
                    suggested_fix="Check the --test-name-pattern (a subtest runs only when its parent test matches "
                                  "too) and the files given; nothing was tested." if by_pattern else
                                  "Check the files and filters given to node --test; nothing was tested.")]


def runner_failures(text: str, tool: str, exit_code: int | None) -> list[Problem]:
    """Failed `node --test` tests: the spec reporter's `failing tests:` list, or TAP `not ok` entries."""
    lines = text.splitlines()
    if "✖ failing tests:" in lines:
        return _spec_failures(lines, tool, exit_code)
    if not _TEST_COUNT.search(text) and (mocha := js_mocha.failures(text, tool, TEST_FAILED, exit_code)):
        return mocha
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
        stack = _yaml_text(block, "stack")
        frames = [f for ln in stack if (f := parse_frame(f"    at {ln}"))]
        nesting = Nesting(_groups(lines, i, _TAP_GROUP), _in_a_test(stack, frames))
        problem = _test_problem(tool, m.group("name"), reason, loc, _site(frames), nesting, exit_code)
        first = i - 1 if i and lines[i - 1].strip().startswith("# Subtest: ") else i
        out.append(problem._replace(matched="\n".join(lines[first:i + len(block) + 2])))  # to its `...`
    return out


def _spec_failures(lines: list[str], tool: str, exit_code: int | None) -> list[Problem]:
    """The spec reporter's recap: `test at FILE:L:C`, `✖ NAME`, the error's message and its frames."""
    out: list[Problem] = []
    recap = lines.index("✖ failing tests:")
    seen: dict[str, int] = {}
    for i in range(recap, len(lines) - 1):
        at, name = _TEST_AT.match(lines[i]), _TEST_FAIL.match(lines[i + 1])
        if not (at and name):
            continue
        end = next((j for j in range(i + 1, len(lines)) if _TEST_AT.match(lines[j])), len(lines))
        body = [ln.strip() for ln in lines[i + 2:end]]
        message = body[:next((k for k, b in enumerate(body) if b.startswith(("at ", "test at "))), len(body))]
        reason = " ".join(" ".join(b.split()) for b in message if b)[:300]
        frames = [f for ln in lines[i + 2:end] if (f := parse_frame(ln))]
        nth = seen[name.group("name")] = seen.get(name.group("name"), -1) + 1
        nesting = Nesting(_spec_groups(lines[:recap], name.group("name"), nth), _in_a_test(body, frames))
        problem = _test_problem(tool, name.group("name"), reason, at.groupdict(), _site(frames), nesting,
                                exit_code)
        # the problem stands for its block (printed twice: in the run and in the recap)
        out.append(problem._replace(matched="\n".join(lines[i:end])))
    return out


class Nesting(NamedTuple):
    """Where a failed test sits: the suites and tests around it (outermost first), and whether a running test
    started it (`t.test()`): node runs such a subtest only when its parents match the name pattern too."""
    groups: list[str]
    in_a_test: bool


def _in_a_test(stack: list[str], frames: list[Frame]) -> bool:
    """Whether a running test started this one: `t.test()` is on its stack, or (after an `await`, when that
    frame is gone) two test bodies of the user's are, the failed test's and its parent's."""
    bodies = [f for f in user_frames(frames) if (f.function or "").startswith("TestContext.")]
    return any(_SUBTEST_CALL in line for line in stack) or len(bodies) > 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _groups(lines: list[str], at: int, heading: re.Pattern[str]) -> list[str]:
    """The names of the headings around the line `at`: each nearer one less indented, outermost first."""
    out: list[str] = []
    depth = _indent(lines[at])
    for i in range(at - 1, -1, -1):
        if depth == 0:
            break
        group = heading.match(lines[i])
        if group and len(group.group("indent")) < depth:
            out.append(group.group("name"))
            depth = len(group.group("indent"))
    return out[::-1]


def _spec_groups(lines: list[str], name: str, nth: int) -> list[str]:
    """The headings around the `nth` `✖ NAME (Nms)` of the spec reporter's run (the recap repeats it)."""
    done = re.compile(rf"^\s*✖ {re.escape(name)} \([\d.]+m?s\)$")
    hits = [i for i, line in enumerate(lines) if done.match(line)]
    return _groups(lines, hits[nth], _SPEC_GROUP) if nth < len(hits) else []


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
                  site: dict[str, Any] | None, nesting: Nesting, exit_code: int | None) -> Problem:
    """One failed test, located where it threw (else where it is declared), with the command re-running it."""
    test_file = file_path(declared["file"]) if declared else None
    location = site or ({"file": test_file, "line": int(declared["line"]), "column": int(declared["column"])}
                        if declared and test_file else None)
    if _SCRIPT_FILE.match(name) and not nesting.groups:
        return _file_problem(tool, name, test_file, location, exit_code)
    return problem(tool, TEST_FAILED, f"test '{name}' failed" + (f": {reason}" if reason else ""),
                   exit_code=exit_code, location=location, extra={"test": name},
                   suggested_fix=f"Fix the code or the test; re-run just this test with "
                                 f"`{_rerun(name, nesting, test_file)}`.")


def _rerun(name: str, nesting: Nesting, test_file: str | None) -> str:
    """The command that re-runs one test: each name it must match anchored and escaped (names are regular
    expressions), its parents' too when a running test started it (else node skips it with its parent)."""
    names = [*nesting.groups, name] if nesting.in_a_test else [name]
    patterns = " ".join(f"--test-name-pattern {shlex.quote('^' + _escaped(n) + '$')}" for n in names)
    return f"node --test {patterns} {shlex.quote(test_file)}" if test_file else \
        "node --test --test-name-pattern NAME FILE"


def _escaped(name: str) -> str:
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", name)


def _file_problem(tool: str, path: str, test_file: str | None, location: dict[str, Any] | None,
                  exit_code: int | None) -> Problem:
    """A test file that failed outside its tests: no name pattern re-runs it; its own error says why."""
    shown = test_file or path
    return problem(tool, TEST_FILE_FAILED, f"test file {shown} failed outside its tests (while loading, or in "
                   "code no test runs); node reports only 'test failed'", exit_code=exit_code,
                   location={"file": location["file"]} if location else None, extra={"test_file": path},
                   suggested_fix=f"Fix the error the file printed (listed as a problem when recognised), then "
                                 f"re-run it alone with `node --test {shlex.quote(shown)}`.")
