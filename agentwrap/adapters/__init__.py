"""Built-in adapters, one module (`NAME.py` defining ADAPTER) or spec (`NAME.toml`) per tool family.

INDEX maps every program name an adapter matches to its file stem, so the registry can pick one
without importing or parsing the others; tests check it against each adapter's own `matches`.
"""

INDEX: dict[str, str] = {
    "make": "make", "gmake": "make",
}
