"""`--read-only` and the programs that only run another command (agentwrap.wrappers): `timeout 30 git status`
is judged as `git status` is, once the wrapper's own words are known to change nothing.

Only the wrappers below are read through, and only with the options listed for each: whatever else a wrapper
is given (`time -o FILE` writes FILE, `env -S STRING` splits STRING into the command, an abbreviated long
option) keeps the refusal, with a reason that names the wrapper. Wrappers not listed are refused with theirs:
privilege changers run the command as another user, whose configuration and files are not the ones the
read-only checks read (and sudo writes its own log and timestamp); `nohup` writes nohup.out; `flock F`
creates F; `xargs` adds words read from its input. The variables a wrapper sets (`env NAME=VALUE`) and the
folder it changes to (`env -C DIR`) are handed to the checks of the command it runs (safety/readonly.py).
"""

from __future__ import annotations

import os
from typing import NamedTuple

from agentwrap import wrappers
from agentwrap.lazyre import lazy


class _Reads(NamedTuple):
    """The options with which a wrapper changes nothing itself. Each one's getopt stops at the first word that
    is no option (`+` in its option string), as this reader does."""

    flags: frozenset[str] = frozenset()  # options without a value
    valued: frozenset[str] = frozenset()  # options whose value is the rest of the word or the next word
    positionals: int = 0  # its own words before the command (timeout's duration)
    writes: frozenset[str] = frozenset()  # options with which it writes a file itself (`time -o FILE`, `-a`)
    looks_up: frozenset[str] = frozenset()  # options with which it runs nothing (`command -v git`)
    assigns: bool = False  # NAME=VALUE words before the command set variables (`env`)
    numbers: bool = False  # `nice -5`: the adjustment as an option
    shell_word: bool = False  # also a word of the shell (`time`, `command`): the shell's functions and builtins


def _o(*names: str) -> frozenset[str]:
    return frozenset(names)


# From each program's --help (GNU coreutils env, nice, timeout, stdbuf; GNU time; util-linux ionice, setsid).
# Not here, with the option that keeps them out: `ionice -p/-P/-u` (changes other processes), `taskset -p`,
# `chrt -p`; `env -S` (splits a string into the command), env's signal options (optional values).
_READS: dict[str, _Reads] = {
    "env": _Reads(_o("-i", "--ignore-environment", "-0", "--null", "-v", "--debug"),
                  _o("-u", "--unset", "-C", "--chdir"), assigns=True),
    "nice": _Reads(valued=_o("-n", "--adjustment"), numbers=True),
    "timeout": _Reads(_o("--preserve-status", "--foreground", "-v", "--verbose"),
                      _o("-s", "--signal", "-k", "--kill-after"), positionals=1),
    "stdbuf": _Reads(valued=_o("-i", "--input", "-o", "--output", "-e", "--error")),
    "time": _Reads(_o("-p", "--portability", "-q", "--quiet", "-v", "--verbose"), _o("-f", "--format"),
                   writes=_o("-o", "--output", "-a", "--append"), shell_word=True),
    "command": _Reads(_o("-p"), looks_up=_o("-v", "-V"), shell_word=True),
    "ionice": _Reads(_o("-t", "--ignore"), _o("-c", "--class", "-n", "--classdata")),
    "setsid": _Reads(_o("-c", "--ctty", "-f", "--fork", "-w", "--wait")),
}
_WRITES_WITH_VALUE = _o("-o", "--output")
_OTHER_USER = _o("sudo", "doas", "pkexec", "runuser", "su-exec", "gosu", "setpriv", "sg", "chroot", "fakeroot")
_ASSIGNMENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*=")
_EXPANDED = lazy(r"[$`*?\[{~]")  # a shell's expansions: parameters, substitutions, globs, braces, tilde


class Unwrapped(NamedTuple):
    head: list[str]  # the wrappers' own words (`timeout 30`, `env FOO=1`)
    argv: list[str]  # the command they run; [] when a wrapper only looks up (`command -v git`)
    env: dict[str, str]  # the variables they set (`env NAME=VALUE`)
    folders: list[str]  # the folders they change to before the command runs, in order (`env -C DIR`)
    shell_words: bool  # every wrapper is one the shell runs itself (`time`, `command`): its functions run
    refused: str | None  # why a wrapper itself may change something: then nothing else is read


def unwrap(argv: list[str]) -> Unwrapped | None:
    """The wrappers `argv` starts with, taken off; None when it starts with none, or they run no command
    (`env` alone prints the environment: judged as before, as a program of its own)."""
    head_end = 0
    env: dict[str, str] = {}
    folders: list[str] = []
    shell_words = True
    while head_end < len(argv) and (name := wrappers.wrapper(argv[head_end])) is not None:
        reads = _READS.get(name)
        if reads is None:
            return _refused(argv, head_end, _not_read(name, argv[head_end + 1:]))
        shell_words = shell_words and reads.shell_word
        start = head_end
        read = _read(name, reads, argv, head_end + 1, env, folders)
        if isinstance(read, str):
            return _refused(argv, start, read)
        head_end, looked_up = read
        expanded = next((w for w in argv[start + 1:head_end] if _EXPANDED.search(w)), None)
        if expanded is not None:  # `T='5 rm x'; timeout $T git status` runs rm
            return _refused(argv, start, f"`{name}`'s word `{expanded}` may be expanded by a shell into other "
                                         "words, so what it runs is not known beforehand")
        if looked_up:
            return Unwrapped(argv, [], {}, [], False, None)
    if head_end == 0 or head_end >= len(argv):
        return None
    return Unwrapped(argv[:head_end], argv[head_end:], env, folders, shell_words, None)


def _refused(argv: list[str], at: int, why: str) -> Unwrapped:
    return Unwrapped(argv[:at + 1], argv[at + 1:], {}, [], False, why)


def _read(name: str, reads: _Reads, argv: list[str], at: int, env: dict[str, str],
          folders: list[str]) -> tuple[int, bool] | str:
    """(where the command after wrapper `name` starts, whether the wrapper only looks up), or why its words
    are not known to change nothing. Gathers what it sets (`NAME=VALUE`) and where it goes (`-C DIR`)."""
    positionals = reads.positionals
    options = True
    while at < len(argv):
        word = argv[at]
        if options and word == "--":
            options = False
            at += 1
        elif options and word == "-" and reads.assigns:  # `env -` is `env -i`
            at += 1
        elif options and word.startswith("-") and len(word) > 1:
            got = _option(name, reads, word, argv[at + 1] if at + 1 < len(argv) else None)
            if isinstance(got, str):
                return got
            used, option, value = got
            if option in reads.looks_up:
                return at, True
            if option in ("-C", "--chdir") and value is not None:
                folders.append(value)
            at += used
        elif reads.assigns and _ASSIGNMENT.match(word):
            options = False
            variable, _, value = word.partition("=")
            env[variable] = value
            at += 1
        elif positionals:
            options = False
            positionals -= 1
            at += 1
        else:
            break
    return at, False


def _option(name: str, reads: _Reads, word: str, following: str | None) -> tuple[int, str, str | None] | str:
    """(how many words the option takes, the option, its value) for one option word; or why it may change
    something. Short options may run together (`-pv`), the last taking a value (`-vfFMT`, `-vf FMT`)."""
    if word.startswith("--"):
        option, equals, value = word.partition("=")
        if option in reads.looks_up:
            return 1, option, None
        if option in reads.writes:
            return _writes(name, f"{option}=" if equals else option, value if equals else following)
        if option in reads.flags and not equals:
            return 1, option, None
        if option in reads.valued:
            return (1, option, value) if equals else (2, option, following) if following is not None \
                else _unknown(name, word)
        return _unknown(name, word)
    if reads.numbers and word[1:].isdigit():  # `nice -5`
        return 1, word, None
    last = word
    for at, letter in enumerate(word[1:], 2):
        option = f"-{letter}"
        last = option
        if option in reads.looks_up:
            return 1, option, None
        if option in reads.writes:
            return _writes(name, option, word[at:] or following)
        if option in reads.valued:
            if word[at:]:
                return 1, option, word[at:]
            return (2, option, following) if following is not None else _unknown(name, word)
        if option not in reads.flags:
            return _unknown(name, word)
    return 1, last, None


def _writes(name: str, option: str, value: str | None) -> str:
    if option.rstrip("=") in _WRITES_WITH_VALUE and value:
        return f"`{name} {option}{'' if option.endswith('=') else ' '}{value}` writes {value}"
    return f"`{name} {option}` writes its report to a file"


def _unknown(name: str, word: str) -> str:
    return f"`{name} {word}` is not an option of `{name}` known to change nothing, so it counts as mutating"


def _not_read(name: str, words: list[str]) -> str:
    """Why a wrapper --read-only does not read through is refused."""
    if name in _OTHER_USER:
        return (f"`{name}` runs the command as another user or with other privileges, whose configuration and "
                "files the read-only checks do not read (and it may write its own log), so it counts as mutating")
    if name == "nohup":
        return "`nohup` writes the command's output to nohup.out"
    if name == "xargs":
        return "`xargs` adds words read from its input to the command, so what runs is not known beforehand"
    if name in ("strace", "ltrace"):
        return f"`{name}` writes a trace of the run (with `-o FILE` into FILE) and is not read through"
    if name == "flock":
        own = wrappers.own_words("flock", words)
        values = wrappers.WRAPPERS["flock"].takes_value
        lock = next((w for w, before in zip(words[:own], ["", *words], strict=False)
                     if not w.startswith("-") and before not in values), None)
        return f"`flock {lock}` creates the lock file {lock}" if lock else "`flock` creates its lock file"
    return f"--read-only does not read through `{name}`: it is not known to change nothing itself"


def folder(cwd: str | None, folders: list[str]) -> str | None:
    """The folder a command runs in after its wrappers changed to `folders` from `cwd` (None: not known)."""
    for entry in folders:
        if cwd is None and not os.path.isabs(entry):
            return None
        cwd = os.path.join(cwd or "", entry)
    return cwd
