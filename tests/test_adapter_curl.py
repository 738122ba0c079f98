"""curl through agentwrap against a local HTTP server (127.0.0.1, a free port): HTTP statuses under --fail,
Retry-After, refused connections, the password prompt, and effects read from -X/-d/-o."""

from __future__ import annotations

import collections
import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator

import pytest
from conftest import aw

from agentwrap import registry
from agentwrap.adapters import _curl_parse as cp

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    requests: collections.Counter[str] = collections.Counter()  # path -> how many times it was asked for

    def _answer(self) -> None:
        self.requests[self.path] += 1
        code = int(self.path.split("/")[2]) if self.path.startswith("/status/") else 200
        body = json.dumps({"status": code, "method": self.command}).encode()
        self.send_response(code)
        if code == 429:
            self.send_header("Retry-After", "30")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = do_PATCH = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_429_with_retry_after_is_a_rate_limit_problem(server):
    """The issue's Done-when: `agentwrap --agent curl -sS -i --fail-with-body URL` -> rate_limit, retry_after 30."""
    r = aw("curl", "-sS", "-i", "--fail-with-body", f"{server}/status/429")
    assert r.code == 22
    err = r.error
    assert err["code"] == "CURL_HTTP_RATE_LIMITED"
    assert err["category"] == "rate_limit" and err["status"] == 429
    assert err["retry_after"] == 30
    assert err["retryable"] is True and err["safe_to_retry"] is True
    assert r.env["data"]["http_status"] == 429
    assert r.env["data"]["headers"]["retry-after"] == "30"
    assert [p["code"] for p in r.env["problems"]] == ["CURL_HTTP_RATE_LIMITED"]  # status line + (22) line: one


def test_404_is_not_found_with_the_body_kept(server):
    r = aw("curl", "-sS", "-i", "--fail-with-body", f"{server}/status/404")
    assert r.error["code"] == "CURL_HTTP_NOT_FOUND"
    assert r.error["category"] == "not_found" and r.error["retryable"] is False
    assert '"status": 404' in r.text()


def test_500_is_a_retryable_dependency_failure_but_a_post_is_not_safe_to_repeat(server):
    get = aw("curl", "-sS", "--fail", f"{server}/status/500")
    assert get.error["code"] == "CURL_HTTP_SERVER_ERROR"
    assert get.error["category"] == "dependency" and get.error["status"] == 502
    assert get.error["retryable"] is True and get.error["safe_to_retry"] is True
    post = aw("curl", "-sS", "--fail", "-d", "x=1", f"{server}/status/500")
    assert post.error["code"] == "CURL_HTTP_SERVER_ERROR"
    assert post.error["retryable"] is True and post.error["safe_to_retry"] is False


@pytest.mark.parametrize("request_args", [
    ["-d", "x=1"], ["-X", "POST"], ["-F", "f=v"], ["--json", "{}"], ["-X", "PATCH", "-d", "x=1"],
])
def test_a_failed_non_idempotent_request_is_never_offered_as_a_resend(server, request_args):
    """`curl --retry 3` re-sends a POST after a 5xx (curl 7.88 does): an action that repeats the request,
    or advice to retry it, could charge or order twice; the fix says it may have been applied and how to
    check."""
    for fail in (["-sS", "--fail"], ["-s", "--fail"]):  # a status line, or curl silent (CURL_HTTP_ERROR)
        r = aw("curl", *fail, *request_args, f"{server}/status/503")
        assert r.error["code"] in ("CURL_HTTP_SERVER_ERROR", "CURL_HTTP_ERROR")
        assert r.error["safe_to_retry"] is False
        assert r.error["code_actions"] == []
        assert "may have applied" in r.error["suggested_fix"] and "check whether it took effect" in (
            r.error["suggested_fix"])


def test_a_failed_get_keeps_its_retry_action(server):
    r = aw("curl", "-sS", "--fail", f"{server}/status/503")
    assert r.error["safe_to_retry"] is True
    assert r.error["code_actions"][0]["command"][:3] == ["curl", "--retry", "3"]


@pytest.mark.parametrize(("status", "code", "retryable"), [
    (501, "CURL_HTTP_NOT_SUPPORTED", False), (505, "CURL_HTTP_NOT_SUPPORTED", False),
    (507, "CURL_HTTP_INSUFFICIENT_STORAGE", True), (508, "CURL_HTTP_SERVER_ERROR", True),
])
def test_a_5xx_curl_does_not_retry_is_offered_no_curl_retry(server, status, code, retryable):
    """curl's --retry retries 408, 429, 500, 502, 503 and 504 only: after any other 5xx `curl --retry 3` sends
    the request once, as without it. A 501 or 505 answers the same request the same way (not retryable); a 507
    may succeed once the server has room again (retryable, after that)."""
    url = f"{server}/status/{status}"
    before = _Handler.requests[f"/status/{status}"]
    subprocess.run(["curl", "-s", "-o", os.devnull, "--fail", "--retry", "1", "--retry-delay", "1", url],
                   timeout=30, check=False)
    assert _Handler.requests[f"/status/{status}"] == before + 1  # curl itself did not retry it
    for fail in (["-sS", "-i", "--fail"], ["-sS", "--fail"]):  # the status line, or curl's (22) line only
        r = aw("curl", *fail, url)
        assert r.error["code"] == code and r.error["retryable"] is retryable
        assert not any("--retry" in action["command"] for action in r.error["code_actions"])
        assert "`--retry 3` retries" not in r.error["suggested_fix"]


def test_silent_curl_is_still_explained_by_its_exit_code(server):
    r = aw("curl", "-s", "--fail", f"{server}/status/503")
    assert r.code == 22
    assert r.error["code"] == "CURL_HTTP_ERROR"
    assert r.error["code_actions"][0]["command"][:3] == ["curl", "-S", "-i"]


def test_refused_connection_is_a_retryable_network_problem():
    r = aw("curl", "-sS", f"http://127.0.0.1:{_closed_port()}/")
    assert r.code == 7
    assert r.error["code"] == "CURL_CONNECTION_FAILED"
    assert r.error["category"] == "network"
    assert r.error["retryable"] is True and r.error["safe_to_retry"] is True


def test_success_reports_the_response_head(server):
    r = aw("curl", "-sS", "-i", f"{server}/status/200")
    assert r.code == 0
    assert r.env["data"]["http_status"] == 200
    assert r.env["data"]["headers"]["content-type"] == "application/json"
    assert r.env["summary"] == "HTTP 200 OK (application/json)"


def test_password_prompt_names_netrc_and_user_password(server):
    r = aw("--timeout", "20", "curl", "-sS", "-u", "bob", f"{server}/status/200")
    assert r.code == 125
    assert r.error["code"] == "INPUT_REQUIRED" and r.error["input_kind"] == "password"
    first = r.error["code_actions"][0]
    assert first["command"][:3] == ["curl", "--netrc-file", "<NETRC_FILE>"] and "-u" not in first["command"]
    assert r.error["code_actions"][1]["command"][1:3] == ["-u", "bob:<PASSWORD>"]


@pytest.mark.parametrize(("argv", "method", "read_only", "destructive", "idempotent"), [
    (["curl", "-sS", "https://x/"], "GET", True, False, True),
    (["curl", "-I", "https://x/"], "HEAD", True, False, True),
    (["curl", "-o", "out.json", "https://x/"], "GET", False, False, True),
    (["curl", "-H", "X-Method: DELETE", "https://x/"], "GET", True, False, True),
    (["curl", "-d", "a=1", "https://x/"], "POST", False, False, False),
    (["curl", "-G", "-d", "q=1", "https://x/"], "GET", True, False, True),
    (["curl", "-XDELETE", "https://x/1"], "DELETE", False, True, True),
    (["curl", "-sSX", "PUT", "--json", "{}", "https://x/1"], "PUT", False, True, True),
    (["curl", "-T", "f.txt", "https://x/f.txt"], "PUT", False, True, True),
    (["curl", "--request=PATCH", "https://x/1"], "PATCH", False, False, False),
])
def test_effects_follow_the_method_and_local_writes(argv, method, read_only, destructive, idempotent):
    assert cp.invocation(argv).method == method
    effects = registry.builtin("curl").effects(argv)
    assert (effects.read_only, effects.destructive, effects.idempotent, effects.open_world) == (
        read_only, destructive, idempotent, True)


def test_verbose_response_heads_are_parsed_from_stderr():
    stderr = ("* Connected\n> GET / HTTP/1.1\n> Host: x\n>\n< HTTP/1.1 301 Moved\n< Location: /b\n<\n"
              "< HTTP/2 200 \n< content-type: text/plain\n< set-cookie: sid=abc\n<\n")
    data = cp.response("body", stderr)
    assert data is not None
    assert data["http_status"] == 200 and data["http_version"] == "2"
    assert data["previous_statuses"] == [301]
    assert data["headers"] == {"content-type": "text/plain", "set-cookie": "[REDACTED]"}
