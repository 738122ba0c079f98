"""A failed doctest's section of pytest's report (`___ [doctest] mod.func ___`) -> what failed, as facts.

Pure functions of text. pytest prints no `E` lines for a doctest: the numbered source lines up to the
example (`003     >>> add(1, 2)`), then doctest's own report (`Expected:` / `Got:`, `Expected nothing`,
`Got nothing`, a `Differences (...)` diff, or `UNEXPECTED EXCEPTION:` and a traceback), then
`path:line: DocTestFailure` (or `UnexpectedException`) at the example's line. With
`--doctest-continue-on-failure` one section holds several such reports.
"""

from __future__ import annotations

from typing import NamedTuple

from agentwrap.adapters import tracebacks
from agentwrap.lazyre import lazy

_NUMBERED = lazy(r"^(?:\d{3,}|\?\?\?) (?P<source>.*)$")
_CLOSE = lazy(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+): (?P<kind>DocTestFailure|UnexpectedException)$")
_INDENT = "    "  # doctest indents the expected and the actual output by four spaces
MAX_VALUE_LINES = 20
MAX_DIFF_LINES = 12


class Example(NamedTuple):
    """One failed example: its source line, where it is, and how it failed."""

    source: str
    file: str
    line: int
    expected: tuple[str, ...] | None  # None: doctest said `Expected nothing` or printed a diff instead
    got: tuple[str, ...] | None
    diff: tuple[str, ...] = ()
    raised: tracebacks.PyException | None = None

    def message(self) -> str:
        example = f"`{self.source}`"  # quoted: the source may end in `:` (`>>> for r in rows():`)
        if self.raised is not None:
            return f"{example} raised {self.raised.headline()}"
        if self.diff:
            return f"{example}: the output differs from the expected (the diff is in evidence)"
        return f"{example}: expected {_value(self.expected)}, got {_value(self.got)}"


def _value(lines: tuple[str, ...] | None) -> str:
    """One line as it is; several as one Python string (`'a\\nb'`), so where each ends stays visible."""
    if not lines:
        return "nothing"
    return lines[0] if len(lines) == 1 else repr("\n".join(lines))


def is_doctest(title: str | None) -> bool:
    return bool(title and title.startswith("[doctest] "))


def examples(body: list[str]) -> list[Example]:
    """Each failed example of a doctest section, in the order pytest printed them."""
    found: list[Example] = []
    source = ""  # the example's source line
    report: list[str] = []  # doctest's lines about it
    for line in body:
        if (numbered := _NUMBERED.match(line)) is not None:
            source, report = numbered.group("source").strip(), []
        elif (close := _CLOSE.match(line)) is not None:
            found.append(_example(source, report, close.group("file"), int(close.group("line"))))
            source, report = "", []
        else:
            report.append(line)
    return found


def _example(source: str, report: list[str], file: str, line: int) -> Example:
    if report and report[0].startswith("UNEXPECTED EXCEPTION: "):
        chains = tracebacks.parse("\n".join(report[1:]))
        raised = chains[-1].final if chains else None
        return Example(source, file, line, None, None, raised=raised)
    if report and report[0].startswith("Differences ("):
        diff = tuple(x.removeprefix(_INDENT) for x in report[1:] if x.strip())
        return Example(source, file, line, None, None, diff=(report[0], *diff[:MAX_DIFF_LINES]))
    return Example(source, file, line, _section(report, "Expected:"), _section(report, "Got:"))


def _section(report: list[str], head: str) -> tuple[str, ...] | None:
    """The indented lines under `Expected:` or `Got:`; None for `Expected nothing` / `Got nothing`."""
    if head not in report:
        return None
    out: list[str] = []
    for line in report[report.index(head) + 1:]:
        if not line.startswith(_INDENT) and line.strip():
            break  # the next heading (`Got:`)
        out.append(line.removeprefix(_INDENT))
    while out and not out[-1].strip():
        out.pop()  # the blank line pytest prints before the closing location
    return tuple(out[:MAX_VALUE_LINES])


def user_frames(raised: tracebacks.PyException) -> list[tracebacks.Frame]:
    """An unexpected exception's frames in the user's code (not doctest's machinery, not `<doctest ...>`)
    that led to where it was raised: the innermost, the `crash`, is said there."""
    return [f for f in raised.frames if not tracebacks.is_library(f.file)][:-1]
