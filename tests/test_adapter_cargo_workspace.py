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
