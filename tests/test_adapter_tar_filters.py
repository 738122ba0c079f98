"""tar's compression filters each word a failure their own way (captured from real runs): gzip
`stdin: not in gzip format`, xz `(stdin): File format not recognized`, bzip2 `(stdin) is not a bzip2
file.` and, cut short, `Compressed file ends unexpectedly;` with ten lines of advice. Each is its problem,
not a bare COMMAND_FAILED, and tar's closing words and bzip2's advice are no text."""

from __future__ import annotations

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _concise(case_name: str) -> dict:
    case = next(c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "tar" and c.name == case_name)
    return views.concise(fixtures.replay_record(registry.builtin("tar"), case))


@pytest.mark.parametrize(("case_name", "code", "filter_"), [
    ("bzip2-flag-on-gzip", "TAR_NOT_COMPRESSED_AS_SAID", "bzip2"),
    ("xz-flag-on-plain", "TAR_NOT_COMPRESSED_AS_SAID", "xz"),
    ("wrong-compression", "TAR_NOT_COMPRESSED_AS_SAID", "gzip"),
    ("bzip2-truncated", "TAR_TRUNCATED", "bzip2"),
])
def test_each_filters_words_are_its_problem_and_the_closing_chatter_goes(case_name: str, code: str,
                                                                          filter_: str) -> None:
    env = _concise(case_name)
    assert env["error"]["code"] == code and filter_ in env["error"]["detail"]
    assert "output" not in env, env["output"]  # no `Child returned status`, `not recoverable`, bzip2 advice
