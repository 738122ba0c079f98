"""The redactor's one-pass trigger scan picks exactly the lines the eight detectors would (issue 12)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentwrap import redact, secret_scan

# Labels, tokens, look-alikes and the characters around them, on few or many lines.
pieces = st.sampled_from([
    "token", "TOKEN=", "api_key: ", "key", "cookie: a=b", "sk-", "sk_live_", "rk_", "pass", "password ",
    "pwd=", "_pat", "npm_", "pypi-", "secret", "cred", "whsec_", "Authorization: Bearer ", "bearer ", "gh",
    "ghp_", "glpat-", "xoxb-", "xapp-", "AKIA", "ASIA", "AIza", "eyJ", "https://u:p@", "://", "@", " -p",
    " -u a:b", "-----BEGIN RSA PRIVATE KEY-----", "abcdefghij0123456789", "=", ":", " ", "\t", "\n", "\n",
    "é", "日本", "x", "Q", "'", '"', "--token ", "slack.com", "GR1348941",
])  # fmt: skip
text = st.lists(pieces, max_size=60).map("".join)


def full_scan(text: str, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    with monkeypatch.context() as m:
        m.setattr(secret_scan, "trigger_lines", lambda low: None)  # the detectors over the whole text
        return secret_scan.candidate_lines(text)


@settings(max_examples=1500, deadline=None)
@given(text)
def test_trigger_lines_flag_what_a_full_scan_flags(text: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        assert secret_scan.candidate_lines(text) == full_scan(text, mp)


def test_text_without_a_trigger_has_no_candidate_line() -> None:
    assert secret_scan.candidate_lines("the quick brown fox jumps over the lazy dog\n" * 5000) == []


def test_a_secret_among_many_lines_is_still_found() -> None:
    text = "the quick brown fox\n" * 3000 + "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ0123\n" + "ok\n" * 10
    assert "ghp_0123456789" not in redact.Redactor().redact(text)
    lines = secret_scan.candidate_lines(text)
    assert len(lines) == 1 and text[lines[0][0]:lines[0][1]].startswith("export GITHUB_TOKEN=")


def test_too_many_triggers_fall_back_to_the_full_scan() -> None:
    text = "key=value @ gh\n" * (secret_scan.MAX_TRIGGER_HITS + 10)
    assert secret_scan.trigger_lines(text.lower().encode()) is None
    assert len(secret_scan.candidate_lines(text)) == text.count("\n")


def test_a_stream_dense_with_literals_skips_the_prefilter_for_a_while_and_redacts_the_same() -> None:
    dense = "tests/test_x.py::test_one PASSED [ 10%]\n" * (secret_scan.MAX_TRIGGER_HITS + 1)
    secret = "export API_TOKEN=s3cr3tvalue0123456789\n"
    redactor = redact.Redactor()
    redactor.redact(dense)
    assert redactor._dense_left == secret_scan.DENSE_SKIP
    assert "s3cr3t" not in redactor.redact(secret)
    assert redactor._dense_left == secret_scan.DENSE_SKIP - 1
    assert redact.Redactor().redact(secret) == redactor.redact(secret)
