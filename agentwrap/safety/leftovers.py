"""Known leftovers of a mutating tool stopped half-way, each named with the command that cleans it up:
git's index.lock, dpkg's half-installed or half-configured packages, npm's partial node_modules."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any


def find(adapter: str, argv: list[str], cwd: str) -> list[dict[str, Any]]:
    finders = {"git": _git_index_lock, "apt": _dpkg_audit, "npm": _npm_partial}
    finder = finders.get(adapter)
    return finder(argv, Path(cwd)) if finder else []


def _git_dir(argv: list[str], cwd: Path) -> Path | None:
    if "-C" in argv[1:-1]:
        cwd = cwd / argv[argv.index("-C") + 1]
    for parent in (cwd, *cwd.parents):
        dot = parent / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():  # a worktree: `gitdir: PATH`
            text = dot.read_text(errors="replace").strip()
            if text.startswith("gitdir:"):
                return (parent / text[7:].strip()).resolve()
    return None


def _git_index_lock(argv: list[str], cwd: Path) -> list[dict[str, Any]]:
    git_dir = _git_dir(argv, cwd)
    if git_dir is None:
        return []
    locks = [p for p in (git_dir / "index.lock", git_dir / "HEAD.lock") if p.exists()]
    locks += [p for p in (git_dir / "refs").rglob("*.lock")] if (git_dir / "refs").is_dir() else []
    return [{"kind": "git_lock", "path": str(p),
             "detail": f"git was stopped while it held {p.name}: every later git command that writes will fail "
                       "until it is removed",
             "cleanup_command": ["rm", "-f", str(p)],
             "check_first": "no git process is still running in this repository (`pgrep -a git`)"} for p in locks]


def _dpkg_audit(argv: list[str], cwd: Path) -> list[dict[str, Any]]:
    """`dpkg --audit` lists packages left half-installed or half-configured; it changes nothing."""
    if os.path.basename(argv[0]) not in ("apt", "apt-get", "dpkg", "aptitude"):
        return []
    try:
        out = subprocess.run(["dpkg", "--audit"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    if not out.strip():
        return []
    return [{"kind": "dpkg_interrupted", "detail": out.strip()[:1000],
             "cleanup_command": ["dpkg", "--configure", "-a"],
             "check_first": "no apt or dpkg process is still running (`pgrep -a 'apt|dpkg'`)"}]


def _npm_partial(argv: list[str], cwd: Path) -> list[dict[str, Any]]:
    """npm writes node_modules/.package-lock.json last; node_modules without it (or with npm's
    .staging folder) is a partial install."""
    modules = cwd / "node_modules"
    if not modules.is_dir():
        return []
    if (modules / ".staging").exists() or not (modules / ".package-lock.json").exists():
        return [{"kind": "npm_partial_install", "path": str(modules),
                 "detail": "node_modules is incomplete: npm was stopped before it finished writing it",
                 "cleanup_command": ["npm", "ci"] if (cwd / "package-lock.json").exists() else ["npm", "install"]}]
    return []
