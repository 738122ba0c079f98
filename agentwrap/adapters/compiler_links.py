"""The linker's failures (gcc and clang run it, alone or under make): which problem codes are the
linker's (`LINKER_CODES`: a build's summary counts them apart from the compiler's errors), and
`link_fixed`, which gives a failed link (GCC_LINK_FAILED) a fix made of the linker errors printed before
it: the symbols it could not resolve, the libraries it could not find, the files it linked.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentwrap.lazyre import lazy
from agentwrap.sdk import Problem

#: The linker's failures (gcc and clang run it): a build's summary counts them apart from the compiler's errors.
LINKER_CODES = frozenset({"GCC_UNDEFINED_REFERENCE", "GCC_MULTIPLE_DEFINITION", "GCC_LIBRARY_NOT_FOUND",
                          "GCC_LINK_FAILED"})
_SYMBOL = lazy(r"(?:undefined reference to|multiple definition of) [`‘'](?P<symbol>[^'’\n]+)['’]|"
               r"(?:undefined|duplicate) symbol: (?P<bare>.+)$")
_LIBRARY = lazy(r"-l[^\s:]+")
_MAX_NAMED = 6


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_MAX_NAMED])
    return shown + (f" and {len(names) - _MAX_NAMED} more" if len(names) > _MAX_NAMED else "")


def link_fixed(problems: Sequence[Problem], inputs: Sequence[str] | None, output: str | None) -> list[Problem]:
    """GCC_LINK_FAILED's fix in the facts of the linker's errors printed before it: the symbols it could not
    resolve and the files it linked (`inputs`, into `output`, when the link command is known). The linker's
    own lines are problems of their own, so "its messages above this line" would point at nothing."""
    out: list[Problem] = []
    since: list[Problem] = []  # the linker's errors since the last failed link
    files = f" ({_listed(inputs)})" if inputs else ""
    into = f" linked into {output}" if output else " linked"
    for p in problems:
        if p.code != "GCC_LINK_FAILED":
            since += [p] if p.code in LINKER_CODES else []
            out.append(p)
            continue
        fix = _link_fix(since, files, into)
        out.append(p._replace(suggested_fix=fix) if fix else p)
        since = []
    return out


def _symbols(problems: Sequence[Problem], code: str) -> list[str]:
    found = [m.group("symbol") or m.group("bare").strip() for p in problems
             if p.code == code and (m := _SYMBOL.search(p.detail))]
    return list(dict.fromkeys(found))


def _link_fix(errors: Sequence[Problem], files: str, into: str) -> str | None:
    undefined = _symbols(errors, "GCC_UNDEFINED_REFERENCE")
    if undefined:
        one = len(undefined) == 1
        names = _listed([f"'{s}'" for s in undefined])
        it = "it" if one else "them"
        return (f"{names} {'is' if one else 'are'} used but defined in none of the files{into}{files}: define "
                f"{it} in one of their sources, or add the object file or library (-l<lib>) that defines {it} to "
                "the link.")
    doubled = _symbols(errors, "GCC_MULTIPLE_DEFINITION")
    if doubled:
        names = _listed([f"'{s}'" for s in doubled])
        return (f"{names} {'is' if len(doubled) == 1 else 'are'} defined more than once in the files{into}{files}: "
                "keep one definition (static, or extern in the header and defined in one .c file).")
    libraries = [m.group(0) for p in errors if p.code == "GCC_LIBRARY_NOT_FOUND" and (m := _LIBRARY.search(p.detail))]
    if libraries:
        return f"The linker found no library {_listed(libraries)}: install it or add its folder with -L<DIR>."
    return None
