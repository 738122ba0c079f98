"""`--read-only` and the inherited variables that the dynamic loader, an interpreter or less reads before
the program does anything: `LD_PRELOAD=./x.so`, `NODE_OPTIONS=--require ./x.js` under eslint (a node script),
a `PYTHONPATH` folder holding a `sitecustomize.py` under mypy (a Python script), `LESSOPEN='|CMD %s'`.

Checked in the environment the program inherits (a caller's `--env` is refused before: readonly_env). Not
refused, because they cannot be: an absolute LD_PRELOAD, LD_AUDIT or LD_LIBRARY_PATH entry was already loaded
into agentwrap itself, which is a program of the same environment; only an entry relative to the folder,
which changes with --cwd, is. The interpreter is the program's own name (`python3`, `node`) or its `#!` line."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping

_LOADER = ("LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH")
# NODE_OPTIONS let through: memory, warnings, source maps, certificates, DNS order. Anything else (`--require`,
# `--import`, `--loader`, `--inspect`, `--env-file`, report and profile files) loads code or writes a file.
_NODE_HARMLESS = frozenset({"--no-warnings", "--no-deprecation", "--trace-warnings", "--trace-deprecation",
                            "--trace-uncaught", "--enable-source-maps", "--use-openssl-ca", "--use-bundled-ca",
                            "--openssl-legacy-provider", "--throw-deprecation", "--pending-deprecation"})
_NODE_HARMLESS_VALUED = ("--max-old-space-size=", "--max-semi-space-size=", "--dns-result-order=",
                         "--unhandled-rejections=", "--disable-warning=")
# Python runs these at start-up from any folder on its path; a standard module's name there stands in for it.
_PYTHON_STARTUP = frozenset({"sitecustomize", "usercustomize"})


def hazard(name: str, program: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """Why the variables `program` (found as `name`) inherits make it load code or run a command."""
    loader = _loader(cwd, env)
    if loader is not None:
        return loader
    if name == "less":
        return _lessopen(cwd, env)
    interpreter = _interpreter(name, program)
    if interpreter == "python":
        return _pythonpath(cwd, env)
    if interpreter == "node":
        return _node_options(env.get("NODE_OPTIONS", ""))
    variable = {"perl": "PERL5OPT", "ruby": "RUBYOPT"}.get(interpreter or "")
    if variable and env.get(variable):
        return f"the inherited {variable}=… gives {interpreter} options (modules it loads) not judged beforehand"
    return None


def _loader(cwd: str, env: Mapping[str, str]) -> str | None:
    for variable in _LOADER:
        words = env.get(variable, "").replace(" ", ":").split(":") if env.get(variable) else []
        for word in words:
            # LD_LIBRARY_PATH's empty entry is the working folder; a preload name without `/` is searched for
            relative = not word.startswith("/") and (variable == "LD_LIBRARY_PATH" or "/" in word)
            if relative:
                return (f"the inherited {variable} holds `{word or '(empty)'}`, relative to the working folder, "
                        "so the code loaded into the program depends on the folder it runs in")
    return None


def _interpreter(name: str, program: str) -> str | None:
    """python, node, perl or ruby: the program itself, or the interpreter its `#!` line names."""
    words = [name]
    try:
        with open(program, "rb") as f:
            first = f.readline(256)
    except OSError:
        first = b""
    if first.startswith(b"#!"):
        line = first[2:].decode(errors="replace").split()
        if line and os.path.basename(line[0]) == "env":
            line = [w for w in line[1:] if not w.startswith("-") and "=" not in w]
        words = [os.path.basename(w) for w in line[:1]] or words
    for interpreter in ("python", "node", "perl", "ruby"):
        if words[0].startswith(interpreter):
            return interpreter
    return "node" if words[0] == "nodejs" else None


def _pythonpath(cwd: str, env: Mapping[str, str]) -> str | None:
    """A PYTHONPATH folder (an empty entry is the working folder) holding a start-up module or one named as
    a standard module, which Python imports in place of the real one."""
    for entry in env.get("PYTHONPATH", "").split(os.pathsep) if env.get("PYTHONPATH") else []:
        folder = os.path.join(cwd, entry or ".")
        try:
            names = os.listdir(folder)
        except OSError:
            continue  # a folder that is not there adds nothing to import
        for module in sorted(_module_names(folder, names)):
            if module in _PYTHON_STARTUP:
                return f"the inherited PYTHONPATH folder `{entry}` holds `{module}`, which Python runs at start-up"
            if module in sys.stdlib_module_names:
                return (f"the inherited PYTHONPATH folder `{entry}` holds `{module}`, which Python imports in "
                        "place of the standard module of that name")
    return None


def _module_names(folder: str, names: list[str]) -> set[str]:
    out = {n.partition(".")[0] for n in names if n.endswith((".py", ".pyc", ".so"))}
    return out | {n for n in names if os.path.isfile(os.path.join(folder, n, "__init__.py"))}


def _node_options(value: str) -> str | None:
    try:
        words = shlex.split(value)
    except ValueError:
        return "the inherited NODE_OPTIONS=… cannot be read beforehand"
    for word in words:
        if word not in _NODE_HARMLESS and not word.startswith(_NODE_HARMLESS_VALUED):
            return (f"the inherited NODE_OPTIONS gives node `{word[:40]}`, which may load code or write a file "
                    "(only memory, warning, source-map and certificate options are let through)")
    return None


def _lessopen(cwd: str, env: Mapping[str, str]) -> str | None:
    """less runs LESSOPEN (and LESSCLOSE) through the shell on each file. The installed preprocessor named by
    an absolute path (`| /usr/bin/lesspipe %s`, the distributions' own) is let through; a command line is not."""
    for variable in ("LESSOPEN", "LESSCLOSE"):
        value = env.get(variable, "")
        if not value:
            continue
        try:
            words = shlex.split(value.lstrip("|-").strip())
        except ValueError:
            words = []
        program_only = len(words) >= 2 and set(words[1:]) == {"%s"} and not set(value) & set(";&`$<>()\n")
        if not program_only or not os.path.isabs(words[0]) or os.path.realpath(words[0]).startswith(
                os.path.realpath(cwd).rstrip(os.sep) + os.sep):
            return (f"the inherited {variable}=… is a command less runs on each file (only an installed "
                    "preprocessor named by its absolute path, `| /usr/bin/lesspipe %s`, is let through)")
    return None
