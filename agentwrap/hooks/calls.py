"""Every simple command of a parsed line, with its words as bash will see them, read without recursion.

shfmt's tree nests one level per `&&` or `|`, so a long chain is a deep tree: it is walked here with a
stack of its own (a Python recursion would fail on 200 chained commands), and `depth` says how deep a
tree is before any recursive reader (`agentwrap.shell.model`) is given it.

A word's value is known when it is made of literal text, single quotes and double quotes holding only
literal text; `Word.plain` says in addition that bash passes it on unchanged: no glob (`*?[`), no tilde
and no brace expansion, whose quoted form `agentwrap --agent -- …` would be another argument.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from agentwrap.shell.model import part_value

_EXPANDS = re.compile(r"[*?\[{~]")  # glob, brace and tilde expansion: bash changes such a word
_STDIN_OPS = frozenset({"<", "<<", "<<-", "<<<", "<>", "<&"})


class Word(NamedTuple):
    value: str | None  # the word bash passes on, quotes removed; None: known only when the line runs
    raw: str  # the word as written
    plain: bool  # bash passes `value` unchanged (no expansion of any kind)


class Call(NamedTuple):
    text: str  # the statement as written, without its `;`
    words: tuple[Word, ...]  # its arguments, the program first (assignments not among them)
    stdin: bool  # its input is a pipe or a redirection, not the terminal
    assigns: tuple[tuple[str, Word], ...] = ()  # its `NAME=VALUE` words, which set its program's environment


def _part(part: dict[str, Any]) -> tuple[str | None, bool]:
    """(value, plain) of one part of a word: its value as the shell model reads it (no variable is known
    to a hook), and whether bash passes it on unchanged: quoted text always, literal text without an
    unescaped glob, brace or tilde (`\\*` is a literal star)."""
    value = part_value(part)
    if value is None or part.get("Type") != "Lit":
        return value, value is not None
    return value, not _EXPANDS.search(re.sub(r"\\.", "", str(part.get("Value", "")), flags=re.DOTALL))


def word(node: dict[str, Any], source: bytes) -> Word:
    raw = source[node["Pos"]["Offset"]:node["End"]["Offset"]].decode("utf-8", "replace")
    pieces: list[str] = []
    plain = True
    for part in node.get("Parts") or ():
        value, part_plain = _part(part)
        if value is None:
            return Word(None, raw, False)
        pieces.append(value)
        plain = plain and part_plain
    return Word("".join(pieces), raw, plain)


def _text(stmt: dict[str, Any], source: bytes) -> str:
    text = source[stmt["Pos"]["Offset"]:stmt["End"]["Offset"]].decode("utf-8", "replace").rstrip()
    return text[:-1].rstrip() if text.endswith(";") and not text.endswith(";;") else text


def _reads_stdin(stmt: dict[str, Any]) -> bool:
    return any(r.get("Op") in _STDIN_OPS and (r.get("N") or {}).get("Value") in (None, "0")
               for r in stmt.get("Redirs") or ())


def _assigns(cmd: dict[str, Any], source: bytes) -> tuple[tuple[str, Word], ...]:
    out = []
    for assign in cmd.get("Assigns") or ():
        name = str((assign.get("Name") or {}).get("Value", ""))
        out.append((name, word(assign["Value"], source) if assign.get("Value") else Word("", "", True)))
    return tuple(out)


def every_call(tree: dict[str, Any], source: bytes) -> list[Call]:
    """Every simple command anywhere in the tree, left to right: subshells, blocks, loops and compound
    pipeline stages included (the user's rules and the interactive check see each)."""
    out: list[Call] = []
    stack: list[tuple[Any, bool]] = [(tree, False)]  # (node, its input is piped)
    while stack:
        node, piped = stack.pop()
        if isinstance(node, list):
            stack.extend((value, piped) for value in reversed(node))
            continue
        if not isinstance(node, dict):
            continue
        cmd = node.get("Cmd")
        if isinstance(cmd, dict) and "Pos" in node:  # a statement
            piped = piped or _reads_stdin(node)
            if cmd.get("Type") == "CallExpr":
                words = tuple(word(arg, source) for arg in cmd.get("Args") or ())
                out.append(Call(_text(node, source), words, piped, _assigns(cmd, source)))
        if node.get("Type") == "BinaryCmd" and node.get("Op") in ("|", "|&"):
            stack.append((node.get("Y"), True))  # the right side reads the left side's output
            stack.append((node.get("X"), piped))
            continue
        stack.extend((value, piped) for value in reversed(list(node.values())) if isinstance(value, (dict, list)))
    return out


def depth(tree: Any) -> int:
    """How many dicts and lists deep the tree is."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        values = node.values() if isinstance(node, dict) else node
        stack.extend((v, level + 1) for v in values if isinstance(v, (dict, list)))
    return deepest


def argv(tree: dict[str, Any], source: bytes) -> list[str] | None:
    """The argv of a line that is exactly one simple command whose words bash passes on unchanged: no
    `!`, `time`, assignment, redirection or `&`, no expansion. None for any other line."""
    stmts = tree.get("Stmts") or []
    if len(stmts) != 1:
        return None
    stmt = stmts[0]
    cmd = stmt.get("Cmd") or {}
    if any(stmt.get(k) for k in ("Negated", "Background", "Coprocess", "Redirs")):
        return None
    if cmd.get("Type") != "CallExpr" or cmd.get("Assigns") or not cmd.get("Args"):
        return None
    words = [word(arg, source) for arg in cmd["Args"]]
    if not all(w.plain and w.value is not None for w in words):
        return None
    return [w.value for w in words if w.value is not None]
