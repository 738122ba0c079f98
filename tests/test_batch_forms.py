"""The forms of a batch the redactor, capture and salient scanner share are the ones each made itself
(issue 12: one lower-casing, one newline count, one encoding per batch), and sharing them changes nothing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agentwrap.artifacts import ArtifactStore
from agentwrap.batch import Batch
from agentwrap.capture import StreamCapture
from agentwrap.redact import Redactor
from agentwrap.salient import SalientScanner

# Secrets, salient words, case, non-ASCII and a lone surrogate, on few or many lines.
pieces = st.sampled_from([
    "export API_TOKEN=s3cr3tvalue0123456789", "ghp_0123456789abcdefghijABCDEFGHIJ0123", "password: hunter2hunter2",
    "Error", "error: expected ';'", "FAILED", "ValueError", "warning:", "E   ", "Traceback", "ok", "x", " ",
    "\n", "\n", "\t", "é", "İ", "ẞ", "✗", "\ud800", "KEY", "=", ":", "https://u:p@host",
])  # fmt: skip
text = st.lists(pieces, max_size=60).map("".join)
batches = st.lists(text, max_size=6)


@settings(max_examples=500, deadline=None)
@given(text)
def test_a_batch_forms_what_each_stage_made_itself(text: str) -> None:
    batch = Batch(text)
    assert batch.newlines() == text.count("\n")
    assert batch.ascii_lower() == (text.lower().encode("ascii") if text.isascii() else None)
    if "\ud800" in text:  # each stage has its own rule for a lone surrogate: none is shared
        assert batch.utf8() is None
    else:
        assert batch.utf8() == text.encode("utf-8", "replace") == text.encode("utf-8", "surrogatepass")


@settings(max_examples=300, deadline=None)
@given(batches)
def test_the_redactor_redacts_the_same_with_a_batch(texts: list[str]) -> None:
    alone, shared = Redactor(["s3cr3tvalue"]), Redactor(["s3cr3tvalue"])
    for text in texts:
        assert shared.redact(text, Batch(text)) == alone.redact(text)
    assert shared.count == alone.count


def test_text_without_a_secret_comes_back_as_the_same_object() -> None:
    text = "the quick brown fox jumps over the lazy dog\n" * 1000
    assert Redactor().redact(text, Batch(text)) is text


@settings(max_examples=300, deadline=None)
@given(batches, st.booleans())
def test_the_salient_scanner_finds_the_same_lines_with_a_batch(texts: list[str], final: bool) -> None:
    alone, shared = SalientScanner(limit=5), SalientScanner(limit=5)
    shared.after_line = alone.after_line = 2
    for text in texts:
        alone.feed(text)
        shared.feed(text, batch=Batch(text))
    alone.feed("", final=final)
    shared.feed("", final=final)
    assert (shared.first, shared.middle) == (alone.first, alone.middle)


def test_a_batch_of_other_text_is_not_used() -> None:
    scanner = SalientScanner()
    scanner.feed("ok\nerror: one\n", batch=Batch("ok\nok\n"))
    assert scanner.first == [(2, "error: one")]


@settings(max_examples=100, deadline=None)
@given(batches)
def test_a_capture_is_the_same_with_batches(tmp_path_factory, texts: list[str]) -> None:
    root = Path(tmp_path_factory.mktemp("batch"))
    results = []
    for name, share in (("alone", False), ("shared", True)):
        capture = StreamCapture(name, max_inline_bytes=64, store=ArtifactStore(root / name))
        for text in texts:
            capture.write(text, Batch(text) if share else None)
        result = capture.close()
        stored = Path(result.artifact.path).read_bytes() if result.artifact else None
        results.append((result._replace(artifact=None), stored))
    assert results[0] == results[1]
