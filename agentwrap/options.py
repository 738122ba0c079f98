"""Wrapper options (CONTRACT section 1): they end at PROGRAM, like `env`, `timeout` and `nice`."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from agentwrap.errors import NotAvailableYet, UsageError
from agentwrap.lazyre import lazy

FORMATS = ("pretty", "json", "jsonl", "problem")
DETAILS = ("concise", "standard", "detailed")
SUBCOMMANDS = ("run", "capabilities", "describe", "schema", "explain", "artifact", "normalize", "op",
               "adapter", "capture", "mcp", "plan", "apply", "stats", "init", "hook")
ENVELOPE_KEYS = ("schema_version", "status", "summary", "request_id", "command", "context", "exit", "data",
                 "output", "effects", "verification", "warnings", "artifacts", "error", "problems", "metrics")
AGENT_TIMEOUT = 600.0
AGENT_INLINE_BYTES = 4096
HUMAN_INLINE_BYTES = 16384
_ENV_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DURATION = lazy(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)?\Z")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0, None: 1.0}


class Options:
    """Wrapper options as parsed; class attributes are the defaults (a plain class: start-up is a budget)."""

    agent: bool = False
    format: str | None = None
    timeout: float | None = None
    timeout_given: bool = False
    grace: float = 3.0
    answers: list[tuple[str, str]]
    max_inline_bytes: int | None = None
    detail: str = "standard"
    detail_given: bool = False
    fields: list[str] | None = None
    no_pty: bool = False
    adapter: str | None = None
    no_adapter: bool = False
    cwd: str | None = None
    env: dict[str, str]
    stdin: str | None = None
    read_only: bool = False
    detach: bool = False
    idempotency_key: str | None = None
    input: str | None = None  # `run --input FILE|-`: the whole request as JSON (agentwrap.request)
    shell: str | None = None  # --shell LINE: a shell command line instead of PROGRAM ARGS
    help: bool = False
    version: bool = False
    explicit_program: bool = False  # `--` was given: the next word is a program even if it names a subcommand

    def __init__(self, **values: Any) -> None:
        self.answers, self.env = [], {}
        for name, value in values.items():
            if not hasattr(type(self), name) and name not in ("answers", "env"):
                raise TypeError(f"unknown option field {name}")
            setattr(self, name, value)

    def inline_budget(self) -> int:
        if self.max_inline_bytes is not None:
            return self.max_inline_bytes
        return AGENT_INLINE_BYTES if self.agent else HUMAN_INLINE_BYTES


def parse_duration(text: str, option: str = "--timeout") -> float | None:
    """`90`, `90s`, `1.5m`, `500ms`, `2h`, `1d`, `2w`; `0` means no limit."""
    match = _DURATION.match(text.strip().lower())
    if not match:
        raise UsageError(f"{option} {text!r}: not a duration (use e.g. 90, 90s, 5m, 500ms, 1h, 1d, 2w)")
    seconds = float(match.group(1)) * _UNITS[match.group(2)]
    return seconds or None


def parse_size(text: str, option: str) -> int:
    match = re.fullmatch(r"(\d+)([kKmM]i?[bB]?)?", text.strip())
    if not match:
        raise UsageError(f"{option} {text!r}: not a byte count (use e.g. 4096, 16k, 1M)")
    factor = {"k": 1024, "m": 1 << 20}.get((match.group(2) or " ")[0].lower(), 1)
    value = int(match.group(1)) * factor
    if value < 256:
        raise UsageError(f"{option} {text!r}: at least 256 bytes are needed for a useful inline text")
    return value


def split_answer(text: str) -> tuple[str, str]:
    """`REGEX=REPLY`, split at the first `=` not escaped as `\\=` (a literal `=` in the regex)."""
    match = re.match(r"((?:\\.|[^\\=])*)=(.*)\Z", text, re.DOTALL)
    if not match or not match.group(1):
        raise UsageError(f"--answer {text!r}: expected REGEX=REPLY (write \\= for a literal '=' in REGEX)")
    pattern = match.group(1).replace("\\=", "=")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise UsageError(f"--answer {text!r}: invalid regular expression: {exc}") from None
    return pattern, match.group(2)


def _env(opts: Options, value: str) -> None:
    name, eq, val = value.partition("=")
    if not eq or not _ENV_NAME.match(name):
        raise UsageError(f"--env {value!r}: expected NAME=VALUE with a valid variable name")
    opts.env[name] = val


def _choice(value: str, choices: tuple[str, ...], option: str) -> str:
    if value not in choices:
        raise UsageError(f"{option} {value!r}: choose one of {', '.join(choices)}")
    return value


def _detail(opts: Options, value: str) -> None:
    opts.detail, opts.detail_given = _choice(value, DETAILS, "--detail"), True


def _cwd(opts: Options, value: str) -> None:
    # An empty folder would silently be the current one (`cd ""` does nothing): most often an unset variable.
    if not value:
        raise UsageError("--cwd '': an empty folder name; give a directory (`--cwd .` for the current one)")
    opts.cwd = value


def _timeout(opts: Options, value: str) -> None:
    opts.timeout, opts.timeout_given = parse_duration(value), True


def _grace(opts: Options, value: str) -> None:
    opts.grace = parse_duration(value, "--grace") or 0.0


_UNAVAILABLE: set[str] = set()  # options of the contract that this version parses but refuses


def _unavailable(name: str) -> Callable[[Options, str], None]:
    _UNAVAILABLE.add(name)

    def handler(_opts: Options, _value: str) -> None:
        raise NotAvailableYet(name)
    return handler


_Handler = Callable[[Options, str], None]
_WITH_VALUE: dict[str, _Handler] = {
    "--format": lambda o, v: setattr(o, "format", _choice(v, FORMATS, "--format")),
    "--timeout": _timeout,
    "--grace": _grace,
    "--answer": lambda o, v: o.answers.append(split_answer(v)),
    "--max-inline-bytes": lambda o, v: setattr(o, "max_inline_bytes", parse_size(v, "--max-inline-bytes")),
    "--detail": lambda o, v: _detail(o, v),
    "--fields": lambda o, v: setattr(o, "fields", [f.strip() for f in v.split(",") if f.strip()]),
    "--adapter": lambda o, v: setattr(o, "adapter", v),
    "--cwd": _cwd,
    "--env": _env,
    "--stdin": lambda o, v: setattr(o, "stdin", v),
    "--input": lambda o, v: setattr(o, "input", v),
    "--idempotency-key": lambda o, v: setattr(o, "idempotency_key", v),
    "--shell": lambda o, v: setattr(o, "shell", v),
}
_FLAGS: dict[str, _Handler] = {
    "--agent": lambda o, _: setattr(o, "agent", True),
    "--no-pty": lambda o, _: setattr(o, "no_pty", True),
    "--no-adapter": lambda o, _: setattr(o, "no_adapter", True),
    "--help": lambda o, _: setattr(o, "help", True),
    "-h": lambda o, _: setattr(o, "help", True),
    "--version": lambda o, _: setattr(o, "version", True),
    "--read-only": lambda o, _: setattr(o, "read_only", True),
    "--detach": lambda o, _: setattr(o, "detach", True),
}
OPTION_NAMES = sorted({*_WITH_VALUE, *_FLAGS})


def available(name: str) -> bool:
    """Whether this version has wrapper option `name` (`--detach`): the one place advice asks before naming
    an option, so that a fix never sends a caller to "not available yet"."""
    return name in OPTION_NAMES and name not in _UNAVAILABLE


def parse(args: list[str], opts: Options | None = None) -> tuple[Options, list[str]]:
    """Consume wrapper options from the front of `args`; return them and the rest, untouched."""
    opts = opts or Options()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            opts.explicit_program = True
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        name, eq, value = arg.partition("=")
        if name in _FLAGS:
            if eq:
                raise UsageError(f"{name} takes no value")
            _FLAGS[name](opts, "")
        elif name in _WITH_VALUE:
            if not eq:
                i += 1
                if i >= len(args):
                    raise UsageError(f"{name} needs a value")
                value = args[i]
            _WITH_VALUE[name](opts, value)
        else:
            import difflib

            near = difflib.get_close_matches(name, OPTION_NAMES, n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise UsageError(f"unknown option {name}{hint}; put `--` before the program if it is the program's")
        i += 1
    return opts, args[i:]


def validate(opts: Options) -> None:
    """Reject combinations that have no single meaning, instead of silently choosing one."""
    if opts.agent and opts.format == "pretty":
        raise UsageError("--agent and --format pretty conflict: agent mode prints JSON")
    if opts.adapter and opts.no_adapter:
        raise UsageError("--adapter and --no-adapter conflict")
    for dotted in opts.fields or ():
        if dotted.split(".")[0] not in ENVELOPE_KEYS:
            raise UsageError(f"--fields: {dotted!r} names no envelope field; top-level fields: "
                             f"{', '.join(ENVELOPE_KEYS)}")
    if opts.agent and not opts.timeout_given:
        opts.timeout = AGENT_TIMEOUT
    opts.detail = resolve_detail(opts)


def resolve_detail(opts: Options) -> str:
    """CONTRACT 2a: what an agent reads by default is the lean projection; `--detail` says otherwise."""
    return "concise" if opts.agent and not opts.detail_given else opts.detail


def resolve_format(opts: Options, stdout_is_tty: bool) -> str:
    if opts.format:
        return opts.format
    return "json" if opts.agent or not stdout_is_tty else "pretty"


def working_dir(opts: Options) -> str:
    """The folder a run works in (`--cwd`, else the current one), checked: a missing one is a usage error."""
    cwd = os.path.abspath(opts.cwd) if opts.cwd else os.getcwd()
    if not os.path.exists(cwd):
        raise UsageError(f"--cwd {opts.cwd}: no such directory")
    if not os.path.isdir(cwd):
        raise UsageError(f"--cwd {opts.cwd}: not a directory")
    return cwd
