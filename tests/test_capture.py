"""Bounded capture: exact inline text when small; head, salient lines, tail and an honest elision when
large; the artifact byte-exact; memory flat; a broken store costs the artifact, never the run."""

from __future__ import annotations

import hashlib
import random
import re
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentwrap.artifacts import ArtifactError, ArtifactStore, ArtifactWriter
from agentwrap.capture import SALIENT, StreamCapture, StreamResult
from agentwrap.salient import SalientScanner

ELISION = re.compile(r"^… (\d+) lines? \(([^)]*)\) omitted.*--lines (\d+):(\d+)\)$", re.MULTILINE)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ArtifactStore:
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path))
    return ArtifactStore()


def capture(chunks: Iterator[str] | list[str], budget: int = 4096, store: ArtifactStore | None = None,
            ) -> tuple[StreamResult, StreamCapture]:
    cap = StreamCapture("stdout", max_inline_bytes=budget, store=store)
    for chunk in chunks:
        cap.write(chunk)
    return cap.close(), cap


def seq_chunks(n: int, size: int = 65536, needle_at: int | None = None) -> Iterator[str]:
    """`seq 1 n` in `size`-character chunks, generated lazily so the input itself takes no memory."""
    buf: list[str] = []
    length = 0
    for i in range(1, n + 1):
        line = "error: the needle\n" if i == needle_at else f"{i}\n"
        buf.append(line)
        length += len(line)
        if length >= size:
            text = "".join(buf)
            yield text[:size]
            buf, length = [text[size:]], len(text) - size
    if length:
        yield "".join(buf)


def test_small_output_is_inline_exactly_and_touches_no_disk(store):
    result, cap = capture(["hello\n", "wor", "ld\n"], store=store)
    assert result.text == "hello\nworld\n"
    assert (result.lines, result.truncated, result.omitted_lines, result.artifact) == (2, False, 0, None)
    assert result.head == ("hello", "world")
    assert result.tail == ("hello", "world")
    assert cap.warnings == []
    assert not store.root.exists()
    assert result.to_dict() == {"text": "hello\nworld\n", "bytes": 12, "lines": 2, "truncated": False,
                                "omitted_lines": 0, "artifact": None}


def test_empty_output_is_an_empty_string(store):
    result, _ = capture([], store=store)
    assert result.to_dict() == {"text": "", "bytes": 0, "lines": 0, "truncated": False, "omitted_lines": 0,
                                "artifact": None}
    assert result.head == ()
    assert result.tail == ()


@pytest.mark.parametrize(("text", "lines"), [("a", 1), ("a\n", 1), ("a\nb", 2), ("\n", 1), ("\n\n", 2),
                                             ("a\n\nb\n", 3)])
def test_lines_are_counted_like_wc_plus_an_unterminated_last_line(text, lines):
    assert capture([text])[0].lines == lines
    assert capture([text], budget=0)[0].lines == lines


def test_bytes_is_the_raw_count_when_given():
    cap = StreamCapture("stdout", max_inline_bytes=100, store=None)
    cap.add_raw_bytes(40)
    cap.add_raw_bytes(2)
    cap.write("abc\n")
    result = cap.close()
    assert result.bytes == 42
    assert result.cleaned_bytes == 4


def test_the_budget_is_inclusive(store):
    assert capture(["x" * 99 + "\n"], budget=100, store=store)[0].truncated is False
    result, _ = capture(["x" * 100 + "\n"], budget=100, store=store)
    assert result.truncated is True
    assert len(result.text.encode()) <= 100


def test_two_million_lines_are_bounded_and_the_artifact_is_exact(store):
    budget = 4096
    result, cap = capture(seq_chunks(2_000_000, needle_at=1_000_000), budget=budget, store=store)
    text = result.text
    assert result.truncated
    assert result.lines == 2_000_000
    assert len(text.encode()) <= budget
    assert text.startswith("1\n2\n3\n")
    assert text.endswith("1999999\n2000000\n")
    # the salient line from the middle, with its line number
    assert "  [line 1000000] error: the needle\n" in text
    assert result.salient == ((1_000_000, "error: the needle"),)
    # the elision line says how many lines, how big, and where they are
    (omitted, size, first, last), = ELISION.findall(text)
    assert int(omitted) == result.omitted_lines > 1_990_000
    assert size.endswith("MiB")
    assert result.artifact is not None
    assert f"agentwrap --agent artifact show {result.artifact.id}" in text
    assert int(first) == len(result.head) + 1
    assert int(last) == 2_000_000 - len(result.tail)
    # every line is shown inline once or counted as omitted
    assert len(result.head) + len(result.salient) + len(result.tail) + result.omitted_lines == result.lines
    # the artifact is byte for byte the input
    expected = "".join(seq_chunks(2_000_000, needle_at=1_000_000)).encode()
    assert Path(result.artifact.path).read_bytes() == expected
    assert result.artifact.sha256 == hashlib.sha256(expected).hexdigest()
    assert result.artifact.bytes == result.cleaned_bytes == len(expected)
    assert result.to_dict()["artifact"] == result.artifact.id
    assert cap.warnings == []


def test_salient_lines_inside_the_tail_are_not_repeated(store):
    lines = [f"line {i}\n" for i in range(5000)]
    lines[-3] = "FAILED tests/test_x.py::test_y - assert 1 == 2\n"
    result, _ = capture(lines, budget=2000, store=store)
    assert result.text.count("FAILED tests/test_x.py") == 1
    assert "salient" not in result.text


def test_how_the_text_is_chunked_does_not_change_the_result(store):
    text = "".join(f"{i} {'ERROR boom' if i % 997 == 0 else 'fine'} ünïcødé\n" for i in range(20000))
    whole, _ = capture([text], budget=3000, store=store)
    rng = random.Random(7)
    pieces, at = [], 0
    while at < len(text):
        step = rng.choice([1, 2, 3, 50, 4096, 70000])
        pieces.append(text[at : at + step])
        at += step
    split, _ = capture(pieces, budget=3000, store=store)
    assert whole.artifact
    assert split.artifact
    assert whole.text.replace(whole.artifact.id, "ID") == split.text.replace(split.artifact.id, "ID")
    assert whole.salient == split.salient
    assert whole.omitted_lines == split.omitted_lines
    assert Path(split.artifact.path).read_bytes() == text.encode()


def test_multibyte_text_stays_within_the_byte_budget(store):
    result, _ = capture(["日本語のテキスト😀 " * 40 + "\n"] * 3000, budget=2500, store=store)
    assert len(result.text.encode()) <= 2500
    assert "\ufffd" not in result.text
    assert "[line truncated]" in result.text  # a 1 KiB line cannot fit whole in the head or the tail


def test_one_overlong_line_shows_its_start_and_its_end(store):
    result, _ = capture(["a" + "x" * 999_998 + "z"] * 5, budget=2000, store=store)
    assert result.truncated
    assert result.lines == 1
    assert result.omitted_lines == 0
    assert len(result.text.encode()) <= 2000
    assert result.text.startswith("axxx")
    assert result.text.endswith("xxxz")
    assert "[line truncated]" in result.text
    assert "omitted" in result.text
    assert result.artifact is not None
    assert result.artifact.bytes == 5_000_000


def test_an_overlong_last_line_keeps_its_end(store):
    result, _ = capture(["short\n" * 10, "y" * 100_000 + "END"], budget=1500, store=store)
    assert result.text.startswith("short\n")
    assert result.text.endswith("yyyEND")
    assert len(result.text.encode()) <= 1500


@pytest.mark.parametrize("budget", [0, 1, 10, 100, 300, 1000])
def test_tiny_budgets_never_overflow(store, budget):
    result, _ = capture(seq_chunks(10_000), budget=budget, store=store)
    assert result.truncated
    assert len(result.text.encode()) <= budget


def test_memory_stays_flat_as_output_grows(store):
    chunk = "".join(f"{i} some output\n" for i in range(1000, 2000))  # 15 KiB, made once

    def peak(count: int) -> int:
        tracemalloc.start()
        try:
            result, _ = capture((chunk for _ in range(count)), budget=4096, store=store)
            assert result.artifact is not None
            assert result.artifact.bytes == len(chunk) * count
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(100), peak(1000)  # 1.5 MB and 15 MB of output
    assert large < small * 1.5, (small, large)
    assert large < 1_000_000, large  # about the chunk size and the budget, not the input


def test_a_broken_store_costs_the_artifact_but_not_the_inline_text(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result, cap = capture(seq_chunks(100_000), budget=2048, store=ArtifactStore(blocker / "artifacts"))
    assert result.truncated
    assert result.artifact is None
    assert result.to_dict()["artifact"] is None
    assert len(result.text.encode()) <= 2048
    assert result.text.endswith("100000\n")
    assert "the full text was not kept (see warnings)" in result.text
    assert [w["code"] for w in cap.warnings] == ["ARTIFACT_UNAVAILABLE"]


def test_no_store_behaves_like_a_broken_one():
    result, cap = capture(seq_chunks(100_000), budget=2048)
    assert result.artifact is None
    assert len(result.text.encode()) <= 2048
    assert cap.warnings[0]["code"] == "ARTIFACT_UNAVAILABLE"


def test_a_store_failing_midstream_is_a_warning(store, monkeypatch):
    calls = {"n": 0}
    real = ArtifactWriter.write

    def flaky(self: ArtifactWriter, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] > 3:
            self.abort()
            raise ArtifactError("disk full")
        real(self, data)

    monkeypatch.setattr(ArtifactWriter, "write", flaky)
    result, cap = capture(seq_chunks(200_000, size=8192), budget=2048, store=store)
    assert result.artifact is None
    assert result.truncated
    assert len(cap.warnings) == 1
    assert "disk full" in cap.warnings[0]["message"]
    assert not any(store.root.iterdir()) or all(p.name.startswith(".last") for p in store.root.iterdir())


@pytest.mark.parametrize("line", [
    "error: expected ';' after expression", "src/a.c:3:5: error: unknown type", "fatal: not a git repository",
    "Traceback (most recent call last):", "ValueError: bad value", "java.lang.NullPointerException",
    "FAILED tests/test_a.py::test_b - assert 1 == 2", "--- FAIL: TestX (0.00s)", "1 failed, 3 passed",
    "panic: runtime error: index out of range", "thread 'main' panicked at src/main.rs:2:5",
    "ssh: connect to host x port 22: Connection refused", "open /etc/shadow: permission denied",
    "bash: foo: command not found", "cat: x: No such file or directory", "warning: unused variable 'x'",
    "npm ERR! code E404", "E       assert 1 == 2", "make: *** [Makefile:3: all] Error 2", "✗ build failed",
    "Process exited with code 1", "exit status 2", "undefined reference to `main'", "Segmentation fault",
    "cannot open file", "Unable to locate package foo", "request timed out", "Aborted (core dumped)",
    "3 errors generated.",
])
def test_salient_lines(line):
    assert SALIENT.search(line), line


@pytest.mark.parametrize("line", [
    "gcc -Wall -Werror=format -c a.c", "compiling src/errors.rs", "Found 0 errors", "no errors found",
    "failed=0 ok=3", "errors: 0", "0 failed, 12 passed", "all good", "1234567", "terror", "stderr",
    "EXPECTED   value", "exit code 0", "--fail-fast enabled", "on_error_resume",
])
def test_not_salient_lines(line):
    assert not SALIENT.search(line), line


def test_the_fast_prefilter_finds_exactly_what_the_pattern_finds():
    words = ["error:", "Error", "ERROR", "fatal", "0 errors", "-Werror", "Traceback", "KeyError:", "FAILED",
             "denied", "not found", "E   x", "warning:", "npm ERR!", "✗", "exit code 3", "fine", "ok", "x",
             "panicked", "Cannot", "ÉCHEC", "İstanbul error"]
    rng = random.Random(3)
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 3))) for _ in range(3000)]
    lines += ["E   starts a line", "İİİ error"]
    scanner = SalientScanner(limit=10_000)
    text = "\n".join(lines) + "\n"
    for i in range(0, len(text), 777):
        scanner.feed(text[i : i + 777])
    scanner.feed("", final=True)
    expected = [(n, line) for n, line in enumerate(lines, 1) if SALIENT.search(line)]
    assert scanner.first == expected


def test_salient_lines_are_bounded(store):
    result, _ = capture(["error: again\n"] * 100_000, budget=4096, store=store)
    assert len(result.salient) == 100
    assert len(result.text.encode()) <= 4096


def test_a_custom_pattern_replaces_the_default():
    cap = StreamCapture("stderr", max_inline_bytes=100, store=None, salient=re.compile("^needle"))
    for i in range(1000):
        cap.write("needle here\n" if i == 500 else f"error {i}\n")
    result = cap.close()
    assert result.salient == ((501, "needle here"),)
    assert "[line 501] needle here" in result.text or len(result.text.encode()) <= 100


@pytest.mark.slow
def test_sixty_four_mebibytes_reach_the_artifact_whole(store):
    # its speed is measured by `bench/run.py throughput` (the pipeline row), never asserted here
    text = "".join(f"{i}\n" for i in range(1, 9_000_000))[: 64 << 20]
    chunks = [text[i : i + 65536] for i in range(0, len(text), 65536)]
    result, _ = capture(chunks, budget=16384, store=store)
    assert result.artifact is not None
    assert result.artifact.bytes == 64 << 20


def test_a_spilled_capture_finds_the_salient_lines_a_plain_scan_finds(store):
    # past the inline budget only chunks are scanned (and past 8 MiB only the core literals): the same lines
    lines = [f"{i} {'error: boom' if i % 89 == 0 else 'Traceback' if i % 1301 == 0 else 'fine'}" for i in range(60000)]
    text = "\n".join(lines) + "\n"
    result, _ = capture([text[i : i + 70001] for i in range(0, len(text), 70001)], budget=3000, store=store)
    expected = [(n, line) for n, line in enumerate(lines, 1) if SALIENT.search(line)]
    assert len(expected) > 100
    assert result.salient == tuple(expected[:100])
