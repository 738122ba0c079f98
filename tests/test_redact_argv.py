"""Password options in a command line: curl's `-u USER:PASSWORD` in every spelling, mysql's `-pPASSWORD`,
sshpass and redis-cli, in an argv (command.argv, code actions) and in text; other programs' `-p`/`-u`
values (ports, uid:gid) are left alone. A code action that lost a secret has placeholders."""

from __future__ import annotations

import pytest
from conftest import aw

from agentwrap.redact import REDACTED, Redactor

SECRET = "s3cretpw-77"


@pytest.mark.parametrize("form", [["-u", f"user:{SECRET}"], [f"--user=user:{SECRET}"], [f"-uuser:{SECRET}"],
                                  ["--user", f"user:{SECRET}"], ["-sSu", f"user:{SECRET}"],
                                  ["-U", f"proxy:{SECRET}"], [f"--proxy-user=proxy:{SECRET}"]],
                         ids=["-u", "--user=", "-uVALUE", "--user", "cluster", "-U", "--proxy-user="])
@pytest.mark.parametrize("detail", ["concise", "standard"])
def test_curl_user_password_never_appears(form, detail):
    a = aw("curl", "-sS", *form, "http://127.0.0.1:1/", detail=detail)
    assert SECRET.encode() not in a.stdout, a.stdout.decode()
    assert a.error is not None  # CURL_CONNECTION_FAILED; a curl that knows no `--opt=value` form: exit 2
    for action in a.error.get("code_actions", []):
        if any(REDACTED in w for w in action.get("command") or []):
            assert action["applicability"] == "has_placeholders", action
    if detail == "standard":
        argv = a.env["command"]["argv"]
        assert any(REDACTED in w for w in argv) and any(w.startswith(("user", "--user=user", "-uuser", "proxy",
                                                                        "--proxy-user=proxy")) for w in argv)


def test_the_retry_action_keeps_the_user_and_has_placeholders():
    a = aw("curl", "-sS", "-u", f"user:{SECRET}", "http://127.0.0.1:1/", detail="concise")
    action = a.error["code_actions"][0]
    assert action["command"][-3:-1] == ["-u", f"user:{REDACTED}"]
    assert action["applicability"] == "has_placeholders"


@pytest.mark.parametrize(("argv", "expected"), [
    (["curl", "-u", "user:pw123456", "x"], ["curl", "-u", f"user:{REDACTED}", "x"]),
    (["curl", "-u", "justauser", "x"], ["curl", "-u", "justauser", "x"]),  # no password: curl asks for it
    (["curl", "-o", "out:file", "-d", "a:b", "x"], ["curl", "-o", "out:file", "-d", "a:b", "x"]),
    (["curl", "-o", "-u", "x:y"], ["curl", "-o", "-u", "x:y"]),  # `-u` is -o's file name here
    (["curl", "-u", "user:<PASSWORD>", "x"], ["curl", "-u", "user:<PASSWORD>", "x"]),  # a placeholder
    (["mysql", "-uroot", "-ppw123456", "-P", "3306", "db"], ["mysql", "-uroot", f"-p{REDACTED}", "-P", "3306", "db"]),
    (["mysql", "-p", "mydb"], ["mysql", "-p", "mydb"]),  # -p alone prompts; mydb is the database
    (["ssh", "-p", "2222", "-u", "a:b", "host"], ["ssh", "-p", "2222", "-u", "a:b", "host"]),
    (["sshpass", "-p", "pw123456", "ssh", "-p", "22", "h"], ["sshpass", "-p", REDACTED, "ssh", "-p", "22", "h"]),
    (["redis-cli", "-h", "host", "-a", "pw123456", "get", "k"],
     ["redis-cli", "-h", "host", "-a", REDACTED, "get", "k"]),
    (["docker", "run", "-u", "app:grp", "img"], ["docker", "run", "-u", "app:grp", "img"]),
    (["agentwrap", "--", "/usr/bin/curl", "--user=me:pw123456"], ["agentwrap", "--", "/usr/bin/curl",
                                                                  f"--user=me:{REDACTED}"]),
    (["smbclient", "//srv/share", "-U", "bob%pw123456"], ["smbclient", "//srv/share", "-U", f"bob%{REDACTED}"]),
])
def test_argv_password_options_are_read_per_program(argv, expected):
    assert Redactor().redact_obj(argv) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("curl --user=user:pw123456 http://x", f"curl --user=user:{REDACTED} http://x"),
    ("curl -sSuuser:pw123456 x", f"curl -sSuuser:{REDACTED} x"),
    ("curl --proxy-user 'px:pw123456' x", f"curl --proxy-user 'px:{REDACTED}' x"),
    ("docker run --user www-data:www-data img", "docker run --user www-data:www-data img"),
    ('curl -H "X-User: a:b" https://a.b/c:d', 'curl -H "X-User: a:b" https://a.b/c:d'),
])
def test_curl_user_options_in_text(text, expected):
    assert Redactor().redact(text) == expected


def test_a_code_action_that_lost_a_secret_has_placeholders():
    action = {"title": "t", "command": ["curl", "-u", "me:pw123456", "x"], "applicability": "machine_applicable"}
    assert Redactor().redact_obj(action)["applicability"] == "has_placeholders"
    plain = {"title": "t", "command": ["curl", "-u", "me", "x"], "applicability": "machine_applicable"}
    assert Redactor().redact_obj(plain)["applicability"] == "machine_applicable"
