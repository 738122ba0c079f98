"""Which tools printed a stretch of log: signatures of each tool's own output, mapped to adapters.

A signature only picks which adapters read the text; the adapters' own rules and parsers decide what
is a problem, so detection errs on the side of including a tool.
"""

from __future__ import annotations

import re

from agentwrap.lazyre import lazy

_M = 8  # re.MULTILINE

# (adapter, literals one of which the text must contain, signature). The literal test runs at memchr
# speed; the regex, which tries every line start, only on windows that passed it.
SIGNATURES: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    ("pytest", ("test session starts", "short test summary info", "= FAILURES =", "= ERRORS =", ".py::"),
     lazy(r"^=+ (?:test session starts|short test summary info|FAILURES|ERRORS) =+$|^(?:FAILED|ERROR) \S+\.py::", _M)),
    ("cargo", (" --> ", "Compiling ", "Finished ", "could not compile"),
     lazy(r"^(?:error|warning)(?:\[E\d{4}\])?: .*\n\s*--> \S+:\d+:\d+"
          r"|^\s*(?:Compiling|Finished|Running) .*\(|^error: could not compile", _M)),
    ("gcc", (": error:", ": warning:", ": fatal error:", ": note:", "undefined reference", "collect2"),
     # a path may hold a space (`my dir/a.c`) or colons (`v1:2/a.c`), not both
     lazy(r"^(?:[^\s:]+(?::[^\s:]+)*|[^\s:][^:\n]*)\.(?:c|h|cc|cpp|cxx|hpp|hh|hxx|C|m|mm|i|ii|s|S)"
          r":\d+(?::\d+)?: "
          r"(?:fatal error|error|warning|note):|undefined reference to|collect2: error|"
          r"^(?:gcc|g\+\+|cc|c\+\+|clang(?:\+\+)?)(?:-\d+)?: (?:fatal )?error:", _M)),
    ("npm", ("npm ERR!", "npm error", "npm warn"), lazy(r"^npm (?:ERR!|error|warn) ", _M)),
    ("node", ("    at ",), lazy(r"^\s+at (?:\S+ )?\(?(?:/|file:|node:|[A-Za-z]:\\)[^\n]*:\d+:\d+\)?$", _M)),
    ("python", ("Traceback (most recent call last)", 'File "'),
     lazy(r"^Traceback \(most recent call last\):$|^\s+File \"[^\"]+\", line \d+", _M)),
    ("make", ("***",), lazy(r"^g?make(?:\[\d+\])?: \*\*\*", _M)),
    ("mypy", (": error:", ": note:", ": warning:", "Found "),
     # line, line:column, or line:column:end line:end column (--show-error-end)
     lazy(r"^[^\s:]+\.pyi?:\d+:(?:\d+:(?:\d+:\d+:)?)? (?:error|note|warning): |^Found \d+ errors? in \d+ files?",
          _M)),
    ("ruff", (".py:", " --> "),
     lazy(r"^[^\s:]+\.pyi?:\d+:\d+: [A-Z]{1,4}\d{2,4}\b|^(?:[A-Z]{1,4}\d{2,4}(?: \[\*\])? .+|invalid-syntax: .+)"
          r"\n\s*--> \S+\.(?:pyi?|ipynb):\d+:\d+", _M)),
    ("tsc", ("error TS",), lazy(r"^[^\s(]+\.(?:ts|tsx|mts|cts)(?:\(\d+,\d+\)|:\d+:\d+) ?[:-] ?error TS\d+:", _M)),
    ("terraform", ("Error: ", "Warning: "), lazy(r"^[│╷ ]*(?:Error|Warning): .+\n(?:[│ ]*\n)?[│ ]*on \S+ line \d+"
                                                 r"|^[│╷]\s*Error: ", _M)),
    ("kubectl", ("Error from server", "The connection to the server", "Unable to connect to the server"),
     lazy(r"^Error from server(?: \(\w+\))?: |^The connection to the server \S+ was refused"
          r"|^Unable to connect to the server: ", _M)),
    ("docker", ("Error response from daemon", "Cannot connect to the Docker daemon"),
     lazy(r"^(?:docker: )?Error response from daemon: |^Cannot connect to the Docker daemon at ", _M)),
    ("eslint", ("  error  ", "  warning  ", "✖ "),
     lazy(r"^\s+\d+:\d+\s+(?:error|warning)\s+.+$|^✖ \d+ problems?", _M)),
)


def tools_in(text: str, known: set[str]) -> list[str]:
    """Adapters whose output appears in `text`, in the order above (only those that exist)."""
    return [name for name, literals, pattern in SIGNATURES
            if name in known and any(literal in text for literal in literals) and pattern.search(text)]
