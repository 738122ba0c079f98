"""Node.js stack frames (`    at fn (/p/a.js:3:7)`): read one line, and pick those in the user's own files.

Shared by js_stacks (uncaught errors) and js_test_results (failed tests). Pure functions of cleaned text.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import unquote

from agentwrap.lazyre import lazy

#: One frame line of a stack trace (a trailing ` {` opens the error's properties).
FRAME = lazy(r"^\s+at (?:(?P<func>.+?) \((?P<loc1>[^()]+)\)|(?P<loc2>[^()]+?))(?: \{)?\s*$")
_LOC = lazy(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+)$")


def file_path(file: str) -> str:
    """A path as node prints it, without its `file://` URL form (ES modules print that)."""
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


def parse_frame(line: str) -> Frame | None:
    """The frame a line names; None for a line that is not one, or one without `file:line:column`."""
    m = FRAME.match(line)
    if not m:
        return None
    loc = _LOC.match((m.group("loc1") or m.group("loc2") or "").strip())
    if not loc:
        return None
    func = m.group("func")
    return Frame(func.removeprefix("async ") if func else None, file_path(loc.group("file")),
                 int(loc.group("line")), int(loc.group("column")))


def _internal(file: str) -> bool:
    return file.startswith(("node:", "internal/")) or "/node_modules/npm/" in file


def user_frames(frames: list[Frame]) -> list[Frame]:
    """The frames in the user's own files: not node's internals, not installed packages (a library's
    argument check throws inside node_modules; the place to fix is its caller). Only packages' frames:
    those, since the error is then in one of them."""
    own = [f for f in frames if not _internal(f.file)]
    return [f for f in own if "/node_modules/" not in f.file] or own
