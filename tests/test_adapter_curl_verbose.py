"""curl's own chatter is no fact: -v's connection and TLS handshake lines and the certificate failure's
four-line pointer to curl.se. What was sent (`> ` headers), the certificate's subject, issuer and dates,
the CA file used and a TLS alert that ended the handshake stay. Fixtures captured from real runs against a
local self-signed HTTPS server."""

from __future__ import annotations

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views

CHATTER = ("TLS handshake", "Trying ", "Connected to", "Closing connection", "ALPN", "More details here",
           "legitimacy", "assume close")


def _stderr(case_name: str) -> tuple[dict, str]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "curl" and c.name == case_name)
    env = views.concise(fixtures.replay_record(registry.builtin("curl"), case))
    return env, env.get("output", {}).get("stderr", {}).get("text", "")


@pytest.mark.parametrize("case_name", ["tls-self-signed", "tls-self-signed-verbose", "tls-cacert-verbose"])
def test_connection_chatter_and_curls_certificate_pointer_are_left_out(case_name: str) -> None:
    env, stderr = _stderr(case_name)
    assert not [c for c in CHATTER if c in stderr], stderr
    assert "\n>\n" not in f"\n{stderr}" and "\n> \n" not in f"\n{stderr}"
    if case_name != "tls-cacert-verbose":
        assert env["error"]["code"] == "CURL_TLS_CERTIFICATE"


def test_what_was_sent_and_the_certificate_facts_stay() -> None:
    env, stderr = _stderr("tls-cacert-verbose")
    assert env["status"] == "success" and env["data"]["http_status"] == 200
    for fact in ("> GET /data.json HTTP/1.1", "subject: CN=localhost", "issuer: CN=localhost", "expire date:",
                 "CAfile: cert.pem", "SSL certificate verify ok."):
        assert fact in stderr, fact
    _, failed = _stderr("tls-self-signed-verbose")
    assert "TLS alert, unknown CA" in failed


def test_a_failed_write_names_the_folder_o_writes_into() -> None:
    """`curl -sS -o /nonexistent/dir/out.json URL` (captured) says only `Failure writing output to
    destination`; the action names the folder from the command line, and nothing when there is no -o."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "curl" and c.name == "write-error")
    env = views.concise(fixtures.replay_record(registry.builtin("curl"), case))
    assert env["error"]["code"] == "CURL_WRITE_ERROR"
    assert [a["command"] for a in env["error"]["code_actions"]] == [["mkdir", "-p", "--", "/nonexistent/dir"]]
    from agentwrap.adapters._curl_parse import output_folder

    assert output_folder(["curl", "-o", "x.json", "u"]) is None and output_folder(["curl", "u"]) is None
    assert output_folder(["curl", "--output-dir", "d", "-so", "a/b.json", "u"]) == "d/a"
    assert output_folder(["curl", "-o", "-", "u"]) is None
