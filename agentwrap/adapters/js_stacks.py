"""Node.js output as facts: uncaught errors (stack traces) and module resolution failures; `node --test`
results are read by js_test_results and re-exported here.

Shared by the node and npm adapters (npm scripts print node's errors). Pure functions of cleaned text.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.adapters.js_frames import FRAME, Frame, file_path, parse_frame, user_frames
from agentwrap.adapters.js_test_results import NO_TEST_RAN, TEST_FAILED, TEST_FILE_FAILED, no_test_ran
from agentwrap.adapters.js_test_results import runner_counts as runner_counts  # re-exported: node's and npm's
from agentwrap.adapters.js_test_results import runner_failures as runner_failures  # import path
from agentwrap.lazyre import lazy
from agentwrap.sdk import CodeAction, Problem, ProblemCode, problem

NODE_DOCS = "https://nodejs.org/api/errors.html"
_ERROR_LINE = lazy(r"^(?:Uncaught )?(?P<type>[A-Z][\w$]*(?:\.[\w$]+)*)(?: \[(?P<code>[A-Z0-9_]+)\])?: "
                   r"(?P<message>.*)$")
_HEADER = lazy(r"^(?P<file>(?:file://)?/[^:]+|[A-Za-z]:\\[^:]+|node:[\w/]+):(?P<line>\d+)$")
_PROP_CODE = lazy(r"^\s+code: '(?P<code>[A-Z0-9_]+)',?$")
_MODULE = lazy(r"Cannot find (?:module|package) '(?P<name>[^']+)'(?: imported from (?P<importer>\S+))?")
# ESM linking: a named import the target module does not export (or a CommonJS one node cannot see)
_NO_EXPORT = lazy(r"^The requested module '(?P<module>[^']+)' does not provide an export named "
                  r"'(?P<name>[^']+)'|^Named export '(?P<cjs_name>[^']+)' not found\. "
                  r"The requested module '(?P<cjs_module>[^']+)' is a CommonJS module")
# A stack's first frame in a built-in (`at JSON.parse (<anonymous>)`, `at new RegExp (<anonymous>)`): the error
# was thrown while the script ran, by that call, so a SyntaxError is the data's (a JSON text, a pattern), not
# the script's, which node reports before running it with no frame outside its own loader.
_BUILTIN_FRAME = lazy(r"^\s+at (?:new )?(?P<builtin>[A-Z][\w$]*(?:\.[\w$]+)?) \(<anonymous>\)\s*$")
# properties of an error block whose values the message already says (an assertion's operands, a system
# error's errno, syscall and path)
_SAID_PROP = lazy(r"^\s+(?:code|generatedMessage|actual|expected|operator|errno|syscall|path|address|port|"
                  r"dest|requireStack): ")

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
    TEST_FAILED, TEST_FILE_FAILED, NO_TEST_RAN,  # `node --test`'s results: js_test_results reads those
)}


def test_run_problems(stdout: str, text: str, tool: str, exit_code: int | None) -> list[Problem]:
    """`node --test`'s failed tests and node's own errors. A test file that failed outside its tests is said
    by the error node printed for it (a missing module at 2:11): that error goes first, so it decides, and
    stands for the file's bare 'test failed'."""
    tests = runner_failures(stdout, tool, exit_code)
    errors = node_errors(text, tool, exit_code)
    failed_files = [str((t.extra or {}).get("test_file", "")) for t in tests if t.code == TEST_FILE_FAILED.code]
    causes = [e for e in errors if any(_same_file(_file_of(e), f) for f in failed_files)]
    return [*causes, *(t for t in tests if not _explained(t, causes)), *(e for e in errors if e not in causes),
            *no_test_ran(stdout, tool, exit_code)]


def _explained(test: Problem, causes: list[Problem]) -> bool:
    """A test file's bare failure, when node's error in that file says why."""
    path = str((test.extra or {}).get("test_file", ""))
    return test.code == TEST_FILE_FAILED.code and any(_same_file(_file_of(e), path) for e in causes)


def _file_of(p: Problem) -> str:
    return str((p.location or {}).get("file") or "")


def _same_file(a: str, b: str) -> bool:
    """One file, however each names it (`/p/broken.test.js` and `broken.test.js`)."""
    return bool(a and b) and (a == b or a.endswith("/" + b) or b.endswith("/" + a))


def _problem(tool: str, code: str, detail: str, exit_code: int | None, **kw: Any) -> Problem:
    return problem(tool, FACTS[code], detail, exit_code=exit_code, **kw)


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
            loc: dict[str, Any] = {"file": file_path(m.group("file")), "line": int(m.group("line"))}
            caret = lines[i + 2].strip() if i + 2 < error_at else ""
            if caret and caret == "^" * len(caret):
                loc["column"] = len(lines[i + 2]) - len(lines[i + 2].lstrip()) + 1
            return Header(i, loc, [ln.rstrip() for ln in lines[i + 1:min(i + 3, error_at)] if ln.strip()])
    return None


def _message_end(lines: list[str], start: int) -> int:
    """Where an error's message ends: at its first frame when one follows (an assertion's diff and node's
    CommonJS hint hold blank lines), else at the first blank line."""
    for j in range(start + 1, min(len(lines), start + 40)):
        if FRAME.match(lines[j]):
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
    while i < len(lines) and (FRAME.match(lines[i]) or lines[i].startswith("Emitted 'error' event")):
        frame = parse_frame(lines[i])
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
        if not m or not (header or FRAME.match(nxt) or nxt.startswith("Require stack:")):
            i += 1
            continue
        block = _error_block(lines, i)
        if not block.frames and not header:
            i += 1
            continue
        thrower = _BUILTIN_FRAME.match(lines[block.message_end]) if block.message_end < block.end else None
        found.append(_located(tool, m, lines, i, block, header, exit_code, thrower))
        i = max(block.props_end, i + 1)
    return found


def _located(tool: str, m: re.Match[str], lines: list[str], at: int, block: Block, header: Header | None,
             exit_code: int | None, thrower: re.Match[str] | None = None) -> Problem:
    """The problem of one error block: it stands for the lines it says (`matched`); its code frame is evidence,
    and so is the frame of the built-in that threw it (`at JSON.parse (<anonymous>)`)."""
    problem = _classify(tool, m, lines[at:block.message_end], block.frames, block.code, header, exit_code,
                        thrower.group("builtin") if thrower else None)
    first = header.at if header else at
    body = lines[at + 1:block.message_end]
    # the message's other lines go with it when the detail says them (an assertion's `-1 !== 3`), else they
    # stay in the text (a require stack, a message cut at 500 characters)
    said = all(ln.strip() in problem.detail for ln in body)
    matched = [*lines[first:at + 1], *(body if said else []), *lines[block.message_end:block.props_end]]
    evidence = [*(header.evidence if header else []), *([thrower.group(0).strip()] if thrower else [])]
    extra = {**(problem.extra or {}), **({"evidence": evidence} if evidence else {})}
    return problem._replace(matched="\n".join(matched), extra=extra)


def _message(m: re.Match[str], message_lines: list[str], code: str | None) -> str:
    """The error's line and the rest of its message (an assertion's `-1 !== 3`) on one line, within 500."""
    head = f"{m.group('type')}{f' [{code}]' if m.group('code') else ''}: {m.group('message').strip()}"
    rest = " ".join(ln.strip() for ln in message_lines[1:] if ln.strip())
    whole = f"{head} {rest}" if rest else head
    return whole if len(whole) <= 500 else whole[:499] + "…"


# require() of an ES module: one it cannot load (ERR_REQUIRE_ESM, node < 20.19 or 22.12), or one whose graph
# has a top-level await, which require() never loads (ERR_REQUIRE_ASYNC_MODULE)
_REQUIRE_ESM = {
    "ERR_REQUIRE_ESM": "require() cannot load this ES module: load it with `await import(...)` (dynamic import works "
                       "in CommonJS), or make the requiring file an ES module (`.mjs`, or \"type\": \"module\" in "
                       "package.json) and use `import`.",
    "ERR_REQUIRE_ASYNC_MODULE": "The required ES module (or one it imports) uses top-level await, which require() "
                                "cannot wait for: load it with `await import(...)`, make the requiring file an ES "
                                "module and use `import`, or move the await into a function.",
}


def _classify(tool: str, m: re.Match[str], message_lines: list[str], frames: list[Frame], prop_code: str | None,
              header: Header | None, exit_code: int | None, thrower: str | None = None) -> Problem:
    etype, message = m.group("type"), m.group("message").strip()
    ecode = m.group("code") or prop_code
    user = user_frames(frames)
    location: dict[str, Any] | None = header.location if header else None
    if location is None and user:
        location = {"file": user[0].file, "line": user[0].line, "column": user[0].column}
    extra: dict[str, Any] = {"error_type": etype}
    alone = len(user) == 1 and location == {"file": user[0].file, "line": user[0].line, "column": user[0].column}
    if user and not alone:  # node's own frames name no place to fix; one frame at the location says no more
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
    if thrower:
        extra["thrown_by"] = thrower
    if etype == "SyntaxError" and thrower == "JSON.parse":
        # data, not code: JSON.parse rejected the text it was given while the script ran
        return _problem(tool, "NODE_UNCAUGHT_EXCEPTION", first, exit_code, **kw,
                        suggested_fix="The text JSON.parse was given at the location shown is not JSON (the "
                                      "message gives the position): fix the input it reads, or catch the "
                                      "SyntaxError around the call to report bad input.")
    if etype == "SyntaxError" and not thrower:
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
    if ecode in _REQUIRE_ESM:  # the place is the require() call: what to change there is node's rule, not a bug
        return _problem(tool, "NODE_UNCAUGHT_EXCEPTION", first, exit_code, **kw, suggested_fix=_REQUIRE_ESM[ecode])
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
        location = {"file": file_path(importer or requirers[0])}
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
