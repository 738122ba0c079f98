"""Column tables as tabwriter-style tools print them (kubectl get, docker ps, ...): shared by the tools
that print them. Pure functions of text."""

from __future__ import annotations

import re

from agentwrap.lazyre import lazy

_MAX_ROWS = 500
_GAP = lazy(r"\S+(?: \S+)*")  # a header cell: words separated by single spaces
_HEADER_CELL = lazy(r"^[A-Z][A-Z0-9 ()%./_-]*$")


def table(text: str, *, max_rows: int = _MAX_ROWS) -> list[dict[str, str]] | None:
    """A tabwriter table (kubectl get, docker ps): the header's column starts cut every row.

    Column names become lower_snake keys (`CONTAINER ID` -> container_id). None when the first line does not
    look like a header (upper-case words separated by two or more spaces).
    """
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    header = lines[0]
    cells = [(m.start(), m.group(0)) for m in _GAP.finditer(header)]
    if not cells or any(not _HEADER_CELL.match(c) for _, c in cells):
        return None
    keys = [re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") for _, name in cells]
    starts = [start for start, _ in cells]
    rows = []
    for line in lines[1:max_rows + 1]:
        row = {}
        for i, key in enumerate(keys):
            end = starts[i + 1] if i + 1 < len(starts) else None
            row[key] = (line[starts[i]:end] if end is not None else line[starts[i]:]).strip()
        rows.append(row)
    return rows
