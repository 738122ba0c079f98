"""`pip download`: what is in the folder afterwards is the answer, whether pip fetched a file now or found it
from an earlier run (fixtures/pip/download-saved, download-already-there: the same command twice)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


@pytest.mark.parametrize("name", ["download-saved", "download-already-there"])
def test_a_download_says_which_files_are_in_place(name: str) -> None:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "pip") if c.name == name)
    concise = views.concise(fixtures.replay_record(registry.builtin("pip"), case))
    assert concise["summary"] == "pip download: 1 file in place"
    assert [p.rsplit("/", 1)[-1] for p in concise["data"]["saved"]] == ["six-1.16.0-py2.py3-none-any.whl"]
    assert "stdout" not in concise.get("output", {})  # `Successfully downloaded six`: the data says it
