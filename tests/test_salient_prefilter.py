"""The salient scanner's one Aho-Corasick pass finds the literals its per-literal searches find."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentwrap import salient

pieces = st.sampled_from(["err", "error", "errerr", "fatal", "panic", "exception", "traceback", "abort", "fail",
                          "denied", "refused", "cannot", "unable to", "not found", "no such file", "timed out",
                          "undefined reference", "segmentation fault", "warning:", "e   ", "e", " ", "exit",
                          "\n", "x", "ok", "r"])  # fmt: skip
text = st.lists(pieces, max_size=60).map("".join)


@settings(max_examples=1500, deadline=None)
@given(text, st.booleans())
def test_one_pass_finds_every_literal_the_searches_find(probe: str, core_only: bool) -> None:
    assert salient._hits(probe, core_only=core_only) == salient._finder_hits(probe, core_only)


def test_too_many_literals_give_up_as_before() -> None:
    probe = "err " * (salient._MAX_HITS + 1)
    assert salient._hits(probe) is None
    assert salient._finder_hits(probe, False) is None


def test_salient_lines_of_a_long_ascii_output() -> None:
    scanner = salient.SalientScanner()
    scanner.feed("compiling\n" * 50000 + "src/a.c:3: error: expected ';'\n" + "ok\n" * 10, final=True)
    assert scanner.first == [(50001, "src/a.c:3: error: expected ';'")]


@pytest.mark.slow  # a long run: the `-m slow` step
@settings(max_examples=300, deadline=None)
@given(st.lists(text, min_size=20, max_size=90).map("\n".join), st.booleans())
def test_many_lines_with_literals_give_the_same_positions(probe: str, core_only: bool) -> None:
    # past _FEW_LINES lines holding a literal the whole text is searched at once: both ways agree
    assert salient._hits(probe, core_only=core_only) == salient._finder_hits(probe, core_only)


def test_overlapping_literals_are_all_found() -> None:
    probe = "x cannot found\nrefusedenied\n"
    assert salient._hits(probe) == salient._finder_hits(probe, False)
    assert probe.index("not found") in salient._hits(probe)  # type: ignore[operator]
