"""The records an adapter receives and returns: kw-only frozen records (`Frozen`, which the dataclasses
module sees as the frozen dataclasses they were), and nothing else.

A leaf: this module imports nothing of agentwrap, so every room of the package (and a plugin) may use it.
`agentwrap.sdk` re-exports these names; plugin authors import them from there.

`_replace`, `_asdict` and iteration are kept on each record: the records were NamedTuples, and code
written against them (`problem._replace(severity="warning")`, `tuple(effects)`) keeps working.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Protocol, Self, dataclass_transform


def _field_names(cls: type) -> tuple[str, ...]:
    if issubclass(cls, Frozen):
        return cls.__record__.names
    import dataclasses  # a dataclass of its own (spec.Rule): it imported the module already

    return tuple(f.name for f in dataclasses.fields(cls) if f.compare)  # type: ignore[arg-type]


class Value:
    """Equality, hash and repr from the fields, for `Frozen` records and for frozen dataclasses declared
    `eq=False, repr=False`.

    They are what `dataclass(frozen=True)` would generate, written once: Python 3.11 compiles each
    generated method of each class on its own, about 0.4 ms a class. 3.13 compiles a class's methods
    together."""

    __slots__ = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _field_names(self.__class__))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _field_names(self.__class__))
        return f"{self.__class__.__qualname__}({shown})"


class _Factory:
    """A default made afresh for each record (`field(default_factory=dict)`)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], Any]) -> Any:
    """`dataclasses.field(default_factory=...)` for a `Frozen` record."""
    return _Factory(default_factory)


_REQUIRED: Any = object()  # the template's value of a field without a default


class _Layout:
    """A `Frozen` class's fields: name -> default (_REQUIRED, a _Factory or the value) in declared order,
    and what the shared `__init__` reads of that."""

    __slots__ = ("template", "types", "kw_only", "names", "required", "factories")

    def __init__(self, template: dict[str, Any], types: dict[str, str], kw_only: bool) -> None:
        self.template, self.types, self.kw_only = template, types, kw_only
        self.names = tuple(template)
        self.required = frozenset(name for name, value in template.items() if value is _REQUIRED)
        self.factories = tuple((name, value) for name, value in template.items() if isinstance(value, _Factory))


class _DataclassView:
    """`__dataclass_fields__` and `__dataclass_params__`, built by the dataclasses module the first time
    something asks for them (`dataclasses.replace`, `fields`, `is_dataclass`, `asdict`): to that module a
    `Frozen` record is the frozen dataclass it declares, and a run that never asks never imports it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type[Frozen]) -> Any:
        import dataclasses

        layout = owner.__record__
        specs = [(name, layout.types[name], _dataclass_field(value)) for name, value in layout.template.items()]
        twin = dataclasses.make_dataclass(
            owner.__name__, specs, frozen=True, eq=False, repr=False, kw_only=layout.kw_only
        )
        for attribute in ("__dataclass_fields__", "__dataclass_params__"):
            setattr(owner, attribute, twin.__dict__[attribute])  # asked once per class
        return twin.__dict__[self.name]


def _dataclass_field(default: Any) -> Any:
    import dataclasses

    if default is _REQUIRED:
        return dataclasses.field()
    if isinstance(default, _Factory):
        return dataclasses.field(default_factory=default.make)
    return dataclasses.field(default=default)


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Frozen(Value):
    """A frozen record class: what `@dataclass(frozen=True, kw_only=True, eq=False, repr=False)` makes of
    the class, without the decorator. Importing `dataclasses` costs ~8 ms (it imports `inspect`) and each
    decorated class ~0.5 ms (its `__init__` and frozen `__setattr__`/`__delattr__` are compiled apart) at
    every start; this base reads the annotations once and shares one `__init__`. `kw_only=False` in the
    class line lets the fields be given in order too.

    The dataclasses module sees the same fields (`_DataclassView`), so `dataclasses.replace`, `fields`,
    `asdict` and `is_dataclass` work on these records as on the dataclasses they were."""

    __slots__ = ()
    __dataclass_fields__ = _DataclassView()
    __dataclass_params__ = _DataclassView()
    __record__: ClassVar[_Layout] = _Layout({}, {}, kw_only=True)
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, *, kw_only: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        template, types = {**cls.__record__.template}, {**cls.__record__.types}  # a parent record's first
        for name, kind in cls.__dict__.get("__annotations__", {}).items():
            if str(kind).startswith(("ClassVar", "typing.ClassVar")):
                continue
            value = cls.__dict__.get(name, _REQUIRED)
            if isinstance(value, _Factory):
                delattr(cls, name)  # as dataclasses does: each record holds its own
            template[name], types[name] = value, kind
        cls.__record__ = _Layout(template, types, kw_only)
        cls.__match_args__ = () if kw_only else tuple(template)  # type: ignore[misc]  # as a dataclass has it

    def __init__(self, *args: Any, **values: Any) -> None:
        layout = self.__record__
        if args:
            values = _positional(self.__class__, args, values)
        state = {**layout.template, **values}  # the fields in their declared order, each given value in place
        if len(state) != len(layout.names) or not layout.required <= values.keys():
            raise _init_error(self.__class__, values)
        for name, factory in layout.factories:
            if state[name] is factory:
                state[name] = factory.make()
        object.__setattr__(self, "__dict__", state)

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes`, as `dataclasses.replace` makes it."""
        return self.__class__(**{**self.__dict__, **changes})

    def __setattr__(self, name: str, value: Any) -> None:
        raise _frozen(name)

    def __delattr__(self, name: str) -> None:
        raise _frozen(name)


def _positional(cls: type[Frozen], args: tuple[Any, ...], values: dict[str, Any]) -> dict[str, Any]:
    layout = cls.__record__
    if layout.kw_only or len(args) > len(layout.names):
        most = 0 if layout.kw_only else len(layout.names)
        raise TypeError(
            f"{cls.__qualname__}.__init__() takes {most + 1} positional argument"
            f"{'s' if most else ''} but {len(args) + 1} were given"
        )
    given = dict(zip(layout.names, args, strict=False))  # the first fields
    twice = given.keys() & values.keys()
    if twice:
        raise TypeError(f"{cls.__qualname__}.__init__() got multiple values for argument {min(twice)!r}")
    return {**given, **values}


def _init_error(cls: type[Frozen], values: dict[str, Any]) -> TypeError:
    layout = cls.__record__
    unknown = [name for name in values if name not in layout.template]
    if unknown:
        return TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword argument {unknown[0]!r}")
    missing = [repr(name) for name in layout.names if name in layout.required and name not in values]
    return TypeError(
        f"{cls.__qualname__}.__init__() missing {len(missing)} required argument"
        f"{'s' if len(missing) > 1 else ''}: {', '.join(missing)}"
    )


def _frozen(name: str) -> AttributeError:
    from dataclasses import FrozenInstanceError  # what a frozen dataclass raises; imported on the mistake only

    return FrozenInstanceError(f"cannot assign to field {name!r}")


class _Record(Frozen):
    """What every record of this module shares: the NamedTuple spellings of a changed copy, and its fields
    as a dict."""

    __slots__ = ()

    _replace = Frozen.replace  # the NamedTuple spelling, for code written before the records were dataclasses

    def _asdict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__record__.names}

    def __iter__(self) -> Iterator[Any]:
        """The field values in order, as a NamedTuple gave them (`tuple(effects)`): for older code only."""
        return iter(self._asdict().values())


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


class Effects(_Record):
    """What an invocation may do to the world (None: unknown)."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def to_dict(self) -> dict[str, bool | None]:
        return self._asdict()


EFFECT_FIELDS = Effects.__record__.names


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
    # Output lines the adapter keeps in the text a model reads though a noise rule would leave them out: the
    # one echoed command line a failure needs (make's link line before the linker's error), as printed.
    kept_lines: tuple[str, ...] = ()
