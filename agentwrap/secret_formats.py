"""Provider tokens recognisable without a label, from gitleaks' format rules (`secret_formats_data`).

A token is a long run of token characters starting with its provider's prefix (`glpat-`, `dop_v1_`,
`AKIA`...). Finding the runs is a C-speed pass (bytes.translate, then bytes.find for 20 token bytes in a
row), so text without such runs costs about a millisecond per megabyte; only a run whose start is one of
the rules' keywords costs a regular expression, on its own line.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache

from agentwrap.lazyre import lazy
from agentwrap.secret_formats_data import RULES

_RUN = 20  # the shortest tokens (AWS key ids) have 20 characters
_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+~.-=")
_TABLE = bytes(97 if i in _CHARS else 32 for i in range(256))
_NEEDLE = b"a" * _RUN
_LONGEST_KEY = 24

Rule = tuple[str, re.Pattern[str], int, float, tuple[re.Pattern[str], ...], tuple[str, ...]]


@cache
def _index() -> dict[str, list[Rule]]:
    """Rules by keyword (lowercase), compiled on first use."""
    by_key: dict[str, list[Rule]] = {}
    for rule_id, pattern, group, keywords, entropy, allow, stop in RULES:
        # compiled when a run first starts with one of its keywords (120 patterns would cost ~13 ms)
        rule = (rule_id, lazy(pattern), group, entropy, tuple(lazy(a) for a in allow), stop)
        for key in keywords:
            if 3 <= len(key) <= _LONGEST_KEY:
                by_key.setdefault(key, []).append(rule)
    return by_key


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _rules_for(run: str, by_key: dict[str, list[Rule]]) -> list[Rule]:
    low = run[:_LONGEST_KEY].lower()
    found: list[Rule] = []
    for k in range(3, len(low) + 1):
        found.extend(by_key.get(low[:k], ()))
    return found


def spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the secrets in `text`, sorted and disjoint."""
    raw = text.encode("ascii", "replace")  # one byte per character: offsets are the string's
    marks = raw.translate(_TABLE)
    pos = marks.find(_NEEDLE)
    if pos < 0:
        return []
    by_key = _index()
    found: list[tuple[int, int]] = []
    while pos >= 0:
        end = marks.find(b" ", pos + _RUN)
        end = len(marks) if end < 0 else end
        start = pos + 2 if pos >= 1 and raw[pos - 1:pos] == b"%" else pos  # %3Dghp_...: after the escape
        rules = _rules_for(text[start:end], by_key) or (_rules_for(text[pos:end], by_key) if start != pos else [])
        if not rules:  # key=ghp_..., host.atlasv1....: a token after a '=' or '.' inside the run
            head = text[pos:min(end, pos + 32)]
            for i, ch in enumerate(head):
                if ch in "=." and (rules := _rules_for(text[pos + i + 1:end], by_key)):
                    break
        if rules:
            lo = max(text.rfind("\n", 0, pos) + 1, pos - 64)
            hi = text.find("\n", end, end + 64)
            hi = min(len(text), end + 64) if hi < 0 else hi
            window = text[lo:hi]
            if start != pos:  # the escape reads as a blank, so the rule's word boundary holds
                window = window[:pos - 1 - lo] + "   " + window[pos + 2 - lo:]
            found.extend((a + lo, b + lo) for a, b in _matches(window, pos - lo, end - lo, rules))
        pos = marks.find(_NEEDLE, end)
    found.sort()
    merged: list[tuple[int, int]] = []
    for a, b in found:
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _matches(window: str, run_start: int, run_end: int, rules: list[Rule]) -> list[tuple[int, int]]:
    """Spans in `window` (the run with up to 64 characters of its line on each side) the rules match."""
    out = []
    for _, pattern, group, entropy, allow, stop in rules:
        for m in pattern.finditer(window):
            g = group if group and m.group(group) is not None else 0
            a, b = m.span(g)
            if b <= run_start or a >= run_end:
                continue
            value = m.group(g)
            if entropy and _entropy(value) < entropy:
                continue
            if any(p.search(value) for p in allow) or any(w in value.lower() for w in stop):
                continue
            out.append((a, b))
    return out
