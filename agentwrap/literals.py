"""Many literals found in one pass (Aho-Corasick), and the lines that hold them.

The redactor and the salient scanner each look for dozens of literals in every batch of output. One
automaton pass finds them all, at SIMD speed and without the GIL (the runner's reading thread runs
meanwhile), where a regex search per literal holds it. `ahocorasick_rs` loads on first use (~0.6 ms),
not at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def automaton(needles: Iterable[bytes], *, leftmost: bool = True) -> Any:
    """An automaton of `needles`. Leftmost-first matching is the kind the crate runs its SIMD prefilter
    for (~4x faster on text holding none); the standard kind finds overlapping hits too."""
    import ahocorasick_rs

    kind = {"matchkind": ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST} if leftmost else {}
    return ahocorasick_rs.BytesAhoCorasick(list(needles), implementation=ahocorasick_rs.Implementation.DFA, **kind)


def hit_lines(hits: Sequence[tuple[int, int, int]], text: bytes) -> list[tuple[int, int]]:
    """Sorted spans of the whole lines of `text` (newline included) that hold one of `hits`, each once
    (hits as `find_matches_as_indexes` gives them: (needle, start, end), in order)."""
    lines: list[tuple[int, int]] = []
    line_end = -1
    for _, start, _ in hits:
        if start < line_end:
            continue  # another hit on a line already kept
        line_end = text.find(b"\n", start) + 1 or len(text)
        lines.append((text.rfind(b"\n", 0, start) + 1, line_end))
    return lines
