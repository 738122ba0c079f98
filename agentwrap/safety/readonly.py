"""`--read-only` (CONTRACT section 9): refuse, before anything starts, every invocation its adapter
classes as mutating. An invocation nobody can classify counts as mutating: the flag is a promise to
the caller, and "probably harmless" does not keep it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

from agentwrap.adapter import Adapter, launched_command
from agentwrap.errors import AgentwrapError
from agentwrap.problem import CodeAction
from agentwrap.safety import dry_run, readonly_wrappers, shell_line

# Builtins that change only the shell's own state (its directory, its variables), never the world.
_SHELL_STATE = frozenset(("cd", "pushd", "popd", "export", "unset", "set", "shopt", ":"))


class MutationRefused(AgentwrapError):
    code = "MUTATION_REFUSED"


class Verdict(NamedTuple):
    read_only: bool
    reason: str
    alternative: list[str] | None = None


def classify(argv: list[str], adapter: Adapter | None = None) -> Verdict:
    """Whether `argv` is read-only, why, and the tool's read-only alternative when it is not."""
    from agentwrap import registry

    if adapter is None:
        adapter, _ = registry.find(argv[0])
    line = shell_line.script_of(argv)
    if line is not None:
        return _classify_line(line)
    if adapter.name == "generic":  # a wrapper with an adapter of its own (or a forced one) is read by it
        unwrapped = readonly_wrappers.unwrap(argv)
        if unwrapped is not None:
            return _wrapped(unwrapped)
    sub = adapter.subcommand(argv)
    what = f"{argv[0]} {sub}" if sub else argv[0]
    inner = launched_command(adapter, argv)
    if inner:  # a launcher (`npx tsc`, `uv run pytest`) runs what its argv names: that must be read-only too
        launched = _launched(argv, inner)
        if not launched.read_only:
            return launched
    hazard = _hazard(argv, adapter)
    if hazard is not None:  # before the dry-run markers: `git -c core.fsmonitor=CMD push -n` runs CMD
        return Verdict(False, f"in `{what}`, {hazard}")
    effects = adapter.effects(argv)
    if dry_run.is_dry_run(adapter, argv):
        return Verdict(True, f"`{what}` is given its own dry-run flag")
    if effects.read_only is True:
        return Verdict(True, f"the {adapter.name} adapter classes `{what}` as read-only")
    if effects.read_only is None and adapter.name == "generic" and dry_run.program_is_read_only(argv):
        return Verdict(True, f"`{argv[0]}` changes nothing as invoked")
    if effects.read_only is None:
        reason = (f"no adapter classifies `{what}`, so it counts as mutating" if adapter.name == "generic"
                  else f"the {adapter.name} adapter cannot tell whether `{what}` changes anything, "
                       "so it counts as mutating")
    else:
        reason = f"the {adapter.name} adapter classes `{what}` as mutating"
    alt = dry_run.alternative(adapter, argv)
    if alt is not None and not classify(alt, adapter).read_only:
        alt = None  # only a command the same rules let run is offered
    return Verdict(False, reason, alt)


def _wrapped(unwrapped: readonly_wrappers.Unwrapped) -> Verdict:
    """The verdict of the command wrappers run (`timeout 30 git status`), once their own words are known to
    change nothing and the variables they set (`env NAME=VALUE`) are those a caller may set."""
    from agentwrap.safety import readonly_env

    if unwrapped.refused is not None:
        return Verdict(False, unwrapped.refused)
    head = " ".join(unwrapped.head)[:80]
    if not unwrapped.argv:
        return Verdict(True, f"`{head}` only looks the names up")
    why = readonly_env.refused(unwrapped.env)
    if why is not None:
        return Verdict(False, f"{why.replace('--env ', '', 1)} (set by `{head}`)")
    verdict = classify(unwrapped.argv)
    what = f"`{head}` runs `{' '.join(unwrapped.argv)[:80]}`"
    if verdict.read_only:
        return Verdict(True, f"{what}, and {verdict.reason}")
    alt = [*unwrapped.head, *verdict.alternative] if verdict.alternative else None
    if alt is not None and not classify(alt).read_only:
        alt = None
    return Verdict(False, f"{what}, and {verdict.reason}", alt)


def _launched(argv: list[str], inner: list[str]) -> Verdict:
    """The verdict of the command a launcher runs, judged by that program's own adapter (or none: then it
    counts as mutating), whatever the launcher's adapter says of itself: the riskier of the two decides."""
    verdict = classify(inner)
    if verdict.read_only:
        return verdict
    launcher = argv[:len(argv) - len(inner)] if argv[len(argv) - len(inner):] == inner else None
    alt = [*launcher, *verdict.alternative] if launcher and verdict.alternative else None
    if alt is not None and not classify(alt).read_only:
        alt = None  # the launcher itself may not be read-only: only a command the same rules let run
    return Verdict(False, f"`{argv[0]}` runs `{' '.join(inner)[:80]}`, and {verdict.reason}", alt)


def _hazard(argv: list[str], adapter: Adapter) -> str | None:
    """Why an invocation its adapter would class as read-only still runs a program or writes a file."""
    if adapter.name == "git":
        from agentwrap.adapters.git import read_only_hazard

        return read_only_hazard(argv)
    if adapter.name == "generic":
        from agentwrap.safety import readonly_args

        return readonly_args.hazard(argv)
    if adapter.name == "make" and not set(argv[1:]) & {"-v", "--version", "-h", "--help"}:
        return "make reads the Makefile even with -n or -q, and runs its `$(shell …)` and `+` recipe lines"
    if adapter.name == "pytest" and not set(argv[1:]) & {"--version", "-V"}:
        return ("pytest imports the conftest.py files and the test modules (and --help, --fixtures and --markers "
                "the conftest.py files) before it lists anything, and they are code that can do anything")
    if adapter.name == "pip" and _pip_writes(argv[1:]):  # `pip install --dry-run --report FILE` writes FILE
        return "`--log FILE` or `--report FILE` writes that file"
    return None


def _pip_writes(args: list[str]) -> bool:
    values = dict(zip(args, [*args[1:], ""], strict=True))
    return any((a in ("--log", "--report") and values[a] != "-") or a.startswith(("--log=", "--log-file"))
               or (a.startswith("--report=") and a != "--report=-") for a in args)


def _classify_line(line: str) -> Verdict:
    commands = shell_line.simple_commands(line)
    if commands is None:
        if shell_line.writes_by_redirect(line):
            return Verdict(False, "the shell line writes a file with a redirection (`>`)")
        return Verdict(False, "the shell line could not be read command by command, so it counts as mutating")
    variable = _variable_set(commands, line)
    if variable is not None:
        return Verdict(False, f"in the shell line, {variable}")
    for argv in commands:
        if argv[0] in _SHELL_STATE:
            continue
        verdict = classify(argv)
        if not verdict.read_only:
            return Verdict(False, f"in the shell line, {verdict.reason}")
    return Verdict(True, "every command of the shell line is read-only")


_EXPORTS = frozenset(("export", "declare", "typeset", "readonly", "local"))


def _variable_set(commands: list[list[str]], line: str) -> str | None:
    """A variable the line sets or exports that makes a read-only program run code (`GIT_PAGER=CMD git log`,
    `export PATH=.`, `printf -v GIT_PAGER CMD; export GIT_PAGER`)."""
    from agentwrap.safety import readonly_env

    assigned = _assigned(line)
    # an exported bare name may hold anything (`printf -v NAME` or `read NAME` set it)
    exported = {w: "?" for argv in commands if argv[0] in _EXPORTS for w in argv[1:] if w.isidentifier()}
    why = readonly_env.refused({**exported, **assigned})
    return why.replace("--env ", "", 1) if why else None


def _assigned(line: str) -> dict[str, str]:
    """Every `NAME=VALUE` word of the line, wherever it stands (simple_commands drops `NAME=VALUE` prefixes;
    `env NAME=VALUE` and `export NAME=VALUE` set it too)."""
    return {name: value for name, equals, value in (w.partition("=") for w in shell_line.words_of(line) or [])
            if equals and name.isidentifier()}


def surroundings(argv: list[str], cwd: str, env: Mapping[str, str]) -> str | None:
    """Why what surrounds a read-only `argv` (the program files, the repository's configuration, the
    inherited variables: safety/readonly_world.py) may still change something; None when nothing does."""
    found = _around(argv, cwd, env, in_shell=False)
    if found is None:
        return None
    words, why = found
    return why if words is argv else f"in `{' '.join(words)[:80]}`, {why}"


def _around(argv: list[str], cwd: str | None, env: Mapping[str, str], *,
            in_shell: bool) -> tuple[list[str], str] | None:
    """The first command of `argv` (itself, the commands of its shell line, the one its wrappers or its
    launcher run) whose surroundings may change something, and why."""
    from agentwrap import registry
    from agentwrap.safety import readonly_world

    why = readonly_world.hazard(argv, cwd, env, in_shell=in_shell)
    if why is not None:
        return argv, why
    unwrapped = readonly_wrappers.unwrap(argv)
    if unwrapped is not None and unwrapped.argv and unwrapped.refused is None:
        # `env -C DIR NAME=VALUE git status` runs git in DIR with NAME set
        return _around(unwrapped.argv, readonly_wrappers.folder(cwd, unwrapped.folders), {**env, **unwrapped.env},
                       in_shell=in_shell and unwrapped.shell_words)
    line = shell_line.script_of(argv)
    if line is not None:
        # a variable the line sets reaches the commands after it (`TAR_OPTIONS=... tar tf a.tar`)
        env = {**env, **_assigned(line)}
        for words, folder in _with_folders(line, cwd):
            found = _around(words, folder, env, in_shell=True)
            if found is not None:
                return found
        return None
    inner = launched_command(registry.find(argv[0])[0], argv)
    return _around(inner, cwd, env, in_shell=False) if inner else None  # `uv run git status`: git in the same folder


def _with_folders(line: str, cwd: str | None) -> list[tuple[list[str], str | None]]:
    """Each simple command of a read-only line with the folder it runs in: a literal `cd DIR` is followed,
    any other change of folder (`cd`, `cd -`, `popd`, `cd $X`) makes the rest unknown (None)."""
    out: list[tuple[list[str], str | None]] = []
    folder: str | None = cwd
    for words in shell_line.simple_commands(line) or []:
        out.append((words, folder))
        if words[0] in ("cd", "pushd", "popd"):
            target = words[1:2] if words[1:2] != ["--"] else words[2:3]
            literal = target and target[0] not in ("-", "") and not set(target[0]) & set("$~`*?[")
            folder = os.path.join(folder, target[0]) if literal and folder is not None and words[0] != "popd" \
                else None
    return out


def check(argv: list[str], env: Mapping[str, str] | None = None, cwd: str | None = None) -> Verdict:
    """Raise MutationRefused for a mutating invocation, or one whose caller-set `env` (`--env`) makes it run
    code, or whose surroundings in `cwd` (default: this process's folder) do; return a read-only verdict.
    The program's own adapter judges, whatever `--adapter`/`--no-adapter` chose to read the output: a forced
    reader knows another program's effects (`--adapter grep -- rm f` must not pass as grep's read), and
    `--no-adapter -- git status` is as read-only as `timeout 30 git status`."""
    from agentwrap import registry
    from agentwrap.safety import readonly_env

    adapter, _ = registry.find(argv[0])
    why = readonly_env.refused(env or {})
    verdict = classify(argv, adapter) if why is None else Verdict(False, why)
    if verdict.read_only:
        around = surroundings(argv, cwd or os.getcwd(), {**os.environ, **(env or {})})
        verdict = verdict if around is None else Verdict(False, around)
    if verdict.read_only:
        return verdict
    actions: tuple[CodeAction, ...] = ()
    fix = "Drop --read-only if the change is intended."
    if verdict.alternative:
        actions = (CodeAction(title="Show what it would do, changing nothing", kind="command",
                              command=tuple(verdict.alternative), applicability="machine_applicable",
                              is_preferred=True),)
        fix = (f"Run the read-only `{' '.join(verdict.alternative)}` to see what it would do; "
               "drop --read-only if the change is intended.")
    refused = MutationRefused(f"--read-only: refused `{' '.join(argv)}` before it started: {verdict.reason}",
                              suggested_fix=fix, code_actions=actions,
                              extra={"read_only_alternative": verdict.alternative} if verdict.alternative else None)
    refused.subcommand = adapter.subcommand(argv)  # its summary names it: `git push: Mutating command refused`
    raise refused
