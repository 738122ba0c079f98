"""grep: the rules, effects and descriptor are data (grep.spec.toml); Python adds one parser. The lines of
`grep -rn` (or any search that names files and numbers lines) come grouped by file, each path said once:
an agent's recursive search repeats its paths on every line, and the path is most of a short line's cost.

Each item of a file's `lines` is grep's own line without the path and the separator after it: `59:text` for
a match, `60-text` for a context line, so `path + sep + item` is the line grep printed. The `--` lines
between context groups are left out: line numbers show where a group ends (a gap), and files always end one.
Any other form (no line numbers, no file names, `-c`, `-l`, `-Z`, a custom separator) stays text.
"""

from __future__ import annotations

import os
import re
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Spec

#: The declarative part (rules, effects, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "grep.spec.toml")

_MATCH = lazy(r"^(?P<path>.+?):(?P<item>\d+:.*)$")  # the first `:N:` ends the path, as a reader takes it
_UNNAMED = lazy(r"^\d+[:-]")  # a line of a search that names no file: `59:text`
_SEPARATOR = "--"
# The agent's inline budget: a longer search stays text, its head and tail inline and the rest in the artifact,
# since data over the bound is cut to each item's identity (here, the paths alone) before anything else.
MAX_PARSED_BYTES = 4096


def _context_path(line: str, paths: list[str]) -> str | None:
    """The file of a context line (`path-N-text`): the longest path known from a match line that it starts
    with, since a path may hold `-N-` itself; None when no match line names its file."""
    found = [p for p in paths if line.startswith(p + "-") and re.match(r"\d+-", line[len(p) + 1:])]
    return max(found, key=len) if found else None


def parse_lines(text: str) -> dict[str, Any] | None:
    """`{"files": [{"path": P, "lines": [...]}, ...], "matching_lines": N}` in grep's order, or None when a line is
    not in the form of a search that names files and numbers lines."""
    lines = text.splitlines()
    if all(_UNNAMED.match(line) for line in lines if line != _SEPARATOR):
        return None  # one file searched: no paths to say once (and `12:a[1:2]` is not the file `12`)
    paths = list(dict.fromkeys(m.group("path") for line in lines if (m := _MATCH.match(line))))
    if not paths:
        return None
    files: list[dict[str, Any]] = []
    matches = 0
    for line in lines:
        if line == _SEPARATOR:
            continue
        m = _MATCH.match(line)
        path = m.group("path") if m else _context_path(line, paths)
        if path is None:
            return None
        matches += m is not None
        if not files or files[-1]["path"] != path:
            files.append({"path": path, "lines": []})
        files[-1]["lines"].append(line[len(path) + 1:])
    return {"files": files, "matching_lines": matches}


def _data(run: CapturedRun) -> Any:
    text = run.stdout_text
    if not text.strip() or not run.complete or len(text.encode("utf-8", "replace")) > MAX_PARSED_BYTES:
        return None
    return parse_lines(text)


_NUMBERED_MATCH = lazy(r"^\d+:")  # `59:text` of a search that names no file; `59-text` is context


def _counted(run: CapturedRun) -> tuple[int, int | None] | None:
    """(matching lines, files or None for one unnamed file) of a numbered search too long for `data`: the
    text is windowed then (head and tail inline, the rest in the artifact), and the count is what says how
    much the window leaves out. None when the text is not all here (`complete`) or not a numbered form."""
    text = run.stdout_text
    if not text.strip() or not run.complete:
        return None
    lines = [line for line in text.splitlines() if line != _SEPARATOR]
    if all(_UNNAMED.match(line) for line in lines):
        return sum(_NUMBERED_MATCH.match(line) is not None for line in lines), None
    parsed = parse_lines(text)
    return (parsed["matching_lines"], len({f["path"] for f in parsed["files"]})) if parsed else None


class GrepAdapter(BaseAdapter):
    parsers = {"*": _data}  # noqa: RUF012

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if data:
            found: tuple[int, int | None] | None = (data["matching_lines"], len({f["path"] for f in data["files"]}))
        else:
            found = _counted(run) if not run.failed else None
        if found is None:
            # status 1 is grep's "no line matched": a success, and one the summary must not call "succeeded"
            if run.signal is None and run.exit_code == 1:
                return "no match"
            if run.signal is None and run.exit_code == 0 and not run.stdout_text.strip():
                return "matched"  # `grep -q`: the status is the answer
            return None
        matches, files = found
        said = f"{matches} matching line{'s' * (matches != 1)}"
        return said if files is None else f"{said} in {files} file{'s' * (files != 1)}"


ADAPTER: Adapter = GrepAdapter(Spec.from_toml(SPEC_FILE))
