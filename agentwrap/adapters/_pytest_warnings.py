"""pytest's `warnings summary` block -> each warning with the tests that emitted it.

Pure functions of text. pytest groups the block by warning: the node ids that emitted it, one a line
(`test_w.py::test_one`; a module's import is `test_w.py:4`; ten or more become `test_w.py: 12
warnings`), then the warning indented by two spaces (`  /abs/test_w.py:3: DeprecationWarning: old api`,
its message's further lines as well) and its source line by four, then a blank line.
"""

from __future__ import annotations

from typing import Any

from agentwrap.lazyre import lazy

_WARNING = lazy(r"^  (?P<file>\S.*?):(?P<line>\d+): (?P<category>\w+): (?P<message>.*)$")
MAX_WARNINGS = 50


def summary(lines: list[str], root: str | None) -> list[dict[str, Any]]:
    """Each warning of the block: `category`, `message`, `file`, `line`, `source` and `emitted_by` (the node
    ids, or pytest's `file: N warnings` when it stopped listing them). `root`: the rootdir pytest printed,
    which paths under it are made relative to."""
    return [warning for group in _groups(lines) if (warning := _warning(group, root))][:MAX_WARNINGS]


def _groups(lines: list[str]) -> list[list[str]]:
    """The block's groups: the lines between blank lines, up to pytest's `-- Docs:` line."""
    groups: list[list[str]] = [[]]
    for line in lines:
        if line.startswith("-- Docs: "):
            break
        if line.strip():
            groups[-1].append(line)
        elif groups[-1]:
            groups.append([])
    return [group for group in groups if group]


def _warning(group: list[str], root: str | None) -> dict[str, Any] | None:
    # a test that warned twice is listed twice: which tests emitted it is the fact, each said once
    emitted_by = list(dict.fromkeys(line.strip() for line in group if not line.startswith(" ")))
    body = [line for line in group if line.startswith("  ")]
    head = _WARNING.match(body[0]) if body else None
    if head is None:
        return None
    message = [head["message"], *(line[2:] for line in body[1:] if not line.startswith("    "))]
    source = [line.strip() for line in body[1:] if line.startswith("    ")]
    out: dict[str, Any] = {"category": head["category"], "message": "\n".join(message).strip(),
                           "file": _relative(head["file"], root, emitted_by), "line": int(head["line"])}
    if source:
        out["source"] = source[0]
    return {**out, "emitted_by": emitted_by}


def _relative(path: str, root: str | None, emitted_by: list[str]) -> str:
    """`path` as the node ids name it: relative to the rootdir, or the test file a node id names."""
    if root and path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1:]
    for nodeid in emitted_by:
        test_file = nodeid.split("::", 1)[0].split(":", 1)[0]
        if path.endswith("/" + test_file):
            return test_file
    return path


def relative_to(warning: dict[str, Any], folder: str) -> dict[str, Any]:
    """`warning` with its file relative to `folder` when it lies under it (`-q` prints no rootdir)."""
    return {**warning, "file": _relative(str(warning.get("file", "")), folder, [])}
