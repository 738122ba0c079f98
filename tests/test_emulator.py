"""The cleaner against a terminal emulator (pyte), with tmux as referee where pyte is wrong.

Text is compared row by row: the lines that scrolled off the top, then the final screen, trailing
blanks dropped (tests/emulator.py). Generated streams mix plain ASCII, colours, cursor motion, tabs,
wide and combining characters and scroll regions; the regression cases are the defects of issue 12.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from emulator import agentwrap_rows, agentwrap_text, pyte_rows, tmux_rows
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

ROWS, COLS = 50, 250

# -- the defects of issue 12, each checked against pyte ------------------------------------------------

ISSUE_12 = [
    # apt pins its progress row with a scroll region: the log scrolls above it, the bar stays put
    b"\x1b[1;49r\x1b[50;1HProgress: [ 50%] [#####.....]\x1b[49;1Hstart\nline 1\nline 2\n",
    # columns are cells: a tab covers up to the next stop, a wide character two cells
    b"abc\tde\rXXXXX\n",
    "你好世界\x1b[4DXY\n".encode(),
    "e\u0301\u0301x\x1b[2DY\n".encode(),  # combining marks ride on their cell
    # a right margin: motion stops at it, text wraps at it, CR and erase act on the screen row
    b"\x1b[99999999Cx\n",
    b"a" * 300 + b"\rB\n",
    b"a" * 300 + b"\x1b[2K\rB\n",
    # a size probe parks the cursor far down and comes back: no blank lines
    b"hi\x1b7\x1b[999;999H\x1b[6n\x1b8\n",
    # an overlong CSI is dropped whole, its digits too
    b"\x1b[" + b"1;" * 600 + b"mX\n",
    # a line redrawn once with one glyph is text, not a spinner frame
    b"x\r-\n",
]


@pytest.mark.parametrize("raw", ISSUE_12)
def test_issue_12_cases_match_the_emulator(raw: bytes) -> None:
    assert agentwrap_rows(raw, ROWS, COLS) == pyte_rows(raw, ROWS, COLS)
    assert agentwrap_rows(raw, ROWS, COLS, chunk=1) == pyte_rows(raw, ROWS, COLS)


def test_cursor_motion_is_bounded_by_the_window() -> None:
    out = agentwrap_text(b"\x1b[99999999Cx\n" * 100 + b"\x1b[99999999B\x1b[99999999Ey\n", ROWS, COLS)
    assert max(len(line) for line in out.splitlines()) == COLS
    assert len(out) <= 101 * (COLS + 1) + ROWS


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is the referee")
@pytest.mark.parametrize(("raw", "why"), [
    (b"old\x1b[3Jnew\n", "pyte 0.8 erases the screen for ED 3; xterm and tmux clear only the scrollback"),
    (b"a\x1b[3bc\n", "pyte has no REP (CSI b), which xterm-256color's terminfo advertises as `rep`"),
    (b"one\x1b[?1049hFULL\x1b[?1049l two\n", "pyte has no alternate screen"),
    (b"1\n2\n3\n\x1b[2S4\n", "pyte has no SU (CSI S)"),
    (b"\x1b[2;0r0\x1b[0;2r0", "pyte reads DECSTBM's bottom 0 as row 0 and ignores the region, without"
     " homing the cursor; xterm and tmux read 0 as the default, the last row"),
])
def test_where_pyte_is_wrong_tmux_decides(raw: bytes, why: str) -> None:
    assert agentwrap_rows(raw, 10, 40) == tmux_rows(raw, 10, 40) != pyte_rows(raw, 10, 40), why


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is the referee")
@pytest.mark.parametrize("raw", [b"\x1b[3;5H\x1b7\x1b[1;1H\x1b8X\x1b[1;1H\x1b8Y", b"\x1b[5;5H\x1b7\x1b[2;3r\x1b8Z",
                                 b"\x1b7\x1b[2;3r\x1b80"])
def test_the_emulators_saved_cursor_is_tmuxs(raw: bytes) -> None:
    """tests/emulator.py restores a saved cursor as tmux does (pyte pops it and clamps it to the region)."""
    assert pyte_rows(raw, GROWS, GCOLS) == tmux_rows(raw, GROWS, GCOLS) == agentwrap_rows(raw, GROWS, GCOLS)


def test_dec_line_drawing() -> None:
    """ESC ( 0 selects DEC Special Graphics (VT100 User Guide, table 3-9): `lqqk` draws a box top.
    pyte in UTF-8 mode ignores charset designation and tmux's capture-pane prints the cells' letters,
    so the table itself is the reference here."""
    assert agentwrap_text(b"\x1b(0lqqk\x1b(B lqk\n\x1b(0x\x1b(Bx\n", ROWS, COLS) == "┌──┐ lqk\n│x\n"


# -- generated streams ----------------------------------------------------------------------------------

GROWS, GCOLS = 6, 20
TEXT = st.text(alphabet="abcxyz -=#%0123456789", min_size=1, max_size=30).map(str.encode)
COLOUR = st.sampled_from([b"\x1b[31m", b"\x1b[1;32m", b"\x1b[0m", b"\x1b[m", b"\x1b[38;5;208m", b"\x1b[48;2;1;2;3m"])
NEWLINE = st.sampled_from([b"\n", b"\r\n", b"\r"])


def _csi(final: str, lo: int = 0, hi: int = 30) -> st.SearchStrategy[bytes]:
    return st.integers(lo, hi).map(lambda n: f"\x1b[{n or ''}{final}".encode())


MOTION = st.one_of(
    *(_csi(f) for f in "ABCDEFGd"), _csi("K", 0, 2), _csi("J", 0, 2), _csi("P", 0, 5), _csi("X", 0, 5),
    _csi("@", 0, 5), _csi("L", 0, 3), _csi("M", 0, 3),
    st.tuples(st.integers(0, 8), st.integers(0, 25)).map(lambda rc: f"\x1b[{rc[0]};{rc[1]}H".encode()),
    st.sampled_from([b"\x08", b"\x1b7", b"\x1b8", b"\x1bD", b"\x1bE", b"\x1bM"]),
)
TAB = st.just(b"\t")
WIDE = st.sampled_from(["你好", "世", "界世界", "ｶﾀｶﾅ", "e\u0301", "a\u0308\u0323"]).map(str.encode)
# A bottom of 0 is left to tmux below: pyte reads it as row 0 and ignores the region.
REGION = st.tuples(st.integers(0, 7), st.integers(1, 7)).map(lambda tb: f"\x1b[{tb[0]};{tb[1]}r".encode())

ascii_stream = st.lists(st.one_of(TEXT, NEWLINE, COLOUR), max_size=40).map(b"".join)
motion_stream = st.lists(st.one_of(TEXT, TEXT, NEWLINE, COLOUR, MOTION), max_size=40).map(b"".join)
tab_stream = st.lists(st.one_of(TEXT, NEWLINE, TAB, MOTION), max_size=40).map(b"".join)
# Deleting or erasing characters from the second half of a wide one is left out: tmux and pyte
# disagree there (and tmux's capture-pane does not show cells as drawn).
WIDE_MOTION = st.one_of(*(_csi(f) for f in "ABCDEFGd"), _csi("K", 0, 2), _csi("J", 0, 2), _csi("L", 0, 3),
                        st.sampled_from([b"\x08", b"\x1b7", b"\x1b8", b"\x1bD", b"\x1bE", b"\x1bM"]))
wide_stream = st.lists(st.one_of(TEXT, NEWLINE, WIDE, WIDE_MOTION), max_size=40).map(b"".join)
region_stream = st.lists(st.one_of(TEXT, NEWLINE, NEWLINE, REGION, MOTION), max_size=50).map(b"".join)
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _agree(data: bytes) -> None:
    expected = pyte_rows(data, GROWS, GCOLS)
    assert agentwrap_rows(data, GROWS, GCOLS) == expected
    assert agentwrap_rows(data, GROWS, GCOLS, chunk=3) == expected


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@SETTINGS
@given(ascii_stream)
def test_ascii_and_colours_agree_with_the_emulator(data: bytes) -> None:
    _agree(data)


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@SETTINGS
@given(motion_stream)
def test_cursor_motion_and_erasing_agree_with_the_emulator(data: bytes) -> None:
    _agree(data)


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@SETTINGS
@given(tab_stream)
@example(b"\t0\x1b[2D\x1b[P")  # a character deleted inside a tab's blanks: the tab is cut, not moved
def test_tabs_agree_with_the_emulator(data: bytes) -> None:
    _agree(data)


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@SETTINGS
@given(wide_stream)
@example(b"\x1b[19C  ")  # only blanks, wrapped: no text, as on the emulator's screen
def test_wide_and_combining_characters_agree_with_the_emulator(data: bytes) -> None:
    _agree(data)


@SETTINGS
@given(region_stream)
# a region below row 1 scrolls away the row a wrapped line continued into: the row above ends there
@example(b"\x1b[2;0r\x1b[18C00000\x1b[4B000000000000000000")
# ... and a wrapped row that scrolls off a region below row 1 ends its line: the rows above come first
@example(b"\x1b[2;3r\x1b[2;20H0000000000000000000000")
# DECRC restores the saved cursor as it was, outside the region too (tests/emulator.py: pyte clamps it)
@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@example(b"\x1b7\x1b[2;3r\x1b80")
def test_scroll_regions_agree_with_the_emulator(data: bytes) -> None:
    _agree(data)


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(MOTION, TEXT, REGION, _csi("b", 0, 10**9), _csi("C", 0, 10**9)), max_size=30))
def test_no_input_grows_the_output_past_the_window(pieces: list[bytes]) -> None:
    """Each piece (a motion, a REP, a run of text) adds at most a window of cells."""
    out = agentwrap_text(b"".join(pieces), GROWS, GCOLS)
    assert len(out) <= (len(pieces) + 1) * GROWS * (GCOLS + 1) + sum(map(len, pieces))


# -- real programs ------------------------------------------------------------------------------------

SCREENS = Path(__file__).parent / "data" / "screens"
CORPUS = sorted(p.stem for p in SCREENS.glob("*.raw"))


# Full-screen programs that leave through the alternate screen: pyte has no alternate screen (it shows
# less's last page) and raises on vim's `CSI > 4;2 m` (modifyOtherKeys); tmux shows the screen as it was.
BY_TMUX = {"less", "vim"}


@pytest.mark.parametrize("name", [n for n in CORPUS if n not in BY_TMUX])
def test_captured_programs_match_the_emulator(name: str) -> None:
    """Raw bytes of real programs on a 100x30 terminal (tests/data/screens/capture.py records them)."""
    raw = (SCREENS / f"{name}.raw").read_bytes()
    assert agentwrap_rows(raw, 30, 100) == pyte_rows(raw, 30, 100)
    assert agentwrap_rows(raw, 30, 100, chunk=4095) == pyte_rows(raw, 30, 100)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is the referee")
@pytest.mark.parametrize("name", sorted(BY_TMUX))
def test_captured_full_screen_programs_match_tmux(name: str) -> None:
    raw = (SCREENS / f"{name}.raw").read_bytes()
    assert agentwrap_rows(raw, 30, 100) == tmux_rows(raw, 30, 100)


def test_apt_fancy_progress_gives_clean_setting_up_lines() -> None:
    """apt pins `Progress: [ 40%] [####....]` to the last row with a scroll region (DECSTBM)."""
    text = agentwrap_text((SCREENS / "apt.raw").read_bytes(), 30, 100)
    setting_up = [line for line in text.splitlines() if line.startswith("Setting up ")]
    assert len(setting_up) == 12
    assert all(line.endswith("...") for line in setting_up), setting_up
    assert "Progress:" not in text and "#" not in text
