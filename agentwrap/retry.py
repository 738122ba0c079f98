"""Reading "when may I retry" out of what a program printed: Retry-After headers and prose."""

from __future__ import annotations

from agentwrap.lazyre import lazy

_RETRY_AFTER = lazy(
    r"(?i)\bretry-after:\s*(\d+(?:\.\d+)?)\b"
    r"|\b(?:try|retry)(?:ing)?\s+(?:again\s+)?(?:in|after)\s+(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)\b"
    r"|\bx-ratelimit-reset-after:\s*(\d+(?:\.\d+)?)\b"
)
_UNIT = {"s": 1, "m": 60, "h": 3600}


def retry_after_in(text: str) -> float | None:
    """Seconds to wait, when the text says (`Retry-After: 30`, "try again in 2 minutes"); else None."""
    match = _RETRY_AFTER.search(text)
    if match is None:
        return None
    if match.group(1):
        return float(match.group(1))
    if match.group(2):
        return float(match.group(2)) * _UNIT.get(match.group(3)[0].lower(), 1)
    return float(match.group(4))
