"""`--read-only` for programs without an adapter (safety/dry_runs.toml lists them): the arguments that make a
program that otherwise only reads write a file or run a command (`sed -Ei`, `sed 'w FILE'`, `rg --pre CMD`,
`sort -ro FILE`, `xxd IN OUT`). Each rule answers why, or None when the arguments only read."""

from __future__ import annotations

import os
from collections.abc import Callable

from agentwrap.safety import sed_script

Rule = Callable[[list[str]], "str | None"]


def hazard(argv: list[str]) -> str | None:
    """Why `argv` writes or runs something although its program only reads by default; None if it does not."""
    rule = _RULES.get(os.path.basename(argv[0]))
    return rule(_options_part(argv[1:])) if rule else None


def _options_part(args: list[str]) -> list[str]:
    return args[:args.index("--")] if "--" in args else args


def _cluster(arg: str, letter: str, with_value: str) -> bool:
    """A short-option word (`-Ei`, `-ro`) holds `letter` before any letter taking the rest as its value."""
    if not arg.startswith("-") or arg.startswith("--"):
        return False
    for char in arg[1:]:
        if char == letter:
            return True
        if char in with_value:
            return False
    return False


def _sed(args: list[str]) -> str | None:
    if any(_cluster(a, "i", "efl") or a.startswith("--in-place") for a in args):
        return "`-i` edits the files in place"
    if any(_cluster(a, "f", "el") or a.startswith("--file") for a in args):
        return "a sed script file (`-f`) is not read beforehand, so what it does is unknown"
    if "--sandbox" in args:  # GNU sed itself then refuses w, W, e and r
        return None
    if any(sed_script.writes(script) for script in _sed_scripts(args)):
        return "the sed script writes a file or runs a command (`w`, `W`, `e`, `s///w`, `s///e`)"
    return None


def _sed_scripts(args: list[str]) -> list[str]:
    """The `-e` scripts (`-e S`, `-ne S`, `-eS`, `--expression=S`), else the first operand."""
    scripts: list[str] = []
    operands: list[str] = []
    words = iter(args)
    for arg in words:
        if arg in ("--expression", "--line-length"):
            value = next(words, "")
            scripts += [value] if arg == "--expression" else []
        elif arg.startswith("--expression="):
            scripts.append(arg.partition("=")[2])
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            for at, letter in enumerate(arg[1:], 2):
                if letter in "el":  # the rest of the word, or the next word, is the value
                    value = arg[at:] or next(words, "")
                    scripts += [value] if letter == "e" else []
                    break
        elif not arg.startswith("-") or arg == "-":
            operands.append(arg)
    return scripts or operands[:1]


def _sort(args: list[str]) -> str | None:
    if any(_cluster(a, "o", "ktST") or a.startswith("--output") for a in args):
        return "`-o FILE` writes the sorted lines to FILE"
    if any(a.startswith("--compress-program") for a in args):
        return "`--compress-program` runs that program"
    return None


def _rg(args: list[str]) -> str | None:
    if any(a == "--pre" or a.startswith("--pre=") for a in args):
        return "`--pre COMMAND` runs that command on every file searched"
    return None


def _less(args: list[str]) -> str | None:
    if any(a.startswith("+") for a in args):
        return "a `+COMMAND` argument runs less commands, and `!` runs a shell command"
    short = [a for a in args if a[:1] == "-" and a[1:2] != "-"]
    logs = any(a.startswith(("--log-file", "--LOG-FILE")) for a in args)
    if logs or any(set(a) & {"o", "O"} for a in short):
        return "`-o FILE` copies the input to FILE"
    return None


_XXD_VALUE = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n",
                        "-name"})


def _xxd(args: list[str]) -> str | None:
    operands, skip = 0, False
    for arg in args:
        if skip:
            skip = False
        elif arg in _XXD_VALUE:
            skip = True
        elif arg == "-" or not arg.startswith("-"):
            operands += 1
    return "a second file operand is the file xxd writes" if operands >= 2 else None


def _tree(args: list[str]) -> str | None:
    if "-o" in args:
        return "`-o FILE` writes the listing to FILE"
    if "-R" in args:
        return "`-R` writes a 00Tree.html into every folder"
    return None


def _file(args: list[str]) -> str | None:
    if any(_cluster(a, "C", "efFmP") or a == "--compile" for a in args):
        return "`-C` writes a compiled magic file"
    return None


_DATE_VALUE = frozenset({"-d", "--date", "-f", "--file", "-r", "--reference"})


def _date(args: list[str]) -> str | None:
    if any(_cluster(a, "s", "dfrI") or a.startswith("--set") for a in args):
        return "`-s` sets the system clock"
    after_value = [False] + [a in _DATE_VALUE for a in args[:-1]]
    if any(not a.startswith(("-", "+")) and not value for a, value in zip(args, after_value, strict=True)):
        return "an operand other than +FORMAT sets the system clock"
    return None


def _hostname(args: list[str]) -> str | None:
    if any(not a.startswith("-") or a in ("-F", "--file", "-b", "--boot") or a.startswith("--file=")
           for a in args):
        return "a name (or `-F FILE`) sets the host name"
    return None


_RULES: dict[str, Rule] = {"sed": _sed, "sort": _sort, "rg": _rg, "less": _less, "xxd": _xxd, "tree": _tree,
                           "file": _file, "date": _date, "hostname": _hostname}
