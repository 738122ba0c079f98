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
# ESM linking: a named import the target module does not export (or a CommonJS one node cannot see)
_NO_EXPORT = lazy(r"^The requested module '(?P<module>[^']+)' does not provide an export named "
                  r"'(?P<name>[^']+)'|^Named export '(?P<cjs_name>[^']+)' not found\. "
                  r"The requested module '(?P<cjs_module>[^']+)' is a CommonJS module")
# properties of an error block whose values the message already says (an assertion's operands, a system
# error's errno, syscall and path)
_SAID_PROP = lazy(r"^\s+(?:code|generatedMessage|actual|expected|operator|errno|syscall|path|address|port|"
                  r"dest|requireStack): ")
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
    ProblemCode(code="NODE_MISSING_EXPORT", title="Imported name not exported", category="validation",
                status=422),
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


def _internal(file: str) -> bool:
    return file.startswith(("node:", "internal/")) or "/node_modules/npm/" in file


def user_frames(frames: list[Frame]) -> list[Frame]:
    """The frames in the user's own files: not node's internals, not installed packages (a library's
    argument check throws inside node_modules; the place to fix is its caller). Only packages' frames:
    those, since the error is then in one of them."""
    own = [f for f in frames if not _internal(f.file)]
    return [f for f in own if "/node_modules/" not in f.file] or own


def package_name(spec: str) -> str | None:
    """The npm package a bare specifier names (`lodash/fp` -> lodash, `@a/b/c` -> @a/b); None for paths."""
    if spec.startswith((".", "/", "node:", "file:")) or re.match(r"[A-Za-z]:\\", spec):
        return None
    parts = spec.split("/")
    name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
    return name if re.fullmatch(r"(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*", name, re.I) else None


class Header(NamedTuple):
    """`/path/file.js:2` + source line + caret line above an error line: where node says it threw."""
    at: int  # its index in the lines
    location: dict[str, Any] | None  # None for node's own files (`node:assert:90`): not the user's place
    evidence: list[str]  # the source line and its caret, when the file is the user's


def _header(lines: list[str], error_at: int) -> Header | None:
    for i in range(max(0, error_at - 6), error_at):
        m = _HEADER.match(lines[i])
        if m and m.group("file").startswith("node:"):
            return Header(i, None, [])
        if m:
            loc: dict[str, Any] = {"file": _path(m.group("file")), "line": int(m.group("line"))}
            caret = lines[i + 2].strip() if i + 2 < error_at else ""
            if caret and caret == "^" * len(caret):
                loc["column"] = len(lines[i + 2]) - len(lines[i + 2].lstrip()) + 1
            return Header(i, loc, [ln.rstrip() for ln in lines[i + 1:min(i + 3, error_at)] if ln.strip()])
    return None


def _message_end(lines: list[str], start: int) -> int:
    """Where an error's message ends: at its first frame when one follows (an assertion's diff and node's
    CommonJS hint hold blank lines), else at the first blank line."""
    for j in range(start + 1, min(len(lines), start + 40)):
        if _FRAME.match(lines[j]):
            return j
        if _HEADER.match(lines[j]) or _ERROR_LINE.match(lines[j]) or lines[j].startswith("Node.js v"):
            break
    j = start + 1
    while j < len(lines) and lines[j].strip() and j - start < 40:
        j += 1
    return j


class Block(NamedTuple):
    message_end: int
    frames: list[Frame]
    code: str | None  # the `code: 'X'` property
    end: int  # the index after the frames
    props_end: int  # the index after the `{ ... }` property block, when node said nothing the problem lacks


def _error_block(lines: list[str], start: int) -> Block:
    """From the error line at `start`: the message's end, its frames and the `{ code: ... }` properties."""
    i = msg_end = _message_end(lines, start)
    frames: list[Frame] = []
    while i < len(lines) and (_FRAME.match(lines[i]) or lines[i].startswith("Emitted 'error' event")):
        frame = _frame(lines[i])
        if frame:
            frames.append(frame)
        i += 1
    end, code, known = i, None, True
    if i < len(lines) and lines[i - 1].rstrip().endswith("{"):
        while i < len(lines) and lines[i].strip() != "}" and i - msg_end < 80:
            m = _PROP_CODE.match(lines[i])
            code = code or (m.group("code") if m else None)
            known = known and bool(_SAID_PROP.match(lines[i]))
            i += 1
        i = min(i + 1, len(lines))  # the closing brace
    return Block(msg_end, frames, code, end, i if known else end)


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
        block = _error_block(lines, i)
        if not block.frames and not header:
            i += 1
            continue
        found.append(_located(tool, m, lines, i, block, header, exit_code))
        i = max(block.props_end, i + 1)
    return found


def _located(tool: str, m: re.Match[str], lines: list[str], at: int, block: Block, header: Header | None,
             exit_code: int | None) -> Problem:
    """The problem of one error block: it stands for the lines it says (`matched`); its code frame is evidence."""
    problem = _classify(tool, m, lines[at:block.message_end], block.frames, block.code, header, exit_code)
    first = header.at if header else at
    body = lines[at + 1:block.message_end]
    # the message's other lines go with it when the detail says them (an assertion's `-1 !== 3`), else they
    # stay in the text (a require stack, a message cut at 500 characters)
    said = all(ln.strip() in problem.detail for ln in body)
    matched = [*lines[first:at + 1], *(body if said else []), *lines[block.message_end:block.props_end]]
    extra = {**(problem.extra or {}), **({"evidence": header.evidence} if header and header.evidence else {})}
    return problem._replace(matched="\n".join(matched), extra=extra)


def _message(m: re.Match[str], message_lines: list[str], code: str | None) -> str:
    """The error's line and the rest of its message (an assertion's `-1 !== 3`) on one line, within 500."""
    head = f"{m.group('type')}{f' [{code}]' if m.group('code') else ''}: {m.group('message').strip()}"
    rest = " ".join(ln.strip() for ln in message_lines[1:] if ln.strip())
    whole = f"{head} {rest}" if rest else head
    return whole if len(whole) <= 500 else whole[:499] + "…"


def _classify(tool: str, m: re.Match[str], message_lines: list[str], frames: list[Frame], prop_code: str | None,
              header: Header | None, exit_code: int | None) -> Problem:
    etype, message = m.group("type"), m.group("message").strip()
    ecode = m.group("code") or prop_code
    user = user_frames(frames)
    location: dict[str, Any] | None = header.location if header else None
    if location is None and user:
        location = {"file": user[0].file, "line": user[0].line, "column": user[0].column}
    extra: dict[str, Any] = {"error_type": etype}
    if user:  # node's own frames name no place to fix
        extra["stack"] = [f.to_dict() for f in user[:8]]
    if ecode:
        extra["error_code"] = ecode
    first = _message(m, message_lines, ecode)
    kw: dict[str, Any] = {"location": location, "extra": extra, "docs_url": NODE_DOCS}
    module = _MODULE.search(message)
    if module and ecode in ("MODULE_NOT_FOUND", "ERR_MODULE_NOT_FOUND", None):
        return _module_problem(tool, module, message_lines, location, extra, exit_code)
    missing = _NO_EXPORT.match(message)
    if missing and etype == "SyntaxError":
        return _missing_export(tool, missing, first, exit_code, kw)
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


def _missing_export(tool: str, missing: re.Match[str], detail: str, exit_code: int | None,
                    kw: dict[str, Any]) -> Problem:
    """An ES module imports a name its target does not export: the import or the export is wrong."""
    module = missing.group("module") or missing.group("cjs_module")
    name = missing.group("name") or missing.group("cjs_name")
    kw["extra"] = {**kw["extra"], "module": module, "export": name}
    if missing.group("cjs_module"):  # node cannot see a CommonJS module's exports it assigns dynamically
        fix = (f"'{module}' is CommonJS and node finds no export '{name}' in it: import its default and take "
               f"the name from it (`import pkg from '{module}'; const {{ {name} }} = pkg;`), or export it "
               f"statically there (`exports.{name} = ...`).")
    else:
        wanted = "a default export (`export default ...`)" if name == "default" else f"`export {name}`"
        fix = (f"'{module}' does not export '{name}': add {wanted} to it, or fix the import at the location "
               f"shown to a name it exports (spelling, default vs named).")
    return _problem(tool, "NODE_MISSING_EXPORT", detail, exit_code, **kw, suggested_fix=fix)


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
        frames = [f for ln in _yaml_text(block, "stack") if (f := _frame(f"    at {ln}"))]
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
        frames = [f for ln in lines[i + 2:end] if (f := _frame(ln))]
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
    test_file = _path(declared["file"]) if declared else None
    location = site or ({"file": test_file, "line": int(declared["line"]), "column": int(declared["column"])}
                        if declared and test_file else None)
    # the one command that re-runs this test, spelt out (the test name is a pattern: escaped, then quoted)
    pattern = re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", name)
    rerun = (f"node --test --test-name-pattern {shlex.quote(pattern)} {shlex.quote(test_file)}" if test_file
             else "node --test --test-name-pattern NAME FILE")
    return _problem(tool, "NODE_TEST_FAILED", f"test '{name}' failed" + (f": {reason}" if reason else ""),
                    exit_code, location=location, extra={"test": name},
                    suggested_fix=f"Fix the code or the test; re-run just this test with `{rerun}`.")
