"""curl's Retry-After and status on captured runs (fixtures/curl) and a local server: an HTTP-date wait
counted from the response's Date, or from the run's start when there is none; no fix that points at a
retry_after the run did not show, a summary that names the status, and the progress meter left out of the
inline text."""

from __future__ import annotations

import email.utils
import http.server
import shutil
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import ROOT, aw

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


class _DateOnlyInRetryAfter(http.server.BaseHTTPRequestHandler):
    """Answers 429 or 503 with `Retry-After: <HTTP-date two minutes on>` and no Date header (http.server adds
    Date and Server in send_response: send_response_only adds neither)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        code = int(self.path.strip("/"))
        self.send_response_only(code)
        self.send_header("Retry-After", email.utils.formatdate(time.time() + 120, usegmt=True))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def dateless_server() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _DateOnlyInRetryAfter)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("status", [429, 503])
def test_an_http_date_retry_after_with_no_date_counts_from_the_runs_start(dateless_server, status):
    """No Date header to count from: the wait runs from when the program started (a little longer than
    from when the server answered, never shorter)."""
    r = aw("curl", "-sS", "-i", "--fail-with-body", f"{dateless_server}/{status}")
    assert "date" not in r.env["data"]["headers"] and "retry-after" in r.env["data"]["headers"]
    wait = r.error["retry_after"]
    assert wait is not None and 118 <= wait <= 125, wait
    assert "Wait retry_after" in r.error["suggested_fix"]


def test_an_http_date_with_no_date_counts_from_the_given_start():
    until = "Wed, 21 Oct 2026 07:28:00 GMT"
    start = email.utils.parsedate_to_datetime("Wed, 21 Oct 2026 07:26:00 GMT").timestamp()
    assert cp.retry_after({"retry-after": until}, started_epoch=start) == 120.0
    assert cp.retry_after({"retry-after": until, "date": "Wed, 21 Oct 2026 07:27:00 GMT"},
                          started_epoch=start) == 60.0  # the server's own clock wins when it sent one


def test_the_obsolete_http_date_forms_are_gmt_too():
    """asctime carries no zone (RFC 9110 5.6.7): read as GMT, not as a naive time that cannot be subtracted
    from the Date (the adapter raised, and the run fell back to the generic reading)."""
    sent = {"date": "Wed, 21 Oct 2026 07:26:30 GMT"}
    assert cp.retry_after({"retry-after": "Wed Oct 21 07:28:00 2026", **sent}) == 90.0
    assert cp.retry_after({"retry-after": "Wednesday, 21-Oct-26 07:28:00 GMT", **sent}) == 90.0
