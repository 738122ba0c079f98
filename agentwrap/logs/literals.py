"""The literal text a regex cannot match without: a prefilter that lets a line skip a matcher whose regex
would fail on it anyway.

`needed(regex)` reads the regex's parse tree (the standard library's own parser, so every construct is
understood as `re` understands it) and returns a set of strings one of which every match contains, or
None when nothing is certain (a pattern made of classes and wildcards, an ignore-case part, a construct
not read here). A None costs only speed, never a diagnostic: that matcher is then tried on every line.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from typing import Any

_parser = importlib.import_module("re._parser")  # typeshed has no stub for it; its parse tree is stable
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}

Needed = frozenset[str] | None


def _better(a: Needed, b: Needed) -> Needed:
    """The more selective of two: the one whose shortest literal is longer, then the one with fewer."""
    if a is None or b is None:
        return a if b is None else b
    rank_a, rank_b = (min(map(len, a)), -len(a)), (min(map(len, b)), -len(b))
    return a if rank_a >= rank_b else b


def _of(items: Iterable[Any], ignore_case: bool) -> Needed:
    """What one concatenation of parse items needs: its longest run of plain characters, or a needed part."""
    best: Needed = None
    run: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL" and not ignore_case:
            run.append(chr(av))
            continue
        if run:
            best = _better(best, frozenset(["".join(run)]))
            run = []
        best = _better(best, _item(name, av, ignore_case))
    if run:
        best = _better(best, frozenset(["".join(run)]))
    return best


def _item(name: str, av: Any, ignore_case: bool) -> Needed:
    if name == "SUBPATTERN":
        _, add, remove, sub = av
        return _of(sub, (ignore_case or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE)
    if name == "ATOMIC_GROUP":
        return _of(av, ignore_case)
    if name in _REPEATS:
        low, _, sub = av
        return _of(sub, ignore_case) if low >= 1 else None
    if name == "BRANCH":
        found: set[str] = set()
        for branch in av[1]:
            need = _of(branch, ignore_case)
            if need is None:
                return None  # one way through needs nothing
            found |= need
        return frozenset(found)
    return None  # a class, a wildcard, an anchor, a lookaround, a back-reference: nothing certain


def needed(regex: re.Pattern[str]) -> Needed:
    """Strings one of which is in every text `regex` matches, or None when that cannot be told."""
    try:
        tree = _parser.parse(regex.pattern, regex.flags)
        need = _of(tree, bool(tree.state.flags & re.IGNORECASE))
    except Exception:  # noqa: BLE001 - the parser's internals moved: no prefilter, every line is tried
        return None
    return need if need and all(need) else None
