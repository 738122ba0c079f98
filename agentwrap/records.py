"""The records an adapter receives and returns: kw-only frozen dataclasses, and nothing else.

A leaf: this module imports nothing of agentwrap, so every room of the package (and a plugin) may use it.
`agentwrap.sdk` re-exports these names; plugin authors import them from there.

`_replace`, `_asdict` and iteration are kept on each record: the records were NamedTuples, and code
written against them (`problem._replace(severity="warning")`, `tuple(effects)`) keeps working.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any, Protocol, Self


class Value:
    """Equality, hash and repr from the fields, for frozen dataclasses declared `eq=False, repr=False`.

    They are what `dataclass(frozen=True)` would generate, written once: Python 3.11 compiles each
    generated method of each class on its own, and those three cost about 0.4 ms a class, 5 ms of every
    start (the run path creates eleven records). 3.13 compiles a class's methods together."""

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr)  # type: ignore[arg-type]
        return f"{self.__class__.__qualname__}({shown})"


class _Record(Value):
    """What every record shares: a changed copy, and its fields as a dict."""

    def replace(self, **changes: Any) -> Self:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    _replace = replace  # the NamedTuple spelling, for code written before the records were dataclasses

    def _asdict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Any]:
        """The field values in order, as a NamedTuple gave them (`tuple(effects)`): for older code only."""
        return iter(self._asdict().values())


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class CodeAction(_Record):
    """A way out of a problem: a command to run, an edit to make (CONTRACT 3, `code_actions`)."""

    title: str
    kind: str = "command"  # quickfix | command | edit
    command: tuple[str, ...] | None = None
    applicability: str = "unspecified"
    is_preferred: bool = False
    edit: dict[str, Any] | None = None
    cwd: str | None = None  # the folder `command` runs in, absolute: set when the program ran in another one

    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"title": self.title, "kind": self.kind}
        if self.command is not None:
            out["command"] = list(self.command)
        if self.cwd is not None:
            out["cwd"] = self.cwd
        if self.edit is not None:
            out["edit"] = self.edit
        out["applicability"] = self.applicability
        out["is_preferred"] = self.is_preferred
        return out


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Problem(_Record):
    """RFC 9457 Problem Details with the agent extensions of CONTRACT section 3. Adapters build one with
    `agentwrap.sdk.problem` (which owns the `type` URI), never by hand."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    category: str
    retryable: bool
    safe_to_retry: bool
    exit_code: int | None = None
    instance: str | None = None
    retry_after: float | None = None
    suggested_fix: str | None = None
    docs_url: str | None = None
    code_actions: tuple[CodeAction, ...] = ()
    remediation: tuple[dict[str, Any], ...] = ()
    location: dict[str, Any] | None = None
    severity: str = "error"
    extra: dict[str, Any] | None = None  # e.g. prompt, input_kind
    matched: str = ""  # the output line a rule read this from: not serialised, never shown twice

    def with_instance(self, request_id: str) -> Problem:
        return self.replace(instance=f"urn:agentwrap:request:{request_id}")

    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        """The RFC 9457 object. `compact` (the entries of `problems`) leaves out what is empty or null and
        what the envelope already says once (instance, exit_code): the deciding `error` stays whole."""
        out: dict[str, Any] = {
            "type": self.type,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "instance": self.instance,
            "code": self.code,
            "category": self.category,
            "severity": self.severity,
            "exit_code": self.exit_code,
            "retryable": self.retryable,
            "safe_to_retry": self.safe_to_retry,
            "retry_after": self.retry_after,
            "suggested_fix": self.suggested_fix,
            "docs_url": self.docs_url,
            "code_actions": [a.to_dict() for a in self.code_actions],
            "remediation": list(self.remediation),
        }
        if self.location is not None:
            out["location"] = self.location
        if compact:
            for key in ("instance", "exit_code"):
                del out[key]
            for key in ("retry_after", "suggested_fix", "docs_url", "remediation"):
                if out[key] in (None, []):
                    del out[key]
        out.update(self.extra or {})
        return out


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ProblemCode(_Record):
    """A problem code an adapter can emit, declared once: `describe`, `explain` and docs/problems.md read
    these declarations, and the problem factory takes its facts from them.

    `pattern` declares a family of codes a tool names itself (rustc's `E0308`): `code` then names the
    family and any code matching the pattern is one of it."""

    code: str
    title: str
    category: str
    status: int
    retryable: bool = False
    safe_to_retry: bool = True
    suggested_fix: str | None = None
    docs_url: str | None = None
    pattern: str | None = None

    def covers(self, code: str) -> bool:
        return code == self.code or (self.pattern is not None and re.fullmatch(self.pattern, code) is not None)


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Effects(_Record):
    """What an invocation may do to the world (None: unknown)."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def to_dict(self) -> dict[str, bool | None]:
        return self._asdict()


EFFECT_FIELDS = tuple(f.name for f in dataclasses.fields(Effects))


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Presentation(_Record):
    """How a tool's text reads for a model (declared in the spec: `noise`, `parsed_whole`, `layout`,
    `concise_omit`)."""

    noise: tuple[tuple[re.Pattern[str], str], ...] = ()  # (pattern, stream): lines that carry no fact
    parsed_whole: bool = False  # `data` holds every fact of stdout: the text stays in the artifact
    layout: bool = False  # the tool draws for the terminal: rules and padding are not content
    concise_omit: tuple[str, ...] = ()  # data keys a concise envelope leaves out: problems or counts say them
    text_says: tuple[str, ...] = ()  # data keys that stdout says too: left out while stdout is shown whole
    concise_shared: tuple[str, ...] = ()  # top-level data keys that every item of a list has alike
    concise_written: tuple[str, ...] = ()  # top-level data keys left out when the caller wrote their value
    columns: bool = False  # stdout is a table aligned with spaces: its cells are sent one space apart
    patch: bool = False  # stdout holds unified diffs: hunks are kept whole, repeated file headers left out
    # the output may hold secrets that only the adapter can name, after the run (Interpretation.secrets): no
    # output event of --format jsonl streams it live, before they are hidden
    names_secrets: bool = False

    def noise_for(self, stream: str) -> list[re.Pattern[str]]:
        return [pattern for pattern, where in self.noise if where in ("any", stream)]


class Stream(Protocol):
    """What an adapter may read of one captured stream besides its text (the capture's bounded result)."""

    @property
    def text(self) -> str: ...
    @property
    def salient(self) -> tuple[tuple[int, str], ...]: ...
    @property
    def head(self) -> tuple[str, ...]: ...
    @property
    def tail(self) -> tuple[str, ...]: ...


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class CapturedRun(_Record):
    """A finished run as an adapter sees it. Adapters are pure: they read this and return facts."""

    argv: tuple[str, ...]
    program: str
    exit_code: int | None
    signal: int | None
    stdout: Stream
    stderr: Stream
    duration_ms: int = 0
    stdout_text: str = ""  # cleaned text for analysis: whole, or head and tail when `complete` is False
    stderr_text: str = ""
    complete: bool = True
    subcommand: str | None = None
    cwd: str | None = None  # where the program ran (None for a replayed fixture or a saved log)
    # when the program started, wall-clock seconds since the epoch (the runner's clock; None for a replayed
    # fixture or a saved log): "now" for a fact the program dated absolutely (an HTTP-date Retry-After)
    started_epoch: float | None = None

    @property
    def failed(self) -> bool:
        return self.signal is not None or self.exit_code not in (0, None)

    def wrote(self, value: str) -> bool:
        """Whether the caller wrote `value` as one of the program's arguments, or as its first line
        (`git commit -m MSG`'s subject): then it is no news to the caller (CONTRACT 2a, rule 3)."""
        return len(value) >= 3 and any(value in (word, word.split("\n", 1)[0]) for word in self.argv[1:])

    def text(self, stream: str = "both") -> str:
        if stream == "stdout":
            return self.stdout_text
        if stream == "stderr":
            return self.stderr_text
        return self.stderr_text + ("\n" if self.stderr_text and self.stdout_text else "") + self.stdout_text


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Interpretation(_Record):
    """An adapter's reading of a run: the summary, the deciding problem, every problem, parsed data."""

    summary: str
    error: Problem | None = None
    problems: tuple[Problem, ...] = ()
    data: Any = None
    effects: tuple[dict[str, Any], ...] = ()
    success: bool | None = None  # None: the exit code decides; True/False: the adapter knows better
    # Values the adapter found to be secret in this run (terraform's `"sensitive": true` outputs, a kubectl
    # Secret's data), in every form the text shows them: agentwrap hides each of them in every field of the
    # record and in the artifacts already written. The adapter only names them; it changes no text itself.
    secrets: tuple[str, ...] = ()
