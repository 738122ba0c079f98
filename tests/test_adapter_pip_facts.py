"""The pip adapter's failure facts on captured runs (fixtures/pip): each said once and right, pip's noise
left out of the inline text (the artifact keeps it)."""

from __future__ import annotations

import json
from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "pip") if c.name == name)
    record = fixtures.replay_record(registry.builtin("pip"), case)
    return record.standard(), views.concise(record)


def _inline(view: dict[str, Any]) -> list[str]:
    return [line for stream in view.get("output", {}).values() for line in stream["text"].splitlines()]


def test_the_available_versions_are_said_once():
    _, view = _replay("install-version-not-found-index")
    error = view["error"]
    assert json.dumps(view).count('"1.16.0"') == 1  # in available_versions, nowhere else
    assert "1.16.0" not in error["detail"] + error["suggested_fix"]
    assert error["detail"] == "no release of six matches six==99 (newest: 1.17.0)"
    assert error["available_versions"][-1] == "1.17.0"
    assert not any("Could not find a version" in line or "No matching distribution" in line
                   for line in _inline(view))


def test_where_pip_looked_is_noise_inline_but_a_fact_of_a_missing_project():
    env, view = _replay("install-not-found-index")
    assert not any(line.startswith("Looking in ") for line in _inline(view))
    assert "Looking in indexes: https://pypi.org/simple" in env["output"]["stdout"]["text"]  # kept whole
    assert view["error"]["index_urls"] == ["https://pypi.org/simple", "file:///opt/pypi/simple",
                                           "file:///opt/pypi-more/simple"]


def test_a_conflict_is_said_by_its_problem_alone():
    _, view = _replay("install-conflict")
    error = view["error"]
    assert error["detail"] == "cannot install alpha==1.0 and gamma==1.0: their dependencies conflict on beta"
    assert error["conflicts"] == ["alpha 1.0 depends on beta==1.0", "gamma 1.0 depends on beta>=2.0"]
    assert "output" not in view, view.get("output")  # pip's ERROR lines, causes, stock advice and INFO


def test_a_failed_build_names_the_package_that_failed_and_its_cause():
    _, view = _replay("large-install-verbose-build-failed")
    error = view["error"]
    assert error["detail"].startswith("Building wheel for fastcsv (pyproject.toml) failed: ")
    assert "src/fastcsv/_tokenizer.c:8:13: error: expected" in error["detail"]
    assert "pylib-big" not in error["detail"]
    assert "code_actions" not in error  # a local project has no prebuilt wheel to fall back on
    assert not any("Failed building wheel" in line or "Could not build wheels" in line for line in _inline(view))


def test_an_unreachable_index_is_not_followed_by_its_not_found_lines():
    _, view = _replay("install-network-error")
    assert view["error"]["code"] == "PIP_NETWORK_ERROR"
    assert not any("No matching distribution" in line for line in _inline(view))


def _replay_python(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A `python3 -m pip` case (fixtures/python), read by the pip adapter through the python adapter."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "python") if c.name == name)
    record = fixtures.replay_record(registry.builtin("python"), case)
    return record.standard(), views.concise(record)


def test_a_pyproject_that_is_not_toml_is_named_with_the_place_of_the_error():
    """Not pip's "Uncaught exception" whose traceback the concise text left out: the file and its line and
    column, and the TOML error's own line, said once (pip's frames are not repeated inline)."""
    env, view = _replay_python("install-pyproject-invalid-at-line")
    error = view["error"]
    assert error["code"] == "PIP_PYPROJECT_INVALID"
    assert error["location"] == {"file": "pyproject.toml", "line": 3, "column": 14}
    assert error["detail"].endswith("(at line 3, column 14)")
    assert not [line for line in _inline(view) if "File \"" in line or "TOMLDecodeError" in line]
    _, view = _replay_python("install-editable-pyproject-invalid")
    assert view["error"]["detail"] == "pyproject.toml is not valid TOML: Unclosed array (at end of document)"
    assert view["error"]["location"] == {"file": "pyproject.toml"}
