"""What a parsed command line is made of, for reading its output: units (a pipeline, or one command),
their stages, and what the shell's DEBUG trap will name as it runs them.

A unit is what the output between two trace marks belongs to. Only what runs in the shell itself is
traced (bash does not pass its DEBUG trap to subshells, functions or command substitutions), so the
commands inside `( )`, `$( )`, `<( )`, a function's body or a compound pipeline stage are not units:
their output belongs to the unit that runs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agentwrap.shell.script import MARK_FDS

_SPACE = re.compile(r"\s+")
_MARK_FDS = {str(fd) for fd in MARK_FDS}


@dataclass
class Command:
    """One simple command: a pipeline stage, or a unit of its own."""

    index: int  # 1-based, in the order of the line
    words: list[str]  # argv as far as the line says it: literal words unquoted, others as written
    literal: bool  # every word is known without running anything
    assigns: list[str]  # NAME=VALUE prefixes, as written
    text: str  # the command as written (without its heredoc bodies)
    key: str  # what bash's $BASH_COMMAND starts with, blanks removed (bash reprints spacing)
    # stdout/stderr -> "stdout"/"stderr"/"null"/"file:P"/"append:P"
    redirects: dict[str, str] = field(default_factory=dict)
    program_literal: bool = True  # the first word is known without running anything (`ls $HOME`: yes)

    @property
    def program(self) -> str | None:
        return self.words[0] if self.words else None


@dataclass
class Unit:
    index: int  # 0-based position among the line's units
    stages: list[Command | None]  # None: a compound stage (`{ }`, `( )`, a loop) run in a subshell
    tested: bool  # a condition (if/while/until, left of `||`, negated): its failure is expected
    background: bool
    text: str
    negated: bool = False  # `! cmd`: the unit's status is the opposite of its command's

    @property
    def last(self) -> Command | None:
        return self.stages[-1] if self.stages else None


@dataclass
class Line:
    text: str
    units: list[Unit]
    # (key, unit index or -1 for a compound's own header such as `for x in` / `case w in`, stage index,
    # or -2 for a unit that runs in a subshell, which no mark names)
    traced: list[tuple[str, int, int]]
    features: set[str]  # heredoc, cmdsubst, procsubst, subshell, function, background, coproc, trap, ...
    commands: list[Command]


def part_value(part: dict[str, Any], literals: dict[str, str] | None = None) -> str | None:
    """One part of a shfmt word as bash passes it on, quotes removed, or None when only the run knows it
    (a substitution, or a variable not among `literals`: those the line assigned a literal value)."""
    kind = part.get("Type")
    if kind == "Lit":
        return re.sub(r"\\(.)", r"\1", re.sub(r"\\\n", "", str(part.get("Value", ""))), flags=re.DOTALL)
    if kind == "SglQuoted":
        return None if part.get("Dollar") else str(part.get("Value", ""))
    if kind == "DblQuoted":
        pieces = []
        for inner in part.get("Parts", ()):
            if inner.get("Type") == "Lit":
                pieces.append(re.sub(r'\\([$`"\\])', r"\1", str(inner.get("Value", ""))).replace("\\\n", ""))
            else:
                value = part_value(inner, literals)
                if value is None:
                    return None
                pieces.append(value)
        return "".join(pieces)
    if kind == "ParamExp" and part.get("Short") or kind == "ParamExp" and set(part) <= {
            "Type", "Pos", "End", "Dollar", "Rbrace", "Param"}:
        return (literals or {}).get(str(part.get("Param", {}).get("Value", "")))
    return None


class _Builder:
    def __init__(self, source: bytes) -> None:
        self.source = source
        self.units: list[Unit] = []
        self.traced: list[tuple[str, int, int]] = []
        self.features: set[str] = set()
        self.commands: list[Command] = []
        self.literals: dict[str, str] = {}  # variables the line assigned a literal value (followed, in order)

    def slice(self, node: dict[str, Any]) -> str:
        start, end = node["Pos"]["Offset"], node["End"]["Offset"]
        return self.source[start:end].decode("utf-8", "replace")

    def stmt_text(self, stmt: dict[str, Any]) -> str:
        """A statement as written, without the `;` that ends it (shfmt counts it in)."""
        text = self.slice(stmt).rstrip()
        return text[:-1].rstrip() if text.endswith(";") and not text.endswith(";;") else text

    # --- words ------------------------------------------------------------------------------------
    def word(self, word: dict[str, Any]) -> tuple[str, bool]:
        """The word's value when the line fixes it (quotes removed), else its text as written."""
        out: list[str] = []
        literal = True
        for part in word.get("Parts", ()):
            value = self.part(part)
            if value is None:
                literal = False
                break
            out.append(value)
        return ("".join(out), True) if literal else (self.slice(word), False)

    def part(self, part: dict[str, Any]) -> str | None:
        return part_value(part, self.literals)

    # --- commands ----------------------------------------------------------------------------------
    def redirects(self, stmt: dict[str, Any]) -> dict[str, str]:
        where: dict[str, str] = {}
        for redir in stmt.get("Redirs") or ():
            op = redir.get("Op")
            fd = (redir.get("N") or {}).get("Value")
            if redir.get("Hdoc") is not None or op in ("<<", "<<-"):
                self.features.add("heredoc")
            if op == "<<<":
                self.features.add("herestring")
            target, literal = self.word(redir.get("Word") or {"Parts": []})
            if fd in _MARK_FDS or op in (">&", "<&") and target in _MARK_FDS:
                self.features.add("trace-conflict")  # the line uses the trace's own descriptors
            # An appended file holds earlier runs' text too: it is not read back as this command's output.
            kind = "append" if op in (">>", "&>>") else "file"
            dest = "null" if target == "/dev/null" else f"{kind}:{target}" if literal else f"{kind}:?"
            if op in (">", ">>", ">|") and fd in (None, "1"):
                where["stdout"] = dest
            elif op in (">", ">>", ">|") and fd == "2":
                where["stderr"] = dest
            elif op in ("&>", "&>>"):
                where["stdout"] = where["stderr"] = dest
            elif op == ">&" and fd == "2" and target == "1":
                where["stderr"] = where.get("stdout", "stdout")
            elif op == ">&" and fd in (None, "1") and target == "2":
                where["stdout"] = where.get("stderr", "stderr")
        return where

    def command(self, stmt: dict[str, Any], cmd: dict[str, Any]) -> Command:
        assigns = []
        for assign in cmd.get("Assigns") or ():
            name = str(assign.get("Name", {}).get("Value", ""))
            value, literal = self.word(assign["Value"]) if assign.get("Value") else ("", True)
            assigns.append(self.slice(assign))
            if not cmd.get("Args"):  # `X=1` alone sets the shell's variable; `X=1 cmd` only cmd's
                if literal and not assign.get("Append") and not assign.get("Array"):
                    self.literals[name] = value
                else:
                    self.literals.pop(name, None)
        words: list[str] = []
        literal, first_known = True, True
        for arg in cmd.get("Args") or ():
            value, known = self.word(arg)
            first_known = first_known and (bool(words) or known)
            words.append(value)
            literal = literal and known
        key_parts = [*assigns, *(self.slice(a) for a in cmd.get("Args") or ())]
        key = _SPACE.sub("", " ".join(key_parts))
        command = Command(len(self.commands) + 1, words, literal, assigns, self.stmt_text(stmt),
                          key, self.redirects(stmt), program_literal=first_known)
        self.commands.append(command)
        return command

    def keyword_command(self, stmt: dict[str, Any], cmd: dict[str, Any]) -> Command:
        """`[[ ]]`, `(( ))`, `let`, `declare`/`export`/`local`: commands bash traces as one line."""
        text = self.slice(cmd)
        first = text.split(None, 1)[0] if text.split() else text
        command = Command(len(self.commands) + 1, [first], True, [], self.stmt_text(stmt),
                          _SPACE.sub("", text), self.redirects(stmt))
        self.commands.append(command)
        return command


def _conflicts_with_trace(words: list[str]) -> bool:
    """What would show or replace agentwrap's DEBUG trap: xtrace and verbose print it, functrace passes
    it into functions and subshells, extdebug lets its status skip commands, a DEBUG trap replaces it."""
    if not words:
        return False
    name, args = words[0], words[1:]
    if name == "set":
        short = any(a[:1] in "-+" and not a.startswith("--") and set(a[1:]) & set("xvT") for a in args)
        # `set` alone lists every variable and function, the trace's own among them
        return not args or short or any(a in ("xtrace", "verbose", "functrace") for a in args)
    if name in ("declare", "typeset"):  # listings that would show the trace's function and variable
        return all(a.startswith(("-", "+")) for a in args)
    if name == "compgen":
        return True
    if name == "trap":
        return any(a in ("DEBUG", "RETURN") for a in args) or not args or args[0] in ("-p", "-l")
    if name == "shopt":
        return "extdebug" in args
    return name in ("builtin", "command", "enable") and bool(args) and _conflicts_with_trace(args)


def _has(node: Any, kind: str) -> bool:
    """Whether the tree holds a node of `kind`: walked with a stack, since a long `&&` chain nests deep."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("Type") == kind:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


_SIMPLE = ("CallExpr",)
_KEYWORD = ("TestClause", "ArithmCmd", "LetClause", "DeclClause")


def _stages(b: _Builder, stmt: dict[str, Any]) -> list[dict[str, Any]]:
    """The statements a pipeline is made of, left to right (shfmt nests `a | b | c` to the left)."""
    cmd = stmt.get("Cmd") or {}
    if cmd.get("Type") == "BinaryCmd" and cmd.get("Op") in ("|", "|&"):
        left = _stages(b, cmd["X"])
        if cmd.get("Op") == "|&":
            left[-1] = {**left[-1], "_stderr_piped": True}
        return left + _stages(b, cmd["Y"])
    return [stmt]


def _walk_stmts(b: _Builder, stmts: list[dict[str, Any]], tested: bool) -> None:
    for stmt in stmts:
        _walk_stmt(b, stmt, tested)


def _walk_stmt(b: _Builder, stmt: dict[str, Any], tested: bool) -> None:
    tested = tested or bool(stmt.get("Negated"))
    if stmt.get("Background"):
        b.features.add("background")
    cmd = stmt.get("Cmd") or {}
    kind = cmd.get("Type")
    if kind == "BinaryCmd" and cmd.get("Op") in ("&&", "||"):
        _walk_stmt(b, cmd["X"], tested or cmd["Op"] == "||")
        _walk_stmt(b, cmd["Y"], tested)
        return
    if kind == "BinaryCmd" or kind in (*_SIMPLE, *_KEYWORD):
        _unit(b, stmt, tested)
        return
    if kind == "TimeClause" and cmd.get("Stmt"):
        _walk_stmt(b, {**cmd["Stmt"], "Redirs": stmt.get("Redirs")}, tested)
        return
    _compound(b, stmt, cmd, tested)


def _compound(b: _Builder, stmt: dict[str, Any], cmd: dict[str, Any], tested: bool) -> None:
    kind = cmd.get("Type")
    b.redirects(stmt)  # a compound's own redirections still say whether it holds a heredoc
    if kind == "Block":
        _walk_stmts(b, cmd.get("Stmts") or [], tested)
    elif kind == "IfClause":
        clause: dict[str, Any] | None = cmd
        while clause:
            _walk_stmts(b, clause.get("Cond") or [], True)
            _walk_stmts(b, clause.get("Then") or [], tested)
            clause = clause.get("Else")
    elif kind == "WhileClause":
        _walk_stmts(b, cmd.get("Cond") or [], True)
        _walk_stmts(b, cmd.get("Do") or [], tested)
    elif kind in ("ForClause", "SelectClause"):
        b.traced.append((_SPACE.sub("", "for" if kind == "ForClause" else "select"), -1, 0))
        _walk_stmts(b, cmd.get("Do") or [], tested)
    elif kind == "CaseClause":
        b.traced.append(("case", -1, 0))
        for item in cmd.get("Items") or ():
            _walk_stmts(b, item.get("Stmts") or [], tested)
    elif kind == "FuncDecl":
        b.features.add("function")  # its body runs where it is called, untraced
    elif kind == "Subshell":
        b.features.add("subshell")
        _untraced_unit(b, stmt, tested)
    elif kind == "CoprocClause":
        b.features.add("coproc")
    else:
        b.features.add(f"other:{kind}")


def _unit(b: _Builder, stmt: dict[str, Any], tested: bool) -> None:
    stages: list[Command | None] = []
    index = len(b.units)
    for stage_no, part in enumerate(_stages(b, stmt)):
        cmd = part.get("Cmd") or {}
        kind = cmd.get("Type")
        command: Command | None
        if kind in _SIMPLE:
            command = b.command(part, cmd)
        elif kind in _KEYWORD:
            command = b.keyword_command(part, cmd)
        else:
            command = None  # a compound stage runs in a subshell: nothing in it is traced
            b.features.add("compound-stage")
        if command is not None:
            if part.get("_stderr_piped"):
                command.redirects.setdefault("stderr", "stdout")
            if _conflicts_with_trace(command.words if kind in _SIMPLE else command.text.split()):
                b.features.add("trace-conflict")
            if command.words and command.words[0] in ("eval", "source", "."):
                b.features.add("eval")
            b.traced.append((command.key, index, stage_no))
        stages.append(command)
    if not any(stages):
        b.traced.append(("", index, -2))
    b.units.append(Unit(index, stages, tested, bool(stmt.get("Background")), b.stmt_text(stmt),
                        negated=bool(stmt.get("Negated"))))


def _untraced_unit(b: _Builder, stmt: dict[str, Any], tested: bool) -> None:
    """A statement that runs in a subshell: no mark names it, but the next mark's status is its own."""
    index = len(b.units)
    b.traced.append(("", index, -2))
    b.units.append(Unit(index, [None], tested, bool(stmt.get("Background")), b.stmt_text(stmt),
                        negated=bool(stmt.get("Negated"))))


def _has_heredoc(b: _Builder, node: Any) -> None:
    if isinstance(node, dict):
        if node.get("Hdoc") is not None:
            b.features.add("heredoc")
        for value in node.values():
            _has_heredoc(b, value)
    elif isinstance(node, list):
        for value in node:
            _has_heredoc(b, value)


def build(line: str, tree: dict[str, Any]) -> Line:
    """The units of `line`, from shfmt's tree of it."""
    b = _Builder(line.encode("utf-8", "surrogateescape"))
    _walk_stmts(b, tree.get("Stmts") or [], False)
    _has_heredoc(b, tree)
    for kind, feature in (("CmdSubst", "cmdsubst"), ("ProcSubst", "procsubst")):
        if _has(tree, kind):
            b.features.add(feature)
    return Line(line, b.units, b.traced, b.features, b.commands)
