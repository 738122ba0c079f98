"""Annotations without a `file` property whose message starts with its place (`##[error]src/x.py:3: bad`,
as scripts print them): the place becomes the problem's location."""

from __future__ import annotations

import io

from agentwrap.logs.engine import LogResult, Normalizer


def _read(text: str) -> LogResult:
    return Normalizer(forced=None, max_problems=100).run(io.BytesIO(text.encode()))


def _stamped(text: str) -> str:
    return "".join(f"2024-05-01T12:00:0{i % 10}.0000000Z {line}\n" for i, line in enumerate(text.splitlines()))


def test_a_leading_place_in_an_annotations_message_is_its_location():
    log = _stamped("##[group]Run ./check.sh\n./check.sh\n##[endgroup]\n##[error]src/x.py:3: something bad\n"
                   "::warning::lib/z.rb:12:5: also odd\n##[error]Process completed with exit code 1.")
    found = [(p.detail, p.location) for p in _read(log).problems if p.code == "WORKFLOW_ANNOTATION"]
    assert found == [("src/x.py:3: something bad", {"file": "src/x.py", "line": 3}),
                     ("lib/z.rb:12:5: also odd", {"file": "lib/z.rb", "line": 12, "column": 5})]


def test_a_message_that_only_looks_like_a_place_has_none():
    log = _stamped("##[error]HTTP:500: the server failed\n##[error]Error:3: retries exhausted")
    assert [p.location for p in _read(log).problems if p.code == "WORKFLOW_ANNOTATION"] == [None, None]


def test_the_file_property_wins_over_the_message():
    log = _stamped("::error file=a/b.py,line=7::src/x.py:3: something bad")
    [p] = [p for p in _read(log).problems if p.code == "WORKFLOW_ANNOTATION"]
    assert p.location == {"file": "a/b.py", "line": 7}
