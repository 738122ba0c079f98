"""GitHub Actions annotations in a log: `::error file=a.c,line=3,col=2,endLine=3,endColumn=9,title=T::text`
(a step's own workflow command), `##[error]text` (the runner's form), and the runner's
`##[error]Process completed with exit code N.` that marks the step failed.

`ci` turns each into a sentinel line (`cmd LEVEL<TAB>PROPERTIES<TAB>MESSAGE`, still escaped); this module
decodes it as GitHub does (`%25` `%0D` `%0A` in both, `%3A` `%2C` in property values) into a Problem.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.problem import adapter_problem
from agentwrap.records import Problem, ProblemCode

ANNOTATION = ProblemCode(code="WORKFLOW_ANNOTATION", title="Workflow annotation", category="validation",
                         status=422)
_SEVERITY = {"error": "error", "warning": "warning", "notice": "note"}
_LOCATION_KEYS = {"line": "line", "col": "column", "column": "column", "endLine": "end_line",
                  "endColumn": "end_column"}
_EXIT = re.compile(r"Process completed with exit code (\d+)\.?$")
# A message that starts with its place (`##[error]src/x.py:3: bad`): the file names a folder or an extension,
# so `Error:3:` or `HTTP:500:` is no place.
_PLACE = re.compile(r"^(?P<file>(?:[A-Za-z]:)?[^\s:]*[./\\][^\s:]*):(?P<line>\d+)(?::(?P<column>\d+))?:(?:\s|$)")
_ESCAPES = re.compile(r"%(25|0D|0A|3A|2C)", re.I)
_DECODED = {"25": "%", "0D": "\r", "0A": "\n", "3A": ":", "2C": ","}


class Annotation(NamedTuple):
    level: str  # error, warning, notice
    properties: dict[str, str]
    message: str


def unescape(text: str) -> str:
    return _ESCAPES.sub(lambda m: _DECODED[m.group(1).upper()], text)


def parse(head: str) -> Annotation:
    """The sentinel's text after `cmd `."""
    level, _, rest = head.partition("\t")
    props, _, message = rest.partition("\t")
    properties = {}
    for item in props.split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            properties[key.strip()] = unescape(value)
    return Annotation(level.strip(), properties, unescape(message).rstrip("\r\n"))


def exit_code(note: Annotation) -> int | None:
    """N of the runner's `Process completed with exit code N.` (an error the step did not print itself)."""
    if note.level != "error" or note.properties:
        return None
    m = _EXIT.match(note.message.strip())
    return int(m.group(1)) if m else None


def location(note: Annotation) -> dict[str, Any] | None:
    file = note.properties.get("file", "").strip()
    if not file:
        return _place_in_message(note.message)
    loc: dict[str, Any] = {"file": file}
    for key, name in _LOCATION_KEYS.items():
        value = note.properties.get(key, "").strip()
        if value.isdigit() and int(value) > 0:
            loc.setdefault(name, int(value))
    return loc


def _place_in_message(message: str) -> dict[str, Any] | None:
    """The `FILE:LINE(:COL)?:` an annotation without a `file` property starts its message with."""
    m = _PLACE.match(message)
    if m is None or int(m.group("line")) < 1:
        return None
    loc: dict[str, Any] = {"file": m.group("file"), "line": int(m.group("line"))}
    if m.group("column") and int(m.group("column")) > 0:
        loc["column"] = int(m.group("column"))
    return loc


def problem(note: Annotation) -> Problem:
    severity = _SEVERITY.get(note.level, "note")
    title = note.properties.get("title", "").strip()
    extra = {"annotation": note.level}
    fields: dict[str, Any] = {"severity": severity, "location": location(note)}
    if title:
        fields["title"] = title
    return adapter_problem("github", ANNOTATION, note.message or title or note.level, extra=extra, **fields)


def merged(read: Problem, note: Problem) -> Problem:
    """A tool's diagnostic read from an annotation's text, with the location the annotation gives (its
    end line and column, which the text alone does not say) when both name the same line."""
    mine, theirs = read.location or {}, note.location or {}
    if not theirs or mine.get("line") != theirs.get("line"):
        return read
    return read._replace(location={**mine, **theirs})
