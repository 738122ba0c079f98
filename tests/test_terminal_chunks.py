"""Chunk boundaries the property tests found: each once failed (fed whole vs fed in pieces)."""

from __future__ import annotations

import pytest

from agentwrap.terminal import TerminalCleaner


def clean(chunks: list[bytes], cols: int) -> str:
    cleaner = TerminalCleaner(rows=3, cols=cols)
    return "".join(cleaner.feed(chunk) for chunk in chunks) + cleaner.finish()


@pytest.mark.parametrize("cols", [1, 2, 250])
def test_rep_repeats_a_cell_with_the_marks_fed_after_it(cols: int) -> None:
    data = b" \xdf\xbd\x1b[b\n"  # a space, U+07FD (a combining mark), REP
    whole = clean([data], cols)
    assert whole == " \u07fd \u07fd\n"
    assert clean([data[:1], data[1:]], cols) == whole
    assert clean([data[i:i + 1] for i in range(len(data))], cols) == whole
