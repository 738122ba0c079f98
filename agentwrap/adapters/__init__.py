"""Built-in adapters, one module (`NAME.py` defining ADAPTER) or spec (`NAME.toml`) per tool family.

INDEX maps every program name an adapter matches to its file stem, so the registry can pick one
without importing or parsing the others; tests check it against each adapter's own `matches`.
"""

INDEX: dict[str, str] = {
    "git": "git",
    "python": "python",
    "pytest": "pytest", "py.test": "pytest",
    "pip": "pip",
    "npm": "npm", "npx": "npm",
    "node": "node",
    "cargo": "cargo", "rustc": "cargo",
    "gcc": "gcc", "g++": "gcc", "cc": "gcc", "c++": "gcc", "clang": "gcc", "clang++": "gcc",
    "make": "make", "gmake": "make",
    "curl": "curl",
    "ssh": "ssh", "scp": "ssh",
    "apt": "apt", "apt-get": "apt", "dpkg": "apt",
    "docker": "docker",
    "kubectl": "kubectl",
    "terraform": "terraform", "tofu": "terraform",
    "mypy": "mypy", "dmypy": "mypy",
    "ruff": "ruff",
    "tsc": "tsc",
    "eslint": "eslint",
    "grep": "grep", "egrep": "grep", "fgrep": "grep",
    "tar": "tar",
    "ls": "ls",
    "gpg": "gpg", "gpg2": "gpg",
}
