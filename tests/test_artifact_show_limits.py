"""`agentwrap artifact show` at its limits: lines longer than a search window, ranges that end before
the file does, and content that is no longer what was stored (each answer must stay true)."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from agentwrap.artifacts import ArtifactDamaged, ArtifactNotFound, ArtifactStore
from agentwrap.commands import CommandContext
from agentwrap.commands import _artifact_scan as scan
from agentwrap.commands import artifact as cmd

CTX = CommandContext(request_id="req_test", format="json", agent=True, max_inline_bytes=4096)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path))


def make(data: bytes) -> str:
    with ArtifactStore().create(media_type="text/plain; charset=utf-8") as writer:
        writer.write(data)
    return writer.id


def show(*args: str) -> tuple[dict[str, Any], str]:
    envelope = cmd.main(["show", *args], CTX).envelope
    assert envelope["status"] == "success"
    return envelope["data"], envelope["summary"]


def content_path(art: str) -> Path:
    return Path(ArtifactStore().get(art).path)


def test_grep_searches_a_long_line_to_its_end_and_shows_the_match():
    data = b"x" * 4_000_000 + b" ERROR: end\nshort ERROR line\n"
    page, summary = show(make(data), "--grep", "ERROR")
    assert [m["line"] for m in page["matches"]] == [1, 2]  # grep -c says 2
    first = page["matches"][0]
    assert "ERROR: end" in first["text"] and first["truncated"] is True
    assert data[first["offset"] : first["offset"] + len(first["text"])] == first["text"].encode()
    assert page["eof"] is True
    assert page["windowed_lines"] == 1
    assert "searched in overlapping windows" in summary


def test_a_clipped_match_shows_a_window_around_the_match_with_its_offset():
    data = b"x" * 70_000 + b" ERROR: end\n"
    match = show(make(data), "--grep", "ERROR")[0]["matches"][0]
    assert "ERROR: end" in match["text"]
    assert len(match["text"].encode()) <= cmd.MATCH_TEXT_BYTES
    assert data[match["offset"] : match["offset"] + len(match["text"])] == match["text"].encode()
    assert show(make(b"short ERROR\n"), "--grep", "ERROR")[0]["matches"] == [{"line": 1, "text": "short ERROR"}]


@pytest.mark.parametrize("at", [
    scan.LINE_CAP - scan.OVERLAP - 3, scan.LINE_CAP - scan.OVERLAP, scan.LINE_CAP - 4, scan.LINE_CAP,
    2 * scan.LINE_CAP - scan.OVERLAP - 2, 3 * scan.LINE_CAP + 17,
])
def test_a_match_is_found_wherever_it_falls_against_the_windows(at):
    line = bytearray(b"a" * (3 * scan.LINE_CAP + 100))
    line[at : at + 6] = b"NEEDLE"
    page = show(make(bytes(line) + b"\nNEEDLE two\n"), "--grep", "NEEDLE")[0]
    assert [m["line"] for m in page["matches"]] == [1, 2]
    assert page["matches"][0]["offset"] <= at < page["matches"][0]["offset"] + len(page["matches"][0]["text"])


def test_anchors_keep_their_meaning_in_a_windowed_line():
    art = make(b"b" + b"a" * (3 * scan.LINE_CAP) + b"z\n")
    assert [m["line"] for m in show(art, "--grep", "^b")[0]["matches"]] == [1]
    assert show(art, "--grep", "^a")[0]["matches"] == []
    assert [m["line"] for m in show(art, "--grep", "z$")[0]["matches"]] == [1]
    assert show(art, "--grep", "a$")[0]["matches"] == []


def test_grep_pages_resume_across_long_lines():
    content = b"".join(b"hit " + b"x" * (scan.LINE_CAP + 5) + b"\n" if i % 2 else b"hit short\n" for i in range(6))
    pages = [show(make(content), "--grep", "^hit", "--limit", str(cmd.MATCH_TEXT_BYTES))[0]]
    while pages[-1]["next_cursor"]:
        pages.append(show("--cursor", pages[-1]["next_cursor"])[0])
        assert len(pages) < 20
    assert [m["line"] for p in pages for m in p["matches"]] == [1, 2, 3, 4, 5, 6]
    assert pages[-1]["eof"] is True


def test_grep_of_a_long_line_keeps_memory_bounded():
    art = make(b"y" * (16 * scan.LINE_CAP) + b" ERROR\n")
    tracemalloc.start()
    try:
        page = show(art, "--grep", "ERROR")[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(page["matches"]) == 1
    assert peak < 8 * scan.LINE_CAP  # a few windows' worth, never the 16 MiB line (~6 MiB at any length)


ROWS = b"".join(b"row %d of a file\n" % i for i in range(1, 38))


def test_a_line_range_that_ends_before_the_file_is_not_its_end():
    art = make(ROWS)
    page, summary = show(art, "--lines", "1:3")
    assert (page["last_line"], page["eof"], page["next_cursor"]) == (3, False, None)
    assert "not of the file" in summary
    tail = show(art, "--lines", "35:")[0]
    assert (tail["last_line"], tail["eof"], tail["next_cursor"]) == (37, True, None)
    grep_page = show(art, "--grep", "row", "--lines", "1:3")[0]
    assert (len(grep_page["matches"]), grep_page["eof"], grep_page["next_cursor"]) == (3, False, None)


def test_a_range_paged_by_limit_still_gives_a_cursor():
    page = show(make(ROWS), "--lines", "1:30", "--limit", "200")[0]
    assert (page["eof"], page["next_cursor"] is not None) == (False, True)


@pytest.mark.parametrize("args", [["--offset", "100"], [], ["--lines", "5:"], ["--grep", "row"]])
def test_a_short_content_file_is_damaged_never_an_endless_cursor(args):
    art = make(ROWS * 40)
    os.truncate(content_path(art), 100)  # what a full disk leaves
    with pytest.raises(ArtifactDamaged) as info:
        cmd.main(["show", art, *args], CTX)
    problem = info.value.to_problem()
    assert problem.code == "ARTIFACT_DAMAGED"
    assert f"holds 100 bytes but {len(ROWS) * 40} were stored" in problem.detail


def test_a_cursor_into_a_file_cut_short_since_is_damaged():
    art = make(ROWS * 40)
    cursor = show(art, "--limit", "100")[0]["next_cursor"]
    os.truncate(content_path(art), 100)
    with pytest.raises(ArtifactDamaged):
        cmd.main(["show", "--cursor", cursor], CTX)


def test_content_changed_in_place_is_damaged():
    art = make(ROWS)
    path = content_path(art)
    path.write_bytes(ROWS.replace(b"row 7", b"ROW 7"))
    with pytest.raises(ArtifactDamaged, match="sha256"):
        cmd.main(["show", art, "--grep", "row"], CTX)


def test_an_expired_artifact_says_so(tmp_path):
    art = make(ROWS)
    sidecar = tmp_path / "artifacts" / f"{art}.json"
    meta = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps({**meta, "expires_epoch": 1, "expires_at": "1970-01-01T00:00:01Z"}))
    with pytest.raises(ArtifactNotFound) as info:
        cmd.main(["show", art], CTX)
    problem = info.value.to_problem()
    assert (problem.code, problem.status, problem.category) == ("ARTIFACT_NOT_FOUND", 404, "not_found")
    assert "expired at 1970-01-01T00:00:01Z" in problem.detail
