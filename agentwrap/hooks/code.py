"""Programs whose arguments are code in another language, which a permission rule cannot be applied to.

`python3 -c "import os; os.remove('x')"`, `perl -e 'unlink "x"'` or `awk 'BEGIN{system("rm x")}'` run
what a rule for `rm` is there to stop, and no shell grammar reads them. agentwrap.hooks.inner treats
such a command as opaque (left to the host whenever a deny or ask rule exists). Only the arguments that
are code count: `python3 script.py` or `awk -f prog.awk` run a file, as `bash script.sh` does, and
`python3 -m pytest` runs a module; those stay readable. awk and sed are common and mostly harmless, so
their program text is opaque only when it can start a command: awk's `system(...)` or a pipe (`|`,
`"cmd" | getline`), GNU sed's `e` command or `s///e` flag (`--sandbox` forbids both). A debugger's own
commands (`gdb -ex CMD`, `lldb -o CMD`) are opaque but for the few that only run, inspect or quit.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from agentwrap.hooks.calls import Word


class Code(NamedTuple):
    short: str  # one-letter options whose value is code, also at the end of a cluster (`perl -lne CODE`)
    long: frozenset[str] = frozenset()  # long options whose value is code (`--eval CODE`, `--eval=CODE`)


_CODE: dict[str, Code] = {
    "node": Code("ep", frozenset({"--eval", "--print"})), "nodejs": Code("ep", frozenset({"--eval", "--print"})),
    "bun": Code("e", frozenset({"--eval", "--print"})), "deno": Code("", frozenset({"eval"})),
    "perl": Code("eE"), "ruby": Code("e"), "php": Code("rBRE"), "lua": Code("e"), "luajit": Code("e"),
    "Rscript": Code("e"), "R": Code("e"), "osascript": Code("e"), "tclsh": Code(""), "julia": Code("eE"),
    "expect": Code("c"),
    **{name: Code("c", frozenset({"--cmd"})) for name in ("vi", "vim", "nvim", "ex", "view", "gvim", "vimdiff")},
}
_PYTHON_VALUES = "WX"  # python's options with a value; every other one is a flag
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_AWK_VALUES = frozenset("FvfeilEW")  # -F FS, -v VAR=VAL, -f FILE, -e TEXT, -i/-l FILE, -E FILE, -W OPT
_AWK_LONG = {"--field-separator": "F", "--assign": "v", "--file": "f", "--source": "e", "--include": "i",
             "--load": "l", "--exec": "E"}
_AWK_RUNS = re.compile(r"system|\||@")  # system(), `print | "cmd"`, `"cmd" | getline`, gawk's @load
_GDB_COMMANDS = frozenset({"ex", "iex", "eval-command", "init-eval-command"})  # with one dash or two
_LLDB_COMMANDS = frozenset({"-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"})
_DEBUGGER_SAFE = re.compile(r"r|run|start|starti|process launch|c|continue|bt|backtrace|where|bt full|backtrace full"
                            r"|thread backtrace( all)?|thread apply all (bt|backtrace)( full)?|info [a-z ]+|q|quit"
                            r"|kill|up|down|(f|frame) [0-9]+|list|l|set (pagination|confirm) (on|off)"
                            r"|set (width|height) [0-9]+|set print pretty( on)?|disassemble|register read")
_SED_LONG = {"--expression": "e", "--file": "f", "--line-length": "l"}


def opaque(words: tuple[Word, ...]) -> bool:
    """Whether the command (its program first, wrappers taken off) runs code agentwrap cannot read."""
    if not words or words[0].value is None:
        return False
    name = os.path.basename(words[0].value)
    args = words[1:]
    if name.startswith(("python", "pypy")) and re.fullmatch(r"(python|pypy)[0-9.]*", name):
        return _python(args)
    if name in _AWKS:
        return _awk(args)
    if name == "sed" or name == "gsed":
        return _sed(args)
    if name in ("gdb", "lldb"):
        return _debugger(name, args)
    if name in _CODE:
        spec = _CODE[name]
        if name in ("vi", "vim", "nvim", "ex", "view", "gvim", "vimdiff") and any(
                (w.value or "+x").startswith("+") and not (w.value or "")[1:].isdigit() for w in args):
            return True  # `vim +CMD`: an ex command (`+42` only moves to line 42)
        return any(_gives_code(w, spec) for w in args)
    return False


def _debugger(name: str, args: tuple[Word, ...]) -> bool:
    """Whether a debugger is given a command of its own that can run another program (`gdb -ex 'shell rm
    x'`, `-ex 'print system(...)'`, `-ex 'run $(...)'`: gdb starts the program through a shell): every
    command but the few that only run, inspect or leave (`-ex run -ex bt`) is."""
    for i, word in enumerate(args):
        value = word.value
        if value is None or value in ("--args", "-args", "--"):
            return value is None
        option, eq, rest = value.partition("=")
        option = option.lstrip("-") if name == "gdb" else option
        if option in (_GDB_COMMANDS if name == "gdb" else _LLDB_COMMANDS):
            given = rest if eq else (args[i + 1].value if i + 1 < len(args) else "")
            if given is None or not _DEBUGGER_SAFE.fullmatch(given.strip()):
                return True
    return False


def _gives_code(word: Word, spec: Code) -> bool:
    value = word.value
    if value is None:
        return False  # a word known only when the line runs is an argument, not an option agentwrap reads
    if value.split("=", 1)[0] in spec.long:
        return True
    return value.startswith("-") and not value.startswith("--") and bool(set(value[1:]) & set(spec.short))


def _python(args: tuple[Word, ...]) -> bool:
    """`python [OPTIONS] -c CODE`: options end at the script, `-m MODULE` or `-` (what follows is theirs)."""
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            return True  # a word known only when the line runs, where an option may stand: `-c CODE` too
        if not value.startswith("-") or value in ("-", "--"):
            return False
        i += 1
        if value.startswith("--"):
            i += value == "--check-hash-based-pycs"
            continue
        for j, letter in enumerate(value[1:], 1):
            if letter == "c":
                return True
            if letter == "m":
                return False  # `-m MODULE`: the module's own arguments follow
            if letter in _PYTHON_VALUES:
                i += j + 1 == len(value)  # `-W ignore` (`-Wignore` holds its value)
                break
    return False


def _cluster_values(args: tuple[Word, ...], takes: frozenset[str] | str, long: dict[str, str], ends: str = ""
                    ) -> tuple[list[tuple[str, Word]], list[Word], bool]:
    """getopt-style reading: (option letter, its value) pairs, the positional words, and whether a word
    known only when the line runs stood among the options. A letter of `ends` holds the rest of its word
    (sed's `-i.bak`), whatever letters that rest is made of."""
    pairs: list[tuple[str, Word]] = []
    positionals: list[Word] = []
    unknown = False
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value
        if value is None:
            unknown = unknown or not positionals
            positionals.append(word)
        elif value == "--":
            positionals.extend(args[i + 1:])
            break
        elif value.startswith("--"):
            name, eq, rest = value.partition("=")
            letter = long.get(name)
            if letter and eq:
                pairs.append((letter, word._replace(value=rest)))
            elif letter and i + 1 < len(args):
                pairs.append((letter, args[i + 1]))
                i += 1
        elif value.startswith("-") and len(value) > 1:
            for j, letter in enumerate(value[1:], 1):
                if letter in ends:
                    break
                if letter in takes:
                    if j + 1 < len(value):
                        pairs.append((letter, word._replace(value=value[j + 1:])))
                    elif i + 1 < len(args):
                        pairs.append((letter, args[i + 1]))
                        i += 1
                    break
        else:
            positionals.append(word)
        i += 1
    return pairs, positionals, unknown


def _awk(args: tuple[Word, ...]) -> bool:
    pairs, positionals, unknown = _cluster_values(args, _AWK_VALUES, _AWK_LONG)
    texts = [w for letter, w in pairs if letter == "e"]
    if not any(letter in "fE" for letter, _ in pairs) and not texts:
        texts = positionals[:1]  # no program file: the first operand is the program
    return unknown or any(w.value is None or _AWK_RUNS.search(w.value) for w in texts)


def _sed(args: tuple[Word, ...]) -> bool:
    if any(w.value == "--sandbox" for w in args):
        return False  # e, r and w are refused
    pairs, positionals, unknown = _cluster_values(args, "efl", _SED_LONG, ends="i")
    scripts = [w for letter, w in pairs if letter == "e"]
    if not any(letter == "f" for letter, _ in pairs) and not scripts:
        scripts = positionals[:1]
    return unknown or any(w.value is None or sed_runs(w.value) for w in scripts)


def _skip_regex(text: str, i: int, delim: str) -> int:
    """The index after the closing `delim` of a regex starting at `i` (`[/]` holds a literal one); -1: none."""
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == delim:
            return i + 1
        elif c == "[":
            close = re.match(r"\[\^?\]?(?:\[:[a-z]+:\]|[^\]])*\]", text[i:])
            i += close.end() if close else 1
        else:
            i += 1
    return -1


def _skip_text(text: str, i: int, stops: str) -> int:
    """The index of the first unescaped character of `stops` from `i` (or the end)."""
    while i < len(text) and text[i] not in stops:
        i += 2 if text[i] == "\\" else 1
    return i


def sed_runs(script: str) -> bool:
    """Whether a sed script can run a command (GNU `e`, `s///e`); True for anything not read here."""
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!,$~+0123456789":  # separators, blocks, negation, line addresses
            i += 1
        elif c in "/\\":  # a regex address, `/re/` or `\cREc`, then its I and M flags
            delim, start = ("/", i + 1) if c == "/" else (script[i + 1:i + 2], i + 2)
            i = _skip_regex(script, start, delim) if delim and delim not in "\n\\" else -1
            if i < 0:
                return True
            while i < n and script[i] in "IM":
                i += 1
        elif c == "#" or c in "aicrRwW":  # a comment, text, a file name: to the end of the line
            i = _skip_text(script, i + 1, "\n")
        elif c in ":btTv":  # a label or version: to `;` or the line's end (sed may read less; never more)
            i = _skip_text(script, i + 1, ";\n")
        elif c in "sy":
            delim = script[i + 1:i + 2]
            if not delim or delim in "\n\\":
                return True
            i = _skip_regex(script, i + 2, delim)
            i = -1 if i < 0 else _skip_text(script, i, delim)
            if i >= n:
                return True  # unterminated: sed refuses it, agentwrap does not guess
            i += 1
            flags = re.match(r"[gpiImM0-9e]*w?", script[i:]) if c == "s" else None
            if flags:
                if "e" in flags.group():
                    return True
                i += flags.end()
                if flags.group().endswith("w"):
                    i = _skip_text(script, i, "\n")
        elif c == "e":
            return True
        elif c in "=dDgGhHlLnNpPqQxzF":
            i += 1
        else:
            return True
    return False
