"""`--read-only` and what surrounds an invocation its arguments call read-only: the file that runs under the
program's name, the repository's git configuration, the variables the caller's shell passed down, and files
in the working folder that a program loads as code. Each can turn a read into a write (`core.fsmonitor` in
.git/config makes `git status` run a command; a `./git` script is not git; `TAR_OPTIONS` adds options to
`tar tf`). Each check answers why, or None; what cannot be read beforehand counts as mutating. A tool's own
configuration that is code is safety/readonly_config.py; what an interpreter or the loader reads from the
inherited variables is safety/readonly_loaders.py."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping

from agentwrap.safety import readonly_env

# git configuration that names a command a reading subcommand runs. Not here, each for its reason:
# core.pager and pager.* (agentwrap sets GIT_PAGER=cat, which wins over both), core.hooksPath (no
# reading subcommand runs a hook, `commit --dry-run` included), alias.* (a subcommand the git adapter does
# not know, an alias among them, already counts as mutating), include.* (`git config --list` follows them).
_GIT_RUNS = re.compile(r"core\.(?:alternaterefscommand|editor)|diff\.external|diff\..+\.(?:textconv|command)"
                       r"|filter\..+\.(?:clean|smudge|process)|uploadpack\.packobjectshook"
                       r"|gpg\.(?:.+\.)?program|gpg\.ssh\.defaultkeycommand|(?:man|browser)\..+\.(?:cmd|path)"
                       r"|web\.browser|sequence\.editor")
# ...and what only a subcommand that talks to a remote runs. `protocol.allow`/`protocol.ext.allow` (other than
# `never`) let a remote URL `ext::CMD` run CMD.
_GIT_NETWORK_RUNS = re.compile(r"core\.(?:sshcommand|gitproxy|askpass)|remote\..+\.(?:uploadpack|receivepack|vcs)")
_GIT_EXT_ALLOWED = re.compile(r"protocol\.(?:ext\.)?allow")
_NETWORK = frozenset({"ls-remote", "fetch", "push", "pull", "clone", "remote", "submodule"})
# A credential helper runs when a remote asks to sign in. One in the system or global configuration is how the
# person signs in (nearly every such configuration names one): it stands with the programs they installed.
# One in the repository's own configuration (local, worktree) is not theirs for certain, and is refused.
_GIT_CREDENTIAL_HELPER = re.compile(r"credential\.(?:.+\.)?helper")
_REPOSITORY_SCOPES = frozenset({"local", "worktree"})
_FALSE_OR_TRUE = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
# Subcommands that run themselves inside each submodule, under that submodule's own configuration.
_RECURSING = frozenset({"status", "diff", "show", "commit", "grep", "ls-files", "submodule"})
_SUBMODULE_DEPTH = 4  # nested submodules read beforehand; deeper ones count as unknown
# Words a shell runs itself, whatever file of that name the PATH holds.
_BUILTINS = frozenset({"cd", "pushd", "popd", "export", "unset", "set", "shopt", ":", "echo", "printf", "test",
                       "[", "pwd", "true", "false", "type", "dirs", "declare", "typeset", "readonly", "local"})


def hazard(argv: list[str], cwd: str | None, env: Mapping[str, str], *, in_shell: bool = False) -> str | None:
    """Why running `argv` in `cwd` (None: a folder not known before the line runs) with `env` may change
    something although its arguments read only; None when nothing around it does."""
    name = os.path.basename(argv[0])
    if in_shell and name in _BUILTINS and "/" not in argv[0]:
        return None
    injected = readonly_env.injected(name, env)
    if injected is not None:
        return injected
    if in_shell and f"BASH_FUNC_{argv[0]}%%" in env:
        return f"the inherited BASH_FUNC_{argv[0]}%% makes bash run a function in place of `{argv[0]}`"
    if cwd is None:
        if "/" in argv[0] or name == "git":
            return f"the line changes to a folder not known before it runs, and runs `{argv[0]}` there"
        return None
    found = _resolve(argv[0], cwd, env.get("PATH", os.defpath))
    if found is None:
        return None  # not found: agentwrap answers PROGRAM_NOT_FOUND and nothing runs
    program = _program_hazard(argv[0], found, cwd, env)
    if program is not None:
        return program
    from agentwrap.safety import readonly_config, readonly_loaders

    loaded = readonly_loaders.hazard(name, found[0], cwd, env)
    if loaded is not None:
        return loaded
    if name.startswith("python"):
        return _python_hazard(argv, cwd)
    if name == "git":
        return _git_hazard(argv, cwd, env)
    return readonly_config.hazard(name, argv, found[0], cwd, env)


def _program_hazard(word: str, found: tuple[str, bool], cwd: str, env: Mapping[str, str]) -> str | None:
    """A program file in the working folder (`./git`, a `bin/` entry put on PATH) is not the tool its name
    says, whatever the adapter classes that tool's subcommand as; nor is one found through a relative PATH
    entry. A program of the activated virtual environment ($VIRTUAL_ENV/bin) is the caller's own choice."""
    path, through_relative = found
    if through_relative:
        return f"`{word}` is found through a relative PATH entry, so the file that runs depends on the folder"
    venv = env.get("VIRTUAL_ENV")
    if venv and os.path.dirname(os.path.abspath(path)) == os.path.join(os.path.abspath(venv), "bin"):
        return None
    if _inside(os.path.realpath(path), os.path.realpath(cwd)):
        return f"`{word}` is the file {path} in the working folder, not the installed program its name says"
    return None


def _resolve(word: str, cwd: str, path_var: str) -> tuple[str, bool] | None:
    """(the file `word` runs, whether a relative PATH entry found it), as execvp would in `cwd`."""
    if "/" in word:
        return os.path.join(cwd, word), False
    for entry in path_var.split(os.pathsep):
        candidate = os.path.join(cwd, entry or ".", word)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate, not os.path.isabs(entry)
    return None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _python_hazard(argv: list[str], cwd: str) -> str | None:
    """`python -m MODULE` puts the working folder first on the module path: a `json.py` (or `argparse.py`,
    which json.tool imports) there runs in place of the standard module. `-I` and `-P` leave it off."""
    options = argv[1:argv.index("-m")] if "-m" in argv else None
    if options is None or any(o in ("-I", "-P") or (o[:1] == "-" and set(o[1:]) & {"I", "P"}) for o in options):
        return None
    try:
        names = os.listdir(cwd)
    except OSError:
        return "the working folder cannot be listed, so what `python -m` imports from it is unknown"
    code = sorted(n for n in names if n.endswith((".py", ".pyc", ".so"))
                  or os.path.isfile(os.path.join(cwd, n, "__init__.py")))
    if code:
        return (f"`python -m` imports from the working folder first, and it holds Python code (`{code[0]}`) "
                "that may stand in for a standard module")
    return None


def _git_hazard(argv: list[str], cwd: str, env: Mapping[str, str]) -> str | None:
    """The configuration git reads for `argv` (system, global, the repository's, GIT_CONFIG_* variables),
    listed by git itself with the same global options (`-C DIR`), before the real command runs; and, for a
    subcommand that recurses, each checked-out submodule's own."""
    from agentwrap.adapters.git import split

    globals_, word, _ = split(argv)
    if word is None:  # `git --version`, `git --exec-path`: no repository, no configuration read
        return None
    why = _config_hazard(argv[0], globals_, word, cwd, env)
    if why is None and word in _NETWORK and "ext" in env.get("GIT_ALLOW_PROTOCOL", "").split(":"):
        why = "the inherited GIT_ALLOW_PROTOCOL allows `ext`, so a remote URL `ext::CMD` runs CMD"
    if why is None and word in _RECURSING:
        top = _git(argv[0], [*globals_, "rev-parse", "--show-toplevel"], cwd, env)
        why = _submodules_hazard(argv[0], top.strip(), word, env, 1) if top else None
    return why


def _config_hazard(program: str, globals_: list[str], word: str, cwd: str, env: Mapping[str, str]) -> str | None:
    listing = _git(program, [*globals_, "config", "--list", "--show-scope", "-z"], cwd, env)
    if listing is None:
        return "git's configuration could not be listed beforehand, so what it makes git run is unknown"
    items = listing.split("\0")
    for scope, item in zip(items[::2], items[1::2], strict=False):
        key, _, value = item.partition("\n")
        key = key.lower()
        if key == "core.fsmonitor" and value.strip().lower() not in _FALSE_OR_TRUE:
            return f"git's configuration sets `core.fsmonitor = {value[:60]}`, a command git runs to read the tree"
        if _GIT_RUNS.fullmatch(key) or (word in _NETWORK and _GIT_NETWORK_RUNS.fullmatch(key)):
            return f"git's configuration sets `{key} = {value[:60]}`, a command git may run"
        if word in _NETWORK and _GIT_EXT_ALLOWED.fullmatch(key) and value.strip().lower() != "never":
            return f"git's configuration sets `{key} = {value[:60]}`, so a remote URL `ext::CMD` runs CMD"
        if word in _NETWORK and scope in _REPOSITORY_SCOPES and _GIT_CREDENTIAL_HELPER.fullmatch(key) and value:
            return (f"the repository's own git configuration sets `{key} = {value[:60]}`, a command git runs "
                    "when the remote asks to sign in")
    return None


def _submodules_hazard(program: str, top: str, word: str, env: Mapping[str, str], depth: int) -> str | None:
    """What each checked-out submodule's own configuration makes `git WORD` run there, nested ones too. A
    submodule not checked out has no configuration and git does not go into it."""
    if not os.path.exists(os.path.join(top, ".gitmodules")):
        return None
    paths = _git(program, ["config", "-f", ".gitmodules", "-z", "--get-regexp", r"^submodule\..*\.path$"], top, env)
    if paths is None:
        return f"`git {word}` runs in each submodule too, and .gitmodules could not be read beforehand"
    for entry in filter(None, paths.split("\0")):
        folder = os.path.join(top, entry.partition("\n")[2])
        if not os.path.exists(os.path.join(folder, ".git")):
            continue
        if depth > _SUBMODULE_DEPTH:
            return f"`git {word}` runs in submodules nested deeper than {_SUBMODULE_DEPTH}, not read beforehand"
        why = _config_hazard(program, [], word, folder, env) or _submodules_hazard(program, folder, word, env,
                                                                                    depth + 1)
        if why is not None:
            return f"in the submodule {os.path.relpath(folder, top)}, {why}"
    return None


def _git(program: str, args: list[str], cwd: str, env: Mapping[str, str]) -> str | None:
    """git's output, or None when it failed; '' outside a repository (`rev-parse` fails there: no top) and
    for a `--get-regexp` that matched nothing (its exit status 1)."""
    try:
        done = subprocess.run([program, *args], cwd=cwd, env={**env, "GIT_OPTIONAL_LOCKS": "0"},
                              capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        nothing = args[-1] == "--show-toplevel" or ("--get-regexp" in args and done.returncode == 1)
        return "" if nothing else None
    return done.stdout
