"""The one rule for a failure's `summary` (CONTRACT 2a rule 1: say each fact once).

The deciding error's `detail` is the tool's own line (or agentwrap's account of what it did); the summary
is ours: the program and subcommand that failed and how, at the level of the problem's title
(`git push: Push rejected (non-fast-forward)`), or the adapter's own counts (`ruff: 8 errors in 2 files`).
A reader who sees only the summary (a log line, `--format pretty`'s first line, an MCP host's text)
learns what failed and how; `error.detail` says the rest once.

Where the title says nothing specific (`Program failed`, a log format's `go: error`), the summary gives
what is specific and not in the detail: the count of the located errors, else the exit status; a program
killed by a signal names the signal, a prompt its kind of input (the prompt itself is the detail's).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from agentwrap.lazyre import lazy
from agentwrap.records import Problem

MAX_CHARS = 300

# A title's leading `TOOL: ` (`curl: could not connect`), said by the summary's own program name instead.
_TOOL_PREFIX = lazy(r"^(?P<tool>[A-Za-z][\w.+-]*(?: [a-z][\w-]*)?): (?=\S)")
# What wrapper titles say of "the program" that the program's name at the front says better.
_PROGRAM_WORDS = lazy(r"^Program (?:(?:is|was) )?")
# Titles that name no failure in particular: a log format's `go: error`, rustc's `rustc error`.
_GENERIC = lazy(r"(?:(?P<tool>\S+) )?(?:error|warning|diagnostic|failed)", re.IGNORECASE)


def restates(summary: str, detail: str | None) -> bool:
    """Whether `summary` says the detail again: the same words, or one holding the other whole."""
    if not detail or not summary:
        return False
    a, b = _plain(summary), _plain(detail)
    return a == b or (len(b) >= 8 and b in a) or (len(a) >= 8 and a in b)


def _plain(text: str) -> str:
    return " ".join(text.split()).rstrip(".: ").casefold()


def failure_summary(error: Problem, *, program: str | None = None, subcommand: str | None = None,
                    exit_code: int | None = None, signal: int | None = None, problems: Sequence[Problem] = (),
                    adapters: str = "") -> str:
    """`PROGRAM SUBCOMMAND: what failed`, never the error's detail again.

    `program`: the program that ran (or was named) and failed, None for agentwrap's own refusals;
    `exit_code`, `signal`: how the program ended; `problems`: every problem found, for a count where the title
    is generic; `adapters`: the adapter's own summary, whose words besides the detail (its counts: `pytest:
    1 passed in 0.91s; <detail>`) stay in front."""
    head = " ".join(x for x in (os.path.basename(program) if program else None, subcommand) if x)
    what = _without_head(_what(error, program, exit_code, signal, problems), head)
    rest = _besides(adapters, error.detail)
    if rest and head and rest.startswith(f"{head.split()[0]}: "):
        return f"{rest}; {what}"[:MAX_CHARS]
    if not head or "agentwrap" in what:  # agentwrap's own failure names itself (`Invalid agentwrap invocation`)
        return what[:MAX_CHARS]
    return f"{head}: {what}"[:MAX_CHARS]


def _without_head(what: str, head: str) -> str:
    """A title that opens with the very command the summary names in front (`npm ci needs a package-lock.json`
    under `npm ci: `, `npx would have to download a package` under `npx: `) without it: said once."""
    if head and what[: len(head) + 1].casefold() == f"{head} ".casefold() and what[len(head) + 1:][:1].islower():
        return what[len(head) + 1:]
    return what


def _besides(summary: str, detail: str) -> str:
    """What a summary says besides the detail it holds: `pytest: 1 passed in 0.91s` of `pytest: 1 passed in
    0.91s; the test run was interrupted (KeyboardInterrupt)`; empty when that is only a name."""
    if not summary or not detail or detail not in summary:
        return ""
    rest = summary.replace(detail, "").strip(" ;,:-")
    return rest if re.search(r"\d|\s", rest.partition(": ")[2]) else ""


def _what(error: Problem, program: str | None, exit_code: int | None, signal: int | None,
          problems: Sequence[Problem]) -> str:
    title = _own_words(error.title, program)
    if error.code == "KILLED_BY_SIGNAL" and signal is not None:
        return f"killed by {_signal_name(signal)}"  # SIGKILL (the OOM killer?) or SIGSEGV (a crash): how
    if error.code == "COMMAND_TIMED_OUT":
        return "its time limit ran out"  # which command, and which limit: the detail
    if error.code == "INPUT_REQUIRED":
        kind = (error.extra or {}).get("input_kind")
        return f"asked for {kind} input" if kind else title  # the prompt itself is the detail's
    if error.code == "COMMAND_FAILED" or _generic(title, error, program):
        counted = _counted([p for p in problems if p.severity == "error"] or [error])
        return counted or (f"exit status {exit_code}" if exit_code else "failed")
    return title


def _generic(title: str, error: Problem, program: str | None) -> bool:
    """A title that names no failure in particular: `error` (a log format's `go: error`), `rustc error`,
    `ESLint failed`; not `syntax error`."""
    match = _GENERIC.fullmatch(title)
    if match is None:
        return False
    names = {_family(program), error.type.split(":")[3] if error.type.count(":") >= 4 else ""}
    return match["tool"] is None or match["tool"].casefold() in names


def _own_words(title: str, program: str | None) -> str:
    """The title without the tool's name in front (the summary names the program itself) and without
    "Program" where the program's name stands for it."""
    match = _TOOL_PREFIX.match(title)
    if match:
        tool = match["tool"].split()[0].casefold()
        name = os.path.basename(program or "").casefold()
        if tool == name or tool in name or name in tool or tool.islower():
            title = title[match.end():]
    title = _PROGRAM_WORDS.sub("", title)
    family = _family(program)
    if len(family) >= 2:
        # The head already names the program: `Python syntax error`, `Docker daemon not reachable`, `Unknown
        # git command`, `Invalid python command line`, `Uncaught Python exception`. Not elsewhere: `tar
        # archive`, `make the target` and `Cargo.toml` are other words.
        name = re.escape(family)
        title = re.sub(rf"^{name[:1].upper()}{name[1:]} (?=[a-z])", "", title)
        title = re.sub(rf"(?i)^((?:unknown|invalid|uncaught) ){name} (?=\w)", r"\1", title)
    return title


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _family(program: str | None) -> str:
    """The program's name without its version: python3 -> python, pip3 -> pip."""
    return re.sub(r"[\d.]+$", "", os.path.basename(program or "")).casefold()


def _counted(errors: Sequence[Problem]) -> str | None:
    """`2 errors in 3 files` (`2 errors` in one) for located errors; None when none of them has a place."""
    files = {str((p.location or {}).get("file")) for p in errors if (p.location or {}).get("file")}
    if not files:
        return None
    n = len(errors)
    where = f" in {len(files)} files" if len(files) > 1 else ""  # one file: the error's location names it
    return f"{n} error{'' if n == 1 else 's'}{where}"

