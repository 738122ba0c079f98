"""Sortable, unguessable identifiers (request ids, artifact ids, operation ids)."""

from __future__ import annotations

import os
import time

_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def new_id(prefix: str) -> str:
    """`prefix_` + 26 Crockford base32 characters: 48 bits of milliseconds, 80 random bits (a ULID)."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return f"{prefix}_{''.join(reversed(chars))}"


def utc_now() -> str:
    return rfc3339(time.time())


def rfc3339(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(epoch)) + f"{int(epoch * 1000) % 1000:03d}Z"
