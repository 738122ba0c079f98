"""Advice names only what this version has: a fix that needs a wrapper option not available yet is left
out of what `agentwrap explain` and docs/problems.md show (options.available is the one place that knows)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentwrap import options

_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def option_names(text: str) -> list[str]:
    """Every `--word` that `text` names (a wrapper option or a program's)."""
    return _OPTION.findall(text)


def missing_options(text: str) -> list[str]:
    """The wrapper options `text` names that this version does not have (program options are not ours)."""
    return [name for name in option_names(text) if name in options.OPTION_NAMES and not options.available(name)]


def usable(fixes: Iterable[str]) -> list[str]:
    """The fixes a caller can follow with this version."""
    return [fix for fix in fixes if not missing_options(fix)]
