"""Which adapter serves a program. Built-ins register here; user folders and entry points come later."""

from __future__ import annotations

import os

from agentwrap.adapter import Adapter, BaseAdapter
from agentwrap.errors import UsageError
from agentwrap.lazyre import lazy

GENERIC: Adapter = BaseAdapter()
_BUILTINS: dict[str, Adapter] = {"generic": GENERIC}
_VERSION_SUFFIX = lazy(r"(-?\d+(\.\d+)*)$")


def family_key(argv0: str) -> str:
    """`/usr/bin/g++-12` -> `g++`, `python3.11` -> `python`: the name an adapter is registered under."""
    base = os.path.basename(argv0)
    return _VERSION_SUFFIX.sub("", base) or base


def names() -> list[str]:
    return sorted(_BUILTINS)


def find(argv0: str, *, forced: str | None = None, disabled: bool = False) -> Adapter:
    if disabled:
        return GENERIC
    if forced is not None:
        if forced not in _BUILTINS:
            import difflib

            near = difflib.get_close_matches(forced, names(), n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else f"; known: {', '.join(names())}"
            raise UsageError(f"--adapter {forced!r}: no such adapter{hint}")
        return _BUILTINS[forced]
    return _BUILTINS.get(family_key(argv0), GENERIC)


def describe(name: str) -> dict[str, object]:
    """The compact descriptor of CONTRACT section 6 (generic only until per-tool adapters land)."""
    from agentwrap import codes

    return {
        "name": name,
        "purpose": "Any program: clean output, exit-code verdict, prompts and timeouts as problems.",
        "use_when": "No tool-specific adapter matches the program.",
        "do_not_use_when": "A tool-specific adapter exists (it adds parsed data and precise problems).",
        "returns": "output streams, exit facts, wrapper problems (COMMAND_FAILED, INPUT_REQUIRED, ...)",
        "limitations": "Facts come from the exit code and salient lines only; no parsed data.",
        "matches": ["*"],
        "effects": {"read_only": None, "destructive": None, "idempotent": None, "open_world": None},
        "problem_codes": sorted(codes.BY_CODE),
    }
