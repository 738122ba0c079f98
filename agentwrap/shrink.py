"""Less inline text when an adapter already turned the output into facts.

When problems or data carry what the output says, repeating kilobytes of it inline costs an agent tokens
for nothing: the text shrinks to its head and tail within a small budget, and the complete text is kept
in an artifact (`agentwrap artifact show`), so nothing is lost.
"""

from __future__ import annotations

from agentwrap.artifacts import ArtifactError, ArtifactStore
from agentwrap.capture import MEDIA_TYPE, StreamResult

HEAD_SHARE = 0.3


def _fit(lines: list[str], budget: int) -> list[str]:
    kept, used = [], 0
    for line in lines:
        size = len(line.encode("utf-8", "replace"))
        if used + size > budget:
            break
        kept.append(line)
        used += size
    return kept


def shrink(result: StreamResult, budget: int, store: ArtifactStore | None) -> StreamResult:
    """`result` with at most about `budget` bytes inline, its full text kept in an artifact."""
    if len(result.text.encode("utf-8", "replace")) <= budget:
        return result
    ref = result.artifact
    if ref is None:
        if store is None:
            return result  # nowhere to keep the full text: keep it inline rather than lose it
        try:
            writer = store.create(media_type=MEDIA_TYPE)
            writer.write(result.text.encode("utf-8", "replace"))
            ref = writer.close()
        except (ArtifactError, OSError):
            return result
    lines = result.text.splitlines(keepends=True)
    head = _fit(lines, int(budget * HEAD_SHARE))
    tail = list(reversed(_fit(list(reversed(lines[len(head):])), budget - sum(len(x) for x in head))))
    kept = len(head) + len(tail)
    omitted = max(result.lines - kept, len(lines) - kept)
    note = (f"… {omitted} lines not shown: the adapter's problems and data hold the facts; "
            f"full text: agentwrap artifact show {ref.id}\n")
    return result._replace(text="".join(head) + note + "".join(tail), truncated=True, omitted_lines=omitted,
                           artifact=ref)
