"""The cleaner's C-speed shortcuts give exactly what the general path would (issue 12, throughput)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentwrap import terminal

# Colour codes, their broken halves, G2/G3 selections, NULs and other escapes, mixed with text: what
# could make replacing codes one distinct code at a time differ from one split.
pieces = st.sampled_from(["\x1b", "[", "0", "1", "3", "2", ";", ":", "m", "*", "B", "\x00", "a", " ", "\n",
                          "\x1b[0m", "\x1b[32m", "\x1b[1;34m", "\x1b*B", "\x1b[2K", "\x1b[", "é"])
text = st.lists(pieces, max_size=80).map("".join)


def split_join(text: str) -> str:
    return "".join(terminal._NOOP.split(text))


@pytest.mark.slow  # a long run: the `-m slow` step
@settings(max_examples=2000, deadline=None)
@given(text)
def test_dropping_colour_codes_by_replacement_equals_one_split(text: str) -> None:
    assert terminal._drop_noops(text) == split_join(text)


def test_a_code_formed_by_removing_another_is_not_removed() -> None:
    # split leaves "\x1b[32m" here (ESC, then a code, then "[32m"): the parser then shows "[32m"
    for text in ("\x1b\x1b[0m[32m", "\x1b[3\x1b[0m2m", "\x1b*\x1b[0mB"):
        assert terminal._drop_noops(text) == split_join(text)
        assert "\x1b" in terminal._drop_noops(text)


def test_many_distinct_codes_still_give_the_split() -> None:
    gradient = "".join(f"\x1b[38;5;{n}m#" for n in range(256)) + "\x1b[0m\n"
    assert terminal._drop_noops(gradient * 3) == split_join(gradient * 3)
    assert terminal._drop_noops(gradient) == "#" * 256 + "\n"


def test_coloured_lines_come_out_as_text() -> None:
    cleaner = terminal.TerminalCleaner()
    line = b"\x1b[32mINFO\x1b[0m done \x1b[1;34mok\x1b[0m\n"
    assert cleaner.feed(line * 1000) + cleaner.finish() == "INFO done ok\n" * 1000


def _counted_cut(text: str, rows: int) -> int:
    """The cut as it was found before: count every newline first, then step back `rows` of them."""
    if text.count("\n") < rows:
        return -1
    cut = len(text)
    for _ in range(rows):
        cut = text.rfind("\n", 0, cut)
    return cut


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "bc", "\n", "\n\n", " "]), max_size=40).map("".join), st.integers(1, 8))
def test_the_lines_that_scroll_away_are_found_from_the_end_as_by_counting(text: str, rows: int) -> None:
    screen = terminal.Screen(rows, 80, lambda s: None, None)
    assert screen._cut_above_last_rows(text) == _counted_cut(text, rows)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "é", "\n", "\t", "\x07", "\x08", "\x01", "©", "\x85", "x\n"]), max_size=30)
       .map("".join))
def test_one_pass_tells_the_plain_lines_and_the_plain_whole(text: str) -> None:
    cut = text.rfind("\n") + 1

    def plain(part: str) -> bool:  # the check as it was, on each part apart
        enc = part.encode()
        return len(enc.translate(None, terminal._C0)) == len(enc) and (part.isascii() or b"\xc2" not in enc)

    assert terminal._plain_parts(text) == (plain(text[:cut]), plain(text[:cut]) and plain(text[cut:]))


# Bytes whose cutting matters: colour codes, UTF-8 sequences, escape strings, CRLF, wide characters.
byte_pieces = st.sampled_from([b"\x1b[32m", b"\x1b[0m", b"\x1b]0;title\x07", b"\x1b[2K", b"\r\n", b"\r", b"\n",
                               "é日✗".encode(), b"\xe6\x97", b"\xa5", b"abc", b" ", b"\t", b"\x1b[1;34mx"])


@settings(max_examples=500, deadline=None)
@given(st.lists(byte_pieces, max_size=80).map(b"".join), st.integers(1, 16))
def test_a_batch_fed_in_pieces_commits_what_it_commits_fed_whole(data: bytes, piece: int) -> None:
    def clean(size: int) -> tuple[str, str]:
        terminal._PIECE = size
        cleaner = terminal.TerminalCleaner(rows=3, cols=20)
        return cleaner.feed(data), cleaner.finish()

    saved = terminal._PIECE
    try:
        assert clean(piece) == clean(1 << 30)
    finally:
        terminal._PIECE = saved
