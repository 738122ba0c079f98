"""The records compare, hash and print as the frozen dataclasses they are: `Value` writes once what
`dataclass(eq=True, repr=True)` would generate per class (a start-up cost on Python 3.11)."""

from __future__ import annotations

import dataclasses

import pytest

from agentwrap import records, spec
from agentwrap.adapters.python_errors import ErrorInfo
from agentwrap.environment import Environment
from agentwrap.outcome.record import Note, RunRecord, Stream

RECORDS = [records.CodeAction, records.Problem, records.ProblemCode, records.Effects, records.Presentation,
           records.CapturedRun, records.Interpretation, Note, Stream, RunRecord, Environment, spec.Rule,
           spec.PromptRule, ErrorInfo]


def _twin(cls: type) -> type:
    """The same fields under the dataclass decorator's own eq, hash and repr."""
    fields = [(f.name, f.type, f) for f in dataclasses.fields(cls)]
    twin: type = dataclasses.make_dataclass(cls.__name__, fields, frozen=True, kw_only=True)
    twin.__qualname__ = cls.__qualname__
    return twin


def _sample(cls: type, salt: str) -> dict[str, object]:
    """A value for every field without a default (strings, numbers, tuples), `salt` making two differ."""
    out: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            continue
        kind = str(f.type)
        out[f.name] = (1 if "int" in kind else ("a", salt) if "tuple" in kind else
                       {"k": salt} if "dict" in kind else salt)
    return out


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_a_record_is_a_frozen_dataclass_that_compares_hashes_and_prints_as_one(cls: type) -> None:
    twin = _twin(cls)
    first, again, other = _sample(cls, "x"), _sample(cls, "x"), _sample(cls, "y")
    a, b = cls(**first), cls(**again)
    assert dataclasses.is_dataclass(a)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(a, dataclasses.fields(cls)[0].name, "changed")
    assert a == b
    assert not a != b  # noqa: SIM202  (the generated __ne__ is the inverse of __eq__)
    assert repr(a) == repr(twin(**first))
    if first != other:  # a record whose every field has a default has no second sample
        assert a != cls(**other)
    assert a != twin(**first)  # another class with the same fields is not equal, as a dataclass says
    try:
        expected = hash(twin(**first))
    except TypeError:  # a dict among the values: the dataclass's hash fails too
        with pytest.raises(TypeError):
            hash(a)
    else:
        assert hash(a) == hash(b) == expected

def test_a_problem_in_a_set_and_a_changed_copy() -> None:
    base = dict(type="t", title="T", status=400, detail="d", code="C", category="usage", retryable=False,
                safe_to_retry=True)
    one, same = records.Problem(**base), records.Problem(**base)
    assert {one, same} == {one}
    assert one.replace(severity="warning") != one
    assert one.replace(severity="warning").replace(severity="error") == one


def test_the_dataclasses_module_reads_and_copies_a_record_as_the_dataclass_it_declares() -> None:
    """The records are `records.Frozen` classes, not decorated: `dataclasses` sees the same fields."""
    problem = records.Problem(type="t", title="T", status=400, detail="d", code="C", category="usage",
                              retryable=False, safe_to_retry=True)
    changed = dataclasses.replace(problem, severity="warning")
    assert changed == problem.replace(severity="warning") and changed.severity == "warning"
    assert dataclasses.asdict(problem) == problem._asdict()
    assert [f.name for f in dataclasses.fields(problem)][:3] == ["type", "title", "status"]
    assert records.EFFECT_FIELDS == ("read_only", "destructive", "idempotent", "open_world")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        dataclasses.replace(problem, colour="red")
    with pytest.raises(dataclasses.FrozenInstanceError):
        del problem.title


def test_a_record_is_built_as_its_dataclass_was() -> None:
    note = Note("CODE", "message")  # `kw_only=False`: in order, as before
    assert (note.code, note.message, note.more) == ("CODE", "message", ())
    assert Note(code="C", message="m") == Note("C", "m")
    with pytest.raises(TypeError, match="multiple values for argument 'code'"):
        Note("C", "m", code="D")
    with pytest.raises(TypeError, match="takes 4 positional arguments but 5 were given"):
        Note("C", "m", (), "extra")
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        records.Effects(True)  # kw-only, as the dataclass was
    with pytest.raises(TypeError, match="missing 1 required argument: 'title'"):
        records.CodeAction()
    one, two = Environment(), Environment()
    assert one.variables == {} and one.variables is not two.variables  # a default_factory, per record
    assert "variables" not in Environment.__dict__
