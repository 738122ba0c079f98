"""agentwrap: run ordinary command-line tools for agents and return one bounded JSON envelope."""

__version__ = "0.1.0"
SCHEMA_VERSION = "1.0"
