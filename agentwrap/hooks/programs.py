"""Which program a simple command runs, and the forms of it a user's permission rule may be written for.

A rule written for `rm` must see `rm` in `'rm' -rf x`, `\\rm x`, `FOO=1 rm x`, `/bin/rm x`, `sudo rm x`
or `timeout 9 rm x`: the host would have matched its text, and the rewritten line hides it. So a command
is matched in several forms: as written, with its quotes removed, and with the program named by its
basename after the wrappers that only run another command (`env`, `sudo`, `nice`, `timeout`, ...: the
table in agentwrap.wrappers, which the adapter choice reads too), and after the launchers that run one
only in some forms (`ip netns exec NS`, `gdb --args`, `uv run`: agentwrap.hooks.launchers). A wrapper's
options are many and differ between versions, so after a wrapper every later word is also tried as the
start of the command: a rule may then name a word that is not the program (the line is left to the
host, which costs a rewrite, never a permission).
"""

from __future__ import annotations

import os
from typing import NamedTuple

from agentwrap import wrappers as table
from agentwrap.hooks import launchers
from agentwrap.hooks.calls import Call, Word


class Unwrapped(NamedTuple):
    words: tuple[Word, ...]  # the command the wrappers run (empty: they run none, as `sudo -v`)
    wrappers: tuple[tuple[Word, ...], ...]  # each wrapper with its own words, outermost first


def unwrap(words: tuple[Word, ...]) -> Unwrapped:
    """The command `words` runs once every leading wrapper is taken off."""
    wrappers: list[tuple[Word, ...]] = []
    while words:
        name = table.wrapper(words[0].value)
        own = 1 + table.own_words(name, [w.value for w in words[1:]]) if name else launchers.own(words)
        if own is None:
            break
        wrappers.append(words[:own])
        words = words[own:]
    return Unwrapped(words, tuple(wrappers))


def _unknown(word: Word) -> bool:
    """Whether the program a word names is known only when the line runs: a variable, or a word bash
    expands into other words or names (`{rm,-rf,x}` is `rm -rf x`, `/bin/r?` is `/bin/rm`). A leading
    tilde only names a folder (`~/bin/tool`)."""
    return word.value is None or not word.plain and any(c in word.raw for c in "*?[{")


def program(words: tuple[Word, ...]) -> str | None:
    """The basename of the program the command runs; None when it is known only when the line runs."""
    inner = unwrap(words).words
    if not inner or _unknown(inner[0]):
        return None
    return os.path.basename(inner[0].value or "")


def _joined(words: tuple[Word, ...], basename: bool = False) -> str:
    parts = [w.value if w.value is not None else w.raw for w in words]
    if basename and parts and words[0].value is not None:
        parts[0] = os.path.basename(parts[0])
    return " ".join(parts)


def rule_forms(call: Call) -> tuple[str, ...]:
    """The command as written, then every other form a rule written for its program could match."""
    forms = [call.text.strip(), _joined(call.words), _joined(call.words, basename=True)]
    unwrapped = unwrap(call.words)
    if unwrapped.wrappers:  # `sudo rm x`: `rm x`, and each later start in case an option was misread
        forms.append(_joined(unwrapped.words, basename=True))
        forms += [_joined(call.words[i:], basename=True) for i in range(1, len(call.words))]
    return tuple(dict.fromkeys(f for f in forms if f))


def named(call: Call) -> bool:
    """Whether the program the command runs is known before it runs (a rule can be applied to it)."""
    if not call.words:
        return True  # a bare assignment runs nothing
    inner = unwrap(call.words).words
    return not inner or not _unknown(inner[0])
