"""Node.js output as facts: uncaught errors (stack traces), module resolution failures and `node --test` results.

Shared by the node and npm adapters (npm scripts print node's errors). Pure functions of cleaned text.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, NamedTuple
from urllib.parse import unquote

from agentwrap.lazyre import lazy
from agentwrap.sdk import CodeAction, Problem, ProblemCode, problem

NODE_DOCS = "https://nodejs.org/api/errors.html"
_FRAME = lazy(r"^\s+at (?:(?P<func>.+?) \((?P<loc1>[^()]+)\)|(?P<loc2>[^()]+?))(?: \{)?\s*$")
_LOC = lazy(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+)$")
_ERROR_LINE = lazy(r"^(?:Uncaught )?(?P<type>[A-Z][\w$]*(?:\.[\w$]+)*)(?: \[(?P<code>[A-Z0-9_]+)\])?: "
                         r"(?P<message>.*)$")
_HEADER = lazy(r"^(?P<file>(?:file://)?/[^:]+|[A-Za-z]:\\[^:]+|node:[\w/]+):(?P<line>\d+)$")
_PROP_CODE = lazy(r"^\s+code: '(?P<code>[A-Z0-9_]+)',?$")
_MODULE = lazy(r"Cannot find (?:module|package) '(?P<name>[^']+)'(?: imported from (?P<importer>\S+))?")
_TEST_COUNT = lazy(r"^(?:ℹ|#) (?P<key>tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) "
                         r"(?P<value>[\d.]+)$", re.M)
_TEST_AT = lazy(r"^test at (?P<file>.+?):(?P<line>\d+):(?P<column>\d+)$")
_TEST_FAIL = lazy(r"^\s*✖ (?P<name>.+?)(?: \([\d.]+m?s\))?$")
_TAP_FAIL = lazy(r"^(?P<indent>\s*)not ok \d+ - (?P<name>.+?)(?: # .*)?$")
_TAP_LOCATION = lazy(r"^\s+location: '(?P<file>.+?):(?P<line>\d+):(?P<column>\d+)'$")

_NETWORK = {"ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"}
#: code -> (title, category, status, retryable, safe_to_retry)
FACTS: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="NODE_SYNTAX_ERROR", title="JavaScript syntax error", category="validation", status=422),
    ProblemCode(code="NODE_PACKAGE_NOT_FOUND", title="Package not installed", category="dependency", status=424,
                retryable=True),
    ProblemCode(code="NODE_MODULE_NOT_FOUND", title="Module file not found", category="not_found", status=404),
    ProblemCode(code="NODE_UNCAUGHT_EXCEPTION", title="Uncaught exception", category="internal", status=500,
                safe_to_retry=False),
    ProblemCode(code="NODE_UNHANDLED_REJECTION", title="Unhandled promise rejection", category="internal", status=500,
                safe_to_retry=False),
    ProblemCode(code="NODE_ASSERTION_FAILED", title="Assertion failed", category="validation", status=422,
                safe_to_retry=False),
    ProblemCode(code="NODE_ADDRESS_IN_USE", title="Address already in use", category="conflict", status=409,
                retryable=True),
    ProblemCode(code="NODE_FILE_NOT_FOUND", title="File not found", category="not_found", status=404,
                safe_to_retry=False),
    ProblemCode(code="NODE_PERMISSION_DENIED", title="Permission denied", category="authorization", status=403,
                safe_to_retry=False),
    ProblemCode(code="NODE_NETWORK_ERROR", title="Network error", category="network", status=503, retryable=True,
                safe_to_retry=False),
    ProblemCode(code="NODE_TEST_FAILED", title="Test failed", category="validation", status=422),
)}


def _problem(tool: str, code: str, detail: str, exit_code: int | None, **kw: Any) -> Problem:
    return problem(tool, FACTS[code], detail, exit_code=exit_code, **kw)


def _path(file: str) -> str:
    return unquote(file[7:]) if file.startswith("file://") else file


def _internal(file: str) -> bool:
    return file.startswith(("node:", "internal/")) or "/node_modules/npm/" in file


class Frame(NamedTuple):
    function: str | None
    file: str
    line: int
    column: int

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "line": self.line, "column": self.column}
        if self.function:
            out["function"] = self.function
        return out


def _frame(line: str) -> Frame | None:
    m = _FRAME.match(line)
    if not m:
        return None
    loc = _LOC.match((m.group("loc1") or m.group("loc2") or "").strip())
    if not loc:
        return None
    func = m.group("func")
    return Frame(func.removeprefix("async ") if func else None, _path(loc.group("file")), int(loc.group("line")),
                 int(loc.group("column")))


def package_name(spec: str) -> str | None:
    """The npm package a bare specifier names (`lodash/fp` -> lodash, `@a/b/c` -> @a/b); None for paths."""
    if spec.startswith((".", "/", "node:", "file:")) or re.match(r"[A-Za-z]:\\", spec):
        return None
    parts = spec.split("/")
    name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
    return name if re.fullmatch(r"(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*", name, re.I) else None


def _header(lines: list[str], error_at: int) -> dict[str, Any] | None:
    """`/path/file.js:2` + source line + caret line above the error line: the throw site."""
    for i in range(max(0, error_at - 6), error_at):
        m = _HEADER.match(lines[i])
        if m and not m.group("file").startswith("node:"):
            loc: dict[str, Any] = {"file": _path(m.group("file")), "line": int(m.group("line"))}
            if i + 2 < error_at and lines[i + 2].strip() == "^" * len(lines[i + 2].strip()) and lines[i + 2].strip():
                loc["column"] = len(lines[i + 2]) - len(lines[i + 2].lstrip()) + 1
            return loc
        if m:
            return {"internal": True}
    return None


def _error_block(lines: list[str], start: int) -> tuple[int, list[Frame], str | None, int]:
    """From the error line at `start`: the message's end, its frames, the `code:` property and the next index."""
    i = start + 1
    while i < len(lines) and not _FRAME.match(lines[i]) and lines[i].strip() and i - start < 40:
        i += 1
    msg_end = i
    frames: list[Frame] = []
    while i < len(lines) and (_FRAME.match(lines[i]) or lines[i].startswith("Emitted 'error' event")):
        frame = _frame(lines[i])
        if frame:
            frames.append(frame)
        i += 1
    code = None
    if i < len(lines) and lines[i - 1].rstrip().endswith("{"):
        while i < len(lines) and lines[i].strip() != "}" and i - msg_end < 80:
            m = _PROP_CODE.match(lines[i])
            code = code or (m.group("code") if m else None)
            i += 1
    return msg_end, frames, code, i


def node_errors(text: str, tool: str, exit_code: int | None) -> list[Problem]:
    """Uncaught errors printed by node: one problem each, located at the throw site or first user frame."""
    lines = text.splitlines()
    found: list[Problem] = []
    i = 0
    while i < len(lines) and len(found) < 20:
        m = _ERROR_LINE.match(lines[i])
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        header = _header(lines, i) if m else None
        if not m or not (header or _FRAME.match(nxt) or nxt.startswith("Require stack:")):
            i += 1
            continue
        msg_end, frames, prop_code, after = _error_block(lines, i)
        if not frames and not header:
            i += 1
            continue
        found.append(_classify(tool, m, lines[i:msg_end], frames, prop_code, header, exit_code))
        i = max(after, i + 1)
    return found


def _classify(tool: str, m: re.Match[str], message_lines: list[str], frames: list[Frame], prop_code: str | None,
              header: dict[str, Any] | None, exit_code: int | None) -> Problem:
    etype, message = m.group("type"), m.group("message").strip()
    ecode = m.group("code") or prop_code
    user = [f for f in frames if not _internal(f.file)]
    location: dict[str, Any] | None = None
    if header and not header.get("internal"):
        location = header
    elif user:
        location = {"file": user[0].file, "line": user[0].line, "column": user[0].column}
    extra: dict[str, Any] = {"error_type": etype, "stack": [f.to_dict() for f in (user or frames[:3])[:8]]}
    if ecode:
        extra["error_code"] = ecode
    first = f"{etype}{f' [{ecode}]' if m.group('code') else ''}: {message}"
    kw: dict[str, Any] = {"location": location, "extra": extra, "docs_url": NODE_DOCS}
    module = _MODULE.search(message)
    if module and ecode in ("MODULE_NOT_FOUND", "ERR_MODULE_NOT_FOUND", None):
        return _module_problem(tool, module, message_lines, location, extra, exit_code)
    if etype == "SyntaxError":
        return _problem(tool, "NODE_SYNTAX_ERROR", first, exit_code, **kw,
                        suggested_fix="Fix the syntax at the location shown (the caret marks the token node "
                                      "rejected), then run again; `node --check FILE` checks without running.")
    if ecode == "ERR_UNHANDLED_REJECTION" or etype == "UnhandledPromiseRejection":
        reason = re.search(r"rejected with the reason (.+?)\.?$", message)
        detail = f"unhandled promise rejection with the reason {reason.group(1)}" if reason else first
        return _problem(tool, "NODE_UNHANDLED_REJECTION", detail, exit_code, **kw,
                        suggested_fix="Await the promise inside try/catch or add a .catch() handler; the rejected "
                                      "value is in the detail.")
    if ecode == "ERR_ASSERTION" or etype == "AssertionError":
        return _problem(tool, "NODE_ASSERTION_FAILED", first, exit_code, **kw,
                        suggested_fix="The asserted condition is false at the location shown: fix the code or the "
                                      "expectation.")
    if ecode == "EADDRINUSE":
        port = re.search(r":(\d+)\s*$", message)
        fix = "Another process listens on that address: stop it"
        fix += f" (`ss -ltnp 'sport = :{port.group(1)}'` shows which)" if port else ""
        return _problem(tool, "NODE_ADDRESS_IN_USE", first, exit_code, **kw,
                        suggested_fix=fix + ", or configure a different port.")
    if ecode == "ENOENT":
        return _problem(tool, "NODE_FILE_NOT_FOUND", first, exit_code, **kw,
                        suggested_fix="Create the file, or fix the path (relative paths resolve from the current "
                                      "directory, not the script's).")
    if ecode in ("EACCES", "EPERM"):
        return _problem(tool, "NODE_PERMISSION_DENIED", first, exit_code, **kw,
                        suggested_fix="Check the permissions of the path named in the detail, or use a path you "
                                      "can write.")
    if ecode in _NETWORK:
        return _problem(tool, "NODE_NETWORK_ERROR", first, exit_code, **kw,
                        suggested_fix="Check that the service is running and the host and port are right.")
    return _problem(tool, "NODE_UNCAUGHT_EXCEPTION", first, exit_code, **kw,
                    suggested_fix=f"Fix the {etype} at the location shown; `stack` lists the calling frames.")


def _module_problem(tool: str, module: re.Match[str], message_lines: list[str], location: dict[str, Any] | None,
                    extra: dict[str, Any], exit_code: int | None) -> Problem:
    name = module.group("name")
    importer = module.group("importer")
    requirers = [ln[2:].strip() for ln in message_lines if ln.startswith("- ")]
    if location is None and (importer or requirers):
        location = {"file": _path(importer or requirers[0])}
    pkg = package_name(name)
    extra = {**extra, "module": name}
    if pkg:
        extra["package"] = pkg
        return _problem(tool, "NODE_PACKAGE_NOT_FOUND", f"package '{pkg}' is not installed (required as '{name}')",
                        exit_code, location=location, extra=extra, docs_url=NODE_DOCS,
                        suggested_fix=f"Install it with `npm install {pkg}` in the project folder (check the name "
                                      "first: a typo would install a different package), or fix the import.",
                        code_actions=(CodeAction(title=f"Install {pkg} from the npm registry",
                                                 command=("npm", "install", pkg), applicability="maybe_incorrect",
                                                 is_preferred=True),))
    main = not requirers and not importer
    detail = (f"the script {name} does not exist" if main else
              f"module '{name}' not found (imported from {importer or requirers[0]})")
    return _problem(tool, "NODE_MODULE_NOT_FOUND", detail, exit_code, location=location, extra=extra,
                    docs_url=NODE_DOCS,
                    suggested_fix="Fix the path (relative specifiers resolve from the importing file; ES modules "
                                  "need the file extension) or create the missing file.")


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
    out: list[Problem] = []
    if "✖ failing tests:" in text:
        start = lines.index("✖ failing tests:") if "✖ failing tests:" in lines else 0
        for i in range(start, len(lines) - 1):
            at, name = _TEST_AT.match(lines[i]), _TEST_FAIL.match(lines[i + 1])
            if at and name:
                body = [ln.strip() for ln in lines[i + 2:i + 12]]
                body = body[:next((k for k, b in enumerate(body) if b.startswith("at ") or b.startswith("test at ")),
                                  len(body))]
                reason = " ".join(b for b in body if b)[:300]
                end = next((j for j in range(i + 1, len(lines)) if _TEST_AT.match(lines[j])), len(lines))
                problem = _test_problem(tool, name.group("name"), reason, at.groupdict(), exit_code)
                site = next((ln.strip() for ln in lines[i + 2:end] if ln.strip().startswith("at ")
                             and "node:" not in ln), None)  # where the assertion threw, in the user's code
                extra = {**(problem.extra or {}), **({"evidence": [site]} if site else {})}
                # the problem stands for its block (printed twice: in the run and in the recap)
                out.append(problem._replace(matched="\n".join(lines[i:end]), extra=extra))
        return out
    for i, line in enumerate(lines):
        m = _TAP_FAIL.match(line)
        if not m:
            continue
        block = lines[i + 1:i + 40]
        loc = next((x.groupdict() for x in map(_TAP_LOCATION.match, block) if x), None)
        err = next((b for j, b in enumerate(block) if j and block[j - 1].strip().startswith("error:")), "")
        if "failureType: 'subtestsFailed'" not in "\n".join(block[:8]):
            out.append(_test_problem(tool, m.group("name"), err.strip(), loc, exit_code))
    return out


def _test_problem(tool: str, name: str, reason: str, loc: dict[str, str] | None, exit_code: int | None) -> Problem:
    location = {"file": _path(loc["file"]), "line": int(loc["line"]), "column": int(loc["column"])} if loc else None
    # the one command that re-runs this test, spelt out (the test name is a pattern: escaped, then quoted)
    pattern = re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", name)
    rerun = (f"node --test --test-name-pattern {shlex.quote(pattern)} "
             f"{shlex.quote(str(location['file']))}" if location else "node --test --test-name-pattern NAME FILE")
    return _problem(tool, "NODE_TEST_FAILED", f"test '{name}' failed" + (f": {reason}" if reason else ""),
                    exit_code, location=location, extra={"test": name},
                    suggested_fix=f"Fix the code or the test; re-run just this test with `{rerun}`.")
