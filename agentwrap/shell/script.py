"""What bash is given: the caller's line, verbatim, and a trace that the line's own output never sees.

The trace is bash's own DEBUG trap, installed by a startup file (`BASH_ENV`, read by every
non-interactive bash before the `-c` string, so `$LINENO` in the line is unchanged). Before each simple
command that runs in the shell itself, the trap writes one mark to descriptors it duplicated from the
terminals at startup: the command about to run (`$BASH_COMMAND`), the shell's `$PWD`, and the status
and `PIPESTATUS` of the command before it. Bash saves and restores `$?` and `PIPESTATUS` around a DEBUG
trap, and the trap's last argument is the previous `$_`, so the line sees the same values it would
without it. The marks go to the terminal, never into a pipe: what a pipe's right side receives is what
it would receive anyway. One line is appended after the caller's: it hands the final status and
`PIPESTATUS` to a mark and exits with that status.

A mark: ESC ] 7799 ; NONCE ; SEQ ; STATUS ; PIPESTATUS ; PWD NUL COMMAND NUL BEL. A shell string can
hold any byte but NUL, so a path or a command holding BEL or ESC cannot end it early; the nonce is new
for every run.
"""

from __future__ import annotations

import secrets
import shlex
from typing import NamedTuple

MARK_OSC = b"\x1b]7799;"
END_PREFIX = "__aw_end_"  # the trailer's function: its own mark is the end of the line
# The terminals' copies: far above what lines use (`exec 3>f`) and what bash allocates for `{var}>f`
# (the lowest free from 10). A line that names one of them runs untraced (shell.model).
MARK_FDS = (249, 250)


class Script(NamedTuple):
    nonce: str
    startup: str  # the BASH_ENV file's text
    command: str  # the `-c` string: the caller's line and the trailer


def new_nonce() -> str:
    return secrets.token_hex(6)


# What a `| tail` stage read, kept for the adapter of the command before it: `pytest 2>&1 | tail -5` shows the
# last lines, but the failures' places are in the lines tail dropped. Bounded: tail -c keeps the last bytes.
TAP_BYTES = 1 << 20
TAPPED = "tail"  # reads all its input whatever it prints, so a copy of that input changes nothing it does
# `| head -3` closes the pipe early: a copy of its input holds what the writer wrote before that (all of it
# when the writer ended first), kept from its start (head -c) and marked whole or cut (`SEQ.end`: tee's status)
TAPPED_HEAD = "head"
TAPPED_PROGRAMS = (TAPPED, TAPPED_HEAD)


def _operands(valued: str) -> str:
    """Shell code that sets `__aw_files` when the command is given a file operand (it then reads no pipe it was
    given: a `tail FILE` must leave that pipe to the commands after it); `valued`: its options with a value."""
    return (
        "  local __aw_a __aw_skip= __aw_files= __aw_ops=1\n"
        "  for __aw_a in \"$@\"; do\n"
        "    if [ -n \"$__aw_skip\" ]; then __aw_skip=; continue; fi\n"
        "    case $__aw_ops$__aw_a in\n"
        "      1--) __aw_ops= ;;\n"
        f"      {valued}) __aw_skip=1 ;;\n"
        "      1-|-) ;;\n"
        "      1-*) ;;\n"
        "      *) __aw_files=1 ;;\n"
        "    esac\n"
        "  done\n"
    )


def _tap(n: str, tap_dir: str) -> str:
    """A `tail` function that is the real tail, and that copies what a pipe gives it into TAP_DIR/SEQ (the
    trace's number of its own stage). The copy's writer is waited for, so no process outlives the line;
    tee's own status is not the stage's. Defined only where the caller's startup file did not define one,
    and in a bash that can wait for a process substitution (4.4)."""
    return (
        f"__aw_tap_{n}={shlex.quote(tap_dir)}\n"
        f"if ! declare -F {TAPPED} >/dev/null && ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)); then\n"
        f"{TAPPED}() {{\n"
        + _operands("1-n|1-c|1-s|1--pid|1--sleep-interval|1--max-unchanged-stats|1--lines|1--bytes") +
        f"  if [ -z \"$__aw_files\" ] && [ -p /dev/stdin ] && [ -d \"$__aw_tap_{n}\" ]; then\n"
        f"    {{ command tee -- >(command tail -c {TAP_BYTES} > \"$__aw_tap_{n}/$__aw_seq_{n}\")"
        f"; wait $! 2>/dev/null; }} | command {TAPPED} \"$@\"\n"
        "  else\n"
        f"    command {TAPPED} \"$@\"\n"
        "  fi\n"
        "}\n"
        "fi\n"
    )


def _head_tap(n: str, tap_dir: str) -> str:
    """A `head` function that is the real head, with a tee in front of it that copies what it passes on into
    TAP_DIR/SEQ. head receives the same bytes; when it stops reading, tee's next write to it fails and tee
    ends (`--output-error=exit`: also where SIGPIPE is ignored, and silently), so the writer is told as it
    would be, one read later. TAP_DIR/SEQ.end holds tee's status: 0 when it read the writer's output to its
    end. Only where tee has `--output-error` (GNU coreutils 8.24), and only for lines whose every `head` is a
    pipeline stage of its own (the caller's plan checks it): in `{ head -1; cat; }` tee would read what cat
    is meant to get."""
    where = f"\"$__aw_tap_{n}/$__aw_seq_{n}\""
    return (
        f"__aw_tap_{n}={shlex.quote(tap_dir)}\n"
        f"if ! declare -F {TAPPED_HEAD} >/dev/null && ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)) "
        "&& command tee --output-error=exit </dev/null >/dev/null 2>&1; then\n"
        f"{TAPPED_HEAD}() {{\n"
        + _operands("1-n|1-c|1--lines|1--bytes") +
        f"  if [ -z \"$__aw_files\" ] && [ -p /dev/stdin ] && [ -d \"$__aw_tap_{n}\" ]; then\n"
        "    { __aw_st=0\n"
        f"      command tee --output-error=exit -- >(command head -c {TAP_BYTES} > {where}; "
        "command cat > /dev/null) 2>/dev/null || __aw_st=$?\n"
        "      wait $! 2>/dev/null\n"
        f"      printf %s \"$__aw_st\" > {where}.end\n"
        f"    }} | command {TAPPED_HEAD} \"$@\"\n"
        "  else\n"
        f"    command {TAPPED_HEAD} \"$@\"\n"
        "  fi\n"
        "}\n"
        "fi\n"
    )


def build(line: str, *, user_bash_env: str | None, traced: bool, terminals: bool = True,
          nonce: str | None = None, tap_dir: str | None = None,
          tapped: tuple[str, ...] = (TAPPED,)) -> Script:
    """The startup file and `-c` string for `line`. `traced` False: only the trailer (the line changes
    shell tracing itself), so the last pipeline's statuses are still known. `terminals`: the streams
    are terminals, so a mark is written only while its descriptor still is one (never into a file).
    `tapped`: the programs whose stage keeps a copy of its input in `tap_dir` (tail, head)."""
    n = nonce or new_nonce()
    out_fd, err_fd = MARK_FDS
    guard = f"  [ -t {out_fd} ] && [ -t {err_fd} ] || return 0\n" if terminals else ""
    restore = (f"export BASH_ENV={shlex.quote(user_bash_env)}\n. \"$BASH_ENV\"\n" if user_bash_env
               else "unset BASH_ENV\n")
    fields = f'"$__aw_seq_{n}" "$1" "$2" "$PWD" "$3"'
    fmt = f"'\\033]7799;{n};%s;%s;%s;%s\\0%s\\0\\a'"
    mark = (
        f"__aw_mark_{n}() {{\n"
        f"{guard}"
        f"  __aw_seq_{n}=$((__aw_seq_{n} + 1))\n"
        f"  printf {fmt} {fields} >&{out_fd} 2>/dev/null || :\n"
        f"  printf {fmt} {fields} >&{err_fd} 2>/dev/null || :\n"
        "  return 0\n"
        "}\n"
    )
    startup = (
        f"{restore}"
        f"exec {out_fd}>&1 {err_fd}>&2\n"
        f"__aw_seq_{n}=0\n"
        f"{mark}"
        f"{END_PREFIX}{n}() {{ __aw_mark_{n} \"$1\" \"$2\" {END_PREFIX}{n}; exit \"$1\"; }}\n"
    )
    if traced:
        # The trap's arguments are expanded left to right before it runs: `$?` and PIPESTATUS first, and
        # the previous `$_` last, so that `$_` is the line's own again when the trap returns.
        startup += f"trap '__aw_mark_{n} \"$?\" \"${{PIPESTATUS[*]}}\" \"$BASH_COMMAND\" \"$_\"' DEBUG\n"
        if tap_dir and TAPPED in tapped:
            startup += _tap(n, tap_dir)
        if tap_dir and TAPPED_HEAD in tapped:
            startup += _head_tap(n, tap_dir)
    command = f"{line}\n{END_PREFIX}{n} \"$?\" \"${{PIPESTATUS[*]}}\"\n"
    return Script(n, startup, command)
