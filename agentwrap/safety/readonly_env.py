"""`--read-only` and the caller's `--env`: variables that make a read-only program run code or write files.

`git status` reads, but `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=CMD` makes
it run CMD; `LD_PRELOAD` loads code into any program. Such a variable, set by the caller, is refused with
the run. (agentwrap's own prevention values are not the caller's and are not checked: they name `cat` and
shims only.)"""

from __future__ import annotations

from collections.abc import Mapping

_WHY_RUNS = "names a program the tool runs"
_WHY_LOADS = "loads code into the program"
_WHY_CONFIG = "chooses the configuration files the program reads, and those can name commands to run"

# Variables refused whatever their value, and why.
_NAMED: dict[str, str] = {
    **dict.fromkeys(("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND", "GIT_ASKPASS",
                     "SSH_ASKPASS", "SUDO_ASKPASS", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
                     "KUBE_EDITOR", "KUBECTL_EXTERNAL_DIFF", "LESSOPEN", "LESSCLOSE", "BROWSER", "SHELL"),
                    _WHY_RUNS),
    "GIT_EXEC_PATH": "makes git run its commands from another folder",
    "PATH": "decides which file runs under a program's name",
    **dict.fromkeys(("BASH_ENV", "ENV"), "is a script the shell runs first"),
    **dict.fromkeys(("PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "NODE_OPTIONS",
                     "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB"), _WHY_LOADS),
    **dict.fromkeys(("GIT_DIR", "GIT_COMMON_DIR", "HOME", "XDG_CONFIG_HOME", "CURL_HOME", "KUBECONFIG",
                     "NPM_CONFIG_USERCONFIG", "npm_config_userconfig", "NPM_CONFIG_GLOBALCONFIG",
                     "npm_config_globalconfig"), _WHY_CONFIG),
}
# Pagers: agentwrap sets them to `cat`; a caller's own pager is a program it runs.
_PAGERS = ("PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "AWS_PAGER")
_HARMLESS_PAGERS = ("", "cat")
# Prefixes refused whatever follows (GIT_CONFIG_KEY_0, DYLD_INSERT_LIBRARIES), except the harmless ones.
_PREFIXES: dict[str, str] = {
    "GIT_CONFIG": "sets git configuration, which can name a command to run",
    "LD_": _WHY_LOADS,
    "DYLD_": _WHY_LOADS,
}
_HARMLESS = frozenset({"GIT_CONFIG_NOSYSTEM", "LD_BIND_NOW"})


def refused(env: Mapping[str, str]) -> str | None:
    """Why one of the caller's variables breaks the read-only promise, or None when none does."""
    for name in sorted(env):
        why = _why(name, env[name])
        if why is not None:
            return f"--env {name}=… {why}"
    return None


def _why(name: str, value: str) -> str | None:
    if name in _NAMED:
        return _NAMED[name]
    if name in _PAGERS:
        return None if value.strip() in _HARMLESS_PAGERS else _WHY_RUNS
    if name.startswith("GIT_TRACE") and "/" in value:
        return "makes git write its trace to that file"
    if name in _HARMLESS:
        return None
    return next((why for prefix, why in _PREFIXES.items() if name.startswith(prefix)), None)


# Variables a program reads as more of its own options or a file of them (`TAR_OPTIONS=--to-command=CMD`,
# `RUFF_OUTPUT_FILE`, `LESS=+!CMD`), by program; checked in the whole environment the program gets, the
# inherited one too: such options are not judged as the arguments are, so a set one counts as mutating.
_OPTION_VARIABLES: dict[str, tuple[str, ...]] = {
    "tar": ("TAR_OPTIONS",),
    "make": ("MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS"),
    "ruff": ("RUFF_OUTPUT_FILE",),
    "rg": ("RIPGREP_CONFIG_PATH",),
    "pip": ("PIP_LOG", "PIP_LOG_FILE", "PIP_LOCAL_LOG", "PIP_REPORT", "PIP_CONFIG_FILE"),
    "terraform": ("TF_CLI_ARGS", "TF_CLI_CONFIG_FILE"),
    "less": ("LESSKEY", "LESSKEYIN", "LESSKEY_CONTENT", "LESSKEYIN_SYSTEM", "LESSKEY_SYSTEM"),
    # variables git reads whatever its configuration (GIT_CONFIG_* are listed with that configuration)
    "git": ("GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND"),
    "bash": ("BASH_ENV",),
}
_ALIASES = {"gmake": "make", "pip3": "pip", "gtar": "tar", "sh": "bash"}


def injected(program: str, env: Mapping[str, str]) -> str | None:
    """Why a variable of `env` (inherited or set) makes `program` (a basename) take options or code its
    arguments do not show; None when none does."""
    name = _ALIASES.get(program, program)
    if name.startswith("pip"):
        name = "pip"
    names = [n for n in _OPTION_VARIABLES.get(name, ()) if env.get(n)]
    if name == "terraform":
        names += sorted(n for n in env if n.startswith("TF_CLI_ARGS_") and env[n])
    if names:
        return f"the variable {names[0]}=… gives `{program}` options (or a file of them) not judged beforehand"
    if name == "less" and env.get("LESS"):
        import shlex

        from agentwrap.safety import readonly_args

        try:
            # less reads `LESS=FRX` as `-FRX`: a word without its dash is options too
            words = [w if w[:1] in "-+" else f"-{w}" for w in shlex.split(env["LESS"])]
            why = readonly_args.hazard(["less", *words])
        except ValueError:
            why = "it cannot be read"
        if why is not None:
            return f"the variable LESS=… gives less options: {why}"
    return None


def env_schema(description: str) -> dict[str, object]:
    """The JSON Schema of an `env` argument holding none of the refused variables (MCP `run_read_only`).
    Stricter than `refused`: GIT_CONFIG_NOSYSTEM and LD_BIND_NOW are refused too, to keep it one pattern."""
    import re

    alternatives = [f"{re.escape(n)}$" for n in sorted(_NAMED)] + [re.escape(p) for p in _PREFIXES]
    return {"type": "object", "description": description,
            "propertyNames": {"not": {"pattern": f"^(?:{'|'.join(alternatives)})"}},
            "patternProperties": {f"^(?:{'|'.join(_PAGERS)})$": {"enum": list(_HARMLESS_PAGERS)},
                                  "^GIT_TRACE": {"type": "string", "pattern": "^[^/]*$"}},
            "additionalProperties": {"type": "string"}}
