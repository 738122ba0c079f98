"""What the edge takes from the process it runs in, injectable: `cli.main(argv, env)`.

The default `Environment()` is the real process (sys streams, their terminal flags, os.environ). A test
(or an embedding program) passes its own streams, terminal flags and folders, and gets the exit status
back instead of a `SystemExit`, so most CLI tests run in-process.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Mapping
from enum import IntEnum
from typing import IO, TYPE_CHECKING, Any

from agentwrap.records import Frozen, field

if TYPE_CHECKING:
    from pathlib import Path  # pathlib costs ~3 ms to import (urllib.parse, ipaddress); a run needs none


class ExitStatus(IntEnum):
    """CONTRACT section 4. agentwrap's own statuses are named; any other value (0-255) is the program's
    own exit status, passed through (`ExitStatus(2)` is the pseudo-member PROGRAM_2)."""

    SUCCESS = 0
    ERROR = 1  # the program failed (exit 1), or exited 0 and its adapter says it failed
    TIMEOUT = 124
    AGENTWRAP = 125  # agentwrap refused or failed: usage, input required, mutation refused, internal
    NOT_EXECUTABLE = 126
    NOT_FOUND = 127
    INTERRUPTED = 130  # 128 + SIGINT

    @classmethod
    def _missing_(cls, value: object) -> ExitStatus | None:
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 255:
            member = int.__new__(cls, value)
            member._name_ = f"PROGRAM_{value}"
            member._value_ = value
            return member
        return None


class Environment(Frozen):
    """The process around one `agentwrap` call.

    `stdout_isatty`/`stdin_isatty` default to asking the streams. `config_dir` is agentwrap's config
    folder (the user adapters are its `adapters/`), `cache_dir` the artifact cache; both default to the
    user's (platformdirs, or AGENTWRAP_ADAPTER_DIR / AGENTWRAP_CACHE_DIR). `variables` are set in the
    process environment for the duration of the call (the runner gives its children os.environ).
    """

    stdout: IO[str] = field(default_factory=lambda: sys.stdout)
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    stdin: IO[bytes] | None = None  # None: the process's own stdin
    stdout_isatty: bool | None = None
    stdin_isatty: bool | None = None
    config_dir: Path | None = None
    cache_dir: Path | None = None
    variables: Mapping[str, str] = field(default_factory=dict)

    def is_tty(self) -> bool:
        if self.stdout_isatty is not None:
            return self.stdout_isatty
        try:
            return self.stdout.isatty()
        except (ValueError, OSError):
            return False

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        """Make this environment the process's for one call, and restore the process's afterwards."""
        changes: dict[str, str] = dict(self.variables)
        if self.config_dir is not None:
            changes["AGENTWRAP_ADAPTER_DIR"] = str(self.config_dir / "adapters")
        if self.cache_dir is not None:
            changes["AGENTWRAP_CACHE_DIR"] = str(self.cache_dir)
        saved = {name: os.environ.get(name) for name in changes}
        streams: dict[str, Any] = {"stdout": sys.stdout, "stderr": sys.stderr, "stdin": sys.stdin}
        os.environ.update(changes)
        sys.stdout, sys.stderr = self.stdout, self.stderr
        if self.stdin is not None:
            sys.stdin = _TtyFlag(io.TextIOWrapper(self.stdin), self.stdin_isatty)
        elif self.stdin_isatty is not None:
            sys.stdin = _TtyFlag(sys.stdin, self.stdin_isatty)
        try:
            yield
        finally:
            sys.stdout, sys.stderr, sys.stdin = streams["stdout"], streams["stderr"], streams["stdin"]
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


class _TtyFlag:
    """A stream whose isatty() says what the environment was told (None: what the stream says)."""

    def __init__(self, stream: Any, tty: bool | None) -> None:
        self._stream, self._tty = stream, tty

    def isatty(self) -> bool:
        return bool(self._stream.isatty()) if self._tty is None else self._tty

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
