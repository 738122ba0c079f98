"""A missing module that is the project's own code: `No module named 'pkg'` beside `./pkg/__init__.py`.

Python puts the script's folder first on sys.path (`python sub/use.py` -> `sub/`), and pytest the test
file's folder (its `rootdir`-less basedir): the project's own package at the root is then not importable.
`pip install pkg` would install whatever a stranger published under that name on PyPI, so the fix is the
path, never the install. Shared by the python and pytest adapters.

This reads the run's folder (`CapturedRun.cwd`, live runs only: a replayed fixture's folder is not this
machine's): the folder a search starts in, then its parents up to the project root (the first folder with
`.git`, `pyproject.toml`, `setup.py` or `setup.cfg`), and the root's `src/`. Without a root in sight only
the starting folders themselves are read.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from agentwrap.sdk import CodeAction

ROOT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
_INSTALLABLE = ("pyproject.toml", "setup.py", "setup.cfg")
MAX_DEPTH = 40  # parents read at most on the way to a root


class LocalModule(NamedTuple):
    """The project's own module `name` at `path`, importable when `folder` is on sys.path."""

    name: str
    path: str  # the package folder or the module file, absolute
    folder: str  # the folder that holds it: what sys.path lacks
    root: str | None  # the project root, when one was found

    @property
    def installable(self) -> bool:
        """Whether `pip install -e ROOT` can install the project (the root has packaging metadata)."""
        return self.root is not None and any(os.path.isfile(os.path.join(self.root, m)) for m in _INSTALLABLE)


def _is_module(folder: str, name: str) -> str | None:
    """`folder/name` as a package (a folder holding `__init__.py` or `.py` files) or `folder/name.py`."""
    package = os.path.join(folder, name)
    if os.path.isdir(package):
        try:
            with os.scandir(package) as entries:
                if any(e.name.endswith(".py") and e.is_file() for e in entries):
                    return package
        except OSError:
            return None
    module = package + ".py"
    return module if os.path.isfile(module) else None


def _folders(start: str) -> tuple[list[str], str | None]:
    """`start` and its parents up to the project root (with the root), and the root; `[start]` alone when
    no root is above it."""
    out, folder = [start], start
    for _ in range(MAX_DEPTH):
        if any(os.path.exists(os.path.join(folder, m)) for m in ROOT_MARKERS):
            return out, folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        out.append(parent)
        folder = parent
    return [start], None


def find(module: str, starts: Iterable[str | None]) -> LocalModule | None:
    """The project's own top-level module `module` seen from the first of `starts` (absolute folders)
    that has it in reach; None for a dotted name (its package was found: a part of it is missing) or
    one no folder holds."""
    if not module.isidentifier():
        return None
    for start in dict.fromkeys(s for s in starts if s and os.path.isabs(s) and os.path.isdir(s)):
        folders, root = _folders(os.path.normpath(start))
        if root is not None:
            folders.append(os.path.join(root, "src"))
        for folder in folders:
            path = _is_module(folder, module)
            if path is not None:
                return LocalModule(module, path, folder, root)
    return None


def starts(cwd: str | None, *files: str | None) -> list[str]:
    """The folders a search starts in: those of `files` (the importing file, the script; relative to the
    run's folder), then the run's folder. Nothing without the run's folder (a replay)."""
    if cwd is None:
        return []
    found = [os.path.dirname(os.path.join(cwd, f)) for f in files if f and not f.startswith("<")]
    return [*found, cwd]


def _shown(path: str, cwd: str) -> str:
    """`path` relative to the run's folder when it is inside it (`pkg`), else absolute."""
    relative = os.path.relpath(path, cwd)
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def _as_module(script: str, cwd: str, folder: str) -> str | None:
    """`sub.use` for `sub/use.py` under `folder` (the folder that holds the package), each part an identifier."""
    relative = os.path.relpath(os.path.join(cwd, script), folder)
    parts = relative.removesuffix(".py").split(os.sep)
    exact = script.endswith(".py") and all(p.isidentifier() for p in parts)
    return ".".join(parts) if exact else None


def _with_path(argv: Sequence[str], folder: str) -> tuple[str, ...]:
    return ("env", f"PYTHONPATH={folder}", *argv)


def _kind(local: LocalModule) -> str:
    return "package" if os.path.isdir(local.path) else "module"


def python_fix(local: LocalModule, argv: Sequence[str], cwd: str, script: str | None, installer: Sequence[str],
               *, target: str | None = None) -> tuple[str, tuple[CodeAction, ...], dict[str, Any]]:
    """(fix, actions, facts) for `python [OPTIONS] SCRIPT|-c|-m` that missed the project's own module.
    Preferred: the same command with the folder on PYTHONPATH (the same folder, the same arguments); the
    `-m` form only when the run's folder is that folder (a script's relative paths resolve the same).
    `target`: the module of `-m TARGET`, which python finds from the folder it runs in: running it from
    the folder that holds the package is then the other way."""
    if script:
        folder = _shown(os.path.dirname(os.path.join(cwd, script)), cwd)
        first = f"the script's folder ({folder})" if folder else "the script's folder (the current one)"
    else:
        first = "the current folder"
    module = _as_module(script, cwd, local.folder) if script else None
    at = list(argv).index(script) if script and script in argv else -1
    before = list(argv[:at]) if at > 0 else []
    if before[-1:] == ["--"]:
        before.pop()
    ways = [f"set `PYTHONPATH={local.folder}`"]
    actions = [CodeAction(title=f"Run with {local.folder} on PYTHONPATH", command=_with_path(argv, local.folder),
                          applicability="machine_applicable", is_preferred=True)]
    if module and before:
        here = os.path.normpath(cwd) == os.path.normpath(local.folder)
        ways.append(f"run it as a module from {local.folder} (`{shlex.join([*before, '-m', module])}`"
                    f"{'' if here else ' there: relative paths then resolve from there'})")
        if here:
            actions.append(CodeAction(title=f"Run {script} as module {module}",
                                      command=(*before, "-m", module, *argv[at + 1:]),
                                      applicability="machine_applicable"))
    if target and os.path.normpath(cwd) != os.path.normpath(local.folder):
        ways.append(f"run `{shlex.join([argv[0], '-m', target])}` from {local.folder}, the folder that holds "
                    f"{local.name} (relative paths then resolve from there)")
        actions.append(CodeAction(title=f"Run from {local.folder}", command=tuple(argv), cwd=local.folder,
                                  applicability="maybe_incorrect"))
    if local.installable and local.root:
        ways.append(f"install the project editable (`{shlex.join([*installer, '-e', local.root])}`)")
    fix = (f"'{local.name}' is this project's own {_kind(local)} at {_shown(local.path, cwd)}, not a distribution "
           f"to install: Python put {first}, not {local.folder}, first on sys.path. {_sentence(ways)}. Do not "
           f"`pip install {local.name}`: that name on PyPI is someone else's.")
    return fix, tuple(actions), _facts(local)


def pytest_fix(local: LocalModule, argv: Sequence[str], cwd: str, installer: Sequence[str],
               ) -> tuple[str, tuple[CodeAction, ...], dict[str, Any]]:
    """(fix, actions, facts) for a test module that could not import the project's own module."""
    where = _shown(local.path, cwd)
    ini = local.root or local.folder
    ways = [f"set `PYTHONPATH={local.folder}`",
            f"add `pythonpath = {os.path.relpath(local.folder, ini)}` to the pytest configuration in {ini} "
            "(pytest>=7; `[tool.pytest.ini_options]` in pyproject.toml or pytest.ini)",
            f"run `python -m pytest` from {local.folder} (it puts the current folder on sys.path)"]
    if local.installable and local.root:
        ways.append(f"install the project editable (`{shlex.join([*installer, '-e', local.root])}`)")
    fix = (f"'{local.name}' is this project's own {_kind(local)} at {where}, not a distribution to install: "
           f"pytest put the test file's folder, not {local.folder}, on sys.path. {_sentence(ways)}. Do not "
           f"`pip install {local.name}`: that name on PyPI is someone else's.")
    action = CodeAction(title=f"Run with {local.folder} on PYTHONPATH", command=_with_path(argv, local.folder),
                        applicability="machine_applicable", is_preferred=True)
    return fix, (action,), _facts(local)


def _facts(local: LocalModule) -> dict[str, Any]:
    return {"local_module": local.path, "sys_path_needs": local.folder,
            **({"project_root": local.root} if local.root else {})}


def _sentence(ways: list[str]) -> str:
    text = ", ".join(ways[:-1]) + (", or " if len(ways) > 1 else "") + ways[-1]
    return text[:1].upper() + text[1:]
