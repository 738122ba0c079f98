"""cargo build with a dependency and no way to the registry (fixtures/cargo/crates-io-unresolvable): one
network problem, safe to retry; cargo's retry warnings ('spurious network error (2 tries remaining)') are not
kept beside it, while the line naming the dependency it could not get stays."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def test_the_retries_go_and_the_dependency_stays():
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "cargo") if c.name == "crates-io-unresolvable")
    view = views.concise(fixtures.replay_record(registry.builtin("cargo"), case))
    assert view["error"]["code"] == "CARGO_NETWORK_ERROR" and view["error"]["safe_to_retry"] is True
    text = view["output"]["stderr"]["text"]
    assert "spurious network error" not in text
    assert "failed to get `serde` as a dependency" in text
