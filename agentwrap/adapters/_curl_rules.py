"""curl's problem rules (data): one per exit code that agents meet, and one per HTTP status class under --fail.

Rules read curl's own message (`curl: (6) Could not resolve host: x`), which names the exit code, so they
also work on saved logs. HTTP rules read the status from curl's line (`curl: (22) The requested URL returned
error: 429`, shown with -S) or, only when curl exited 22, from the response head (`HTTP/1.1 429 Too Many
Requests`, shown with -i or -v); the fixed `detail` makes both sightings one problem. `EXIT_CODE_RULES`
names the rule for each exit code, for runs where curl printed nothing (`curl -s`).
"""

from __future__ import annotations

from typing import Any

EXIT_DOCS = "https://everything.curl.dev/cmdline/exitcode"
_MDN = "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/"


EXIT_CODE_RULES: dict[int, str] = {22: "CURL_HTTP_ERROR"}


def _exit(code: str, exit_code: int, message: str, title: str, category: str, status: int, retryable: bool,
          safe: bool, fix: str, **more: Any) -> dict[str, Any]:
    EXIT_CODE_RULES.setdefault(exit_code, code)
    return {"code": code, "pattern": rf"^curl: \({exit_code}\) (?P<message>{message}.*)",
            "title": title, "category": category, "status": status, "retryable": retryable, "safe_to_retry": safe,
            "suggested_fix": fix, "docs_url": EXIT_DOCS, **more}


def _http(code: str, statuses: str, title: str, category: str, status: int, retryable: bool, safe: bool,
          fix: str, **more: Any) -> list[dict[str, Any]]:
    rule = {"code": code, "title": title, "category": category, "status": status, "retryable": retryable,
            "safe_to_retry": safe, "detail": "the server answered HTTP {http_status} (curl --fail exit 22)",
            "suggested_fix": fix, "docs_url": _MDN + statuses[:3] if statuses[:3].isdigit() else _MDN.rstrip("/"),
            **more}
    said = rf"^curl: \(22\) The requested URL returned error: (?P<http_status>{statuses})\b"
    shown = rf"^(?:< )?HTTP/\d(?:\.\d)? (?P<http_status>{statuses})\b"
    return [{**rule, "pattern": said}, {**rule, "pattern": shown, "exit_codes": [22]}]


_RETRY_ACTION = {"title": "Retry the same request later (after retry_after seconds when given)",
                 "command": ["{argv...}"], "applicability": "maybe_incorrect"}

RULES: list[dict[str, Any]] = [
    # --- HTTP errors under --fail / --fail-with-body (exit 22), most specific first -----------------------------
    *_http("CURL_HTTP_RATE_LIMITED", "429", "curl: HTTP 429 Too Many Requests", "rate_limit", 429, True, True,
          "Wait retry_after seconds (the Retry-After header) before repeating the request; slow down.",
          code_actions=[_RETRY_ACTION]),
    *_http("CURL_HTTP_NOT_FOUND", "404|410", "curl: HTTP 404 Not Found", "not_found", 404, False, True,
          "Check the URL path, the resource id and the API version; the server has nothing at this address."),
    *_http("CURL_HTTP_UNAUTHORIZED", "401", "curl: HTTP 401 Unauthorized", "authentication", 401, False, True,
          "Send credentials: `-H 'Authorization: Bearer $TOKEN'`, `-u USER:PASSWORD` or `--netrc-file FILE`; "
          "the WWW-Authenticate header (with -i) names the scheme."),
    *_http("CURL_HTTP_FORBIDDEN", "403", "curl: HTTP 403 Forbidden", "authorization", 403, False, True,
          "The credentials are valid but lack permission for this resource; use an account or token with access."),
    *_http("CURL_HTTP_CONFLICT", "409", "curl: HTTP 409 Conflict", "conflict", 409, False, True,
          "The resource changed or already exists: fetch its current state, reconcile, then send the request again."),
    *_http("CURL_HTTP_PRECONDITION_FAILED", "412|428", "curl: HTTP precondition failed", "precondition", 412, False,
          True, "Refresh the ETag / If-Match value from a fresh GET and send the request again."),
    *_http("CURL_HTTP_TIMEOUT", "408", "curl: HTTP 408 Request Timeout", "timeout", 408, True, True,
          "The server gave up waiting for the request; send it again, faster or smaller."),
    *_http("CURL_HTTP_CLIENT_ERROR", r"4(?!0[13489]|1[02]|2[89])\d\d", "curl: HTTP 4xx client error", "validation",
          400, False, True, "The server rejected the request itself (method, headers, body); read the response body "
          "(use --fail-with-body) and fix the request."),
    *_http("CURL_HTTP_SERVER_ERROR", r"5\d\d", "curl: HTTP 5xx server error", "dependency", 502, True, True,
          "The server failed; retry with backoff (`--retry 3` retries 5xx and timeouts for you). "
          "A non-idempotent request (POST) may already have taken effect.", code_actions=[
              {"title": "Let curl retry transient failures itself", "command": ["curl", "--retry", "3", "{args...}"],
               "applicability": "maybe_incorrect"}]),
    {"code": "CURL_HTTP_ERROR", "pattern": r"^curl: \(22\) (?!The requested URL returned error: \d)(?P<message>.+)",
     "title": "curl: HTTP error (status not shown)", "category": "dependency", "status": 502,
     "retryable": False, "safe_to_retry": True, "docs_url": EXIT_DOCS,
     "suggested_fix": "The server answered HTTP 400 or above; run with `-sS -i` to see the status and headers.",
     "code_actions": [{"title": "Send the request again showing the status and headers",
                       "command": ["curl", "-S", "-i", "{args...}"], "applicability": "maybe_incorrect"}]},
    {"code": "CURL_HTTP_STATUS_IGNORED", "pattern": r"^(?:< )?HTTP/\d(?:\.\d)? (?P<http_status>[45]\d\d)\b",
     "exit_codes": [0],
     "severity": "warning", "title": "curl: the server answered an HTTP error but curl exited 0",
     "category": "dependency", "status": 502, "retryable": False, "safe_to_retry": True,
     "detail": "the server answered HTTP {http_status}; curl exits 0 for it without --fail",
     "suggested_fix": "Add --fail-with-body so an HTTP error is a failure and its body is still shown.",
     "code_actions": [{"title": "Make HTTP errors fail (and keep the body)",
                       "command": ["curl", "--fail-with-body", "{args...}"], "applicability": "maybe_incorrect"}]},
    # --- curl's own failures --------------------------------------------------------------------------------
    _exit("CURL_UNSUPPORTED_PROTOCOL", 1, "", "curl: unsupported protocol (misspelled URL scheme)", "validation",
          400, False, True, "Check the URL's scheme (`https://`, not `htps://` or ` http://`)."),
    _exit("CURL_BAD_OPTION", 2, "", "curl: failed to initialise or bad option", "usage", 400, False, True,
          "Check the options against `curl --help all`; this curl may be older than the option."),
    {"code": "CURL_UNKNOWN_OPTION", "pattern": r"^curl: (?P<message>option \S+: .+)",
     "title": "curl: unknown or misused option", "category": "usage", "status": 400, "retryable": False,
     "safe_to_retry": True, "suggested_fix": "Fix the option named in detail; `curl --help all` lists them.",
     "docs_url": "https://curl.se/docs/manpage.html"},
    _exit("CURL_MALFORMED_URL", 3, "", "curl: malformed URL", "validation", 400, False, True,
          "Fix the URL: quote it in the shell, percent-encode spaces and brackets (or use --globoff)."),
    _exit("CURL_PROXY_NOT_RESOLVED", 5, "", "curl: could not resolve the proxy", "network", 502, True, True,
          "Check the proxy host in --proxy / http_proxy / https_proxy, or unset it."),
    _exit("CURL_HOST_NOT_RESOLVED", 6, "Could not resolve host", "curl: could not resolve host", "network", 502, True,
          True, "Check the host name's spelling and the machine's DNS; no request was sent, so retrying is safe."),
    _exit("CURL_CONNECTION_FAILED", 7, "", "curl: could not connect (refused or unreachable)", "network", 503, True,
          True, "Start the service or check host and port (a refused connection means nothing listens there); "
          "no request was sent, so retrying is safe.", code_actions=[
              {"title": "Retry connection failures with backoff", "command": ["curl", "--retry", "5",
                                                                               "--retry-connrefused", "{args...}"],
               "applicability": "maybe_incorrect"}]),
    _exit("CURL_PARTIAL_FILE", 18, "", "curl: transfer ended early (partial file)", "network", 502, True, True,
          "The connection closed before the announced length arrived; retry (`-C -` resumes a download)."),
    _exit("CURL_WRITE_ERROR", 23, "", "curl: could not write the output", "precondition", 412, False, True,
          "Check the -o path: its folder must exist (or add --create-dirs) and be writable, and the disk not full. "
          "A closed pipe (`curl ... | head`) also gives this and is harmless."),
    _exit("CURL_READ_ERROR", 26, "", "curl: could not read the upload or -d @file", "not_found", 404, False, True,
          "Check the file named in -d @FILE, -T FILE or -F field=@FILE exists and is readable."),
    _exit("CURL_TIMEOUT", 28, "", "curl: operation timed out", "timeout", 504, True, True,
          "The server did not answer in time: raise --max-time / --connect-timeout or check the server. "
          "A non-idempotent request (POST) may already have taken effect."),
    _exit("CURL_TLS_HANDSHAKE", 35, "", "curl: TLS handshake failed", "network", 502, False, True,
          "Check that the port speaks TLS (https:// to a plain-HTTP port fails here) and the TLS versions agree."),
    _exit("CURL_FILE_NOT_READABLE", 37, "", "curl: could not read the file:// URL", "not_found", 404, False, True,
          "Check the path in the file:// URL."),
    _exit("CURL_TOO_MANY_REDIRECTS", 47, "", "curl: too many redirects", "dependency", 508, False, True,
          "The server redirects in a loop or more than --max-redirs times; inspect with `curl -sS -I URL` "
          "(without -L) and fix the URL or the server."),
    _exit("CURL_EMPTY_REPLY", 52, "", "curl: empty reply from server", "dependency", 502, True, True,
          "The server closed the connection without answering (crashed, or a plain/TLS port mix-up); "
          "check its logs, then retry."),
    _exit("CURL_SEND_ERROR", 55, "", "curl: failure sending data", "network", 502, True, True,
          "The connection broke while sending; retry. A non-idempotent request may have reached the server."),
    _exit("CURL_RECV_ERROR", 56, "", "curl: failure receiving data (connection reset)", "network", 502, True, True,
          "The connection broke while receiving; retry. A non-idempotent request may already have taken effect."),
    _exit("CURL_TLS_CERTIFICATE", 60, "", "curl: the server's TLS certificate is not trusted", "precondition", 502,
          False, True, "Give the CA that signed it with `--cacert FILE` (or install it in the system store). "
          "Do not use -k/--insecure except against a test server you control.", code_actions=[
              {"title": "Trust the CA certificate that signed the server's certificate (replace <CA_FILE>)",
               "command": ["curl", "--cacert", "<CA_FILE>", "{args...}"], "applicability": "has_placeholders"}]),
    _exit("CURL_LOGIN_DENIED", 67, "", "curl: login denied", "authentication", 401, False, True,
          "The server rejected the user name or password; check the credentials."),
    _exit("CURL_REMOTE_FILE_NOT_FOUND", 78, "", "curl: remote file not found", "not_found", 404, False, True,
          "Check the path in the URL."),
]
