"""curl's Retry-After and status on captured runs (fixtures/curl): an HTTP-date wait counted from the
response's Date, no fix that points at a retry_after the run did not show, a summary that names the status,
and the progress meter left out of the inline text."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.adapters import _curl_parse as cp
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "curl") if c.name == name)
    record = fixtures.replay_record(registry.builtin("curl"), case)
    return record.standard(), views.concise(record)


def test_an_http_date_retry_after_is_seconds_from_the_responses_date():
    env, view = _replay("get-503-retry-after-date")
    assert env["error"]["retry_after"] == 90.0  # 07:28:00 - Date 07:26:30
    assert "retry_after" in env["error"]["suggested_fix"]
    assert view["summary"] == "curl: HTTP 503 Service Unavailable"


def test_a_429_whose_retry_after_was_not_shown_says_how_to_see_it():
    env, _ = _replay("http-429-retry-after-not-shown")
    error = env["error"]
    assert error.get("retry_after") is None
    assert "Wait retry_after" not in error["suggested_fix"]
    assert "`-i`" in error["suggested_fix"]
    assert error["code_actions"][0]["command"][:3] == ["curl", "--retry", "3"]


def test_the_status_of_a_silent_503_is_in_the_summary():
    env, _ = _replay("get-503-retry-action")
    assert env["summary"].startswith("curl: HTTP 503 ")


def test_the_progress_meter_of_a_download_is_noise_inline_but_kept_whole():
    env, view = _replay("download-progress-meter")
    assert "% Total" in env["output"]["stderr"]["text"]
    assert "output" not in view


def test_an_http_date_with_no_date_to_count_from_is_no_wait():
    assert cp.retry_after({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}) is None
    assert cp.retry_after({"retry-after": "soon", "date": "Wed, 21 Oct 2026 07:26:30 GMT"}) is None
    assert cp.retry_after({"retry-after": "Wed, 21 Oct 2026 07:20:00 GMT",
                           "date": "Wed, 21 Oct 2026 07:26:30 GMT"}) == 0.0  # already passed: retry now
