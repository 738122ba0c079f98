"""Python tracebacks in cleaned text -> structured exceptions -> Problems (shared by python, pytest, generic).

Pure functions of text. A traceback is a chain (`raise ... from`, "During handling of ...") whose last
exception is the one that ended the program; its location is the innermost frame in the user's own code
(not the standard library, site-packages or importlib), or the SyntaxError's own file, line and caret.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.adapters.python_errors import classify
from agentwrap.lazyre import lazy
from agentwrap.sdk import Problem, problem

_HEADER = lazy(r"^(?P<lead>[ \t]*)(?P<mark>[+|][ ]*)?(?P<group>Exception Group )?"
                     r"Traceback \(most recent call last\):\s*$")
_FRAME = lazy(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$')
_EXC = lazy(r"^(?P<type>[A-Za-z_][\w.]*)(?::[ ]?(?P<msg>.*))?$")
_CARET = lazy(r"^(?P<lead>\s*)(?P<marks>\^+)\s*$")
_SEPARATORS = {
    "The above exception was the direct cause of the following exception:": "cause",
    "During handling of the above exception, another exception occurred:": "context",
}
_LIBRARY = lazy(r"^<|[/\\]lib[/\\]python\d[\d.]*[/\\]|site-packages|dist-packages|[/\\]_pytest[/\\]"
                      r"|[/\\]pluggy[/\\]|importlib[._]")
MAX_MESSAGE_LINES = 20
#: The pseudo-files of code the user gave on the command line (`python -c CODE`) or on standard input
#: (`python - < f.py`): a location names them as python does, `<string>` line 1 being the `-c` code's first.
PSEUDO_USER = {"<string>": "the code given with -c", "<stdin>": "the code read from standard input"}


def is_library(path: str) -> bool:
    """Whether `path` is not the user's own code: the standard library, site-packages, pytest, pluggy,
    importlib, or a pseudo-file (`<frozen ...>`, `<doctest ...>`, `<string>`)."""
    return _LIBRARY.search(path) is not None


class Frame(NamedTuple):
    file: str
    line: int
    function: str | None = None


class PyException(NamedTuple):
    """One exception of a chain. `relation`: how it leads to the NEXT one printed ("cause" | "context")."""

    type: str
    message: str
    frames: tuple[Frame, ...] = ()
    syntax: dict[str, Any] | None = None  # SyntaxError's own {file, line, column?, source}
    relation: str | None = None
    group: bool = False
    sub_exceptions: tuple[str, ...] = ()

    @property
    def short_type(self) -> str:
        return self.type.rsplit(".", 1)[-1]

    def headline(self) -> str:
        first = self.message.splitlines()[0] if self.message else ""
        return f"{self.type}: {first}" if first else self.type

    def user_frame(self) -> Frame | None:
        """The innermost frame in the user's code: in a file, else in code given with `-c` or on standard
        input (`<string>`, `<stdin>`: a file's `exec()` of generated code is not the user's own); else the
        innermost frame."""
        for frame in reversed(self.frames):
            if not is_library(frame.file):
                return frame
        for frame in reversed(self.frames):
            if frame.file in PSEUDO_USER:
                return frame
        return self.frames[-1] if self.frames else None

    def location(self) -> dict[str, Any] | None:
        if self.syntax:
            return {k: v for k, v in self.syntax.items() if k in ("file", "line", "column")}
        frame = self.user_frame()
        if frame is None or frame.file.startswith("<") and frame.file not in PSEUDO_USER:
            return None  # <frozen ...>, <doctest ...>: no code of the user's
        return {"file": frame.file, "line": frame.line}


class Traceback(NamedTuple):
    chain: tuple[PyException, ...]  # printed order: the last one ended the program
    headerless: bool = False  # a bare SyntaxError block: the main script never started

    @property
    def final(self) -> PyException:
        return self.chain[-1]


def _strip_group(line: str, indent: int) -> str:
    r"""Undo the traceback's own indentation: `indent` spaces (a traceback nested in other output, like a
    build log), or -1 for an exception group whose lines carry a `  | ` prefix."""
    if indent < 0:
        return re.sub(r"^[ ]*[|+]-*[ ]?", "", line, count=1)
    return line[indent:] if indent and line[:indent].isspace() else line


def _read_one(lines: list[str], i: int, indent: int) -> tuple[PyException | None, int]:
    """Frames, an optional SyntaxError block and the exception line, starting after a header at `i`."""
    frames: list[Frame] = []
    syntax: dict[str, Any] | None = None
    pending_syntax: dict[str, Any] | None = None
    n = len(lines)
    while i < n:
        raw = lines[i]
        line = _strip_group(raw, indent)
        if not line.strip():
            i += 1
            continue
        frame = _FRAME.match(line)
        if frame and frame.group("func") is not None:
            frames.append(Frame(frame.group("file"), int(frame.group("line")), frame.group("func")))
            pending_syntax = None
            i += 1
            continue
        if frame:  # `File "x", line N` without `in`: a SyntaxError's own block
            pending_syntax = {"file": frame.group("file"), "line": int(frame.group("line"))}
            syntax = pending_syntax
            i += 1
            continue
        if line[:1].isspace():
            caret = _CARET.match(line)
            if caret and pending_syntax is not None and "source_indent" in pending_syntax:
                # python prints the source line without its indentation, 4 spaces in: the column counts
                # from the first non-blank character of the line (exact for unindented lines)
                column = len(caret.group("lead")) - pending_syntax.pop("source_indent") + 1
                if column >= 1:
                    pending_syntax["column"] = column
            elif pending_syntax is not None and "source" not in pending_syntax:
                pending_syntax["source"] = line.strip()
                pending_syntax["source_indent"] = len(line) - len(line.lstrip())
            i += 1
            continue
        match = _EXC.match(line.strip())
        if not match:
            return None, i
        message = [match.group("msg") or ""]
        i += 1
        while i < n and len(message) < MAX_MESSAGE_LINES:
            more = _strip_group(lines[i], indent)
            if (not more.strip() or _HEADER.match(lines[i]) or more.strip() in _SEPARATORS
                    or more.lstrip().startswith("+-")):
                break
            message.append(more)
            i += 1
        if syntax is not None:
            syntax.pop("source_indent", None)
        return PyException(match.group("type"), "\n".join(message).strip(), tuple(frames), syntax), i
    return None, i


def _read_group_subs(lines: list[str], i: int) -> tuple[tuple[str, ...], int]:
    """The `| Type: message` lines under an exception group's `+-+---- N ----` separators."""
    subs: list[str] = []
    while i < len(lines) and re.match(r"^\s*[|+]", lines[i]):
        text = re.sub(r"^[\s|+-]*", "", lines[i]).strip()
        if text and _EXC.match(text) and not re.match(r"^\d+ -*$", text) and not text.startswith("File "):
            subs.append(text[:200])
        i += 1
    return tuple(subs[:20]), i


def parse(text: str) -> list[Traceback]:
    """Every traceback chain in `text`, in order."""
    lines = text.splitlines()
    found: list[Traceback] = []
    chain: list[PyException] = []
    i = 0
    while i < len(lines):
        header = _HEADER.match(lines[i])
        bare = None if header else _FRAME.match(lines[i])
        if header:
            indent = -1 if header.group("mark") else len(header.group("lead"))
            exc, i = _read_one(lines, i + 1, indent)
            if exc is not None and header.group("group"):
                subs, i = _read_group_subs(lines, i)
                exc = exc._replace(group=True, sub_exceptions=subs)
        elif bare and bare.group("func") is None:
            exc, i = _read_one(lines, i, 0)  # a SyntaxError block with no Traceback header
            if exc is not None and (exc.syntax is None or not exc.short_type.endswith("Error")):
                exc = None
            if exc is not None:
                found.append(Traceback((exc,), headerless=True))
            continue
        else:
            i += 1
            continue
        if exc is None:
            chain = []
            continue
        chain.append(exc)
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        relation = _SEPARATORS.get(lines[j].strip()) if j < len(lines) else None
        if relation:
            chain[-1] = chain[-1]._replace(relation=relation)
            i = j + 1
            continue
        found.append(Traceback(tuple(chain)))
        chain = []
    if chain:
        found.append(Traceback(tuple(chain)))
    return found


def to_problem(tb: Traceback, *, tool: str = "python", exit_code: int | None = None, severity: str = "error",
               python: str = "python3", cwd: str | None = None) -> Problem:
    """One Problem for a traceback chain: the final exception decides, the earlier ones ride along."""
    exc = tb.final
    info = classify(exc, python=python, nothing_ran=tb.headerless, cwd=cwd)
    location = exc.location()
    extra: dict[str, Any] = {"tool": tool, "exception": exc.type, "message": exc.message[:2000]}
    innermost = exc.frames[-1] if exc.frames else None
    if innermost and location and not exc.syntax and (innermost.file, innermost.line) != (location["file"],
                                                                                            location["line"]):
        extra["raised_at"] = innermost._asdict()
        extra["location_is"] = "the innermost frame in your code; the exception was raised in library code"
        if location["file"] in PSEUDO_USER:
            extra["location_is"] = (f"the innermost frame in your code ({location['file']}: "
                                    f"{PSEUDO_USER[location['file']]}); the exception was raised in library code")
    if exc.syntax and "column" in exc.syntax:
        extra["column_basis"] = "first non-blank character of the line (python prints it unindented)"
    if exc.syntax and exc.syntax.get("source"):
        extra["source"] = exc.syntax["source"][:300]
    if exc.sub_exceptions:
        extra["sub_exceptions"] = list(exc.sub_exceptions)
    if len(tb.chain) > 1:
        extra["chain"] = [{"exception": e.type, "message": e.message.splitlines()[0][:300] if e.message else "",
                           "relation": e.relation, "location": e.location()} for e in tb.chain[:-1]][-5:]
    extra.update(info.extra)
    return problem(tool, info.declared, exc.headline(), safe_to_retry=info.safe_to_retry, exit_code=exit_code,
                   suggested_fix=info.suggested_fix, docs_url=info.docs_url, code_actions=info.code_actions,
                   location=location, severity=severity, extra=extra)


def problems(text: str, *, tool: str = "python", exit_code: int | None = None, severity: str = "error",
             python: str = "python3", cwd: str | None = None) -> list[Problem]:
    """A Problem per traceback chain found in `text` (bounded to the last 50); `cwd`: the run's folder."""
    return [to_problem(tb, tool=tool, exit_code=exit_code, severity=severity, python=python, cwd=cwd)
            for tb in parse(text)[-50:]]
