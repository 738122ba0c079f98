"""The terminal cleaner: real captures from real programs, one case per sequence kind, properties."""

from __future__ import annotations

import fcntl
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentwrap.terminal import TerminalCleaner

FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(data: bytes, **kwargs: object) -> str:
    cleaner = TerminalCleaner(**kwargs)  # type: ignore[arg-type]
    return cleaner.feed(data) + cleaner.finish()


def clean_chunks(chunks: list[bytes], **kwargs: object) -> tuple[str, TerminalCleaner]:
    cleaner = TerminalCleaner(**kwargs)  # type: ignore[arg-type]
    return "".join(cleaner.feed(c) for c in chunks) + cleaner.finish(), cleaner


def run_pty(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> bytes:
    """Runs argv on a fresh pseudo-terminal (80x24, ONLCR off, as the runner does) and returns its bytes."""
    master, slave = os.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    full_env = {**os.environ, "TERM": "xterm-256color", "LC_ALL": "C.UTF-8", **(env or {})}
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=full_env,
                            start_new_session=True)
    os.close(slave)
    out: list[bytes] = []
    deadline = time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 0.5)[0]:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            out.append(chunk)
    finally:
        os.close(master)
        proc.wait(timeout=10)
    return b"".join(out)


# -- real programs --------------------------------------------------------------------------------


@pytest.fixture
def listing_dir(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "dir two").mkdir()
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b c").write_text("")
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (tmp_path / "link").symlink_to("a.txt")
    (tmp_path / "dangling").symlink_to("nowhere")
    for i in range(30):
        (tmp_path / f"file_{i:02d}.py").write_text("")
    return tmp_path


@pytest.mark.skipif(shutil.which("ls") is None, reason="needs ls")
@pytest.mark.parametrize("flags", [["-T0"], ["-T0", "-l", "--time-style=+X"], ["-T0", "-F"]])
def test_ls_color_equals_ls_plain(listing_dir: Path, flags: list[str]) -> None:
    coloured = run_pty(["ls", "--color=always", *flags], cwd=listing_dir)
    plain = run_pty(["ls", "--color=never", *flags], cwd=listing_dir)
    assert b"\x1b[" in coloured
    assert clean(coloured) == plain.decode()


@pytest.mark.skipif(shutil.which("ls") is None, reason="needs ls")
def test_ls_root_color_equals_plain() -> None:
    coloured = run_pty(["ls", "-T0", "--color=always", "/"])
    plain = run_pty(["ls", "-T0", "--color=never", "/"])
    assert clean(coloured) == plain.decode()


@pytest.fixture
def git_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = {"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "A U Thor",
           "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A U Thor",
           "GIT_COMMITTER_EMAIL": "a@example.com", "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z", "GIT_PAGER": "cat"}
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env={**os.environ, **env}, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    for i in range(4):
        (repo / "f.txt").write_text("".join(f"line {j}\n" for j in range(i + 3)))
        git("add", "f.txt")
        git("commit", "-q", "-m", f"commit {i}")
    git("checkout", "-q", "-b", "side", "HEAD~2")
    (repo / "g.txt").write_text("side\n")
    git("add", "g.txt")
    git("commit", "-q", "-m", "side work")
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-edit", "side")
    git("tag", "v1")
    (repo / "f.txt").write_text("changed\n")
    return repo, env


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("args", [
    ["log", "--graph", "--decorate", "--oneline", "--all"],
    ["log", "--stat", "-2"],
    ["diff"],
    ["status"],
    ["log", "-p", "-1"],
])
def test_git_color_equals_git_plain(git_repo: tuple[Path, dict[str, str]], args: list[str]) -> None:
    repo, env = git_repo
    coloured = run_pty(["git", "-c", "color.ui=always", "--no-pager", *args], cwd=repo, env=env)
    plain = run_pty(["git", "-c", "color.ui=never", "--no-pager", *args], cwd=repo, env=env)
    assert b"\x1b[" in coloured
    assert clean(coloured) == plain.decode()


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_grep_color_equals_plain(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("alpha\nbeta alpha\ngamma\n")
    coloured = run_pty(["grep", "-n", "--color=always", "alpha", "x.txt"], cwd=tmp_path)
    plain = run_pty(["grep", "-n", "--color=never", "alpha", "x.txt"], cwd=tmp_path)
    assert b"\x1b[" in coloured
    assert clean(coloured) == plain.decode() == "1:alpha\n2:beta alpha\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_clone_progress_keeps_final_counts(git_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, env = git_repo
    raw = run_pty(["git", "clone", "--progress", "--no-local", f"file://{repo}", str(tmp_path / "copy")],
                  cwd=tmp_path, env=env)
    assert raw.count(b"\r") > 5
    out = clean(raw)
    lines = out.splitlines()
    assert lines[0] == f"Cloning into '{tmp_path / 'copy'}'..."
    counting = [line for line in lines if "Counting objects" in line]
    assert len(counting) == 1
    assert re.fullmatch(r"remote: Counting objects: 100% \((\d+)/\1\), done\.", counting[0])
    assert any(line.startswith("Receiving objects: 100%") for line in lines)
    assert "%" not in "".join(line for line in lines if "100%" not in line)


def test_printf_progress_bar() -> None:
    raw = run_pty(["printf", r"10%%\r20%%\r100%%\ndone\n"])
    assert b"\r" in raw
    assert clean(raw) == "100%\ndone\n"


TQDM_LIKE = r"""
import sys, time
for i in range(0, 101, 10):
    bar = "#" * (i // 10) + " " * (10 - i // 10)
    sys.stderr.write(f"\rDownloading: {i:3d}%|{bar}| {i}/100")
    sys.stderr.flush()
sys.stderr.write("\n")
print("finished")
"""


def test_python_tqdm_like_bar_keeps_only_final_state() -> None:
    raw = run_pty([sys.executable, "-c", TQDM_LIKE])
    seen: list[str] = []
    cleaner = TerminalCleaner(on_transient=seen.append)
    out = "".join(cleaner.feed(raw[i:i + 7]) for i in range(0, len(raw), 7)) + cleaner.finish()
    assert out == "Downloading: 100%|##########| 100/100\nfinished\n"
    assert seen[0] == "Downloading:   0%|          | 0/100"
    assert [int(s.split("%")[0].split()[-1]) for s in seen] == list(range(0, 100, 10))


SPINNER = r"""
import sys
frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
for i in range(25):
    sys.stdout.write(f"\r{frames[i % 10]} Installing packages")
    sys.stdout.flush()
sys.stdout.write("\r\x1b[K✔ Installed 3 packages\n")
for i in range(12):
    sys.stdout.write("\r" + "|/-\\"[i % 4])
    sys.stdout.flush()
sys.stdout.write("\n")
for i in range(5):
    sys.stdout.write(f"\r{frames[i]} Resolving")
sys.stdout.write("\n")
"""


def test_python_spinner_frames_are_dropped() -> None:
    raw = run_pty([sys.executable, "-c", SPINNER])
    assert clean(raw) == "✔ Installed 3 packages\nResolving\n"


DOCKER_LIKE = r"""
import sys
layers = ["a1b2", "c3d4", "e5f6"]
for step in range(0, 101, 25):
    if step:
        sys.stdout.write(f"\x1b[{len(layers)}A")
    for name in layers:
        state = "Pull complete" if step == 100 else f"Downloading {step}%"
        sys.stdout.write(f"\x1b[2K{name}: {state}\n")
    sys.stdout.flush()
print("Status: Downloaded newer image")
"""


def test_docker_like_multiline_redraw() -> None:
    raw = run_pty([sys.executable, "-c", DOCKER_LIKE])
    assert clean(raw) == (
        "a1b2: Pull complete\nc3d4: Pull complete\ne5f6: Pull complete\nStatus: Downloaded newer image\n"
    )


def test_prompt_is_visible_in_screen_tail() -> None:
    raw = run_pty(["printf", r"Setting up\nContinue? [Y/n] "])
    cleaner = TerminalCleaner()
    assert cleaner.feed(raw) == ""  # both lines are still in the live region
    assert cleaner.screen_tail() == "Setting up\nContinue? [Y/n] "
    assert cleaner.screen_tail(1) == "Continue? [Y/n] "
    assert cleaner.finish() == "Setting up\nContinue? [Y/n] "
    assert cleaner.screen_tail() == ""


# -- one case per sequence kind ---------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "expected"), [
    # carriage return, backspace, tab
    (b"10%\r20%\r100%\n", "100%\n"),
    (b"abcdef\rXY\n", "XYcdef\n"),
    (b"_\bA", "A"),
    (b"a\bb", "b"),
    (b"ab\b\b\bXYZ\n", "XYZ\n"),
    (b"a\tb\n", "a\tb\n"),
    (b"line\r\n", "line\n"),
    (b"trailing   \rX\n", "Xrailing\n"),
    # CSI: SGR and private modes dropped, 8-bit CSI as a code point
    (b"\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[m\n", "red rgb\n"),
    (b"\x1b[38:5:1mx\x1b[0m\n", "x\n"),
    (b"\x1b[?25l\x1b[>4;1m\x1b[<u\x1b[=5hok\x1b[?25h\n", "ok\n"),
    (b"\x1b[1 qa\x1b[!pb\n", "ab\n"),
    ("\x9b1mX\x9b0m\n".encode(), "X\n"),
    # erase in line / display
    (b"hello world\r\x1b[Kbye\n", "bye\n"),
    (b"hello world\x1b[6D\x1b[K!\n", "hello!\n"),
    (b"hello world\x1b[6D\x1b[1K\n", "      world\n"),
    (b"hello\x1b[2Kbye\n", "     bye\n"),
    (b"a\nb\nc\x1b[2A\x1b[J\n", "a\n"),
    (b"a\nb\nc\x1b[A\x1b[1Jz\n", "\n z\nc"),
    (b"old\nstuff\x1b[2J\x1b[Hnew\n", "new\n"),
    (b"old\x1b[3Jnew", "oldnew"),  # ESC[3J clears the scrollback, not the screen
    # cursor movement
    (b"a\nb\nc\n\x1b[3Ax\ny\nz\n", "x\ny\nz\n"),
    (b"one\ntwo\x1b[Funo\x1b[Edos\n", "uno\ndos\n"),
    (b"abc\x1b[2DX\n", "aXc\n"),
    (b"abc\x1b[1GX\x1b[3CY\n", "Xbc Y\n"),
    (b"x\x1b[5Cy\n", "x     y\n"),
    (b"1\n2\n3\x1b[2;2HX\x1b[1dY\n", "1 Y\n2X\n3"),
    (b"1\n2\n3\x1b[H\x1b[2BZ\n", "1\n2\nZ\n"),
    (b"abc\x1b[;2fQ", "aQc"),
    (b"abcdef\x1b[3G\x1b[2P\n", "abef\n"),
    (b"abcdef\x1b[3G\x1b[2X\n", "ab  ef\n"),
    (b"abcdef\x1b[3G\x1b[2@\n", "ab  cdef\n"),
    (b"abc\x1b[s\ndef\x1b[uX\n", "abcX\ndef"),
    # OSC / DCS / SOS / PM / APC
    (b"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n", "link\n"),
    (b"\x1b]0;window title\x07hi\n", "hi\n"),
    (b"\x1b]2;t\x1b\\a\x1b]1;t\xc2\x9cb\n", "ab\n"),
    (b"\x1bPq#0;2;0;0;0#1!6~-\x1b\\after\n", "after\n"),
    (b"\x1bXsos\x1b\\\x1b^pm\x1b\\\x1b_apc\x1b\\x\n", "x\n"),
    (b"\x1b]0;abandoned\x1b[31mred\n", "red\n"),
    (b"\x1b]0;cancelled\x18x\n", "x\n"),
    # two-byte escapes and charsets
    (b"\x1b(B\x1b)0\x1b*A\x1b+B\x1b#8\x1b%Gok\x1b=\x1b>\n", "ok\n"),
    (b"abc\x1b7\rX\x1b8Y\n", "XbcY\n"),
    (b"one\ntwo\x1bMZ\n", "oneZ\ntwo"),
    (b"one\x1bDtwo\n", "one\n   two\n"),
    (b"one\x1bEtwo\n", "one\ntwo\n"),
    (b"gone\x1bcfresh\n", "fresh\n"),
    (b"\x1b\x01x\n", "x\n"),
    # DEC line drawing: in G0 (ESC ( 0), or in G1 (ESC ) 0) while shifted out (SO ... SI)
    (b"\x1b(0lqqk\x1b(B lqk\n", "┌──┐ lqk\n"),
    (b"\x1b)0a\x0eqq\x0fq\n", "a──q\n"),
    (b"\x1b(0\x1b[0mq\x1b[1mq\x1b(B\n", "──\n"),
    # alternate screen vanishes on exit
    (b"before\n\x1b[?1049hFULL\nSCREEN\x1b[?1049lafter\n", "before\nafter\n"),
    # spinners
    ("⠋\r⠙\r⠹\n".encode(), ""),
    (b"a\n|\r/\r-\r\\\nb\n", "a\nb\n"),
    ("⠋ Working\r⠙ Working\ndone\n".encode(), "Working\ndone\n"),
    ("◐ Loading\r◓ Loading\n".encode(), "Loading\n"),
    ("-\n|\n⠋ plain\n".encode(), "-\n|\n⠋ plain\n"),
    # binary and controls
    (b"\x00\x01x\x7f\x07\x0e\x0f\n", "x\n"),
    ("\x85a\x8db\n".encode(), "ab\n"),
])
def test_sequences(raw: bytes, expected: str) -> None:
    assert clean(raw) == expected
    assert clean_chunks([raw[i:i + 1] for i in range(len(raw))])[0] == expected


def test_counters() -> None:
    _, cleaner = clean_chunks([b"\x00\x00a\x01\x7f", b"\xff\xfe", b"\xe2\x82", b"x\xef\xbf", b"\xbd\xe2"])
    assert cleaner.binary_bytes == 3
    assert cleaner.invalid_utf8 == 4  # \xff, \xfe, \xe2\x82 cut by 'x', trailing \xe2; not the real U+FFFD


def test_transient_callback_sees_intermediate_states() -> None:
    seen: list[str] = []
    cleaner = TerminalCleaner(on_transient=seen.append)
    out = cleaner.feed(b"10%\r20%\r100%\nstep 1\r\x1b[Kstep 2\n") + cleaner.finish()
    assert out == "100%\nstep 2\n"
    assert seen == ["10%", "20%", "step 1"]


def test_lines_scrolled_out_of_the_live_region_are_committed() -> None:
    cleaner = TerminalCleaner(rows=3)
    assert cleaner.feed(b"1\n2\n") == ""
    assert cleaner.feed(b"3\n") == "1\n"
    assert cleaner.feed(b"\x1b[10Ax\n") == ""  # can reach row 2 at most, not the committed '1'
    assert cleaner.finish() == "x\n3\n"


def test_overlong_line_wraps_and_scrolls_away_in_rows() -> None:
    cleaner = TerminalCleaner(rows=2, cols=4)
    assert cleaner.feed(b"top\nabcdefghij") == "top\nabcd"  # wrapped: 'efgh' and 'ij' are on screen
    assert cleaner.screen_tail() == "efgh\nij"
    assert cleaner.feed(b"k\n") == "efgh"
    assert cleaner.finish() == "ijk\n"


def test_unterminated_string_is_bounded() -> None:
    cleaner = TerminalCleaner()
    out = cleaner.feed(b"\x1b]0;" + b"x" * 100_000 + b"\nvisible\n") + cleaner.finish()
    assert out.endswith("\nvisible\n")
    assert len(out) == 100_000 - (64 * 1024 - 2) + len("\nvisible\n")
    assert len(cleaner._pending) == 0


def test_unterminated_csi_is_bounded() -> None:
    cleaner = TerminalCleaner()
    for _ in range(100):
        cleaner.feed(b"\x1b[" + b"1;" * 5000)
        assert len(cleaner._pending) <= 1100
    cleaner.finish()


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="positive"):
        TerminalCleaner(rows=0)


# -- properties -----------------------------------------------------------------------------------

SEQUENCES = [
    b"\x1b[31m", b"\x1b[0m", b"\x1b[K", b"\x1b[1K", b"\x1b[2K", b"\x1b[J", b"\x1b[1J", b"\x1b[2J",
    b"\x1b[3A", b"\x1b[B", b"\x1b[2C", b"\x1b[D", b"\x1b[E", b"\x1b[F", b"\x1b[5G", b"\x1b[2;3H",
    b"\x1b[d", b"\x1b[2P", b"\x1b[X", b"\x1b[3@", b"\x1b[s", b"\x1b[u", b"\x1b[?25l", b"\x1b[?1049h",
    b"\x1b[?1049l", b"\x1b]0;title\x07", b"\x1b]8;;http://x\x1b\\", b"\x1bPq~-\x1b\\", b"\x1b(B",
    b"\x1b)0", b"\x1b#8", b"\x1b7", b"\x1b8", b"\x1bM", b"\x1bD", b"\x1bE", b"\x1bc", b"\x1b=",
    b"\xc2\x9b1m", b"\xc2\x9d0;t\xc2\x9c", b"\xc2\x90x", b"\x1b", b"\x1b[", b"\x1b[1;", b"\x1b]", b"\x1b(",
    b"\x1b\\", b"\x18", b"\r", b"\b", b"\n", b"\n", b"\t", b"\x00", b"\x07", b"\x7f", b"\x0c",
    b"\xff", b"\xe2\x82", b"\xef\xbf\xbd", "⠋ ".encode(), b"|", "é€𝄞".encode(), b"  ",
]
piece = st.one_of(
    st.sampled_from(SEQUENCES),
    st.text(alphabet="abc xyz-|%0123456789", max_size=12).map(str.encode),
    st.binary(max_size=4),
)
stream = st.lists(piece, max_size=60).map(b"".join)
options = st.fixed_dictionaries({
    "rows": st.sampled_from([1, 2, 3, 50]),
    "cols": st.sampled_from([1, 2, 3, 7, 250]),
})


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream, options, st.lists(st.integers(0, 400), max_size=20))
@pytest.mark.slow  # a long real run: the `-m slow` step
def test_chunking_never_changes_the_result(data: bytes, opts: dict[str, int], cuts: list[int]) -> None:
    whole, ref = clean_chunks([data], **opts)
    chunked, other = clean_chunks(split(data, cuts), **opts)
    bytewise, third = clean_chunks([data[i:i + 1] for i in range(len(data))], **opts)
    assert chunked == whole
    assert bytewise == whole
    assert ref.invalid_utf8 == other.invalid_utf8 == third.invalid_utf8
    assert ref.binary_bytes == other.binary_bytes == third.binary_bytes


@settings(max_examples=700, deadline=None)
@given(stream, options)
def test_output_holds_no_control_characters(data: bytes, opts: dict[str, int]) -> None:
    out = clean(data, **opts)
    assert FORBIDDEN.search(out) is None


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=10))
def test_any_bytes_are_accepted(data: bytes, cuts: list[int]) -> None:
    out, cleaner = clean_chunks(split(data, cuts))
    assert FORBIDDEN.search(out) is None
    expected_invalid = data.decode("utf-8", "replace").count("\ufffd") - data.count(b"\xef\xbf\xbd")
    assert cleaner.invalid_utf8 == expected_invalid


plain_text = st.text(
    alphabet=st.characters(
        blacklist_categories=["Cs"],
        blacklist_characters=[chr(c) for c in [*range(9), *range(11, 32), *range(127, 160)]],
    ),
    max_size=300,
)


@settings(max_examples=1000, deadline=None)
@given(plain_text, options, st.lists(st.integers(0, 1200), max_size=10))
def test_plain_text_passes_through_exactly(text: str, opts: dict[str, int], cuts: list[int]) -> None:
    """Lines longer than the window wrap on screen and come out whole. A tab that reaches the right
    margin only moves the cursor on a real screen (it is not text there), so tabs are kept exactly
    in lines that fit the window."""
    if "\t" in text and any(len(line.expandtabs()) >= opts["cols"] for line in text.split("\n")):
        text = text.replace("\t", " ")
    data = text.encode()
    assert clean_chunks(split(data, cuts), **opts)[0] == text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab -|\t⠋", max_size=8), max_size=200))
def test_plain_lines_pass_through_exactly(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert clean(text.encode(), rows=3) == text


# -- size and speed -------------------------------------------------------------------------------


def test_seq_output_is_exact() -> None:
    data = "".join(f"{i}\n" for i in range(1, 100_001)).encode()
    out, _ = clean_chunks([data[i:i + 4096] for i in range(0, len(data), 4096)])
    assert out.encode() == data


@pytest.mark.slow
def test_64_mib_of_plain_text_is_exact() -> None:
    # its speed is the cleaner row of `bench/run.py throughput`, never asserted here
    line = b"the quick brown fox jumps over the lazy dog 0123\n"
    data = line * (64 * 1024 * 1024 // len(line))
    cleaner = TerminalCleaner()
    out = [cleaner.feed(data[i:i + 65536]) for i in range(0, len(data), 65536)]
    out.append(cleaner.finish())
    assert "".join(out).encode() == data


@pytest.mark.slow
def test_100_mb_single_line_is_linear_and_bounded() -> None:
    chunk = b"y" * 65536
    cleaner = TerminalCleaner()
    tracemalloc.start()
    try:
        total = sum(len(cleaner.feed(chunk)) for _ in range(1600)) + len(cleaner.finish())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total == 1600 * 65536
    assert peak < 16 * 1024 * 1024
