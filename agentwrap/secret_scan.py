"""Stage 1 of redaction: the lines of a text that may hold a secret, found fast.

Build output holds no secret on nearly every line. Cheap detectors (a memchr gate, then a regex anchored on a
literal) flag the lines a secret could be on, and `Redactor`'s precise patterns (stage 2) read those lines
only. Every stage-2 match lies within a line flagged here: a test holds the two to that.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from agentwrap import literals
from agentwrap.batch import Batch
from agentwrap.lazyre import lazy


# Stage 1: (memchr gate, detector, runs on the lowered copy). Every stage-2 match contains a detector match,
# so skipping the other lines is safe. Each detector starts with a literal, which sre finds with a tight
# loop; a rare first character and cheap lookaheads keep the cost of false starts low. Keywords count only
# as labels, so prose ("the key", "token at", "Author:", "passed") stays out of stage 2.
def _label_tail(kw: str) -> str:
    """What must follow a keyword: `kw...=`, `"kw...": ` or `--kw-x VALUE`."""
    return (rf"(?:[a-z0-9_.-]{{0,64}}\\?[\"']?(?:[ \t]+(?:string|str|\[\]byte))?"
            rf"[ \t]*(?:[?+!:.]{{0,3}}=|:|(?<=[\"']),(?=[ \t]*[\"'])|>(?=[^<\s]))"
            rf"|(?<=-{kw})[a-z0-9-]{{0,32}}[ \t]+[^\s-])")


_DETECTORS: tuple[tuple[str, re.Pattern[str], bool], ...] = tuple(
    (gate, lazy(pattern), lowered)
    for gate, pattern, lowered in (
        ("k", rf"k(?:en(?<=token)(?![a-z]){_label_tail('token')}|ey(?![a-z]){_label_tail('key')}"
              rf"|ey(?: block)?-----(?<=ivate key-----|key block-----)|ie(?<=cookie){_label_tail('cookie')}"
              r"|\.com(?<=slack\.com)|[-_](?<=sk.)|_(?<=rk_))", True),
        ("p", rf"p(?:ass{_label_tail('pass')}|assword[ \t]+[^\s=:]|wd{_label_tail('pwd')}"
              rf"|at(?<=_pat){_label_tail('_pat')}|m_(?<=npm_)|ypi-)", True),
        ("c", rf"c(?:ret(?<=secret){_label_tail('secret')}|red(?:entials?|s){_label_tail('cred')}"
              r"|_(?<=whsec_))", True),
        ("u", rf"auth(?:orization|token|(?![a-z0-9])){_label_tail('auth')}", True),
        ("b", r"bearer", True),
        ("g", r"g(?=l(?:pat|dt|rtr?|ptt|ft|imt|agent|oas|cbt|soat|ffct|wt)-|h[pousr]_|ithub_pat_|r1348941)", True),
        ("x", r"x(?=ox[a-z]-|app-)", True),
        ("A", r"A(?=KIA|SIA|BIA|CCA|Iza|BSK[A-Za-z0-9+/]{40})", False),
        (" -", r" -(?:[pa]|u[ \t]+[^\s:]{1,128}:\S)", True),  # mysql -pX, sshpass -p, redis-cli -a, curl -u u:p
        ("curl", r"curl(?=[^\n]{0,300}?[ \t]-(?:-(?:proxy-)?user|[a-z]{0,6}u))", True),  # -uU:P, --user=U:P
        ("J", r"J(?<=eyJ)", False),
        ("@", r"://[^\s?#]{1,1200}@", False),
    )
)  # fmt: skip
# Lowercase substrings that every detector match contains: text holding none of them comes back unchanged.
TRIGGERS: tuple[str, ...] = (
    "token", "key", "cookie", "slack", "sk-", "sk_", "rk_", "pass", "pwd", "_pat", "npm_", "pypi-", "secret",
    "cred", "whsec_", "auth", "bearer", "gl", "gh", "xox", "xapp-", "akia", "asia", "aiza", "eyj", "@",
    "abia", "acca", "absk", "gr1348941", " -", "curl",
)  # fmt: skip

# What the one-pass scan looks for: each detector's match lies on a line holding one of its literals
# here. Narrower than TRIGGERS where a detector allows ("glpat-", not "gl", which English is full of).
_LINE_LITERALS: tuple[str, ...] = (
    "token", "key", "cookie", "slack.com", "sk-", "sk_", "rk_",  # k
    "pass", "pwd", "_pat", "npm_", "pypi-",  # p
    "secret", "credential", "creds", "whsec_",  # c
    "auth", "bearer",  # u, b
    "glpat-", "gldt-", "glrt-", "glrtr-", "glptt-", "glft-", "glimt-", "glagent-", "gloas-", "glcbt-",
    "glsoat-", "glffct-", "glwt-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "gr1348941",  # g
    "xox", "xapp-", "akia", "asia", "abia", "acca", "aiza", "absk",  # x, A
    " -p", " -a", " -u", "eyj", "://",  # ' -', J, @
    "curl",
)  # fmt: skip
MAX_TRIGGER_HITS = 1024  # per call; past this the detectors scan the whole text, as cheap by then
DENSE_SKIP = 16  # calls (batches of up to 256 KiB) without the prefilter once one was dense


def trigger_lines(low: bytes) -> list[tuple[int, int]] | None:
    """Sorted spans of the lines of `low` that hold a trigger, or None when there are too many to list.

    One Aho-Corasick pass finds all the literals at once, at ~3 GB/s on text holding none, and without
    the GIL (the runner's reading thread runs meanwhile); the detectors are eight sre passes over the whole text
    that hold it. Build output holds few triggers, so the detectors then read a few lines only.
    """
    global _AUTOMATON
    if _AUTOMATON is None:  # leftmost-first: a line holding a literal still gets a match (none spans lines)
        _AUTOMATON = literals.automaton(t.encode() for t in _LINE_LITERALS)
    hits = _AUTOMATON.find_matches_as_indexes(low)
    return None if len(hits) > MAX_TRIGGER_HITS else literals.hit_lines(hits, low)


_AUTOMATON: Any = None


def _detect(hay: str, low: str) -> set[tuple[int, int]]:
    spans: set[tuple[int, int]] = set()
    for gate, detector, on_lowered in _DETECTORS:
        scan = low if on_lowered else hay
        if gate[-1] not in scan or (len(gate) > 1 and gate not in scan):  # a memchr first, then " -"
            continue
        m = detector.search(scan)
        while m:
            end = scan.find("\n", m.end()) + 1 or len(scan)
            spans.add((scan.rfind("\n", 0, m.start()) + 1, end))
            m = detector.search(scan, end) if end < len(scan) else None
    return spans


def _detect_in_lines(hay: str, low: str, lines: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """`_detect` on the given whole lines only (a detector match never leaves its line), mapped back."""
    offsets, at = [], 0
    for start, end in lines:
        offsets.append(at)
        at += end - start
    sub_hay = "".join(hay[start:end] for start, end in lines)
    sub_low = "".join(low[start:end] for start, end in lines)
    spans = set()
    for start, end in _detect(sub_hay, sub_low):
        k = bisect.bisect_right(offsets, start) - 1  # spans are whole lines: one of those joined
        spans.add((lines[k][0] + start - offsets[k], lines[k][0] + end - offsets[k]))
    return spans


def candidate_lines(text: str) -> list[tuple[int, int]]:
    """Sorted spans of the whole lines (newline included) that some detector flagged."""
    return scan(text, prefilter=True)[0]


def scan(text: str, *, prefilter: bool, batch: Batch | None = None) -> tuple[list[tuple[int, int]], bool]:
    """`candidate_lines`, and whether the text was too dense with literals for the prefilter to pay."""
    # lower() on non-ASCII text is an order of magnitude slower. Its UTF-8 bytes read as Latin-1 keep one
    # character per byte, so the detectors run at full speed on byte offsets, mapped back below.
    raw = None if text.isascii() else text.encode("utf-8", "surrogatepass")
    if raw is None:
        # the salient scanner reads the same lower-cased bytes: made once, in `batch`
        lower = Batch.of(text, batch).ascii_lower()
        hay, low_bytes = text, lower if lower is not None else text.lower().encode("ascii")
    else:
        low_bytes = raw.lower()
        hay = raw.decode("latin-1")
    # Every detector match lies on a line holding one of _LINE_LITERALS: other lines cannot be flagged.
    lines = trigger_lines(low_bytes) if prefilter else None
    if lines is not None and not lines:
        return [], False
    low = low_bytes.decode("latin-1")  # ASCII or UTF-8 read as Latin-1: one character per byte either way
    spans = _detect(hay, low) if lines is None else _detect_in_lines(hay, low, lines)
    ordered = sorted(spans)  # distinct whole lines never overlap
    dense = prefilter and lines is None
    if raw is None or not ordered:
        return ordered, dense
    mapped, byte_pos, char_pos = [], 0, 0
    for start, end in ordered:
        char_pos += len(raw[byte_pos:start].decode("utf-8", "surrogatepass"))
        line_chars = len(raw[start:end].decode("utf-8", "surrogatepass"))
        mapped.append((char_pos, char_pos + line_chars))
        char_pos, byte_pos = char_pos + line_chars, end
    return mapped, dense
