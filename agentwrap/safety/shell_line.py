"""Shell lines, command by command, for `--read-only` (CONTRACT section 10).

The hook point: `simple_commands` is the one function that turns a line into the argv of each simple
command it runs. It is deliberately conservative (a `shlex` tokenizer, not a grammar): anything it
cannot read for certain -- substitutions, subshells, functions, here-documents, redirections that write,
loops -- answers None, and the caller counts the line as mutating. When the shell-line engine (issue 10)
lands with a real grammar, point `simple_commands` at it; the contract stays: a list of argv, or None.
"""

from __future__ import annotations

import os
import shlex

_SHELLS = frozenset(("bash", "sh", "dash", "zsh", "ksh"))
_SEPARATORS = frozenset((";", "&&", "||", "|", "&", "|&", "\n"))
_OPERATOR_CHARS = frozenset(";&|<>()")
_SAFE_SINKS = frozenset(("/dev/null", "/dev/stdout", "/dev/stderr"))
# Words that start a compound command or change the shell itself: a line holding one is not read.
_UNREAD = frozenset(("if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
                     "function", "{", "}", "(", ")", "eval", "exec", "source", ".", "alias", "trap", "coproc"))
_ASSIGNMENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


def script_of(argv: list[str]) -> str | None:
    """The command line of `bash -c LINE` (also `sh -c`, `bash -lc`, `bash -ec`), else None."""
    if len(argv) < 3 or os.path.basename(argv[0]) not in _SHELLS:
        return None
    flag = argv[1]
    if flag.startswith("-") and not flag.startswith("--") and "c" in flag[1:]:
        return argv[2]
    return None


def words_of(line: str) -> list[str] | None:
    """The line's words and operators as a POSIX shell splits them (quotes removed); None for an unclosed quote."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def writes_by_redirect(line: str) -> bool:
    """Whether the line sends output into a file (`> out.txt`, `>> log`), not to /dev/null or a descriptor."""
    words = words_of(line) or []
    return any(_is_operator(t) and ">" in t and not _harmless_redirect(t, words[i + 1] if i + 1 < len(words)
                                                                      else "") for i, t in enumerate(words) if t)


def simple_commands(line: str) -> list[list[str]] | None:
    """The argv of every simple command in `line`, or None when the line holds anything not read for certain."""
    if any(mark in line for mark in ("$(", "`", "<(", ">(", "<<")):
        return None
    tokens = words_of(line)
    if tokens is None:  # an unclosed quote
        return None
    commands: list[list[str]] = []
    current: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _SEPARATORS:
            if current:
                commands.append(current)
            current = []
        elif _is_operator(token) and not set(token) <= set("<>&"):
            return None  # `>|` (clobber), `;>x`, `|>x`, `;(`: shlex runs operators together; not read for certain
        elif _is_operator(token):
            if ">" in token and not _harmless_redirect(token, tokens[i + 1] if i + 1 < len(tokens) else ""):
                return None  # writes a file
            i += 1  # the redirection's target
        elif not current and token in _UNREAD:
            return None
        elif not current and _is_assignment(token):
            pass  # `LC_ALL=C sort`: the variable is not the command
        elif token in ("(", ")"):
            return None  # a subshell or a function definition
        else:
            current.append(token)
        i += 1
    if current:
        commands.append(current)
    return commands or None


def _is_operator(token: str) -> bool:
    """A word of operator characters only: the tokenizer joins adjacent ones (`>|`, `;>`, `&>`)."""
    return bool(token) and set(token) <= _OPERATOR_CHARS


def _harmless_redirect(op: str, target: str) -> bool:
    """`2>&1`, `>&2`, `> /dev/null`: nothing is written to a file."""
    return op in (">&", "&>", ">", ">>", "&>>") and (target in _SAFE_SINKS or target.isdigit() or target == "-")


def _is_assignment(token: str) -> bool:
    name, eq, _ = token.partition("=")
    return bool(eq) and bool(name) and name[0] in _ASSIGNMENT_START and name.replace("_", "a").isalnum()
