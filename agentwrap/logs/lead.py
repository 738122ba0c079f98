"""Text that build drivers put before a compiler's line, and clang's source ranges, taken off so the
compiler's own adapter reads the line as the compiler printed it.

`     [exec] /src/a.cpp:12: warning:` (Ant, Jenkins), ninja's `[11/40] `, cmake's `[ 11%] ` and `11% `,
Visual Studio Code tasks' `C/C++: `, indentation before a path, a compiler or clang-tidy command echoed
onto the diagnostic's line, and clang's
`a.c:47:15:{47:8-47:14}{47:17-47:24}: warning:` (-fdiagnostics-print-source-range-info).
"""

from __future__ import annotations

from agentwrap.lazyre import lazy

_PATHY = r"(?=[^\s:]*[\w)]:\d+[:,(]|[^\s(]+\(\d+(?:,\d+)?\): )"  # what follows must be a located line
# Indentation is taken off only before a C-family compiler's path: other tools indent on purpose
# (reek's entries, sorbet's related locations, pytest's frames).
_C_PATH = r"(?=[^\s:]*\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|ipp|tpp|m|mm|cu|cuh|f|f90|for):\d+[:,(])"
_LEAD = lazy(r"\n(?:(?:[ \t]*\[(?:exec|javac|echo|java|apply|cc|cxx|kotlinc|scalac)\][ \t]+|\[\d+/\d+\] "
             r"|\[[ \d]{2}\d%\] |[ \t]*\d{1,3}% |C/C\+\+: )" + _PATHY + r"|[ \t]{1,8}" + _C_PATH + ")")
# run-clang-tidy (and `make` without -s) echo a command; run in parallel, a diagnostic can land on the
# same line: `clang-tidy -p=build /src/a.cpp /src/a.cpp:12:3: warning: ...`. The command is taken off.
_ECHOED = lazy(r"\n(?:\S*/)?(?:clang-tidy|clang\+\+|clang|g\+\+|gcc|c\+\+|cc)(?:-\d+(?:\.\d+)*)? [^\n]*? "
               r"(?=[^\s:]+:\d+:\d+: (?:warning|error|note|fatal error): )")
_RANGES = lazy(r"(:\d+:\d+):(?:\{\d+:\d+-\d+:\d+\})+(?=:)")


def strip(text: str) -> str:
    """`text` starts with a newline; lines keep their count."""
    if ":" not in text:
        return text
    text = _LEAD.sub("\n", text)
    if "clang" in text or "cc" in text or "++" in text:
        text = _ECHOED.sub("\n", text)
    if ":{" in text:
        text = _RANGES.sub(r"\1", text)
    return text
