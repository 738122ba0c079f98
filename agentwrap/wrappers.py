"""Programs that only run another command (`env`, `sudo`, `nice`, `timeout`, `command`, ...): which of a
command's leading words are theirs, and which command they run.

One table serves two readers: the hooks match a user's permission rule on the program however it is
wrapped (agentwrap.hooks.programs: `sudo rm x` is `rm x` to a rule), and the adapter choice reads
`timeout 30 git status` with git's adapter (`through`). A wrapper's options are many and differ between
versions; the table names those that take a value, so that `nice -n 5 make` runs `make`.

Each wrapper's options that take a value are from its own `--help` or man page (util-linux's `runuser`,
`unshare`, `nsenter`, `setpriv`, `prlimit`, `setarch`; `strace`, `ltrace`, `bwrap`, `systemd-run`, ...).
A wrapper that runs a shell line instead of its words (`flock F -c CMD`, `runuser -c CMD`, `sg GROUP
CMD`) keeps all its words: agentwrap.hooks.inner reads the line with the shell grammar.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from agentwrap.lazyre import lazy

_OWN_FAILURES = frozenset({125, 126, 127})  # coreutils' (and the shell's) own: it failed, cannot run, not found


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
    # The command's output and status reach the caller as the command left them, so its adapter reads the
    # run. Not so for nohup (a terminal's output goes to nohup.out), chronic (prints only on failure), xargs
    # (adds words from its input, runs the command many times), busybox and toybox (their own tools) and
    # builtin (runs only the shell's builtins: `builtin git` is bash's error, not git's).
    transparent: bool = True
    runs_nothing: frozenset[str] = frozenset()  # options with which it only looks up (`command -v git`)
    own_statuses: frozenset[int] = _OWN_FAILURES  # statuses that are the wrapper's, not the command's
    # Any failure may be the wrapper's own (sudo asking for a password, or refusing: status 1 as the
    # command's may be): a failed run is read as the wrapper's, by the generic adapter's sudo rules.
    fails_itself: bool = False
    ran_out: int | None = None  # the status with which it says the command ran past its time limit


def _values(*names: str) -> frozenset[str]:
    return frozenset(names)


_RUNUSER = Wrapper(_values("-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w",
                           "--whitelist-environment"),
                   lines=_values("-c", "--command", "--session-command"), needs=_values("-u", "--user"),
                   fails_itself=True)
_SETARCH = Wrapper(positionals=1, leading=True)  # `setarch [ARCH] [OPTIONS] CMD`; its flags take no value
_STRACE = Wrapper(_values("-a", "-b", "-e", "-E", "-I", "-o", "-O", "-p", "-P", "-s", "-S", "-u", "-U", "-X",
                          "--columns", "--detach-on", "--env", "--attach", "--user", "--interruptible",
                          "--trace", "--signal", "--status", "--trace-path", "--abbrev", "--verbose", "--raw",
                          "--read", "--write", "--kvm", "--output", "--string-limit", "--const-print-style",
                          "--summary-syscall-overhead", "--summary-sort-by", "--summary-columns", "--inject",
                          "--fault", "--decode-pids", "--argv0"), transparent=False)
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
                               "--expand-environment", "-C", "--capsule"), transparent=False)


WRAPPERS: dict[str, Wrapper] = {
    "env": Wrapper(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})),
    "sudo": Wrapper(frozenset({"-u", "--user", "-g", "--group", "-p", "--prompt", "-C", "--close-from", "-D",
                               "--chdir", "-h", "--host", "-r", "--role", "-t", "--type", "-T",
                               "--command-timeout", "-U", "--other-user", "-R", "--chroot"}),
                    runs_nothing=frozenset({"-l", "--list", "-e", "--edit", "-v", "--validate", "-K",
                                            "--remove-timestamp", "-V", "--version"}), fails_itself=True),
    "doas": Wrapper(frozenset({"-u", "-C"}), fails_itself=True),
    "nice": Wrapper(frozenset({"-n", "--adjustment"})),
    "timeout": Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), 1,
                       own_statuses=_OWN_FAILURES | {124}, ran_out=124),  # 124: the time ran out
    "stdbuf": Wrapper(frozenset({"-i", "--input", "-o", "--output", "-e", "--error"})),
    "ionice": Wrapper(frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u",
                                 "--uid"})),
    "time": Wrapper(frozenset({"-f", "--format", "-o", "--output"})),
    "command": Wrapper(runs_nothing=frozenset({"-v", "-V"})), "builtin": Wrapper(transparent=False),
    "exec": Wrapper(frozenset({"-a"})), "nohup": Wrapper(transparent=False),
    "setsid": Wrapper(), "unbuffer": Wrapper(), "chronic": Wrapper(transparent=False),
    # `busybox rm x`: the applet is the command
    "busybox": Wrapper(transparent=False), "toybox": Wrapper(transparent=False),
    "chroot": Wrapper(frozenset({"--userspec", "--groups"}), 1),  # `chroot NEWROOT CMD`
    "sshpass": Wrapper(frozenset({"-p", "-f", "-d", "-P"})),
    "chrt": Wrapper(positionals=1), "taskset": Wrapper(positionals=1),
    "flock": Wrapper(_values("-w", "--timeout", "-E", "--conflict-exit-code"), 1,  # `flock F [-c] CMD`
                     lines=_values("-c", "--command")),
    "xargs": Wrapper(frozenset({"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n",
                                "--max-args", "-P", "--max-procs", "-s", "--max-chars"}), transparent=False),
    # Below: wrappers the hooks read through for the user's rules. Those that change what the run shows (a
    # trace on stderr, a banner, output in a unit's journal) or run a shell line are not read through by
    # the adapter choice (`transparent=False`); a privilege changer's failure may be its own (`fails_itself`).
    # users, groups and privileges
    "runuser": _RUNUSER,
    # `sg GROUP [-c] CMD`: `sh -c CMD`
    "sg": Wrapper(positionals=1, lines=_values("-c"), line_word=True, transparent=False),
    "setpriv": Wrapper(_values("--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid", "--rgid",
                               "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig",
                               "--selinux-label", "--apparmor-profile", "--landlock-access",
                               "--landlock-rule")),
    "pkexec": Wrapper(_values("--user"), fails_itself=True),
    "gosu": Wrapper(positionals=1), "su-exec": Wrapper(positionals=1),
    # namespaces, sandboxes, limits and placement
    "unshare": Wrapper(_values("-R", "--root", "-w", "--wd", "-S", "--setuid", "-G", "--setgid",
                               "--propagation", "--setgroups", "--monotonic", "--boottime", "--map-user",
                               "--map-group", "--map-users", "--map-groups")),
    "nsenter": Wrapper(_values("-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W", "--wdns")),
    "bwrap": _BWRAP,
    "firejail": Wrapper(transparent=False),  # every option of its own is `--NAME=VALUE`
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
                              "--library", "-n", "--indent", "-o", "--output", "-p", "-s", "-u", "-x"),
                      transparent=False),
    "valgrind": Wrapper(transparent=False),  # every option of its own is `--NAME=VALUE`
    "catchsegv": Wrapper(transparent=False), "eatmydata": Wrapper(), "ccache": Wrapper(),
    "fakeroot": Wrapper(_values("-l", "--lib", "-f", "--faked", "-i", "-s", "-b", "--fd-base")),
    "faketime": Wrapper(_values("-p", "--date-prog"), 1),  # `faketime [OPTIONS] TIMESTAMP CMD`
    "xvfb-run": Wrapper(_values("-e", "--error-file", "-f", "--auth-file", "-n", "--server-num", "-p",
                                "--xauth-protocol", "-s", "--server-args", "-w", "--wait"), transparent=False),
    "dbus-run-session": Wrapper(_values("--config-file", "--dbus-daemon")),
    "torsocks": Wrapper(_values("-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port"),
                         transparent=False),
    # process supervisors' chain-loaders (daemontools, runit), and hosts outside a sandbox or container
    "chpst": Wrapper(_values("-u", "-U", "-b", "-e", "-/", "-C", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f",
                             "-c", "-r", "-t")),
    "softlimit": Wrapper(_values("-m", "-a", "-d", "-s", "-l", "-f", "-c", "-o", "-p", "-t", "-r")),
    "setuidgid": Wrapper(positionals=1), "envuidgid": Wrapper(positionals=1), "envdir": Wrapper(positionals=1),
    "setlock": Wrapper(positionals=1), "pgrphack": Wrapper(),
    "run0": Wrapper(_values("-u", "--user", "-g", "--group", "--nice", "-D", "--chdir", "--setenv", "--unit",
                            "--property", "--description", "--slice", "--machine", "--background", "-a", "--area",
                            "--shell-prompt-prefix"), fails_itself=True),  # systemd's sudo
    "flatpak-spawn": Wrapper(_values("--env", "--unset-env", "--forward-fd", "--directory", "--app-path",
                                     "--usr-path", "--sandbox-expose", "--sandbox-expose-ro", "--sandbox-expose-path",
                                     "--sandbox-expose-path-ro", "--sandbox-a11y-own-name"), transparent=False),
    "distrobox-host-exec": Wrapper(transparent=False), "torify": Wrapper(transparent=False),
    "fakechroot": Wrapper(_values("-l", "--lib", "-d", "--elfloader", "-e", "--environment", "-c", "--config-dir")),
    "rlwrap": Wrapper(_values("-b", "-C", "-D", "-e", "-f", "-g", "-H", "-l", "-M", "-O", "-P", "-q", "-s", "-S",
                              "-t", "-w", "-z"), transparent=False),  # `-a`, `-m`, `-p`: values in the word
    "proxychains": Wrapper(_values("-f"), transparent=False),
    "proxychains4": Wrapper(_values("-f"), transparent=False),
}
_ASSIGNMENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*=")  # compiled when a wrapper is first read


def wrapper(word: str | None) -> str | None:
    """The wrapper `word` names (`/usr/bin/env` -> env), or None."""
    if word is None:
        return None
    name = os.path.basename(word)
    return name if name in WRAPPERS else None


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


def lookup(name: str) -> Wrapper | None:
    """What agentwrap knows of wrapper `name` (a basename), or None when it is no wrapper."""
    return WRAPPERS.get(name)


def own_words(name: str, words: Sequence[str | None]) -> int:
    """How many of `words` (those after wrapper `name`) are the wrapper's own. None stands for a word
    known only when the line runs: it ends the wrapper's words."""
    spec = WRAPPERS[name]
    positionals = spec.positionals
    needed = not spec.needs
    i = 0
    while i < len(words):
        value = words[i]
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


def _looks_up(spec: Wrapper, word: str) -> bool:
    """Whether `word` is one of the options with which the wrapper runs nothing, alone or among short
    options written as one word (`command -pv git`)."""
    if word in spec.runs_nothing:
        return True
    if not word.startswith("-") or word.startswith("--") or not word[1:].isalpha() or word[:2] in spec.takes_value:
        return False  # `sudo -u root`'s `-uroot` holds a value, not options
    return bool({o[1] for o in spec.runs_nothing if len(o) == 2} & set(word[1:]))


class Through(NamedTuple):
    argv: list[str]  # the command the wrappers run
    own_statuses: frozenset[int]  # statuses a wrapper sets itself (timeout's 124): not the command's
    fails_itself: bool  # any failure may be a wrapper's own (sudo's)

    def owns(self, status: int | None) -> bool:
        """Whether a run that ended with `status` (None: stopped, or ended by a signal) may have ended as a
        wrapper's own doing, so that it is read as the wrapper's run rather than the command's."""
        return status in self.own_statuses or self.fails_itself and status != 0


def through(argv: Sequence[str]) -> Through | None:
    """The command `argv` runs once the wrappers that leave its output and status its own are taken off
    (`timeout 30 git status` -> `git status`); None when argv starts with no wrapper, with one that only
    looks up (`command -v git`) or runs nothing (`sudo -v`), or with one that changes what the run shows
    (`nohup`, `xargs`)."""
    i = 0
    statuses: frozenset[int] = frozenset()
    fails_itself = False
    while i < len(argv) and (name := wrapper(argv[i])) is not None:
        spec = WRAPPERS[name]
        own = own_words(name, argv[i + 1:])
        if not spec.transparent or any(_looks_up(spec, word) for word in argv[i + 1:i + 1 + own]):
            return None
        statuses |= spec.own_statuses
        fails_itself = fails_itself or spec.fails_itself
        i += 1 + own
    if i == 0 or i >= len(argv):
        return None
    return Through(list(argv[i:]), statuses, fails_itself)


class Expired(NamedTuple):
    limit: str  # the limit as the caller wrote it (`30`, `5m`)
    argv: list[str]  # the command it ended


def expired(argv: Sequence[str], status: int | None) -> Expired | None:
    """The limit and the command when `argv` is a time-limit wrapper (`timeout 30 pytest`) that ended
    with the status by which it says the command ran past that limit; else None."""
    name = wrapper(argv[0]) if argv else None
    spec = WRAPPERS[name] if name else None
    if spec is None or spec.ran_out is None or status != spec.ran_out:
        return None
    own = own_words(name or "", argv[1:])
    if own < 1 or own >= len(argv) - 1 or argv[own] is None:
        return None
    return Expired(argv[own], list(argv[own + 1:]))
