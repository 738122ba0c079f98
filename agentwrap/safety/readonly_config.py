"""`--read-only` and a tool's own configuration that is code, found the way the tool finds it: mypy's
`plugins =` (Python it imports), `python_executable` (a program it runs) and report files, in mypy.ini,
.mypy.ini, pyproject.toml or setup.cfg from the working folder up to the repository's top, then the user's;
ESLint's eslint.config.js/.mjs/.cjs/.ts (a flat configuration is JavaScript ESLint runs), from the working
folder up and in the folders it lints (ESLint 10 looks one up beside each file); pip.conf's `log =` (a file
every pip command appends to). Each check answers why, or None; a file that cannot be read counts as code."""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Mapping

_MYPY_NAMES = ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg")  # mypy's own order
# Keys of mypy's configuration that run code or write a file: plugins are imported, python_executable is run
# (to find its site-packages), reports and junit_xml are written.
_MYPY_KEY = re.compile(r"plugins|python_executable|junit_xml|\w+_report")
_MYPY_NO_CONFIG = frozenset({"--version", "-V", "--help", "-h"})

_ESLINT_CODE = tuple(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts")) + (
    ".eslintrc.js", ".eslintrc.cjs")
_ESLINT_NO_CONFIG = frozenset({"--version", "-v", "--help", "-h", "--env-info"})
_ESLINT_SKIPPED = frozenset({"node_modules", ".git"})  # ESLint ignores both by default
_WALK_LIMIT = 20000  # folders looked through beforehand; a larger tree counts as unknown

_PIP_WRITES = frozenset({"log", "log-file", "local-log"})


def hazard(name: str, argv: list[str], program: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """Why the configuration `name` (a basename) reads in `cwd` makes it run code or write a file."""
    if name in ("mypy", "dmypy"):
        return _mypy(argv[1:], cwd, env)
    if name == "eslint":
        return _eslint(argv[1:], cwd)
    if name.startswith("pip"):
        return _pip(program, env)
    return None


def _mypy(args: list[str], cwd: str, env: Mapping[str, str]) -> str | None:
    if set(args) & _MYPY_NO_CONFIG:
        return None
    if "--python-executable" in args or any(a.startswith("--python-executable=") for a in args):
        return "`--python-executable` is a program mypy runs"
    named = _option_value(args, "--config-file")
    if named == "":
        return None  # `--config-file=` reads no configuration at all
    candidates = [os.path.join(cwd, named)] if named is not None else _mypy_candidates(cwd, env)
    for path in candidates:
        try:
            section = _mypy_section(path)
        except (OSError, ValueError, configparser.Error) as exc:
            if named is None and isinstance(exc, FileNotFoundError):
                continue
            return f"mypy's configuration {path} could not be read beforehand ({type(exc).__name__})"
        if section is None:
            continue  # mypy passes over a shared file without a mypy section, and so on to the next
        keys = sorted(k for k, v in section.items() if _MYPY_KEY.fullmatch(k.replace("-", "_")) and str(v).strip()
                      and str(v).strip() != "[]")
        if keys:
            return (f"mypy's configuration {path} sets `{keys[0]}`, "
                    + ("Python code mypy imports" if keys[0] == "plugins" else
                       "a program mypy runs" if keys[0] == "python_executable" else "a file mypy writes"))
        return None  # mypy reads the first file found, and only that one
    return None


def _mypy_candidates(cwd: str, env: Mapping[str, str]) -> list[str]:
    """mypy's search: each folder from `cwd` up, stopping at a repository's top (.git, .hg); then the user's."""
    out: list[str] = []
    folder = os.path.abspath(cwd)
    while True:
        out += [os.path.join(folder, n) for n in _MYPY_NAMES]
        parent = os.path.dirname(folder)
        if any(os.path.exists(os.path.join(folder, v)) for v in (".git", ".hg")) or parent == folder:
            break
        folder = parent
    home = env.get("HOME", os.path.expanduser("~"))
    if env.get("XDG_CONFIG_HOME"):
        out.append(os.path.join(env["XDG_CONFIG_HOME"], "mypy", "config"))
    return [*out, os.path.join(home, ".config", "mypy", "config"), os.path.join(home, ".mypy.ini")]


def _mypy_section(path: str) -> Mapping[str, object] | None:
    """The global mypy section of one configuration file, or None when it has none."""
    if path.endswith(".toml"):
        import tomllib

        with open(path, "rb") as f:
            tool = tomllib.load(f).get("tool", {})
        section = tool.get("mypy") if isinstance(tool, dict) else None
        return section if isinstance(section, dict) else None
    parser = configparser.RawConfigParser()
    with open(path, encoding="utf-8") as f:
        parser.read_file(f)
    if parser.has_section("mypy"):
        return dict(parser["mypy"])
    return {} if os.path.basename(path) in ("mypy.ini", ".mypy.ini") else None  # mypy stops at its own file


def _option_value(args: list[str], option: str) -> str | None:
    for at, arg in enumerate(args):
        if arg == option:
            return args[at + 1] if at + 1 < len(args) else None
        if arg.startswith(option + "="):
            return arg.partition("=")[2]
    return None


def _eslint(args: list[str], cwd: str) -> str | None:
    if set(args) & _ESLINT_NO_CONFIG:
        return None
    if "--rulesdir" in args or any(a.startswith("--rulesdir=") for a in args):
        return "`--rulesdir` names JavaScript rule files ESLint runs"
    named = _option_value(args, "--config") or _option_value(args, "-c")
    if named is not None and not named.endswith((".json", ".yaml", ".yml")):
        return f"`--config {named}` is a configuration file that is JavaScript ESLint runs"
    if "--no-config-lookup" in args or "--no-eslintrc" in args:
        return None
    folder = os.path.abspath(cwd)
    while True:  # the working folder and each one above it
        found = _eslint_config_in(folder)
        if found is not None:
            return found
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return _eslint_below(args, cwd)


def _eslint_below(args: list[str], cwd: str) -> str | None:
    """A configuration inside a folder ESLint lints (or the working folder, when no folder is named)."""
    folders = [p for p in (os.path.join(cwd, a) for a in args if not a.startswith("-")) if os.path.isdir(p)]
    seen = 0
    for top in folders or [cwd]:
        for folder, subfolders, _ in os.walk(top):
            subfolders[:] = [d for d in subfolders if d not in _ESLINT_SKIPPED]
            seen += 1
            if seen > _WALK_LIMIT:
                return f"the tree ESLint lints holds more than {_WALK_LIMIT} folders, not looked through beforehand"
            found = _eslint_config_in(folder)
            if found is not None:
                return found
    return None


def _eslint_config_in(folder: str) -> str | None:
    for name in _ESLINT_CODE:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return f"ESLint's configuration {path} is JavaScript ESLint runs, and can do anything"
    return None


def _pip(program: str, env: Mapping[str, str]) -> str | None:
    """pip's configuration files (PIP_CONFIG_FILE is refused with the option variables): a `log` or
    `local-log` in any of them makes every pip command append to that file."""
    for path in _pip_files(program, env):
        parser = configparser.RawConfigParser()
        try:
            with open(path, encoding="utf-8") as f:
                parser.read_file(f)
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, configparser.Error) as exc:
            return f"pip's configuration {path} could not be read beforehand ({type(exc).__name__})"
        for section in parser.sections():
            for key in parser[section]:
                if key.replace("_", "-") in _PIP_WRITES:
                    return f"pip's configuration {path} sets `{section}.{key}`, a file every pip command writes"
    return None


def _pip_files(program: str, env: Mapping[str, str]) -> list[str]:
    """The files pip reads, as `pip config debug` lists them: system, user, then the environment's own."""
    home = env.get("HOME", os.path.expanduser("~"))
    dirs = (env.get("XDG_CONFIG_DIRS") or "/etc/xdg").split(os.pathsep)
    config_home = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(program)))  # the virtual environment of .../bin/pip
    return [*(os.path.join(d, "pip", "pip.conf") for d in dirs if d), "/etc/pip.conf",
            os.path.join(home, ".pip", "pip.conf"), os.path.join(config_home, "pip", "pip.conf"),
            os.path.join(prefix, "pip.conf")]
