"""Which tools printed a stretch of log: signatures of each tool's own output, mapped to adapters.

A signature only picks which adapters read the text; the adapters' own rules and parsers decide what
is a problem, so detection errs on the side of including a tool.
"""

from __future__ import annotations

from agentwrap.lazyre import lazy

_M = 8  # re.MULTILINE

SIGNATURES: tuple[tuple[str, object], ...] = (
    ("pytest", lazy(r"^=+ (?:test session starts|short test summary info|FAILURES|ERRORS) =+$"
                    r"|^(?:FAILED|ERROR) \S+\.py::", _M)),
    ("cargo", lazy(r"^(?:error|warning)(?:\[E\d{4}\])?: .*\n\s*--> \S+:\d+:\d+"
                   r"|^\s*(?:Compiling|Finished|Running) .*\(|^error: could not compile", _M)),
    ("gcc", lazy(r"^[^\s:]+\.(?:c|h|cc|cpp|cxx|hpp|hh|hxx|C|m|mm|i|ii|s|S):\d+(?::\d+)?: "
                 r"(?:fatal error|error|warning|note):|undefined reference to|collect2: error|"
                 r"^(?:gcc|g\+\+|cc|c\+\+|clang(?:\+\+)?)(?:-\d+)?: (?:fatal )?error:", _M)),
    ("npm", lazy(r"^npm (?:ERR!|error|warn) ", _M)),
    ("node", lazy(r"^\s+at (?:\S+ )?\(?(?:/|file:|node:|[A-Za-z]:\\)[^\n]*:\d+:\d+\)?$", _M)),
    ("python", lazy(r"^Traceback \(most recent call last\):$|^\s+File \"[^\"]+\", line \d+", _M)),
    ("make", lazy(r"^g?make(?:\[\d+\])?: \*\*\*", _M)),
    ("mypy", lazy(r"^[^\s:]+\.pyi?:\d+:(?:\d+:)? (?:error|note|warning): .*(?:\[[a-z-]+\])?$"
                  r"|^Found \d+ errors? in \d+ files?", _M)),
    ("ruff", lazy(r"^[^\s:]+\.pyi?:\d+:\d+: [A-Z]{1,4}\d{2,4}\b", _M)),
    ("tsc", lazy(r"^[^\s(]+\.(?:ts|tsx|mts|cts)(?:\(\d+,\d+\)|:\d+:\d+) ?[:-] ?error TS\d+:", _M)),
    ("eslint", lazy(r"^\s+\d+:\d+\s+(?:error|warning)\s+.+$|^✖ \d+ problems?", _M)),
)


def tools_in(text: str, known: set[str]) -> list[str]:
    """Adapters whose output appears in `text`, in the order above (only those that exist)."""
    return [name for name, pattern in SIGNATURES if name in known and pattern.search(text)]  # type: ignore[attr-defined]
