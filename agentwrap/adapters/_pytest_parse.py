"""pytest's terminal report (cleaned text) -> counts and one record per failing test, error or collection error.

Pure functions of text. Works with every `--tb` style: long/auto (`path:line: ExcType` closes each
traceback entry), short (`path:line: in func`), line (one `path:line: message` per failure), native (a
Python traceback) and no (the short test summary only). Paths are as pytest prints them: relative to
the invocation folder; absolute paths under `rootdir` are made relative to it.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.adapters import _pytest_doctest, _pytest_warnings, tracebacks
from agentwrap.lazyre import lazy

_BANNER = lazy(r"^=+ (?P<title>.+?) =+$")
_SECTION = lazy(r"^_{2,} (?P<title>.+?) _{2,}$|^_ (?P<short>[^_].*?) _$")
_CAPTURED = lazy(r"^-{2,} (?:Captured|captured) (?P<name>.*) -{2,}$")
_ENTRY = lazy(r"^(?P<file>[^\s:>][^:]*?):(?P<line>\d+)(?::(?: (?P<rest>.*))?)?$")
_FIXTURE_FILE = lazy(r"^file (?P<file>.+), line (?P<line>\d+)$")
_E_LINE = lazy(r"^E\s+(?P<text>.*)$")
_SUMMARY_LINE = lazy(r"^(?P<outcome>FAILED|ERROR) (?P<rest>.+)$")
_COUNT = lazy(r"(?P<n>\d+) (?P<what>failed|passed|skipped|deselected|xfailed|xpassed|warnings?|errors?|rerun)\b")
_DURATION = lazy(r" in (?P<s>\d+(?:\.\d+)?)s\b")
_ROOTDIR = lazy(r"^rootdir: (?P<root>.+?)(?:, (?:configfile|inifile|testpaths): .*)?$", re.M)
_COLLECTED = lazy(r"^(?:collecting \.\.\. )?collected (?P<n>\d+) items?", re.M)
_CO_TOTAL = lazy(r"^(?P<n>\d+)(?:/\d+)? tests? collected(?: \(\d+ deselected\))? in ", re.M)
_VERBOSE = lazy(r"^(?P<nodeid>\S+?::\S.*?) (?P<outcome>PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b.*?\[\s*\d+%\]$")
_EXC_NAME = lazy(r"^(?P<type>[A-Za-z_][\w.]*)(?::|$)")
_SYNTAX_FILE = lazy(r'^File "(?P<file>[^"]+)", line (?P<line>\d+)')
_DEF = lazy(r"^\s*(?:async\s+)?def (?P<name>\w+)\(")
COUNT_KEYS = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed", "warnings", "deselected")
MAX_LIST = 500


class Report(NamedTuple):
    nodeid: str | None
    outcome: str  # failed | error
    when: str | None  # call | setup | teardown | collect; None when only the summary line says
    title: str
    file: str | None
    line: int | None
    message: str
    exception: str | None
    crash: dict[str, Any] | None  # where the exception was raised, when it is not `file:line`
    fixture: str | None = None  # a fixture that does not exist
    evidence: tuple[str, ...] = ()  # the deciding lines: the failing source line (`>`) and the `E` lines
    # what the test printed or logged, by pytest's section name (`stdout call`, `log setup`), as printed
    captured: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # a set-up or tear-down error's first traceback function: the fixture (or xunit set-up) that raised
    function: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self._asdict().items() if v is not None and k not in ("evidence", "captured")}
        return {**out, "evidence": list(self.evidence)} if self.evidence else out


EVIDENCE_LINES = 12
_CARETS = lazy(r"^\s+[~^]+\s*$")


def evidence(body: list[str], internal: bool = True) -> tuple[str, ...]:
    """What a reader needs to see of a failure block: each `path:line: in func` entry with the source line
    under it, the `>` line, and the `E` lines (pytest's own choice of what matters), within a bound.
    `internal=False` leaves out the entries in pytest's, importlib's and the standard library's code: a
    collection error's traceback starts in pytest's importer, which is no place the user can fix."""
    kept: list[str] = []
    statement = False  # inside the `>` statement: its continuation lines are part of it
    taken = -1  # the caret line already kept with the line above it
    for i, line in enumerate(body):
        if i == taken:
            continue
        if line.startswith(">") or _E_LINE.match(line):
            kept.append(line.rstrip())
            statement = line.startswith(">")
            if i + 1 < len(body) and _CARETS.match(body[i + 1]):
                kept.append(body[i + 1].rstrip())  # python's ^^^^ under the failing expression
                taken = i + 1
        elif statement and line.startswith("    ") and line.strip():
            kept.append(line.rstrip())
        elif (entry := _ENTRY.match(line)) is not None and not line.startswith("<"):
            statement = False
            if not internal and tracebacks.is_library(entry.group("file")):
                continue
            kept.append(line.rstrip())
            if i + 1 < len(body) and body[i + 1].startswith("    "):
                kept.append(body[i + 1].rstrip())
        else:
            statement = False
    kept = [k[:200] for k in kept if k.strip() not in ("E", "")]
    return _bounded(kept)


# What an assertion's long explanation says about the difference, wherever it is in the block: pytest's
# summary of it (`Differing items:` and the item under it, `Left contains ...`, `At index 3 diff: ...`) and
# the changed lines of its full diff (`-`, `+`, and the `?` marks under them). A -vv dict diff prints every
# equal item too: its last lines are no fact, and the changed ones may be anywhere.
_DIFF_SAYS = lazy(r"^E\s+(?:Differing items:|Differing attributes:|Left contains |Right contains |At index \d+ diff:|"
                  r"Omitting \d+ identical items|.+ != .+)")
_DIFF_SIDE = lazy(r"^E\s+[-+?] ")


def _bounded(kept: list[str]) -> tuple[str, ...]:
    """`kept` within EVIDENCE_LINES: the last lines, unless the lines that say the difference would be cut,
    which are then kept first (in their order), with the `>` line and what room is left of the last lines."""
    if len(kept) <= EVIDENCE_LINES:
        return tuple(kept)
    said = [i for i, line in enumerate(kept) if _DIFF_SAYS.match(line) or _DIFF_SIDE.match(line)]
    if not said or said[0] >= len(kept) - EVIDENCE_LINES:
        return tuple(kept[-EVIDENCE_LINES:])
    chosen = {i for i, line in enumerate(kept) if line.startswith(">")}
    chosen.update(said[:max(0, EVIDENCE_LINES - len(chosen))])
    tail = len(kept) - 1
    while len(chosen) < EVIDENCE_LINES and tail >= 0:
        chosen.add(tail)
        tail -= 1
    return tuple(kept[i] for i in sorted(chosen)[:EVIDENCE_LINES])


def failure_blocks(text: str) -> dict[str, str]:
    """The text of each FAILURES and ERRORS section, by its title: what a failure's problem was read from
    (its captured output too, which the problem carries)."""
    by_title = dict(_blocks(text.splitlines()))
    out: dict[str, str] = {}
    for name in ("FAILURES", "ERRORS"):
        for title, raw in _section_lines(by_title.get(name, [])):
            if title:
                out[title] = "\n".join(raw)
    return out


def summary_lines(text: str) -> dict[str, list[str]]:
    """The short test summary's `FAILED id - msg` / `ERROR id` lines, by node id: what a failure's problem
    says again."""
    by_title = dict(_blocks(text.splitlines()))
    out: dict[str, list[str]] = {}
    for line in by_title.get("short test summary info", []):
        for _, nodeid, _ in _summary_entries([line]):
            out.setdefault(nodeid, []).append(line)
    return out


def _section_lines(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Each `___ title ___` section's lines as printed, its captured output with them."""
    out: list[tuple[str, list[str]]] = []
    for line in lines:
        head = _SECTION.match(line)
        if head and not re.fullmatch(r"[_ ]+", line):
            out.append((head.group("title") or head.group("short"), []))
        elif out:
            out[-1][1].append(line)
    return out


def _blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """The `=== TITLE ===` blocks of the report, in order, with their lines."""
    blocks: list[tuple[str, list[str]]] = [("", [])]
    for line in lines:
        banner = _BANNER.match(line)
        if banner:
            blocks.append((banner.group("title"), []))
        else:
            blocks[-1][1].append(line)
    return blocks


Captured = tuple[tuple[str, tuple[str, ...]], ...]


def _sections(lines: list[str]) -> list[tuple[str | None, list[str]]]:
    """`___ title ___` sections; captured output inside them is left out (user text could look like a path)."""
    return [(title, body) for title, body, _ in _captured_sections(lines)]


def _captured_sections(lines: list[str]) -> list[tuple[str | None, list[str], Captured]]:
    """`___ title ___` sections: each one's traceback lines, and apart from them its captured output, by
    pytest's name for it (`stdout call`), without the trailing blank lines pytest leaves."""
    out: list[tuple[str | None, list[str], list[tuple[str, list[str]]]]] = []
    captured = False
    for line in lines:
        head = _SECTION.match(line)
        if head and not re.fullmatch(r"[_ ]+", line):
            out.append((head.group("title") or head.group("short"), [], []))
            captured = False
        elif (c := _CAPTURED.match(line)) is not None:
            if not out:
                out.append((None, [], []))
            out[-1][2].append((c.group("name"), []))
            captured = True
        elif captured:
            out[-1][2][-1][1].append(line)
        else:
            if not out:
                out.append((None, [], []))
            out[-1][1].append(line)
    return [(title, body, tuple((name, tuple(_trimmed(text))) for name, text in captured))
            for title, body, captured in out]


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _rel(path: str, root: str | None) -> str:
    if root and path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1:]
    return path


def _summary_entries(lines: list[str]) -> list[tuple[str, str, str]]:
    """(outcome, nodeid, message) from the short test summary: `FAILED a.py::t[x - y] - msg`."""
    out = []
    for line in lines:
        match = _SUMMARY_LINE.match(line)
        if not match:
            continue
        rest = match.group("rest")
        cut = rest.find("]") + 1 if "[" in rest.split(" - ", 1)[0] else 0
        head, sep, message = rest[cut:].partition(" - ")
        out.append((match.group("outcome").lower(), rest[:cut] + head, message if sep else ""))
    return out


def head_line(nodeid: str) -> str:
    """The section title pytest prints for a test: `a.py::Cls::test[x]` -> `Cls.test[x]`."""
    return ".".join(nodeid.split("::")[1:]) or nodeid


def _first_function(body: list[str], entries: list[tuple[str, int, str]]) -> str | None:
    """The function the traceback starts in: `--tb=short`'s first `path:line: in NAME`, else the first
    `def NAME(` of the source that long tracebacks print above each entry. pytest prunes a set-up or
    tear-down traceback to start at the fixture, so this names the fixture that raised."""
    if entries and entries[0][2].startswith("in "):
        return entries[0][2].removeprefix("in ").strip() or None
    for line in body:
        if line.startswith(">") or _E_LINE.match(line):
            break  # past the first frame's source: a later def is another frame's
        if (d := _DEF.match(line)) is not None:
            return d.group("name")
    return None


_MISMATCH = lazy(r"^import file mismatch:\nimported module '(?P<module>[^']+)' has this __file__ attribute:\n"
                 r"  (?P<imported>.+)\nwhich is not the same as the test file we want to collect:\n"
                 r"  (?P<wanted>.+)", re.M)
MISMATCH = "import file mismatch"


def _mismatch(body: list[str], root: str | None, test_file: str | None) -> str | None:
    """pytest's `import file mismatch:` block (no `E` line): two test files of one basename. The other
    file is named as the test file is: relative to the folder the wanted file's absolute path shows."""
    match = _MISMATCH.search("\n".join(body))
    if match is None:
        return None
    wanted = match["wanted"].strip()
    if root is None and test_file and wanted.endswith("/" + test_file):
        root = wanted[:-len(test_file)]
    return f"{MISMATCH}: module '{match['module']}' is already imported from {_rel(match['imported'], root)}"


def _exception(entries: list[tuple[str, int, str]], messages: list[str]) -> str | None:
    if entries and (name := _EXC_NAME.match(entries[-1][2])) and not entries[-1][2].startswith("in "):
        return name.group("type")
    first = messages[0] if messages else ""
    if first.startswith("assert "):
        return "AssertionError"
    match = _EXC_NAME.match(first)
    return match.group("type") if match and (":" in first or first == match.group("type")) else None


def _report(title: str | None, body: list[str], nodeid: str | None, outcome: str, root: str | None,
            summary_message: str) -> Report:
    when: str | None = "call" if outcome == "failed" or title else None
    if title and (m := re.match(r"ERROR at (setup|teardown) of (.+)", title)):
        when = m.group(1)
    elif title and title.startswith("ERROR collecting "):
        when, nodeid = "collect", nodeid or title.removeprefix("ERROR collecting ")
    entries: list[tuple[str, int, str]] = []
    messages: list[str] = []
    fixture_file: tuple[str, int] | None = None
    syntax: dict[str, Any] | None = None
    for line in body:
        if (e := _E_LINE.match(line)) is not None:
            text = e.group("text").strip()
            if (s := _SYNTAX_FILE.match(text)) is not None:
                syntax = {"file": _rel(s.group("file"), root), "line": int(s.group("line"))}
            elif text and not (syntax is not None and re.fullmatch(r"\^+", text)):
                messages.append(text)
            continue
        if (f := _FIXTURE_FILE.match(line)) is not None:
            fixture_file = (_rel(f.group("file"), root), int(f.group("line")))
        elif (m := _ENTRY.match(line)) is not None and not line.startswith("<"):
            entries.append((_rel(m.group("file"), root), int(m.group("line")), (m.group("rest") or "").strip()))
    if not entries and not messages:
        for tb in tracebacks.parse("\n".join(body))[-1:]:  # --tb=native
            exc = tb.final
            entries += [(_rel(f.file, root), f.line, "") for f in exc.frames if not f.file.startswith("<")]
            if entries:
                entries[-1] = (*entries[-1][:2], exc.type)
            messages.append(exc.headline())
    test_file = nodeid.split("::", 1)[0] if nodeid else (entries[0][0] if entries else None)
    if test_file:  # without a rootdir line (-q), absolute paths still name the test file
        entries = [(test_file if f.endswith("/" + test_file) else f, n, r) for f, n, r in entries]
        if fixture_file and fixture_file[0].endswith("/" + test_file):
            fixture_file = (test_file, fixture_file[1])
    message = (messages[-1] if syntax else messages[0]) if messages else ""
    message = message or _mismatch(body, root, test_file) or summary_message
    exception = _exception(entries, [message])
    file, line_no = test_file, None
    own = [entry for entry in entries if entry[0] == test_file]
    crash = entries[-1] if entries else None
    if syntax:
        file, line_no = syntax["file"], syntax["line"]
        crash = None
    elif own:
        file, line_no = own[-1][0], own[-1][1]
    elif fixture_file:
        file, line_no = fixture_file
    elif crash:
        file, line_no = crash[0], crash[1]
    fixture = re.search(r"fixture '([^']+)' not found", "\n".join(messages))
    crash_dict = ({"file": crash[0], "line": crash[1]} if crash and (crash[0], crash[1]) != (file, line_no) else None)
    function = _first_function(body, entries) if when in ("setup", "teardown") and not fixture else None
    report = Report(nodeid, outcome, when, title or (nodeid or ""), file, line_no, message[:1000], exception,
                    crash_dict, fixture.group(1) if fixture else None,
                    evidence(body, internal=when != "collect"), function=function)
    return _doctest(report, body, root) if _pytest_doctest.is_doctest(title) else report


def _doctest(report: Report, body: list[str], root: str | None) -> Report:
    """A failed doctest's report: its message says the example and what it printed against what it should
    have (pytest prints no `E` line for it), located at the first failed example."""
    failed = _pytest_doctest.examples(body)
    if not failed:
        return report
    test_file = report.file or ""

    def here(path: str) -> str:
        path = _rel(path, root)
        return test_file if test_file and path.endswith("/" + test_file) else path

    first = failed[0]
    parts = [first.message(), *(f"{e.message()} (line {e.line})" for e in failed[1:])]
    raised = first.raised
    crash = raised.user_frame() if raised is not None else None
    crash = None if crash is None or crash.file.startswith("<") else crash
    evidence = [line for e in failed for line in e.diff]
    evidence += [f"{here(f.file)}:{f.line}: in {f.function}" for e in failed if e.raised is not None
                 for f in _pytest_doctest.user_frames(e.raised)]
    return report._replace(
        file=here(first.file), line=first.line, message="; ".join(parts)[:1000],
        exception=raised.type if raised is not None else report.exception,
        crash={"file": here(crash.file), "line": crash.line} if crash else None,
        evidence=tuple(evidence[-EVIDENCE_LINES:]))


def _match_sections(sections: list[tuple[str | None, list[str], Captured]], summary: list[tuple[str, str, str]],
                    outcome: str, root: str | None) -> list[Report]:
    """Pair each section with its short-summary entry: by title, then by order."""
    pending = [(nodeid, msg) for kind, nodeid, msg in summary if kind == outcome]
    reports = []
    for title, body, captured in sections:
        name = title or ""
        if outcome == "error":
            name = re.sub(r"^ERROR (?:at (?:setup|teardown) of |collecting )", "", name)
        pick = next((i for i, (nodeid, _) in enumerate(pending)
                     if head_line(nodeid) == name or nodeid == name), 0 if pending else None)
        nodeid, msg = pending.pop(pick) if pick is not None else (None, "")
        reports.append(_report(title, body, nodeid, outcome, root, msg)._replace(captured=captured))
    for nodeid, msg in pending:  # --tb=no: the summary is all there is
        reports.append(_report(None, [], nodeid, outcome, root, msg))
    return reports


def _line_style(body: list[str], summary: list[tuple[str, str, str]], root: str | None) -> list[Report]:
    """`--tb=line`: one `path:line: message` per failure, in summary order."""
    pending = [(nodeid, msg) for kind, nodeid, msg in summary if kind == "failed"]
    reports = []
    for line in body:
        m = _ENTRY.match(line)
        if not m:
            continue
        nodeid, msg = pending.pop(0) if pending else (None, "")
        text = m.group("rest") or msg
        file = _rel(m.group("file"), root)
        test_file = nodeid.split("::", 1)[0] if nodeid else ""
        file = test_file if test_file and file.endswith("/" + test_file) else file
        reports.append(Report(nodeid, "failed", "call", nodeid or "", file,
                              int(m.group("line")), text[:1000], _exception([], [text]), None))
    return reports


def parse(text: str) -> dict[str, Any]:
    """Counts, duration and failing tests from pytest's terminal output."""
    return parse_reports(text)[0]


def parse_reports(text: str) -> tuple[dict[str, Any], list[Report]]:
    """`parse`, and the reports of its failures whole (with what each test printed, which data leaves out)."""
    lines = text.splitlines()
    root_match = _ROOTDIR.search(text)
    root = root_match.group("root") if root_match else None
    blocks = _blocks(lines)
    by_title = {title: body for title, body in blocks}
    summary = _summary_entries(by_title.get("short test summary info", []))
    data: dict[str, Any] = {}
    final = next((title for title, _ in reversed(blocks) if _COUNT.search(title) or "no tests ran" in title), None)
    if final is None:  # -q: the last line carries the counts without banners
        final = next((line for line in reversed(lines) if _DURATION.search(line) and
                      (_COUNT.search(line) or "no tests ran" in line)), None)
    co = _CO_TOTAL.search(text)
    if final or co:  # without pytest's final line (a cut or ended run's output) no count is known, not even a zero
        data.update(dict.fromkeys(COUNT_KEYS, 0))
    if final:
        for m in _COUNT.finditer(final):
            key = m.group("what")
            key = {"warning": "warnings", "error": "errors"}.get(key, key)
            data[key] = int(m.group("n"))
        if (d := _DURATION.search(final)) is not None:
            data["duration_ms"] = round(float(d.group("s")) * 1000)
    if (c := _COLLECTED.search(text)) is not None:
        data["collected"] = int(c.group("n"))
    if (why := stopped(text)) is not None:
        data["stopped"] = why
    if (warned := _pytest_warnings.summary(by_title.get("warnings summary", []), root)):
        data["warnings_summary"] = warned
    reports: list[Report] = []
    if "ERRORS" in by_title:
        reports += _match_sections(_captured_sections(by_title["ERRORS"]), summary, "error", root)
    elif any(kind == "error" for kind, _, _ in summary):
        reports += _match_sections([], summary, "error", root)
    failures = _captured_sections(by_title.get("FAILURES", []))
    if failures and failures[0][0] is None:
        reports += _line_style(failures[0][1], summary, root)
    else:
        reports += _match_sections(failures, summary, "failed", root)
    data["failures"] = [r.to_dict() for r in reports[:MAX_LIST]]
    results = [{"nodeid": v.group("nodeid"), "outcome": v.group("outcome").lower()}
               for line in lines if (v := _VERBOSE.match(line))]
    if results:
        data["results"] = results[:MAX_LIST]
    if co is not None:
        data["collected"] = int(co.group("n"))
        nodeids = [line for line in lines if "::" in line and " " not in line.split("::")[0] and not
                   _VERBOSE.match(line) and not line.startswith(("FAILED", "ERROR"))]
        data["tests"] = nodeids[:MAX_LIST]
    return data, reports[:MAX_LIST]


_STOPPED = lazy(r"^!+ (?:[\w.]+: )?(?:stopping after (?P<failures>\d+) failures?|"
                r"Interrupted: (?P<errors>\d+) errors? during collection) !+$", re.M)


def stopped(text: str) -> str | None:
    """Why the run ended before every test ran, when pytest said so: `-x`/`--maxfail` (on the command line
    or in the configuration's addopts, where the caller did not write it) or collection errors."""
    match = _STOPPED.search(text)
    if match is None:
        return None
    if match["failures"]:
        n = int(match["failures"])
        return f"after {n} failure{'s' if n > 1 else ''} (-x/--maxfail); later tests did not run"
    n = int(match["errors"])
    return f"by {n} collection error{'s' if n > 1 else ''}; no tests ran"


_CONFTEST = lazy(r"^ImportError while loading conftest '(?P<path>[^']+)'\.\n(?P<body>(?:.+\n?)*)", re.M)


def conftest_block(text: str) -> str:
    """The text `conftest_error` reads: the problem says it, so it is not repeated inline."""
    match = _CONFTEST.search(text)
    return match.group(0) if match else ""


def conftest_error(text: str) -> Report | None:
    """`ImportError while loading conftest 'PATH'.` and the traceback entries and `E` lines under it."""
    match = _CONFTEST.search(text)
    if not match:
        return None
    root_match = _ROOTDIR.search(text)
    body = match.group("body").splitlines()
    report = _report(None, body, None, "error", root_match.group("root") if root_match else None, "")
    return report._replace(when="collect", title=f"conftest {match.group('path')}")


def rootdir(text: str) -> str | None:
    match = _ROOTDIR.search(text)
    return match.group("root") if match else None


def relative(path: str, text: str) -> str:
    """`path` relative to the rootdir pytest printed, when it is under it."""
    return _rel(path, rootdir(text))


def internal_error(text: str) -> tracebacks.PyException | None:
    """The exception behind pytest's INTERNALERROR> lines (a plugin or conftest hook that raised)."""
    lines = [line[len("INTERNALERROR> "):] for line in text.splitlines() if line.startswith("INTERNALERROR> ")]
    found = tracebacks.parse("\n".join(lines))
    return found[-1].final if found else None


def reports(data: dict[str, Any]) -> list[Report]:
    return [Report(**{**{f: item.get(f) for f in Report._fields}, "evidence": tuple(item.get("evidence") or ())})
            for item in data.get("failures", [])]
