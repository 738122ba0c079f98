"""`cargo test --workspace` where one member does not compile (fixtures/cargo/workspace-member-fails): the
member's error decides, with its file under the member's folder, and cargo's 'build failed, waiting for other
jobs to finish...' is not kept beside it in the concise text."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def test_a_members_compile_error_decides_and_the_waiting_line_goes():
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "cargo") if c.name == "workspace-member-fails")
    view = views.concise(fixtures.replay_record(registry.builtin("cargo"), case))
    assert view["error"]["code"] == "E0308"
    assert view["error"]["location"] == {"file": "b/src/lib.rs", "line": 1, "column": 35}
    assert "could not compile `b`" in view["summary"]
    assert "output" not in view  # was: `warning: build failed, waiting for other jobs to finish...`


def test_a_members_backtrace_frames_are_named_from_where_cargo_ran():
    """The test binary runs in a/ and prints `at ./src/lib.rs:1:37`; the panic line says a/src/lib.rs: every
    frame is a/src/lib.rs, which exists where the agent is, and the frame at the panic's place is not repeated."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "cargo") if c.name == "workspace-test-backtrace")
    env, _ = fixtures.replay(registry.builtin("cargo"), case)
    failed = {p["test"]: p for p in env["problems"] if p["code"] == "CARGO_TEST_FAILED"}
    g = failed["t::g"]
    assert g["location"] == {"file": "a/src/lib.rs", "line": 2, "column": 20}
    assert [(f["file"], f["line"], f["function"]) for f in g["stack"]] == [
        ("a/src/lib.rs", 1, "a::add"), ("a/src/lib.rs", 3, "a::t::g")]
    assert "stack" not in failed["t::f"]  # its one own frame is the location (was: src/lib.rs:3:39 again)
