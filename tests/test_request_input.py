"""Typed input: `agentwrap run --input FILE|-` (the `request` schema); every error in one answer,
nothing run."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from agentwrap.schema_files import load
from tests.conftest import aw


def _run(doc: object, **kw: object) -> object:
    return aw("run", "--input", "-", input=json.dumps(doc).encode(), **kw)  # type: ignore[arg-type]


def test_a_request_runs_like_the_command_line(tmp_path: Path) -> None:
    doc = {"argv": ["sh", "-c", "echo $GREETING; pwd; cat"], "cwd": str(tmp_path), "env": {"GREETING": "hi"},
           "stdin": {"text": "fed\n"}, "pty": False, "timeout": "30s"}
    ans = _run(doc)
    assert ans.code == 0, ans.env  # type: ignore[attr-defined]
    assert ans.text().split() == ["hi", str(tmp_path), "fed"]  # type: ignore[attr-defined]
    assert ans.env["context"]["timeout_ms"] == 30000  # type: ignore[attr-defined]


def test_a_shell_line_and_a_file_request(tmp_path: Path) -> None:
    request = tmp_path / "req.json"
    request.write_text(json.dumps({"shell": "echo a && echo b | tr b c", "detail": "concise"}))
    ans = aw("run", "--input", str(request))
    assert ans.code == 0 and ans.env["output"]["stdout"]["text"].split() == ["a", "c"]
    assert "request_id" not in ans.env  # the request's own detail level


def test_every_error_is_reported_at_once_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    doc = {"argv": ["touch", str(marker)], "shell": "touch x", "timeout": "5 parsecs",
           "answers": [{"pattern": "(", "reply": "y"}], "cwd": str(tmp_path / "missing"),
           "detail": "loud", "envv": {}, "env": {"1A": "x"}, "adapter": "no-such-adapter"}
    ans = _run(doc)
    assert ans.code == 125  # type: ignore[attr-defined]
    error = ans.error  # type: ignore[attr-defined]
    assert error["code"] == "REQUEST_INVALID" and error["category"] == "validation"
    pointers = [p["pointer"] for p in error["invalid_params"]]
    for expected in ("", "/timeout", "/answers/0/pattern", "/cwd", "/detail", "/envv", "/env", "/adapter"):
        assert expected in pointers, (expected, pointers)
    assert len(pointers) == len(set(pointers))  # each error once
    assert "did you mean env?" in json.dumps(error["invalid_params"])
    assert not marker.exists()


def test_not_json_and_a_program_twice() -> None:
    bad = aw("run", "--input", "-", input=b"{nope")
    assert bad.error is not None and bad.error["code"] == "REQUEST_INVALID"
    twice = aw("run", "--input", "-", "--", "ls", input=b'{"argv": ["ls"]}')
    assert twice.error is not None and twice.error["code"] == "USAGE"
    missing = aw("run", "--input", "/no/such/request.json")
    assert missing.error is not None and "cannot read" in missing.error["detail"]


def test_keys_and_read_only_travel_in_the_request(tmp_path: Path) -> None:
    refused = _run({"argv": ["touch", str(tmp_path / "x")], "read_only": True})
    assert refused.error["code"] == "MUTATION_REFUSED"  # type: ignore[attr-defined]
    doc = {"argv": ["sh", "-c", f"echo once >> {tmp_path / 'log'}"], "idempotency_key": f"k-{tmp_path.name}"}
    _run(doc)
    assert _run(doc).env["replayed"] is True  # type: ignore[attr-defined]
    assert (tmp_path / "log").read_text() == "once\n"


def test_the_schema_is_published_and_valid() -> None:
    schema = load("request")
    jsonschema.Draft202012Validator.check_schema(schema)
    shown = aw("schema", "request", check=False)
    assert json.loads(shown.stdout) == schema
