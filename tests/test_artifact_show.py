"""`agentwrap artifact show`: bounded pages that reassemble the file exactly, line ranges, grep, and
cursors that cannot be forged into something else."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentwrap.artifacts import ArtifactNotFound, ArtifactStore
from agentwrap.commands import CommandContext
from agentwrap.commands import artifact as cmd
from agentwrap.errors import AgentwrapError, UsageError

CTX = CommandContext(request_id="req_test", format="json", agent=True, max_inline_bytes=4096)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path))


def make(content: bytes | str) -> str:
    data = content.encode() if isinstance(content, str) else content
    with ArtifactStore().create(media_type="text/plain; charset=utf-8") as writer:
        writer.write(data)
    return writer.id


def show(*args: str) -> dict[str, Any]:
    outcome = cmd.main(["show", *args], CTX)
    assert outcome.exit_code == 0
    assert outcome.envelope["status"] == "success"
    assert outcome.envelope["summary"]
    assert "\n" not in outcome.envelope["summary"]
    data: dict[str, Any] = outcome.envelope["data"]
    return data


def walk(first: list[str]) -> list[dict[str, Any]]:
    pages = [show(*first)]
    while pages[-1]["next_cursor"] is not None:
        assert pages[-1]["eof"] is False
        pages.append(show("--cursor", pages[-1]["next_cursor"]))
        assert len(pages) < 10_000
    return pages


MIXED = "".join(f"{i}: héllo wörld 中文字符 😀 {'x' * (i % 7)}\n" for i in range(60))


@pytest.mark.parametrize("limit", [4, 5, 6, 7, 13, 1000, 16384])
def test_paging_by_bytes_reassembles_the_file_exactly(limit):
    art = make(MIXED)
    pages = walk([art, "--limit", str(limit)])
    assert pages[-1]["eof"] is True
    assert "".join(p["text"] for p in pages) == MIXED
    offset = 0
    for page in pages:
        assert page["offset"] == offset
        assert page["id"] == art
        assert page["total_bytes"] == len(MIXED.encode())
        assert 0 < page["returned_bytes"] <= limit or page["eof"]
        assert len(page["text"].encode()) == page["returned_bytes"]  # no character was cut in two
        assert "\ufffd" not in page["text"]
        offset += page["returned_bytes"]
    assert offset == len(MIXED.encode())


def test_the_default_page_is_16_kib_and_the_limit_is_bounded():
    art = make("a" * 100_000)
    page = show(art)
    assert page["returned_bytes"] == 16384
    assert page["eof"] is False
    assert page["next_cursor"]
    assert show(art, "--limit", str(1 << 20))["returned_bytes"] == 100_000
    for bad in ("3", "0", "-1", str((1 << 20) + 1), "lots"):
        with pytest.raises(UsageError, match="--limit"):
            cmd.main(["show", art, "--limit", bad], CTX)


def test_an_empty_artifact_is_one_empty_page():
    page = show(make(b""))
    assert (page["text"], page["returned_bytes"], page["eof"], page["next_cursor"]) == ("", 0, True, None)


def test_an_offset_inside_a_character_starts_at_the_next_one():
    art = make("a😀b")  # the emoji is bytes 1-4
    page = show(art, "--offset", "2")
    assert page["offset"] == 5
    assert page["text"] == "b"
    assert show(art, "--offset", "1")["text"] == "😀b"
    assert show(art, "--offset", "6")["text"] == ""
    with pytest.raises(UsageError, match="past the end"):
        cmd.main(["show", art, "--offset", "7"], CTX)
    with pytest.raises(UsageError, match="--offset"):
        cmd.main(["show", art, "--offset", "-3"], CTX)


LINES = "".join(f"line {i}\n" for i in range(1, 101))


@pytest.mark.parametrize(("spec", "first", "last"), [
    ("3:5", 3, 5), (":2", 1, 2), ("4", 4, 4), ("98:", 98, 100), ("1:100", 1, 100), ("99:500", 99, 100),
])
def test_line_ranges(spec, first, last):
    page = show(make(LINES), "--lines", spec)
    assert page["text"] == "".join(f"line {i}\n" for i in range(first, last + 1))
    # eof is the file's end, not the range's: no cursor either way, since the range is all there
    assert (page["first_line"], page["last_line"], page["eof"]) == (first, last, last == 100)
    assert page["next_cursor"] is None
    assert page["offset"] == len("".join(f"line {i}\n" for i in range(1, first)))


def test_a_range_past_the_end_is_empty():
    page = show(make(LINES), "--lines", "200:300")
    assert page["text"] == ""
    assert page["eof"] is True
    assert page["first_line"] is None


def test_a_last_line_without_newline():
    page = show(make("a\nb\nc"), "--lines", "2:")
    assert page["text"] == "b\nc"
    assert page["last_line"] == 3


@pytest.mark.parametrize("spec", ["", ":", "a:b", "0:3", "5:3", "1:2:3", "-1", "3:x"])
def test_bad_line_ranges_are_usage_errors(spec):
    with pytest.raises(UsageError, match="--lines"):
        cmd.main(["show", make(LINES), "--lines", spec], CTX)


def test_line_pages_end_on_line_boundaries_and_resume_exactly():
    art = make(LINES)
    pages = walk([art, "--lines", "10:90", "--limit", "50"])
    assert "".join(p["text"] for p in pages) == "".join(f"line {i}\n" for i in range(10, 91))
    assert all(p["text"].endswith("\n") for p in pages)
    assert all(len(p["text"].encode()) <= 50 for p in pages)
    assert [p["first_line"] for p in pages[1:]] == [p["last_line"] + 1 for p in pages[:-1]]


def test_an_overlong_line_is_split_between_pages_at_character_boundaries():
    content = "short\n" + "é" * 5000 + "\nend\n"
    pages = walk([make(content), "--lines", "2:2", "--limit", "101"])
    assert "".join(p["text"] for p in pages) == "é" * 5000 + "\n"
    assert all("\ufffd" not in p["text"] for p in pages)


def test_grep_returns_numbered_matching_lines():
    art = make(LINES + "the end\n")
    page = show(art, "--grep", r"^line (7|77)$|end")
    assert page["matches"] == [{"line": 7, "text": "line 7"}, {"line": 77, "text": "line 77"},
                               {"line": 101, "text": "the end"}]
    assert page["eof"] is True
    assert page["next_cursor"] is None
    assert "text" not in page


def test_grep_within_a_line_range():
    page = show(make(LINES), "--grep", "5", "--lines", "40:60")
    assert [m["line"] for m in page["matches"]] == [45, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59]


def test_grep_pages_are_bounded_and_the_cursor_finds_every_match():
    content = "".join(f"{'hit' if i % 3 == 0 else 'miss'} {i}\n" for i in range(1, 3001))
    pages = walk([make(content), "--grep", "^hit", "--limit", "64"])
    found = [m["line"] for p in pages for m in p["matches"]]
    assert found == list(range(3, 3001, 3))
    assert all(sum(len(m["text"].encode()) for m in p["matches"]) <= 64 for p in pages)
    big = walk([make(content), "--grep", "^hit"])
    assert len(big[0]["matches"]) == cmd.MAX_MATCHES
    assert [m["line"] for p in big for m in p["matches"]] == found


def test_grep_clips_long_lines_and_handles_one_larger_than_a_block():
    content = "a\n" + "é" * 3_000_000 + " needle\nb needle\n"
    page = show(make(content), "--grep", "needle|é")
    assert [m["line"] for m in page["matches"]] == [2, 3]
    assert page["matches"][0]["truncated"] is True
    assert len(page["matches"][0]["text"].encode()) <= cmd.MATCH_TEXT_BYTES
    assert page["matches"][1] == {"line": 3, "text": "b needle"}


def test_grep_sees_invalid_utf8_as_replacement_characters():
    page = show(make(b"ok\nbad \xff\xfe here\n"), "--grep", "here")
    assert page["matches"] == [{"line": 2, "text": "bad \ufffd\ufffd here"}]


def test_a_bad_regex_is_a_usage_error():
    with pytest.raises(UsageError, match="not a valid regular expression"):
        cmd.main(["show", make(LINES), "--grep", "("], CTX)


def _forge(**fields: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")


def test_cursors_are_validated():
    art, other = make(LINES), make(LINES)
    good = show(art, "--limit", "10")["next_cursor"]
    assert show("--cursor", good)["offset"] == 10  # the id may be left out
    assert show(art, "--cursor", good)["offset"] == 10
    with pytest.raises(UsageError, match="belongs to artifact"):
        cmd.main(["show", other, "--cursor", good], CTX)
    forged = [
        _forge(v=1, id=art, m="bytes", o=-1, n=1, l=10),  # negative offset
        _forge(v=2, id=art, m="bytes", o=0, n=1, l=10),  # unknown version
        _forge(v=1, id="../x", m="bytes", o=0, n=1, l=10),  # not an id
        _forge(v=1, id=art, m="grep", o=0, n=1, l=10),  # grep without a pattern
        _forge(v=1, id=art, m="bytes", o=0, n=1, l=10**9),  # page beyond the hard limit
        _forge(v=1, id=art, m="bytes", o="0", n=1, l=10),  # wrong type
        base64.b64encode(b"[1,2]").decode(),
    ]
    for bad in ("", "!!!", "abc", good[:-5], *forged):
        with pytest.raises(UsageError, match="cursor"):
            cmd.main(["show", "--cursor", bad], CTX)
    with pytest.raises(UsageError, match="past the end"):
        cmd.main(["show", "--cursor", _forge(v=1, id=art, m="bytes", o=10 ** 6, n=1, l=10)], CTX)
    with pytest.raises(UsageError, match="do not combine"):
        cmd.main(["show", "--cursor", good, "--offset", "3"], CTX)


def test_a_cursor_carries_the_page_size_unless_overridden():
    art = make(LINES)
    cursor = show(art, "--limit", "10")["next_cursor"]
    assert show("--cursor", cursor)["returned_bytes"] == 10
    assert show("--cursor", cursor, "--limit", "20")["returned_bytes"] == 20


@pytest.mark.parametrize("bad", ["../../etc/passwd", "art_" + "0" * 26, "nonsense"])
def test_unknown_or_malformed_ids_are_artifact_not_found(bad):
    with pytest.raises(ArtifactNotFound) as info:
        cmd.main(["show", bad], CTX)
    assert (info.value.to_problem().code, info.value.to_problem().status) == ("ARTIFACT_NOT_FOUND", 404)


@pytest.mark.parametrize("argv", [
    [], ["list"], ["show"], ["show", "x", "--bogus"], ["show", "--offset", "x", "y"],
    ["show", "x", "--offset", "3", "--lines", "1:2"],
])
def test_argument_errors_are_usage_problems_not_exits(argv):
    with pytest.raises(AgentwrapError) as info:
        cmd.main(argv, CTX)
    assert info.value.to_problem().code == "USAGE"


def test_the_envelope_lists_the_artifact():
    art = make(LINES)
    env = cmd.main(["show", art, "--lines", "1:2"], CTX).envelope
    assert env["artifacts"][0]["id"] == art
    assert re.fullmatch(r"[0-9a-f]{64}", env["artifacts"][0]["sha256"])
    assert env["error"] is None
    assert env["request_id"] == "req_test"


def test_the_concise_page_is_the_page_and_where_to_go_on(tmp_path):
    """`agentwrap --agent artifact show` is an agent's follow-up to every cut output: it gets the lines it
    asked for and the cursor, not the artifact's file record, sizes and mode again (the summary names the
    artifact and how much); the standard envelope keeps all of it."""
    from conftest import aw

    run = aw("--cwd", str(tmp_path), "--", "seq", "1", "20000").env
    art = run["output"]["stdout"]["artifact"]
    page = aw("artifact", "show", art, "--lines", "443:445", detail="concise").env
    assert page["data"] == {"text": "443\n444\n445\n", "first_line": 443, "last_line": 445}
    assert "artifacts" not in page and art in page["summary"]
    found = aw("artifact", "show", art, "--grep", "^1999[0-2]$", detail="concise").env
    assert found["data"] == {"matches": [{"line": n, "text": str(n)} for n in (19990, 19991, 19992)]}
    first = aw("artifact", "show", art, "--limit", "20", detail="concise").env["data"]
    assert set(first) == {"text", "next_cursor"}
    rest = aw("artifact", "show", "--cursor", first["next_cursor"], "--limit", "20", detail="concise").env["data"]
    assert first["text"] + rest["text"] == "".join(f"{n}\n" for n in range(1, 20001))[:40]
    whole = aw("artifact", "show", art, "--lines", "443:445").env  # standard: the complete record
    assert whole["data"]["id"] == art and whole["artifacts"][0]["sha256"]
