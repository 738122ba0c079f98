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
# a #[should_panic] test is listed `NAME - should panic`: the test's name is NAME
_TEST_LINE = lazy(r"^test (?P<name>\S.*?)(?: - should panic)? \.\.\. (?P<result>ok|FAILED|ignored.*|bench:.*)$", re.M)
_RESULT = lazy(r"^test result: (?P<status>ok|FAILED)\. (?P<passed>\d+) passed; (?P<failed>\d+) failed; "
                     r"(?P<ignored>\d+) ignored; (?P<measured>\d+) measured; (?P<filtered>\d+) filtered out"
                     r"(?:; finished in (?P<secs>[\d.]+)s)?", re.M)
_SUITE = lazy(r"^\s*(?:Running (?P<what>.+?)(?: \((?P<exe>[^)]+)\))?|Doc-tests (?P<doc>\S+))$", re.M)
_RERUN = lazy(r"^error: test failed, to rerun pass `(?P<sel>[^`]+)`", re.M)
# assert_eq!/assert_ne! print the two values on the lines after the message
_OPERAND = lazy(r"^\s*(?P<side>left|right): (?P<value>.*)$")
# What a panic prints after its `thread 'x' panicked at` line, besides its message: how to get the frames, or
# the frames themselves (RUST_BACKTRACE=1)
_BACKTRACE_NOTE = lazy(r"^note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace$", re.M)
_BACKTRACE = lazy(r"^stack backtrace:$")
_FRAME = lazy(r"^\s+(?:\d+: (?P<function>.+)|at (?P<file>.+?):(?P<line>\d+):(?P<column>\d+))$")
_OMITTED = lazy(r"^note: Some details are omitted, run with `RUST_BACKTRACE=full`")
_EXPECTED = lazy(r"^note: panic did not contain expected string\n\s*panic message: (?P<got>.*)\n"
                r"\s*expected substring: (?P<want>.*)$")
_BLOCK = lazy(r"^---- (?P<name>.+?) stdout ----$")
_NO_PANIC = lazy(r"^note: test did not panic as expected at (?P<file>[^:\s]+):(?P<line>\d+):(?P<column>\d+)$",
                 re.M)


CARGO_TEST_FAILED = ProblemCode(code="CARGO_TEST_FAILED", title="Test failed", category="validation", status=422)
RUST_PANIC = ProblemCode(code="RUST_PANIC", title="Rust program panicked", category="internal", status=500,
                         safe_to_retry=False)


def panics(text: str, tool: str, exit_code: int | None, tests: bool) -> list[Problem]:
    """`thread 'x' panicked at file:line:col:` + message: one problem each (a failed test's, when testing).
    Each stands for the lines it was read from: the panic's line, its message, and the backtrace or the note
    on how to get one (the frames stay in the artifact; the project's own are the problem's `stack`)."""
    out = []
    lines = text.split("\n")
    for m in _PANIC.finditer(text):
        message = m.group("old") or next((ln for ln in text[m.end():].splitlines()[1:3] if ln.strip()), "")
        operands = _operands(text[m.end():], message)
        message = ", ".join([message.strip(), *(f"{k}: {v}" for k, v in operands.items())])
        loc = {"file": m.group("file"), "line": int(m.group("line")), "column": int(m.group("column"))}
        thread = m.group("thread")
        at = text.count("\n", 0, m.start())
        said, frames, noted = _panic_lines(lines, at)
        expected = _EXPECTED.match("\n".join(lines[at + len(said):at + len(said) + 3]))
        if expected:  # #[should_panic(expected = "...")] whose panic said something else
            said += expected.group(0).split("\n")
            message = (f"its panic message {expected.group('got').strip()} does not contain the expected "
                       f"{expected.group('want').strip()} (#[should_panic(expected)])")
        stack = [f for f in _rebased(_own_frames(frames), loc) if {k: f[k] for k in loc} != loc]  # said by loc
        extra: dict[str, Any] = {"stack": stack} if stack else {}
        if tests and thread != "main":
            out.append(problem(
                tool, CARGO_TEST_FAILED, f"test {thread} failed: {message.strip()}", exit_code=exit_code,
                location=loc, suggested_fix="Fix the code or the test so the assertion holds; re-run just this test "
                                            "with the command in code_actions.",
                code_actions=(_rerun(text, thread),), matched="\n".join(said),
                extra={"test": thread, **operands, **extra}))
        else:
            # the frames are a fact of this run's output: RUST_BACKTRACE=1 is news only when they were not printed
            noted = noted or not frames and bool(_BACKTRACE_NOTE.search(text))  # printed once, at the first panic
            frames_fix = ("; RUST_BACKTRACE=1 prints the calling frames" if noted else
                          "; `stack` lists the calling frames in this project" if stack else "")
            out.append(problem(
                tool, RUST_PANIC, f"thread '{thread}' panicked: {message.strip()}", exit_code=exit_code,
                location=loc, suggested_fix=f"Fix the panic at the location shown{frames_fix}.",
                matched="\n".join(said), extra={"thread": thread, **extra}))
    return out


def _rerun(text: str, name: str) -> CodeAction:
    sel = _RERUN.search(text)
    cmd = ("cargo", "test", *(sel.group("sel").split() if sel else ()), name, "--", "--exact")
    return CodeAction(title=f"Re-run only {name}", command=cmd, applicability="machine_applicable", is_preferred=True)


def _panic_lines(lines: list[str], at: int) -> tuple[list[str], list[re.Match[str]], bool]:
    """The lines of the panic whose `thread ... panicked at` line is `lines[at]`: it, its message up to a blank
    line, and the backtrace (or the note on how to print one) under it; the frames; whether the note was
    printed (RUST_BACKTRACE unset or 0: only the first panic of a process prints it)."""
    i = at + 1
    while i < len(lines) and lines[i].strip() and not (
            _PANIC.match(lines[i]) or _BLOCK.match(lines[i]) or _BACKTRACE_NOTE.match(lines[i])
            or _BACKTRACE.match(lines[i]) or lines[i].startswith("note: panic did not contain expected string")):
        i += 1
    said = lines[at:i]
    frames: list[re.Match[str]] = []
    noted = i < len(lines) and bool(_BACKTRACE_NOTE.match(lines[i]))
    if noted:
        said.append(lines[i])
    elif i < len(lines) and _BACKTRACE.match(lines[i]):
        said.append(lines[i])
        i += 1
        while i < len(lines) and ((frame := _FRAME.match(lines[i])) or _OMITTED.match(lines[i])):
            frames += [frame] if frame else []
            said.append(lines[i])
            i += 1
    return said, frames, noted


def _own_frames(frames: list[re.Match[str]]) -> list[dict[str, Any]]:
    """The frames of a backtrace in the project's own code (`at ./src/lib.rs:9:9`), never the standard
    library's (`/rustc/<hash>/library/...`) or a dependency's (`~/.cargo/registry/...`), nor the closure a
    function was called through: up to 8."""
    out: list[dict[str, Any]] = []
    function = None
    for frame in frames:
        if frame.group("function"):
            function = frame.group("function")
            continue
        file = frame.group("file")
        if file.startswith("/rustc/") or "/.cargo/registry/" in file or "/.rustup/" in file or function is None:
            continue
        if function.endswith("::{{closure}}") and out and out[-1]["function"] == function[:-len("::{{closure}}")]:
            continue  # libtest's call of the test function: its `fn` line, a frame of no call
        out.append({"file": file.removeprefix("./"), "line": int(frame.group("line")),
                    "column": int(frame.group("column")), "function": function})
        function = None
    return out[:8]


def _rebased(stack: list[dict[str, Any]], loc: dict[str, Any]) -> list[dict[str, Any]]:
    """A test binary runs in its package's folder, so its backtrace names files from there (`./src/lib.rs`)
    while the panic line names them from where cargo ran (`a/src/lib.rs`, a workspace member): the frame at the
    panic's own line and column gives the member's folder, which every relative frame then gets."""
    file = loc["file"]
    same = next((f for f in stack if (f["line"], f["column"]) == (loc["line"], loc["column"])
                 and not f["file"].startswith("/") and file.endswith("/" + f["file"])), None)
    if same is None:
        return stack
    folder = file[:-len(same["file"])]
    return [f if f["file"].startswith("/") else {**f, "file": folder + f["file"]} for f in stack]


def _blocks(text: str) -> dict[str, list[str]]:
    """Each failed test's `---- NAME stdout ----` block (its header first): what libtest captured of it."""
    lines = text.split("\n")
    blocks: dict[str, list[str]] = {}
    for i, line in enumerate(lines):
        if head := _BLOCK.match(line):
            end = next((j for j in range(i + 1, len(lines)) if _BLOCK.match(lines[j]) or lines[j] == "failures:"
                        or _RESULT.match(lines[j])), len(lines))
            blocks[head.group("name")] = lines[i:end]
    return blocks


def _own_output(block: list[str], said: set[str]) -> bool:
    """Whether a test's block holds lines its problem does not stand for: what the test printed itself."""
    return any(line.strip() and line not in said for line in block[1:])


def test_blocks(text: str, found: list[Problem]) -> list[Problem]:
    """Each failed test's problem standing for its `---- NAME stdout ----` block too, when the problem says
    all the block holds (what the test printed itself keeps the block), and for libtest's outline around
    the blocks (its `test NAME ... FAILED` line, `failures:`, the list of names, the rerun hint its code
    action carries): with every failure a problem, that outline only repeats their places."""
    blocks = _blocks(text)
    listed = {m.group("name"): m.group(0) for m in _TEST_LINE.finditer(text) if m.group("result") == "FAILED"}
    rerun = [m.group(0) for m in _RERUN.finditer(text)]
    out = []
    for p in found:
        name = (p.extra or {}).get("test")
        if p.code != CARGO_TEST_FAILED.code or not isinstance(name, str):
            out.append(p)
            continue
        said = p.matched.splitlines()
        block = blocks.get(name, [])
        outline = [*([listed[name]] if name in listed else []), "failures:", f"    {name}",
                   *(rerun if p.code_actions else [])]
        head = [block[0]] if block and not _own_output(block, set(said)) else []
        out.append(p._replace(matched="\n".join([*head, *said, *outline])))
    return out


def own_output_headers(text: str, found: tuple[Problem, ...]) -> tuple[str, ...]:
    """The `---- NAME stdout ----` lines of the blocks that hold what a test printed itself: they stay in the
    text a model reads, to say whose output it is (the problem names the test, so they would seem said)."""
    blocks = _blocks(text)
    out = []
    for p in found:
        name = (p.extra or {}).get("test")
        block = blocks.get(name, []) if isinstance(name, str) else []
        if block and _own_output(block, set(p.matched.splitlines())):
            out.append(block[0])
    return tuple(out)


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
        unpanicked = _did_not_panic(text, name)
        if unpanicked:
            out.append(_did_not_panic_problem(tool, name, unpanicked, exit_code)._replace(
                code_actions=(_rerun(text, name),)))
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
    sel = _RERUN.search(text) or _RERUN.search(progress)  # cargo prints it on stderr
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
