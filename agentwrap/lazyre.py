"""Regular expressions compiled on first use.

Compiling is most of what importing a module with many patterns costs (~0.1-1 ms each), and a run
that never meets a secret, a salient line or a prompt never needs most of them: start-up is a
budget (`bench/run.py startup`), so patterns that may go unused are compiled lazily.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _Lazy:
    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """A stand-in for `re.compile(pattern, flags)` that compiles when first used."""
    return cast("re.Pattern[str]", _Lazy(pattern, int(flags)))
