"""The code actions of compiler problems: a diagnostic's fix-its as edits, and the commands a template
cannot express (the Debian package of a missing header or library, the user's argv with a flag added,
dropped or replaced).

A fix-it's columns are the compiler's (display or byte columns); in a live run `Sources` reads the line
from the file to turn them into character columns, as an edit needs. `argv` is the compiler's own
command line when known, None when it ran inside another tool (then no action rewrites it).
"""

from __future__ import annotations

import dataclasses
import os
import re

from agentwrap.adapters import compiler_diagnostics as gp
from agentwrap.adapters.compiler_paths import shown_path
from agentwrap.sdk import CodeAction, Problem

# Debian packages for the headers and libraries people most often lack.
HEADER_PACKAGES = {
    "zlib.h": "zlib1g-dev", "openssl/": "libssl-dev", "curl/curl.h": "libcurl4-openssl-dev", "png.h": "libpng-dev",
    "jpeglib.h": "libjpeg-dev", "sqlite3.h": "libsqlite3-dev", "ffi.h": "libffi-dev", "bzlib.h": "libbz2-dev",
    "readline/": "libreadline-dev", "ncurses.h": "libncurses-dev", "curses.h": "libncurses-dev",
    "lzma.h": "liblzma-dev", "yaml.h": "libyaml-dev", "expat.h": "libexpat1-dev", "uuid/uuid.h": "uuid-dev",
    "Python.h": "python3-dev", "gmp.h": "libgmp-dev", "libxml/": "libxml2-dev", "event2/": "libevent-dev",
    "boost/": "libboost-dev", "gtest/": "libgtest-dev", "pcap.h": "libpcap-dev", "stdio.h": "libc6-dev",
    "stdlib.h": "libc6-dev", "sys/": "libc6-dev", "bits/": "libc6-dev", "linux/": "linux-libc-dev",
}
LIBRARY_PACKAGES = {"z": "zlib1g-dev", "ssl": "libssl-dev", "crypto": "libssl-dev", "curl": "libcurl4-openssl-dev",
                    "sqlite3": "libsqlite3-dev", "png": "libpng-dev", "ffi": "libffi-dev", "bz2": "libbz2-dev",
                    "ncurses": "libncurses-dev", "readline": "libreadline-dev", "uuid": "uuid-dev",
                    "gmp": "libgmp-dev", "xml2": "libxml2-dev", "yaml": "libyaml-dev", "pcap": "libpcap-dev"}
COMPONENT_PACKAGES = {"cc1plus": "g++", "cc1": "gcc", "cc1obj": "gobjc", "f951": "gfortran", "as": "binutils",
                      "ld": "binutils"}
_LIBM = frozenset(("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "exp2", "log",
                   "log2", "log10", "pow", "sqrt", "cbrt", "ceil", "floor", "fmod", "round", "trunc", "hypot", "fabs",
                   "lround", "sinf", "cosf", "sqrtf", "powf", "expf", "logf", "floorf", "ceilf"))


def fix_actions(diag: gp.Diag, sources: Sources, cwd: str | None) -> list[CodeAction]:
    """The fix-its of a diagnostic and of its notes as edits, the diagnostic's own first (preferred)."""
    actions: list[CodeAction] = []
    for owner, from_note in ((diag, False), *((n, True) for n in diag.notes)):
        for fix in owner.fixes:
            fix = sources.in_characters(fix)
            title = _describe(fix, _replaced(fix, owner, sources), shown_path(fix.file, cwd))
            actions.append(CodeAction(title=title + (f" ({owner.message})" if from_note else ""),
                                      kind="edit", edit=fix.edit(), is_preferred=not actions,
                                      applicability=gp.applicability(owner, fix, from_note=from_note)))
    return actions


def tabstop(argv: tuple[str, ...] | None) -> int:
    """The tab width the compiler counted display columns with (`-ftabstop=N`, else 8)."""
    for arg in argv or ():
        if arg.startswith("-ftabstop=") and arg[10:].isdigit():
            return int(arg[10:]) or 8
    return 8


class Sources:
    """Source lines read from the project (live runs only) to turn display or byte columns into characters."""

    MAX_BYTES = 4 << 20

    def __init__(self, readable: bool, tabstop: int) -> None:
        self.readable, self.tabstop = readable, tabstop
        self._lines: dict[str, list[str] | None] = {}

    def line(self, file: str, number: int) -> str | None:
        # a relative path is one whose folder is not known: reading it from ours could read another file
        if not self.readable or not os.path.isabs(file):
            return None
        if file not in self._lines:
            try:
                with open(file, "rb") as f:
                    data = f.read(self.MAX_BYTES + 1)
                self._lines[file] = None if len(data) > self.MAX_BYTES else data.decode(
                    "utf-8", "replace").split("\n")
            except OSError:
                self._lines[file] = None
        lines = self._lines[file]
        return lines[number - 1].rstrip("\r") if lines and 0 < number <= len(lines) else None

    def _column(self, text: str, column: int, unit: str) -> int:
        if unit == "byte":
            return len(text.encode()[:column - 1].decode("utf-8", "ignore")) + 1
        display = 0
        for index, ch in enumerate(text):
            if display >= column - 1:
                return index + 1
            display += self.tabstop - display % self.tabstop if ch == "\t" else gp.display_width(ch)
        return len(text) + 1 + max(0, column - 1 - display)

    def in_characters(self, fix: gp.Fix) -> gp.Fix:
        text = self.line(fix.file, fix.line)
        if text is None or fix.unit == "character":
            return fix
        end = self._column(text, fix.end_column, fix.unit) if fix.end_column is not None else None
        return dataclasses.replace(fix, column=self._column(text, fix.column, fix.unit), end_column=end,
                                   unit="character")


def _replaced(fix: gp.Fix, owner: gp.Diag, sources: Sources) -> str | None:
    """The text a replacement or deletion takes out, when the source line is known in the fix's columns: read
    from the file (character columns), or the line the compiler printed when every column is one character."""
    if fix.end_column is None:
        return None
    text = sources.line(fix.file, fix.line) if fix.unit == "character" else None
    if text is None and fix.unit == "display" and owner.line == fix.line and owner.source is not None:
        printed = owner.source
        text = printed if "\t" not in printed and gp.display_width(printed) == len(printed) else None
    old = text[fix.column - 1:fix.end_column - 1] if text is not None else ""
    return old if old.strip() and "`" not in old else None


def _describe(fix: gp.Fix, old: str | None = None, file: str | None = None) -> str:
    """An edit's title: what it changes (`Replace `widht` with `width``: the edit gives the place), or, when the
    text it takes out is not known, the place (`file`: the fix's as a text names it) and the new text."""
    if old is not None:
        return f"Replace `{old}` with `{fix.text}`" if fix.text else f"Delete `{old}`"
    at = f"{file or fix.file}:{fix.line}:{fix.column}"
    if fix.end_column is None:
        if fix.text.endswith("\n") and fix.column == 1:
            return f"Insert the line `{fix.text.strip()}` before {at}"
        return f"Insert `{fix.text}` at {at}"
    if not fix.text:
        return f"Delete {at}-{fix.end_column}"
    return f"Replace {at}-{fix.end_column} with `{fix.text}`"


def _with(argv: tuple[str, ...], *extra: str) -> tuple[str, ...]:
    return (argv[0], *extra, *argv[1:])


def header_actions(diag: gp.Diag, argv: tuple[str, ...] | None) -> list[CodeAction]:
    """A missing header: install the package that usually provides it (not for a `"project"` header), or
    add its folder to the include path (when the compiler's argv is known)."""
    header = diag.header or ""
    actions = []
    package = next((pkg for key, pkg in HEADER_PACKAGES.items() if header == key or
                    (key.endswith("/") and header.startswith(key))), None)
    if package and not (diag.source and f'"{header}"' in diag.source):
        actions.append(CodeAction(title=f"Install {package}, which usually provides <{header}>", is_preferred=True,
                                  command=("apt-get", "install", "-y", package), applicability="maybe_incorrect"))
    if argv:
        actions.append(CodeAction(title=f"Add the folder that holds {header} to the include path (replace <DIR>)",
                                  command=_with(argv, "-I<DIR>"), applicability="has_placeholders"))
    return actions


def augment(problem: Problem, m: re.Match[str], argv: tuple[str, ...] | None) -> Problem:
    """Code actions a template cannot express: package guesses, and the user's argv rewritten."""
    groups = {k: v for k, v in m.groupdict().items() if v}
    actions = list(problem.code_actions)
    if problem.code == "GCC_LIBRARY_NOT_FOUND" and "lib" in groups:
        lib = groups["lib"]
        known = LIBRARY_PACKAGES.get(lib)
        actions.append(CodeAction(title=f"Install the development package of lib{lib}" + (
            "" if known else f" (the name lib{lib}-dev is a guess: check `apt-cache search lib{lib}`)"),
            command=("apt-get", "install", "-y", known or f"lib{lib}-dev"), is_preferred=True,
            applicability="maybe_incorrect" if known else "has_placeholders"))
        if argv:
            actions.append(CodeAction(title=f"Add the folder that holds lib{lib}.so or .a (replace <DIR>)",
                                      command=_with(argv, "-L<DIR>"), applicability="has_placeholders"))
    elif problem.code in ("GCC_UNRECOGNIZED_OPTION", "GCC_UNKNOWN_WARNING_OPTION") and argv:
        option = groups.get("option", "")
        if option in argv:
            if "suggestion" in groups:
                actions.append(CodeAction(title=f"Use {groups['suggestion']} instead of {option}", is_preferred=True,
                                          command=tuple(groups["suggestion"] if a == option else a for a in argv),
                                          applicability="maybe_incorrect"))
            actions.append(CodeAction(title=f"Drop {option}", command=tuple(a for a in argv if a != option),
                                      applicability="maybe_incorrect"))
    elif problem.code == "GCC_COMPILER_MISSING" and groups.get("component") in COMPONENT_PACKAGES:
        package = COMPONENT_PACKAGES[groups["component"]]
        actions.append(CodeAction(title=f"Install {package}", command=("apt-get", "install", "-y", package),
                                  applicability="maybe_incorrect", is_preferred=True))
    elif problem.code == "GCC_UNDEFINED_REFERENCE" and argv:
        symbol = groups.get("symbol", "")
        flag = "-lm" if symbol in _LIBM else "-pthread" if symbol.startswith("pthread_") else (
            "-ldl" if symbol in ("dlopen", "dlsym", "dlclose", "dlerror") else None)
        if flag and flag not in argv:
            actions.append(CodeAction(title=f"Link with {flag}, which defines {symbol}", command=(*argv, flag),
                                      applicability="maybe_incorrect", is_preferred=True))
    return problem._replace(code_actions=tuple(actions)) if actions != list(problem.code_actions) else problem
