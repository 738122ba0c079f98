"""`agentwrap.percent.quoted` spells what `urllib.parse.quote` spells (the run path does without urllib)."""

from __future__ import annotations

from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from agentwrap.percent import quoted


@given(st.text(), st.sampled_from(["", "/", "/:@"]))
def test_a_text_is_quoted_as_urllib_quotes_it(text: str, safe: str) -> None:
    try:
        expected = quote(text, safe=safe)
    except UnicodeEncodeError:  # a lone surrogate: urllib refuses, we write the byte it stands for
        expected = quote(text.encode("utf-8", "surrogateescape"), safe=safe)
    assert quoted(text, safe=safe) == expected


@given(st.binary())
def test_bytes_are_quoted_as_urllib_quotes_them(data: bytes) -> None:
    assert quoted(data) == quote(data)
