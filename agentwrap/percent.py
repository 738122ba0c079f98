"""Percent-encoding (RFC 3986) as `urllib.parse.quote` spells it, without importing urllib.parse.

urllib.parse imports ipaddress; the two cost ~2.5 ms of every start that needs one quoted string (an
artifact's file URI, a secret as it would appear inside a URL). `tests/test_percent.py` holds this to
`quote` itself.
"""

from __future__ import annotations

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")


def quoted(data: str | bytes, safe: str = "/") -> str:
    """`data` with every byte outside the unreserved set and `safe` written %XX (upper-case hex).
    A str is encoded as UTF-8; a lone surrogate (an undecodable byte of a file name) as the byte it stands for."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    keep = _UNRESERVED | frozenset(safe.encode("ascii"))
    return "".join(chr(b) if b in keep else f"%{b:02X}" for b in raw)
