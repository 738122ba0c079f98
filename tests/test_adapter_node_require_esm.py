"""node errors on captured runs. require() of an ES module it cannot load (fixtures/node/require-async-esm, a
top-level await: ERR_REQUIRE_ASYNC_MODULE): the fix says what node's rule asks of the require() call, not
'fix the Error at the location', and a stack of the one frame the location names is not sent again.
`node --test` of a file that does not exist is NODE_TEST_FILE_NOT_FOUND."""

from __future__ import annotations

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def test_require_of_an_async_es_module_says_how_to_load_it():
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "node") if c.name == "require-async-esm")
    view = views.concise(fixtures.replay_record(registry.builtin("node"), case))
    error = view["error"]
    assert "ERR_REQUIRE_ASYNC_MODULE" in error["detail"]
    assert "import(" in error["suggested_fix"] and "top-level await" in error["suggested_fix"]
    location = error["location"]  # absolute in a replay: a live run names it from its folder
    assert location["file"].endswith("/cjs.js") and (location["line"], location["column"]) == (1, 11)
    assert "stack" not in error  # was: [{cjs.js 1:11 Object.<anonymous>}], the location again


def test_node_test_of_a_missing_file_is_not_found_and_safe_to_retry():
    """`node --test test/nonexistent.test.js`: node says only `Could not find '...'` and exits 1; it was
    COMMAND_FAILED, 'Read `detail`', not safe to retry, with the line kept twice (detail and text)."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "node") if c.name == "test-file-missing")
    view = views.concise(fixtures.replay_record(registry.builtin("node"), case))
    error = view["error"]
    assert error["code"] == "NODE_TEST_FILE_NOT_FOUND" and error["safe_to_retry"] is True
    assert "nonexistent.test.js" in error["detail"] and "location" not in error
    assert "output" not in view
