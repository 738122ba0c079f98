"""DEC Special Graphics: the letters curses writes after `ESC ( 0` are the boxes a person sees."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentwrap.terminal import TerminalCleaner


def _clean(data: bytes) -> str:
    cleaner = TerminalCleaner()
    return cleaner.feed(data) + cleaner.finish()


def test_a_box_drawn_with_line_drawing_reads_as_a_box():
    assert _clean(b"\x1b(0lqqk\x1b(B\n\x1b(0x\x1b(B ok \x1b(0x\x1b(B\n\x1b(0mqqj\x1b(B\n") == "┌──┐\n│ ok │\n└──┘\n"


def test_text_after_the_switch_back_is_left_alone():
    assert _clean(b"\x1b(0q\x1b(Blqk\n") == "─lqk\n"


def test_escape_sequences_inside_line_drawing_keep_their_letters():
    """A CSI's final byte (`m`, `h`, `l`) lies in the translated range: it must stay a sequence."""
    assert _clean(b"\x1b(0\x1b[0mq\x1b[1mq\x1b(B\n") == "──\n"


def test_shift_out_uses_the_g1_set():
    assert _clean(b"\x1b)0a\x0eqq\x0fq\n") == "a──q\n"


def test_plain_text_passes_through_unchanged():
    assert _clean(b"lqqqk plain \x1b[31mred\x1b[0m\n") == "lqqqk plain red\n"


@given(st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=40))
def test_the_result_does_not_depend_on_how_the_stream_is_cut(cuts):
    stream = b"a\x1b(0lqk\x1b[0m\x1b[12;5Hx\x1b(B b \x1b(0mqj\x1b(B\x0e\x1b)0qq\x0f end\n"
    whole = _clean(stream)
    cleaner, out, pos = TerminalCleaner(), [], 0
    for size in cuts * 10:
        out.append(cleaner.feed(stream[pos:pos + size]))
        pos += size
    out.append(cleaner.feed(stream[pos:]) + cleaner.finish())
    assert "".join(out) == whole
