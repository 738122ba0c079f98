"""Regular expressions compiled on first use.

Compiling is most of what importing a module with many patterns costs (~0.1-1 ms each), and a run
that never meets a secret, a salient line or a prompt never needs most of them: start-up is a
budget (`bench/run.py startup`), so patterns that may go unused are compiled lazily.
"""

from __future__ import annotations

import re
from typing import Any, cast, overload


class _Lazy:
    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[Any] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


@overload
def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]: ...
@overload
def lazy(pattern: bytes, flags: int | re.RegexFlag = 0) -> re.Pattern[bytes]: ...


def lazy(pattern: str | bytes, flags: int | re.RegexFlag = 0) -> re.Pattern[Any]:
    """A stand-in for `re.compile(pattern, flags)` that compiles when first used."""
    return cast("re.Pattern[Any]", _Lazy(pattern, int(flags)))
