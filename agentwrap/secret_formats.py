"""Provider tokens recognisable without a label, from gitleaks' format rules (`secret_formats_data`).

A token is a long run of token characters starting with its provider's prefix (`glpat-`, `dop_v1_`,
`AKIA`...). Finding the runs is a C-speed pass (bytes.translate, then bytes.find for 20 token bytes in a
row), so text without such runs costs about a millisecond per megabyte; only a run whose start is one of
the rules' keywords (or its pattern's literal start: airtable's `pat…`), or that holds a keyword met only
inside a token (azure's `…Q~…`, maxmind's `…_mmk`), costs a regular expression, on its own line. A run
that starts after a '/' inside a token is looked up from the token's start (`glc_G1jL/QLqy…`), and the
rule sees the whole token, so a 250-character `ops_eyJ…` with '/' and '+' in it matches too.
Encoded forms: a URL token holding `%XX` escapes that starts like a token is decoded and scanned again, and
a base64 run of 28+ characters that decodes to text (binary is ruled out by one C check) is scanned
decoded and hidden whole.
"""

from __future__ import annotations

import binascii
import bisect
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


_MIN_KEY = 2  # jwt's "ey", twilio's "sk": a run must start with them, so short keys stay cheap
_LEAD = lazy(r"(?:\\b|\^|\(\?i\)|\(\?i:|\(\?:|\()*")  # what may precede a pattern's first literal
_LITERAL = lazy(r"(?:[A-Za-z0-9_~-]|\\[.-])+")


def _plain(pattern: str) -> str:
    """The pattern lowercased with its escapes and scoped flags dropped, for finding keywords in it."""
    return re.sub(r"\(\?-?i:|\(\?i\)|\\b", "", pattern).replace("\\.", ".").replace("\\-", "-").lower()


def _inner(key: str, plain: str) -> bool:
    """A keyword met only inside the token (`…Q~…`, `…_mmk`), never where a match starts."""
    starts = [i for i in range(len(plain)) if plain.startswith(key, i)]
    return bool(starts) and all(i > 0 and plain[i - 1] not in "(|:^" for i in starts)


@cache
def _index() -> tuple[dict[str, list[tuple[str, list[Rule]]]], dict[bytes, list[Rule]]]:
    """Rules by the keyword a run starts with (lowercase), and the keywords met inside a token."""
    by_key: dict[str, list[Rule]] = {}
    inner: list[tuple[str, Rule]] = []
    for rule_id, pattern, group, keywords, entropy, allow, stop in RULES:
        # compiled when a run first starts with one of its keywords (120 patterns would cost ~13 ms)
        rule = (rule_id, lazy(pattern), group, entropy, tuple(lazy(a) for a in allow), stop)
        plain = _plain(pattern)
        # The pattern's own literal start is a key too: airtable's `pat…` tokens name no "airtable".
        lead = _LITERAL.match(pattern, _LEAD.match(pattern).end())  # type: ignore[union-attr]
        optional = lead is not None and pattern.startswith(("?", "*", "{0", ")?", ")*", "){0"), lead.end())
        prefix = lead.group(0).replace("\\", "").lower() if lead and not optional else ""
        keys = set(keywords) | ({prefix} if len(prefix) >= 3 else set())
        for key in keys:
            if _MIN_KEY <= len(key) <= _LONGEST_KEY:
                by_key.setdefault(key, []).append(rule)
            if _inner(key, plain):
                inner.append((key, rule))
    by_head: dict[str, list[tuple[str, list[Rule]]]] = {}
    for key, rules in by_key.items():
        by_head.setdefault(key[:_MIN_KEY], []).append((key, rules))
    inside: dict[bytes, list[Rule]] = {}
    for key, rule in inner:
        inside.setdefault(key.encode(), []).append(rule)
    return by_head, inside


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _rules_for(text: str, at: int, end: int, by_head: dict[str, list[tuple[str, list[Rule]]]]) -> list[Rule]:
    """The rules whose keyword `text[at:end]` starts with: one lookup by its first two characters."""
    low = text[at:min(end, at + _LONGEST_KEY)].lower()
    found: list[Rule] = []
    for key, rules in by_head.get(low[:_MIN_KEY], ()):
        if low.startswith(key):
            found.extend(rules)
    return found


_BLANK = lazy(r"[\s\"'`<>()\[\]{},;|]")  # what ends a token around a run
_TOKEN_REACH = 4096  # how far a token may reach past its run (`ops_eyJ…` has 250+ characters, some '/')


def spans(text: str, *, raw: bytes | None = None) -> list[tuple[int, int]]:
    """Character spans of the secrets in `text`, sorted and disjoint (`raw`: its ASCII bytes, if at hand)."""
    if raw is None:
        raw = text.encode("ascii", "replace")  # one byte per character: offsets are the string's
    marks = raw.translate(_TABLE)
    has_run = marks.find(_NEEDLE) >= 0
    found = _plain_spans(text, raw, marks) if has_run else []
    if "%" in text:  # a token in a URL: `code=fm1r_Xi%2Bz…%3D%3D`
        found += _percent_spans(text)
    if has_run or b"/" in raw:  # a base64 run without a '/' is a run of token characters too
        found += _base64_spans(raw)
    found.sort()
    merged: list[tuple[int, int]] = []
    for a, b in found:
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


# A base64 run long enough to hold the shortest token (20 characters are 28 in base64), found as the runs
# above are: a C-speed translate and find, so text without one costs about a millisecond per megabyte.
_B64_RUN = 28
_B64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
_B64_TABLE = bytes(97 if i in _B64_CHARS else 32 for i in range(256))
_B64_NEEDLE = b"a" * _B64_RUN
_CONTROL = lazy(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # bytes that text (lines, JSON, YAML) never holds


def _base64_spans(raw: bytes) -> list[tuple[int, int]]:
    """Base64 runs that decode to text holding a token (`payload Z2hwX0Fi…`): the whole run is hidden."""
    marks = raw.translate(_B64_TABLE)
    pos = marks.find(_B64_NEEDLE)
    found: list[tuple[int, int]] = []
    while pos >= 0:
        end = marks.find(b" ", pos + _B64_RUN)
        end = len(marks) if end < 0 else end
        body = raw[pos:end].rstrip(b"=")
        body = body[: len(body) - 1] if len(body) % 4 == 1 else body  # a stray last character decodes nothing
        try:
            decoded = binascii.a2b_base64(body + b"=" * (-len(body) % 4))
        except binascii.Error:  # '=' inside the run: not one base64 value
            decoded = b""
        # Hashes, ids and binaries decode to bytes that are not text: one C check rules them out.
        if decoded.isascii() and not _CONTROL.search(decoded) and _plain_spans(decoded.decode("ascii")):
            found.append((pos, end))
        pos = marks.find(_B64_NEEDLE, end)
    return found


_PERCENT = lazy(r"%[0-9A-Fa-f]{2}")
_URL_STOP = r"\s\"'`<>()\[\]{},;|&?=#"  # what ends a token inside a URL: a raw '=' or '&' is its query
_URL_TOKEN_END = lazy(f"[{_URL_STOP}]")
_URL_TOKEN_START = lazy(f"(?s:.*)[{_URL_STOP}]")  # greedy, so it scans back from the escape


def _percent_spans(text: str) -> list[tuple[int, int]]:
    """Secrets percent-encoded in a URL: each token holding an escape is decoded and scanned again."""
    found: list[tuple[int, int]] = []
    pos = text.find("%")
    while pos >= 0:
        if not _PERCENT.match(text, pos):
            pos = text.find("%", pos + 1)
            continue
        back = _URL_TOKEN_START.match(text, max(0, pos - _TOKEN_REACH), pos)
        first = back.end() if back else max(0, pos - _TOKEN_REACH)
        stop = _URL_TOKEN_END.search(text, pos, pos + _TOKEN_REACH)
        last = stop.start() if stop else min(len(text), pos + _TOKEN_REACH)
        # Only a token that starts like one is decoded (`fm1r_Xi%2B…`): text dense with escapes stays cheap.
        by_head = _index()[0]
        start = first + 3 if _PERCENT.match(text, first) else first  # `%3Dghp_…`: after a leading escape
        if not _rules_for(text, start, last, by_head):
            pos = text.find("%", last)
            continue
        decoded, where = _unquote(text, first, last)
        if len(decoded) >= _RUN:
            # where[i]: the offset in `text` of decoded character i; where[len]: the token's end
            found.extend((where[a], where[b]) for a, b in _plain_spans(decoded))
        pos = text.find("%", last)
    return found


def _unquote(text: str, first: int, last: int) -> tuple[str, list[int]]:
    """text[first:last] with its %XX escapes decoded, and where each decoded character came from."""
    parts: list[str] = []
    where: list[int] = []
    i = first
    for m in _PERCENT.finditer(text, first, last):
        parts += [text[i:m.start()], chr(int(text[m.start() + 1:m.end()], 16))]
        where += [*range(i, m.start()), m.start()]
        i = m.end()
    parts.append(text[i:last])
    where += [*range(i, last), last]
    return "".join(parts), where


def _plain_spans(text: str, raw: bytes | None = None, marks: bytes | None = None) -> list[tuple[int, int]]:
    """Spans of the secrets written out in `text`, in order found (maybe overlapping)."""
    raw = text.encode("ascii", "replace") if raw is None else raw
    marks = raw.translate(_TABLE) if marks is None else marks
    pos = marks.find(_NEEDLE)
    if pos < 0:
        return []
    by_head, inside = _index()
    # Where the keywords met inside a token are: one bytes.find each over the lowercased text (they are
    # rare), so a run costs a bisect, not a search.
    low = raw.lower()
    hits: list[tuple[int, bytes]] = []
    for key in inside:
        at = low.find(key)
        while at >= 0:
            hits.append((at, key))
            at = low.find(key, at + 1)
    hits.sort()
    found: list[tuple[int, int]] = []
    reached = 0  # how far a token's tail has been scanned already
    while pos >= 0:
        end = marks.find(b" ", pos + _RUN)
        end = len(marks) if end < 0 else end
        start = pos + 2 if pos >= 1 and raw[pos - 1:pos] == b"%" else pos  # %3Dghp_...: after the escape
        first = start  # where the token the rules look at starts
        rules = _rules_for(text, start, end, by_head) or (_rules_for(text, pos, end, by_head) if start != pos else [])
        if not rules:  # key=ghp_..., host.atlasv1....: a token after a '=' or '.' inside the run
            head = text[pos:min(end, pos + 32)]
            for i, ch in enumerate(head):
                if ch in "=." and (rules := _rules_for(text, pos + i + 1, end, by_head)):
                    break
        if not rules and start == pos and pos and not _BLANK.match(text, pos - 1):
            # glc_G1jL/QLqy…: the run began after a '/' or '%' inside a token; its start is the token's
            blank = max(text.rfind(c, max(0, pos - 64), pos) for c in " \t\n\"'=:")
            if pos - 64 < blank < pos - 1:
                rules, first = _rules_for(text, blank + 1, end, by_head), blank + 1
        if hits:  # …Q~…, …_mmk: a keyword inside the token
            i = bisect.bisect_left(hits, (first, b""))
            while i < len(hits) and hits[i][0] < end:
                rules = rules + [rule for rule in inside[hits[i][1]] if rule not in rules]
                i += 1
        if rules:
            lo = max(text.rfind("\n", 0, first) + 1, first - 64)
            tail = end
            if text[end:end + 1] == "/" and end >= reached:  # the whole token, past its '/': once per token
                stop = _BLANK.search(text, end, end + _TOKEN_REACH)
                tail = reached = stop.start() if stop else min(len(text), end + _TOKEN_REACH)
            hi = text.find("\n", tail, tail + 64)
            hi = min(len(text), tail + 64) if hi < 0 else hi
            window = text[lo:hi]
            if start != pos:  # the escape reads as a blank, so the rule's word boundary holds
                window = window[:pos - 1 - lo] + "   " + window[pos + 2 - lo:]
            found.extend((a + lo, b + lo) for a, b in _matches(window, first - lo, end - lo, rules))
        pos = marks.find(_NEEDLE, end)
    return found


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
