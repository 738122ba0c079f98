"""cargo's run, test and build results as facts: panics and failed tests as located problems, test totals and
the build summary (crates compiled, profile, duration, warnings, failed crates) as data."""

from __future__ import annotations

import re
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.sdk import CodeAction, Problem, ProblemCode, problem

# --- panics and tests -------------------------------------------------------------------------------------------
_PANIC = lazy(r"^thread '(?P<thread>[^']+)'(?: \(\d+\))? panicked at (?:'(?P<old>.*)', )?"
                    r"(?P<file>[^:\s]+):(?P<line>\d+):(?P<column>\d+):?$", re.M)
_TEST_LINE = lazy(r"^test (?P<name>\S.*?) \.\.\. (?P<result>ok|FAILED|ignored.*|bench:.*)$", re.M)
_RESULT = lazy(r"^test result: (?P<status>ok|FAILED)\. (?P<passed>\d+) passed; (?P<failed>\d+) failed; "
                     r"(?P<ignored>\d+) ignored; (?P<measured>\d+) measured; (?P<filtered>\d+) filtered out"
                     r"(?:; finished in (?P<secs>[\d.]+)s)?", re.M)
_SUITE = lazy(r"^\s*(?:Running (?P<what>.+?)(?: \((?P<exe>[^)]+)\))?|Doc-tests (?P<doc>\S+))$", re.M)
_RERUN = lazy(r"^error: test failed, to rerun pass `(?P<sel>[^`]+)`", re.M)
# assert_eq!/assert_ne! print the two values on the lines after the message
_OPERAND = lazy(r"^\s*(?P<side>left|right): (?P<value>.*)$")
_NO_PANIC = lazy(r"^note: test did not panic as expected at (?P<file>[^:\s]+):(?P<line>\d+):(?P<column>\d+)$",
                 re.M)


CARGO_TEST_FAILED = ProblemCode(code="CARGO_TEST_FAILED", title="Test failed", category="validation", status=422)
RUST_PANIC = ProblemCode(code="RUST_PANIC", title="Rust program panicked", category="internal", status=500,
                         safe_to_retry=False)


def panics(text: str, tool: str, exit_code: int | None, tests: bool) -> list[Problem]:
    """`thread 'x' panicked at file:line:col:` + message: one problem each (a failed test's, when testing)."""
    out = []
    for m in _PANIC.finditer(text):
        message = m.group("old") or next((ln for ln in text[m.end():].splitlines()[1:3] if ln.strip()), "")
        operands = _operands(text[m.end():], message)
        message = ", ".join([message.strip(), *(f"{k}: {v}" for k, v in operands.items())])
        loc = {"file": m.group("file"), "line": int(m.group("line")), "column": int(m.group("column"))}
        thread = m.group("thread")
        if tests and thread != "main":
            sel = _RERUN.search(text)
            cmd = ("cargo", "test", *(sel.group("sel").split() if sel else ()), thread, "--", "--exact")
            out.append(problem(
                tool, CARGO_TEST_FAILED, f"test {thread} failed: {message.strip()}", exit_code=exit_code,
                location=loc, suggested_fix="Fix the code or the test so the assertion holds; re-run just this test "
                                            "with the command in code_actions.",
                code_actions=(CodeAction(title=f"Re-run only {thread}", command=cmd, applicability="machine_applicable",
                                         is_preferred=True),),
                extra={"test": thread, **operands}))
        else:
            out.append(problem(
                tool, RUST_PANIC, f"thread '{thread}' panicked: {message.strip()}", exit_code=exit_code,
                location=loc, suggested_fix="Fix the panic at the location shown; RUST_BACKTRACE=1 prints the "
                                            "calling frames.", extra={"thread": thread}))
    return out


def _operands(after: str, message: str) -> dict[str, str]:
    """`left: 4` / `right: 5` under an assertion's message: the values the detail must say."""
    lines = after.splitlines()[1:]
    start = next((i for i, ln in enumerate(lines) if ln.strip() == message.strip()), None)
    out: dict[str, str] = {}
    for line in lines[start + 1:start + 3] if start is not None else []:
        operand = _OPERAND.match(line)
        if operand:
            out[operand.group("side")] = operand.group("value").strip()[:200]
    return out


def failed_test_names(text: str) -> set[str]:
    return {m.group("name") for m in _TEST_LINE.finditer(text) if m.group("result") == "FAILED"}


def failed_tests_without_panic(text: str, tool: str, exit_code: int | None, named: set[str]) -> list[Problem]:
    """Tests reported FAILED whose output had no panic location (e.g. should_panic that did not, doc-tests)."""
    out = []
    for m in _TEST_LINE.finditer(text):
        name = m.group("name")
        if m.group("result") != "FAILED" or name in named:
            continue
        doc = re.match(r"^(?P<file>\S+) - .*\(line (?P<line>\d+)\)$", name)
        base = name.removesuffix(" - should panic")
        unpanicked = _did_not_panic(text, base)
        if unpanicked:
            out.append(_did_not_panic_problem(tool, base, unpanicked, exit_code))
            continue
        out.append(problem(
            tool, CARGO_TEST_FAILED, f"test {name} failed", exit_code=exit_code,
            location={"file": doc.group("file"), "line": int(doc.group("line"))} if doc else None,
            suggested_fix="Read the test's captured output (`---- NAME stdout ----`) and fix the code or the test.",
            extra={"test": name}))
    return out


def _did_not_panic(text: str, name: str) -> re.Match[str] | None:
    """The `note: test did not panic as expected at FILE:L:C` in NAME's captured output."""
    block = re.search(rf"^---- {re.escape(name)} stdout ----\n(?P<body>(?:(?!---- ).*\n?){{0,20}})", text, re.M)
    return _NO_PANIC.search(block.group("body")) if block else None


def _did_not_panic_problem(tool: str, name: str, note: re.Match[str], exit_code: int | None) -> Problem:
    loc = {"file": note.group("file"), "line": int(note.group("line")), "column": int(note.group("column"))}
    return problem(
        tool, CARGO_TEST_FAILED, f"test {name} did not panic as expected (#[should_panic])", exit_code=exit_code,
        location=loc, matched=note.group(0), extra={"test": name},
        suggested_fix="The test is #[should_panic] but its body returned normally: make the code panic on that "
                      "input, or drop #[should_panic] if returning is right.")


def tests_summary(text: str, progress: str) -> dict[str, Any] | None:
    """Totals over every `test result:` line of stdout; suite names from cargo's `Running` lines (stderr)."""
    results = list(_RESULT.finditer(text))
    if not results:
        return None
    suites = [m.group("doc") and f"doc-tests {m.group('doc')}" or m.group("what")
              for m in _SUITE.finditer(progress or text)]
    totals = {k: sum(int(r.group(k)) for r in results) for k in ("passed", "failed", "ignored", "measured")}
    totals["filtered_out"] = sum(int(r.group("filtered")) for r in results)
    failed = [m.group("name") for m in _TEST_LINE.finditer(text) if m.group("result") == "FAILED"]
    out: dict[str, Any] = {**totals, "suites": len(results), "failed_tests": failed}
    if len(suites) >= len(results):
        out["suite_names"] = suites[:len(results)]
    sel = _RERUN.search(text)
    if sel:
        out["rerun"] = sel.group("sel")
    return out


# --- build summary ----------------------------------------------------------------------------------------------
# check and clippy say Checking: the crate is compiled to metadata, never "nothing to compile"
_COMPILING = lazy(r"^\s*(?:Compiling|Checking) (?P<name>\S+) v(?P<version>\S+)(?: \((?P<path>[^)]+)\))?$",
                  re.M)
_FINISHED = lazy(r"^\s*Finished `(?P<profile>[^`]+)` profile \[(?P<opt>[^\]]+)\] target\(s\) in "
                       r"(?P<secs>[\d.]+)(?P<unit>m?s)$", re.M)
_GENERATED = lazy(r"^warning: `(?P<crate>[^`]+)` \((?P<target>[^)]+)\) generated (?P<n>\d+) warnings?"
                        r"(?: \(.*?run `(?P<fix>cargo (?:clippy --)?fix[^`]*)` to apply "  # clippy --fix too
                        r"(?P<fixable>\d+) suggestions?\))?", re.M)
_COULD_NOT = lazy(r"^error: could not compile `(?P<crate>[^`]+)` \((?P<target>[^)]+)\) due to "
                        r"(?P<n>\d+) previous errors?(?:; (?P<warnings>\d+) warnings? emitted)?", re.M)


def build_summary(text: str) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    compiled = [{"name": m.group("name"), "version": m.group("version"),
                 **({"path": m.group("path")} if m.group("path") else {})} for m in _COMPILING.finditer(text)]
    if compiled:
        out["compiled"] = compiled
    fin = _FINISHED.search(text)
    if fin:
        secs = float(fin.group("secs")) * (60 if fin.group("unit") == "m" else 1)
        out.update(profile=fin.group("profile"), optimized=not fin.group("opt").startswith("unoptimized"),
                   duration_ms=round(secs * 1000))
    warnings = [{"crate": m.group("crate"), "target": m.group("target"), "warnings": int(m.group("n")),
                 **({"fixable": int(m.group("fixable")), "fix_command": m.group("fix").strip()}
                    if m.group("fix") else {})}
                for m in _GENERATED.finditer(text)]
    if warnings:
        out["warnings"] = warnings
    failed = [{"crate": m.group("crate"), "target": m.group("target"), "errors": int(m.group("n")),
               **({"warnings": int(m.group("warnings"))} if m.group("warnings") else {})}
              for m in _COULD_NOT.finditer(text)]
    if failed:
        out["failed"] = failed
    return out or None
