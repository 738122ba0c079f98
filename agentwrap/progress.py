"""Progress read off the intermediate states of redrawn lines (`45%`, `12/80`), never moving backward."""

from __future__ import annotations

from typing import Any

from agentwrap.lazyre import lazy

_PERCENT = lazy(r"(\d{1,3}(?:\.\d+)?)\s?%")
_COUNT = lazy(r"\b(\d+)\s?/\s?(\d+)\b")
_NOISE = lazy(r"[\d.%/:|#=>\-\s\[\]()█▏▎▍▌▋▊▉━─]+")


class ProgressTracker:
    def __init__(self) -> None:
        self._last: dict[str, float] = {}

    def observe(self, stream: str, line: str) -> dict[str, Any] | None:
        """A progress event payload for this redrawn line, or None if it shows no forward progress."""
        percent: float | None = None
        completed = total = None
        if match := _PERCENT.search(line):
            percent = float(match.group(1))
            head = line[:match.start()]
        elif (match := _COUNT.search(line)) and int(match.group(2)) > 0:
            completed, total = int(match.group(1)), int(match.group(2))
            if completed > total:
                return None
            percent = round(100 * completed / total, 1)
            head = line[:match.start()]
        else:
            return None
        if percent > 100:
            return None
        phase = _NOISE.sub(" ", head).strip()[:80] or stream
        if percent <= self._last.get(phase, -1.0):
            return None
        self._last[phase] = percent
        payload: dict[str, Any] = {"phase": phase, "percent": percent, "stream": stream}
        if total is not None:
            payload.update(completed=completed, total=total)
        return payload
