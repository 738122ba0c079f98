"""Every problem code the built-in adapters declare, by tool: what `agentwrap explain` and
docs/problems.md read (wrapper-level codes are `codes.py`'s).

An adapter's own declarations are its spec's rules and its `codes`; what it reports through another
tool (make through the compiler, `python -m pip` through pip) belongs to that tool.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentwrap import registry
from agentwrap.adapter import Adapter, generic_spec
from agentwrap.problem import TYPE_PREFIX, problem_type, slug
from agentwrap.records import ProblemCode


@dataclass(frozen=True, kw_only=True)
class Entry:
    tool: str
    declared: ProblemCode

    @property
    def type(self) -> str:
        return problem_type(self.tool, self.declared.code)


def own_codes(adapter: Adapter) -> list[ProblemCode]:
    """The codes an adapter declares itself (its spec's rules, then its Python's `codes`)."""
    spec = getattr(adapter, "spec", None)
    if adapter is registry.GENERIC:
        return generic_spec().declarations()
    return [*(spec.declarations() if spec is not None else []), *getattr(adapter, "codes", ())]


def entries(*, user: bool = False) -> list[Entry]:
    """Every built-in tool's own codes, in tool order (with `user`, the user folder's adapters first); a
    code two tools emit is listed under each."""
    out: list[Entry] = []
    adapters = [*(registry.user_adapters() if user else []), *(registry.builtin(n) for n in registry.names())]
    for adapter in adapters:
        name = adapter.name
        seen: set[str] = set()
        for declared in own_codes(adapter):
            if declared.code not in seen:
                seen.add(declared.code)
                out.append(Entry(tool=name, declared=declared))
    return out


def find(text: str) -> list[Entry]:
    """The entries a code names: `GIT_PUSH_REJECTED`, `urn:agentwrap:problem:git:push-rejected`,
    `git:push-rejected`, or a member of a declared family (`E0308`)."""
    raw = text.strip()
    if raw.lower().startswith(TYPE_PREFIX):
        raw = raw[len(TYPE_PREFIX) :]
    tool, _, rest = raw.partition(":")
    found = []
    for entry in entries(user=True):
        if rest:
            if entry.tool == tool.lower() and slug(entry.declared.code, entry.tool) == rest.lower():
                found.append(entry)
        elif entry.declared.covers(raw.upper()) or entry.declared.covers(raw):
            found.append(entry)
    return found
