"""Which program a simple command runs, and the forms of it a user's permission rule may be written for.

A rule written for `rm` must see `rm` in `'rm' -rf x`, `\\rm x`, `FOO=1 rm x`, `/bin/rm x`, `sudo rm x`
or `timeout 9 rm x`: the host would have matched its text, and the rewritten line hides it. So a command
is matched in several forms: as written, with its quotes removed, and with the program named by its
basename after the wrappers that only run another command (`env`, `sudo`, `nice`, `timeout`, ...). A
wrapper's options are many and differ between versions, so after a wrapper every later word is also
tried as the start of the command: a rule may then name a word that is not the program (the line is
left to the host, which costs a rewrite, never a permission).

Each wrapper's options that take a value are from its own `--help` or man page (util-linux's `runuser`,
`unshare`, `nsenter`, `setpriv`, `prlimit`, `setarch`; `strace`, `ltrace`, `bwrap`, `systemd-run`, ...).
A wrapper that runs a shell line instead of its words (`flock F -c CMD`, `runuser -c CMD`, `sg GROUP
CMD`) keeps all its words: agentwrap.hooks.inner reads the line with the shell grammar.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from agentwrap.hooks.calls import Call, Word


class Wrapper(NamedTuple):
    takes_value: frozenset[str] = frozenset()  # options whose value is the next word
    positionals: int = 0  # words before the command that are the wrapper's own (timeout's duration)
    takes_two: frozenset[str] = frozenset()  # options whose value is the next two words (`bwrap --bind A B`)
    lines: frozenset[str] = frozenset()  # options whose value is a shell line it runs (`flock F -c CMD`);
    # with one, no later word is a command of its own: agentwrap.hooks.inner reads the line
    needs: frozenset[str] = frozenset()  # options without which it runs no command from its words
    # (`runuser USER ARGS` hands ARGS to a shell; only `runuser -u USER CMD` runs CMD)
    line_word: bool = False  # its command is one word, a line for `sh -c` (`sg GROUP CMD`)
    leading: bool = False  # its positional may only come first, before its options (`setarch [ARCH] -R CMD`)


def _values(*names: str) -> frozenset[str]:
    return frozenset(names)


_RUNUSER = Wrapper(_values("-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w",
                           "--whitelist-environment"),
                   lines=_values("-c", "--command", "--session-command"), needs=_values("-u", "--user"))
_SETARCH = Wrapper(positionals=1, leading=True)  # `setarch [ARCH] [OPTIONS] CMD`; its flags take no value
_STRACE = Wrapper(_values("-a", "-b", "-e", "-E", "-I", "-o", "-O", "-p", "-P", "-s", "-S", "-u", "-U", "-X",
                          "--columns", "--detach-on", "--env", "--attach", "--user", "--interruptible",
                          "--trace", "--signal", "--status", "--trace-path", "--abbrev", "--verbose", "--raw",
                          "--read", "--write", "--kvm", "--output", "--string-limit", "--const-print-style",
                          "--summary-syscall-overhead", "--summary-sort-by", "--summary-columns", "--inject",
                          "--fault", "--decode-pids", "--argv0"))
_BWRAP = Wrapper(_values("--args", "--userns", "--userns2", "--pidns", "--uid", "--gid", "--hostname",
                         "--chdir", "--unsetenv", "--lock-file", "--sync-fd", "--remount-ro", "--exec-label",
                         "--file-label", "--proc", "--dev", "--tmpfs", "--mqueue", "--dir", "--seccomp",
                         "--add-seccomp-fd", "--block-fd", "--userns-block-fd", "--info-fd",
                         "--json-status-fd", "--cap-add", "--cap-drop", "--perms", "--size", "--tmp-overlay",
                         "--ro-overlay", "--overlay-src"),
                 takes_two=_values("--setenv", "--bind", "--bind-try", "--dev-bind", "--dev-bind-try",
                                   "--ro-bind", "--ro-bind-try", "--bind-fd", "--ro-bind-fd", "--file",
                                   "--bind-data", "--ro-bind-data", "--symlink", "--chmod"))
_SYSTEMD_RUN = Wrapper(_values("-H", "--host", "-M", "--machine", "-u", "--unit", "-p", "--property",
                               "--description", "--slice", "--service-type", "--uid", "--gid", "--nice",
                               "--working-directory", "-E", "--setenv", "--path-property",
                               "--socket-property", "--on-active", "--on-boot", "--on-startup",
                               "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property",
                               "--expand-environment", "-C", "--capsule"))


_WRAPPERS: dict[str, Wrapper] = {
    "env": Wrapper(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})),
    "sudo": Wrapper(frozenset({"-u", "--user", "-g", "--group", "-p", "--prompt", "-C", "--close-from", "-D",
                               "--chdir", "-h", "--host", "-r", "--role", "-t", "--type", "-T",
                               "--command-timeout", "-U", "--other-user", "-R", "--chroot"})),
    "doas": Wrapper(frozenset({"-u", "-C"})),
    "nice": Wrapper(frozenset({"-n", "--adjustment"})),
    "timeout": Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "stdbuf": Wrapper(frozenset({"-i", "--input", "-o", "--output", "-e", "--error"})),
    "ionice": Wrapper(frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u",
                                 "--uid"})),
    "time": Wrapper(frozenset({"-f", "--format", "-o", "--output"})),
    "command": Wrapper(), "builtin": Wrapper(), "exec": Wrapper(frozenset({"-a"})), "nohup": Wrapper(),
    "setsid": Wrapper(), "unbuffer": Wrapper(), "chronic": Wrapper(),
    "busybox": Wrapper(), "toybox": Wrapper(),  # `busybox rm x`: the applet is the command
    "chroot": Wrapper(frozenset({"--userspec", "--groups"}), 1),  # `chroot NEWROOT CMD`
    "sshpass": Wrapper(frozenset({"-p", "-f", "-d", "-P"})),
    "chrt": Wrapper(positionals=1), "taskset": Wrapper(positionals=1),
    "flock": Wrapper(_values("-w", "--timeout", "-E", "--conflict-exit-code"), 1,  # `flock F [-c] CMD`
                     lines=_values("-c", "--command")),
    "xargs": Wrapper(frozenset({"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n",
                                "--max-args", "-P", "--max-procs", "-s", "--max-chars"})),
    # users, groups and privileges
    "runuser": _RUNUSER,
    "sg": Wrapper(positionals=1, lines=_values("-c"), line_word=True),  # `sg GROUP [-c] CMD`: `sh -c CMD`
    "setpriv": Wrapper(_values("--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid", "--rgid",
                               "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig",
                               "--selinux-label", "--apparmor-profile", "--landlock-access",
                               "--landlock-rule")),
    "pkexec": Wrapper(_values("--user")), "gosu": Wrapper(positionals=1), "su-exec": Wrapper(positionals=1),
    # namespaces, sandboxes, limits and placement
    "unshare": Wrapper(_values("-R", "--root", "-w", "--wd", "-S", "--setuid", "-G", "--setgid",
                               "--propagation", "--setgroups", "--monotonic", "--boottime", "--map-user",
                               "--map-group", "--map-users", "--map-groups")),
    "nsenter": Wrapper(_values("-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W", "--wdns")),
    "bwrap": _BWRAP,
    "firejail": Wrapper(),  # every option of its own is `--NAME=VALUE`
    "proot": Wrapper(_values("-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-q", "--qemu", "-w", "--pwd",
                             "--cwd", "-v", "--verbose", "-k", "--kernel-release", "-i", "--change-id", "-R",
                             "-S")),
    "prlimit": Wrapper(_values("-p", "--pid", "-o", "--output")),  # limits are `--nofile=N`: optional values
    "numactl": Wrapper(_values("-i", "--interleave", "-p", "--preferred", "-P", "--preferred-many", "-C",
                               "--physcpubind", "-N", "--cpunodebind", "--cpubind", "-m", "--membind", "-L",
                               "--length", "-o", "--offset", "-M", "--shmmode", "-I", "--shmid", "-S",
                               "--shm", "-f", "--file")),
    "cgexec": Wrapper(_values("-g")),
    "systemd-run": _SYSTEMD_RUN,
    "setarch": _SETARCH, "linux32": Wrapper(), "linux64": Wrapper(),
    "sandbox-exec": Wrapper(_values("-f", "-n", "-p", "-D")),  # macOS
    "caffeinate": Wrapper(_values("-t", "-w")),  # macOS
    # tracers, debuggers and run-time shims
    "strace": _STRACE,
    "ltrace": Wrapper(_values("-a", "--align", "-A", "-D", "--debug", "-e", "-F", "--config", "-l",
                              "--library", "-n", "--indent", "-o", "--output", "-p", "-s", "-u", "-x")),
    "valgrind": Wrapper(),  # every option of its own is `--NAME=VALUE`
    "catchsegv": Wrapper(), "eatmydata": Wrapper(), "ccache": Wrapper(),
    "fakeroot": Wrapper(_values("-l", "--lib", "-f", "--faked", "-i", "-s", "-b", "--fd-base")),
    "faketime": Wrapper(_values("-p", "--date-prog"), 1),  # `faketime [OPTIONS] TIMESTAMP CMD`
    "xvfb-run": Wrapper(_values("-e", "--error-file", "-f", "--auth-file", "-n", "--server-num", "-p",
                                "--xauth-protocol", "-s", "--server-args", "-w", "--wait")),
    "dbus-run-session": Wrapper(_values("--config-file", "--dbus-daemon")),
    "torsocks": Wrapper(_values("-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port")),
    "proxychains": Wrapper(_values("-f")), "proxychains4": Wrapper(_values("-f")),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def wrapper(name: str) -> Wrapper | None:
    """What agentwrap knows of wrapper `name` (a basename), or None when it is no wrapper."""
    return _WRAPPERS.get(name)


class Unwrapped(NamedTuple):
    words: tuple[Word, ...]  # the command the wrappers run (empty: they run none, as `sudo -v`)
    wrappers: tuple[tuple[Word, ...], ...]  # each wrapper with its own words, outermost first


def _letters(option: str, spec: Wrapper) -> str:
    """The short options a word holds (`-fo` is `-f -o`), up to the first that takes a value: the rest of
    the word is that value (`-n5`, `-o/tmp/t`), or else the next word is (`strace -fo F`, `env -iu VAR`)."""
    if option.startswith("--"):
        return ""
    for j, letter in enumerate(option[1:], 2):
        if f"-{letter}" in spec.takes_value or f"-{letter}" in spec.lines:
            return option[1:j]
    return option[1:]


def _given(option: str, options: frozenset[str], spec: Wrapper) -> bool:
    """Whether the word gives one of `options` (`--command=CMD`, `-c CMD`, `-lc CMD`, `-cCMD`)."""
    if option.startswith("--"):
        return option.partition("=")[0] in options
    return any(f"-{letter}" in options for letter in _letters(option, spec))


def _value_words(option: str, spec: Wrapper) -> int:
    """How many of the next words are the option's value: `-o F`, `--bind A B`, `-fo F`; none for `-n5`."""
    if option in spec.takes_value:
        return 1
    if option in spec.takes_two:
        return 2
    letters = _letters(option, spec)
    return int(bool(letters) and len(letters) == len(option) - 1 and f"-{letters[-1]}" in spec.takes_value)


def _skip_options(name: str, words: tuple[Word, ...]) -> int:
    """How many of `words` (those after wrapper `name`) are the wrapper's own."""
    spec = _WRAPPERS[name]
    positionals = spec.positionals
    needed = not spec.needs
    i = 0
    while i < len(words):
        value = words[i].value
        if value is None:
            return i
        if value == "--":
            return i + 1 if needed else len(words)
        if value.startswith("-"):  # `-` too: `env -` is `env -i`, `sg - GROUP` a login
            if _given(value, spec.lines, spec):  # `flock F -c CMD`, `runuser -c CMD USER`: only the line runs
                return len(words)
            needed = needed or _given(value, spec.needs, spec)
            i += 1 + _value_words(value, spec)
        elif name in ("env", "sudo") and _ASSIGNMENT.match(value):  # `sudo PAGER=less git log`
            i += 1
        elif positionals and (not spec.leading or i == 0):
            positionals -= 1
            i += 1
        elif not needed:  # `runuser USER -c CMD`: the words are for the shell it starts
            return len(words)
        else:
            return i
    return i


def unwrap(words: tuple[Word, ...]) -> Unwrapped:
    """The command `words` runs once every leading wrapper is taken off."""
    wrappers: list[tuple[Word, ...]] = []
    while words and words[0].value is not None and os.path.basename(words[0].value) in _WRAPPERS:
        name = os.path.basename(words[0].value)
        own = 1 + _skip_options(name, words[1:])
        wrappers.append(words[:own])
        words = words[own:]
    return Unwrapped(words, tuple(wrappers))


def program(words: tuple[Word, ...]) -> str | None:
    """The basename of the program the command runs; None when it is known only when the line runs."""
    inner = unwrap(words).words
    if not inner or inner[0].value is None:
        return None
    return os.path.basename(inner[0].value)


def _joined(words: tuple[Word, ...], basename: bool = False) -> str:
    parts = [w.value if w.value is not None else w.raw for w in words]
    if basename and parts and words[0].value is not None:
        parts[0] = os.path.basename(parts[0])
    return " ".join(parts)


def rule_forms(call: Call) -> tuple[str, ...]:
    """The command as written, then every other form a rule written for its program could match."""
    forms = [call.text.strip(), _joined(call.words), _joined(call.words, basename=True)]
    unwrapped = unwrap(call.words)
    if unwrapped.wrappers:  # `sudo rm x`: `rm x`, and each later start in case an option was misread
        forms.append(_joined(unwrapped.words, basename=True))
        forms += [_joined(call.words[i:], basename=True) for i in range(1, len(call.words))]
    return tuple(dict.fromkeys(f for f in forms if f))


def named(call: Call) -> bool:
    """Whether the program the command runs is known before it runs (a rule can be applied to it)."""
    if not call.words:
        return True  # a bare assignment runs nothing
    inner = unwrap(call.words).words
    return not inner or inner[0].value is not None
