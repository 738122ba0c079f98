"""The tools' own dry runs (dry_runs.toml): the read-only form of a mutating invocation, and whether an
invocation already is one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from agentwrap.adapter import Adapter

_TABLE: list[dict[str, Any]] = []


class DryRun(NamedTuple):
    adapter: str
    subcommand: str
    add: tuple[str, ...] = ()
    replace: str | None = None
    drop: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    planner: str | None = None
    check: tuple[str, ...] = ()  # the read-only command that finds out what the real one changed


def _table() -> dict[str, Any]:
    if not _TABLE:
        import tomllib

        _TABLE.append(tomllib.loads((Path(__file__).parent / "dry_runs.toml").read_text()))
    return _TABLE[0]


def entries() -> list[DryRun]:
    out = []
    for raw in _table().get("dry_run", []):
        out.append(DryRun(raw["adapter"], raw["subcommand"], tuple(raw.get("add", ())), raw.get("replace"),
                          tuple(raw.get("drop", ())), tuple(raw.get("markers", ())), raw.get("planner"),
                          tuple(raw.get("check", ()))))
    return out


def read_only_programs() -> frozenset[str]:
    """Programs without an adapter that change nothing whatever their arguments (`ls`, `cat`, `wc`)."""
    return frozenset(_table().get("read_only_programs", {}).get("names", ()))


def entry_for(adapter: Adapter, argv: list[str]) -> DryRun | None:
    sub = adapter.subcommand(argv)
    if not sub:
        return None
    first = sub.split(" ")[0]
    return next((e for e in entries() if e.adapter == adapter.name and e.subcommand in (sub, first)), None)


def is_dry_run(adapter: Adapter, argv: list[str]) -> bool:
    """The invocation carries the tool's own dry-run flag (`kubectl apply --dry-run=server`)."""
    entry = entry_for(adapter, argv)
    if entry is None or not entry.markers:
        return False
    return any(arg in entry.markers for arg in _before_separator(argv[1:]))


def alternative(adapter: Adapter, argv: list[str]) -> list[str] | None:
    """The read-only command that shows what `argv` would do, or None when the tool has none we know."""
    entry = entry_for(adapter, argv)
    if entry is None:
        return None
    word = entry.subcommand.split(" ")[0]
    try:
        at = argv.index(word, 1)
    except ValueError:
        return None
    head = argv[:at]
    tail = [a for a in argv[at + 1:] if a.split("=")[0] not in entry.drop]
    return [*head, entry.replace or word, *entry.add, *tail]


def _before_separator(args: list[str]) -> list[str]:
    return args[:args.index("--")] if "--" in args else args


def program_is_read_only(argv: list[str]) -> bool:
    """A program without an adapter known to change nothing, as invoked (`find . -name x`, not `find -delete`)."""
    name = os.path.basename(argv[0])
    if name in read_only_programs():
        return True
    unless = _table().get("read_only_unless", {}).get(name)
    if unless is None:
        return False
    return not any(arg.startswith(flag) for arg in _before_separator(argv[1:]) for flag in unless)


def check_command(adapter: Adapter, argv: list[str]) -> list[str] | None:
    """The read-only command that says whether a stopped `argv` changed anything (`git ls-remote`)."""
    entry = entry_for(adapter, argv)
    if entry is not None and entry.check:
        return _fill(entry.check, argv)
    found = alternative(adapter, argv)
    if found is not None:
        return found
    fallback = _table().get("checks", {}).get(adapter.name)
    return _fill(fallback, argv) if fallback else None


def _fill(template: tuple[str, ...] | list[str], argv: list[str]) -> list[str]:
    return [argv[0] if word == "{prog}" else word for word in template]
