"""Tests for agentwrap.redact: recall on every secret family, precision on look-alikes, and speed.

Fake secrets are assembled at run time (prefix + pseudo-random body) so this file never holds a
token-shaped literal that a secret scanner would flag.
"""

from __future__ import annotations

import copy
import random
import string
import time

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agentwrap import secret_names
from agentwrap.redact import REDACTED, Redactor
from agentwrap.secret_names import PLAIN_NAMES, is_secret_name, secret_values
from agentwrap.secret_scan import TRIGGERS

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def fake(n: int, alphabet: str = ALNUM, seed: str = "") -> str:
    """A deterministic random-looking string that always mixes upper case, lower case and digits."""
    rng = random.Random(f"{n}{alphabet}{seed}")
    return "A7b" + "".join(rng.choice(alphabet) for _ in range(n - 3))


GH = "gh"  # split so that no complete token prefix appears as a literal
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    + fake(43, URLSAFE, "sig")
)

# (id, text containing the secret, the secret, text that must survive around it)
POSITIVE = [
    ("github-ghp", "GITHUB_TOKEN=" + GH + "p_" + fake(36), GH + "p_" + fake(36), "GITHUB_TOKEN="),
    ("github-gho", "oauth " + GH + "o_" + fake(36) + " done", GH + "o_" + fake(36), "oauth "),
    ("github-ghu", "user-to-server " + GH + "u_" + fake(36), GH + "u_" + fake(36), "user-to-server"),
    ("github-ghs", "ACTIONS " + GH + "s_" + fake(36), GH + "s_" + fake(36), "ACTIONS"),
    ("github-ghr", "refresh=" + GH + "r_" + fake(36), GH + "r_" + fake(36), "refresh="),
    (
        "github-pat",
        "using github_" + "pat_" + fake(22) + "_" + fake(59, seed="b"),
        fake(59, seed="b"),
        "using ",
    ),
    ("gitlab-glpat", "export GL=" + "gl" + "pat-" + fake(20, URLSAFE), fake(20, URLSAFE), "export GL="),
    ("gitlab-gldt", "deploy " + "gl" + "dt-" + fake(20, URLSAFE, "d"), fake(20, URLSAFE, "d"), "deploy "),
    ("gitlab-glrt", "runner " + "gl" + "rt-" + fake(20, URLSAFE, "r"), fake(20, URLSAFE, "r"), "runner "),
    ("aws-akia", "aws_access_key_id AK" + "IA" + "Q3EGRXMPL7ABCD12", "Q3EGRXMPL7ABCD12", "aws_access_key_id"),
    ("aws-asia", "temp key AS" + "IA" + "Z7XYWVUT6543210Q in use", "Z7XYWVUT6543210Q", "in use"),
    ("aws-secret", "aws_secret_access_key = " + fake(40, B64), fake(40, B64), "aws_secret_access_key = "),
    (
        "aws-secret-env",
        "AWS_SECRET_ACCESS_KEY=" + fake(40, B64, "e"),
        fake(40, B64, "e"),
        "AWS_SECRET_ACCESS_KEY=",
    ),
    ("slack-xoxb", "bot xo" + "xb-1234567890-1234567890123-" + fake(24), fake(24), "bot "),
    ("slack-xoxp", "user xo" + "xp-1234567890-" + fake(24, seed="p"), fake(24, seed="p"), "user "),
    ("slack-xoxa", "app xo" + "xa-2-" + fake(30, seed="a"), fake(30, seed="a"), "app "),
    ("slack-xoxr", "refresh xo" + "xr-" + fake(30, seed="r"), fake(30, seed="r"), "refresh "),
    ("slack-xoxs", "session xo" + "xs-" + fake(30, seed="s"), fake(30, seed="s"), "session "),
    (
        "slack-webhook",
        "POST https://hooks.slack.com/services/T0123ABCD/B0456EFGH/" + fake(24),
        "T0123ABCD/B0456EFGH/" + fake(24),
        "https://hooks.slack.com/services/",
    ),
    ("stripe-sk-live", "stripe sk_" + "live_" + fake(24), fake(24), "stripe "),
    ("stripe-sk-test", "stripe sk_" + "test_" + fake(24, seed="t"), fake(24, seed="t"), "stripe "),
    ("stripe-rk-live", "restricted rk_" + "live_" + fake(24, seed="k"), fake(24, seed="k"), "restricted "),
    ("stripe-whsec", "webhook wh" + "sec_" + fake(32), fake(32), "webhook "),
    ("openai-sk", "OPENAI_API_KEY=sk" + "-" + fake(48), fake(48), "OPENAI_API_KEY="),
    ("openai-sk-bare", "using key sk" + "-" + fake(48, seed="x") + " now", fake(48, seed="x"), " now"),
    ("openai-proj", "client(sk" + "-proj-" + fake(80, URLSAFE) + ")", fake(80, URLSAFE), "client("),
    (
        "anthropic",
        "x-api-key: sk" + "-ant-api03-" + fake(93, URLSAFE) + "AA",
        fake(93, URLSAFE),
        "x-api-key: ",
    ),
    ("google-aiza", "maps key=AI" + "za" + fake(35, URLSAFE), fake(35, URLSAFE), "maps key="),
    ("google-aiza-bare", "load AI" + "za" + fake(35, URLSAFE, "g") + " ok", fake(35, URLSAFE, "g"), " ok"),
    ("npm", "//registry.npmjs.org/:_authToken=np" + "m_" + fake(36), fake(36), "//registry.npmjs.org/"),
    ("npm-bare", "published with np" + "m_" + fake(36, seed="n"), fake(36, seed="n"), "published with "),
    ("pypi", "password = py" + "pi-AgEIcHlwaS5vcmc" + fake(70, URLSAFE), fake(70, URLSAFE), "password = "),
    (
        "pypi-bare",
        "upload py" + "pi-AgEIcHlwaS5vcmc" + fake(70, URLSAFE, "u"),
        fake(70, URLSAFE, "u"),
        "upload ",
    ),
    ("jwt", "id " + JWT + " expires", JWT, " expires"),
    (
        "auth-bearer",
        "> Authorization: Bearer " + fake(40, URLSAFE),
        fake(40, URLSAFE),
        "Authorization: Bearer ",
    ),
    ("auth-basic", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", "Authorization: Basic "),
    (
        "auth-proxy",
        "Proxy-Authorization: Basic YWxpY2U6czNjcjN0",
        "YWxpY2U6czNjcjN0",
        "Proxy-Authorization: ",
    ),
    ("auth-token", "authorization: token " + fake(30), fake(30), "authorization: token "),
    (
        "auth-curl",
        "curl -H 'Authorization: Bearer " + fake(30, seed="c") + "' x",
        fake(30, seed="c"),
        "curl -H",
    ),
    (
        "auth-json",
        '{"Authorization": "Bearer ' + fake(30, seed="j") + '"}',
        fake(30, seed="j"),
        '"Authorization"',
    ),
    (
        "bearer-header",
        "X-Upstream-Auth: Bearer " + fake(30, seed="b"),
        fake(30, seed="b"),
        "X-Upstream-Auth: Bearer ",
    ),
    (
        "bearer-json",
        '{"header": "Bearer ' + fake(30, seed="q") + '"}',
        fake(30, seed="q"),
        '"header": "Bearer ',
    ),
    ("url-user-pass", "git clone https://alice:hunter2x@example.com/a/b.git", "hunter2x", "https://alice:"),
    ("url-postgres", "DATABASE_URL=postgres://app:p4ss@db:5432/x", "p4ss", "postgres://app:"),
    ("url-pass-with-at", "fetch https://bob:p@ss@host/x", "p@ss", "@host/x"),
    (
        "url-token-user",
        "remote: https://" + GH + "p_" + fake(36) + "@github.com/a/b",
        fake(36),
        "@github.com/a/b",
    ),
    ("url-x-access", "https://x-access-token:" + fake(40) + "@github.com/o/r", fake(40), "x-access-token:"),
    (
        "url-token-opaque",
        "https://" + fake(40, seed="o") + "@github.com/o/r.git",
        fake(40, seed="o"),
        "github.com",
    ),
    ("label-password", "password=hunter2", "hunter2", "password="),
    ("label-json", '{"user": "bob", "password": "correct horse"}', "correct horse", '"password": "'),
    ("label-json-escaped", r"{\"password\": \"s3cret!\"}", "s3cret!", r"\"password\": "),
    ("label-yaml", "  password: letmein", "letmein", "  password: "),
    ("label-api-key", "api_key: " + fake(32), fake(32), "api_key: "),
    ("label-client-secret", "client_secret=abcdef", "abcdef", "client_secret="),
    ("label-token", "token=abc", "abc", "token="),
    ("label-upper-env", "DB_PASSWORD=Tr0ub4dor&3", "Tr0ub4dor&3", "DB_PASSWORD="),
    ("label-camel", "{accessToken: '" + fake(30, seed="t") + "'}", fake(30, seed="t"), "accessToken"),
    (
        "label-query",
        "GET /cb?code=1&access_token=" + fake(30, seed="a") + "&state=x",
        fake(30, seed="a"),
        "&state=x",
    ),
    ("label-case", "PassWord: Hunter2", "Hunter2", "PassWord: "),
    ("label-passphrase", "passphrase = 'open sesame'", "open sesame", "passphrase = '"),
    ("label-spring", "spring.datasource.password=s3cr3t", "s3cr3t", "spring.datasource.password="),
    ("flag-password", "mysql --password hunter2 -h db", "hunter2", "-h db"),
    (
        "flag-token",
        "gh auth login --with-token --token " + fake(30, seed="f"),
        fake(30, seed="f"),
        "--token ",
    ),
    ("cookie", "< Set-Cookie: session=" + fake(32) + "; Path=/; HttpOnly", fake(32), "Path=/; HttpOnly"),
    (
        "docker-auth",
        '{"auths": {"ghcr.io": {"auth": "YWxpY2U6aHVudGVyMg=="}}}',
        "YWxpY2U6aHVudGVyMg==",
        "ghcr.io",
    ),
    ("npm-auth", "//registry.npmjs.org/:_auth=YWxpY2U6aHVudGVyMg==", "YWxpY2U6aHVudGVyMg==", ":_auth="),
    (
        "kubeconfig",
        "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt",
        "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt",
        "client",
    ),
    (
        "aws-json",
        '"SecretAccessKey": "' + fake(40, B64, "j") + '",',
        fake(40, B64, "j"),
        '"SecretAccessKey": "',
    ),
    ("aws-session", '"SessionToken": "' + fake(300, B64, "s") + '"', fake(300, B64, "s"), '"SessionToken"'),
    ("conn-string", "Server=tcp:db;Password=hunter2;User ID=app", "hunter2", ";User ID=app"),
    (
        "azure-key",
        "AccountKey=" + fake(86, B64) + "==;EndpointSuffix=core",
        fake(86, B64),
        ";EndpointSuffix=core",
    ),
    ("api-key-header", "X-API-KEY: " + fake(32, seed="h"), fake(32, seed="h"), "X-API-KEY: "),
    ("dollar-password", "password=$ecret123", "$ecret123", "password="),
    ("compose-yaml", "      MYSQL_ROOT_PASSWORD: example", "example", "MYSQL_ROOT_PASSWORD: "),
    # a URL's query after a path: the line's first label is `https`, whose bare value holds the pair
    ("url-query", "curl https://api.example.com/v1/?access_token=ab12cd34ef56&page=2", "ab12cd34ef56", "&page=2"),
    ("url-query-path", "GET https://h.example/a/b?token=Zx81kdj29sLq0 200", "Zx81kdj29sLq0", " 200"),
    ("path-label-token", "config/password: hunter2", "hunter2", "config/password: "),
    # a value that holds its key's word is still a value: a kubeconfig's `token:`, a .env's SECRET=
    ("kubeconfig-token", "  user:\n    token: prodtoken2024\n", "prodtoken2024", "    token: "),
    ("word-in-value", "API_SECRET=supersecret99 next", "supersecret99", " next"),
]


@pytest.mark.parametrize(("text", "secret", "keep"), [c[1:] for c in POSITIVE], ids=[c[0] for c in POSITIVE])
def test_secret_is_redacted_and_context_kept(text: str, secret: str, keep: str) -> None:
    redactor = Redactor()
    out = redactor.redact(text + "\n")
    assert secret not in out
    assert REDACTED in out
    assert keep in out
    assert redactor.count >= 1
    assert Redactor().redact_obj({"line": text})["line"] == out[:-1]  # the envelope path agrees


NEGATIVE = [
    ("git-sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b"),
    ("git-short-sha", "HEAD is now at 3f78685 Fix the tokenizer"),
    ("git-log", "Author: Jane Doe <jane@example.com>\nDate:   Mon Jan 1 12:00:00 2024 +0000"),
    ("uuid", "request 123e4567-e89b-12d3-a456-426614174000 done"),
    ("sha256", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  pkg.tar.gz"),
    ("md5", "MD5 (file.iso) = 098f6bcd4621d373cade4e832627b4f6"),
    (
        "npm-integrity",
        '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kx'
        'vUdBeoGlODJ6+SfaPg==",',
    ),
    ("base64-json", '{"data": "SGVsbG8sIFdvcmxkIQ==", "payload": "eyJub3QiOiAiYSBqd3QifQ=="}'),
    ("words", "the tokenizer uses a keyboard map; a monkey pressed the key"),
    ("prompt", "Enter password:"),
    ("prompt-for", "[sudo] password for alice: "),
    ("prose", "Your password must be at least 8 characters; the token expired."),
    ("url", "Cloning https://github.com/a/b.git into b"),
    ("scp-url", "git@github.com:a/b.git"),
    ("ssh-url", "ssh://git@github.com/a/b.git"),
    ("url-port", "listening on http://localhost:8080/health"),
    ("email", "mailto:jane@example.com"),
    ("npm-scope", "npm http fetch GET 200 https://registry.npmjs.org/@types%2fnode 43ms"),
    ("ssh-pubkey", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA user@host"),
    ("version", "Compiling serde v1.0.190; node v20.11.1-linux-x64; 2.0.0-rc.1+build.5"),
    ("path", "/home/alice/.ssh/id_rsa.pub and C:\\Users\\bob\\AppData\\token_cache"),
    ("stripe-publishable", "pk_live_" + fake(24)),
    ("gcc-token", "f.c:4:29: error: expected ';' before '}' token"),
    ("parser-token", "SyntaxError: unexpected token: '}'"),
    ("counts", 'max_tokens=100 "completion_tokens": 40 token_count: 12'),
    ("auth-prose", "Authorization: required"),
    ("www-authenticate", 'WWW-Authenticate: Bearer realm="api"'),
    ("token-type", '{"token_type": "Bearer", "expires_in": 3600}'),
    ("automake", "PASS: test_parse_url_123"),
    ("placeholder", "password=<your-password> token=$GITHUB_TOKEN secret=*** --password PASSWORD"),
    ("password-file", "--password-file /run/secrets/db --token-file=/tmp/tok"),
    ("kebab", "pip install sk-learn-contrib-wrapper-2024"),
    ("generic-key", "key=value sort_key: name"),
    ("keyword-args", "f(keyboard_state=3, tokenizer='bert')"),
    ("seq", "\n".join(str(i) for i in range(1, 200))),
    (
        "code-echo",
        "    self.token = token\n    api_key = os.getenv('API_KEY')\nlet token = lexer.next_token();",
    ),
    ("code-compare", "if token == expected: password = getpass()"),
    ("pinentry-field", "│ Passphrase: ________________________________ │"),  # gpg's empty input field
    ("fix-placeholder", "Send: `-H 'Authorization: Bearer $TOKEN'`, `-u USER:PASSWORD` or `--netrc-file F`"),
    ("code-named-like-key", "    password = password_input\n    apiToken = this_token.value\ntoken: token_var"),
    ("ci-expression", "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }} password=$(cat /run/pw) token=${TOKEN}"),
    ("json-schema", '"password": {"type": "string"}, "token": null, "auth": true'),
    ("masked", "token: ******** Using token: <redacted> auth: required"),
    ("key-error", "KeyError: 'token'"),
    # a file's error names the file: the words after it are the error, not a value
    ("file-error-passwd", "/etc/passwd: Permission denied"),
    ("file-error-token", "cat: /run/secrets/token: No such file or directory"),
    # a status after the label is no password (a program named passwd, or a login's verdict)
    ("status-after-label", "passwd: Not executable\npasswd: not found\nPassword: incorrect"),
    (
        "pem-certificate",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0B\n-----END CERTIFICATE-----",
    ),
]


@pytest.mark.parametrize("text", [c[1] for c in NEGATIVE], ids=[c[0] for c in NEGATIVE])
def test_look_alikes_are_left_alone(text: str) -> None:
    redactor = Redactor()
    assert redactor.redact(text + "\n") == text + "\n"
    assert redactor.count == 0


PEM_BODY = [fake(64, B64, str(i)) for i in range(5)] + ["Zm9vYmFy=="]


def test_pem_key_in_one_call() -> None:
    begin, end = "-----BEGIN RSA PRIVATE KEY-----\n", "-----END RSA PRIVATE KEY-----\n"
    redactor = Redactor()
    out = redactor.redact("key follows\n" + begin + "\n".join(PEM_BODY) + "\n" + end + "done\n")
    assert out == "key follows\n" + begin + "[REDACTED]\n" + end + "done\n"
    assert redactor.count == 1


def test_pem_key_across_two_calls() -> None:
    redactor = Redactor()
    first = redactor.redact("start\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(PEM_BODY[:3]) + "\n")
    second = redactor.redact("\n".join(PEM_BODY[3:]) + "\n-----END OPENSSH PRIVATE KEY-----\nafter\n")
    third = redactor.redact(PEM_BODY[0] + "\n")  # the key is over: base64 output is just output again
    assert first == "start\n-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n"
    assert second == "[REDACTED]\n-----END OPENSSH PRIVATE KEY-----\nafter\n"
    assert third == PEM_BODY[0] + "\n"
    assert not any(line in first + second for line in PEM_BODY)


def test_pem_inline_and_encrypted_headers() -> None:
    begin, end = "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"
    inline = '"private_key": "' + begin + "\\n" + PEM_BODY[0] + "\\n" + end + '\\n"'
    out = Redactor().redact(inline + "\n")
    assert PEM_BODY[0] not in out
    assert out == '"private_key": "[REDACTED]"\n'  # the label rule takes the whole, already hidden value
    out = Redactor().redact("key: " + inline.split(": ", 1)[1] + "\n")
    assert "-----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----" in out
    headers = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\n"
    out = Redactor().redact(headers + PEM_BODY[1] + "\n-----END RSA PRIVATE KEY-----\n")
    assert PEM_BODY[1] not in out
    assert "DEK-Info" not in out


def test_pgp_private_key_block_with_armour_headers() -> None:
    block = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\nComment: laptop\n\n"
    block += "\n".join(PEM_BODY) + "\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\n"
    out = Redactor().redact(block)
    assert out == "-----BEGIN PGP PRIVATE KEY BLOCK-----\n[REDACTED]\n-----END PGP PRIVATE KEY BLOCK-----\n"


def test_stray_pem_marker_hides_nothing_after_it() -> None:
    code = '    if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):\n        return parse(line)\n'
    redactor = Redactor()
    assert redactor.redact(code) == code
    assert redactor.redact("next chunk\n") == "next chunk\n"


def test_literal_environment_values() -> None:
    env = {
        "MY_SERVICE_TOKEN": "s3cr3t-v@lue-42",
        "DB_PASS": "correcthorse",
        "HOME": "/root",
        "DEBUG_TOKEN": "true",
        "SHORT_SECRET": "abc",
        "PIN_PASSWORD": "12345",
        "TOKEN_FILE": "/run/secrets/token",
        "PRIVATE_KEY_PATH": "/home/u/.ssh/id_rsa",
    }
    values = secret_values(env)
    assert "s3cr3t-v@lue-42" in values
    assert "correcthorse" in values
    assert "s3cr3t-v%40lue-42" in values  # the same secret, percent-encoded inside a URL
    assert not {"/root", "true", "abc", "12345", "/run/secrets/token", "/home/u/.ssh/id_rsa"} & set(values)
    assert values == sorted(values, key=len, reverse=True)
    redactor = Redactor(values + ["y"])  # a one-letter prompt reply must not shred the output
    out = redactor.redact("connect as correcthorse via https://u:s3cr3t-v%40lue-42@h/ yes\n")
    assert out == "connect as [REDACTED] via https://u:[REDACTED]@h/ yes\n"
    assert redactor.count == 2


def test_literal_longest_first() -> None:
    assert Redactor(["abcd", "abcdefgh"]).redact("xx abcdefgh yy abcd\n") == "xx [REDACTED] yy [REDACTED]\n"


def test_redact_obj_nested() -> None:
    token = GH + "p_" + fake(36)
    envelope = {
        "schema_version": "1.0",
        "command": {"argv": ["curl", "-H", "Authorization: Bearer " + fake(30)], "program": "/usr/bin/curl"},
        "context": {"env_set": {"GIT_PAGER": "cat", "GITHUB_TOKEN": token, "GIT_ASKPASS": "/opt/shim"}},
        "output": {"stdout": {"text": "ok\npassword=hunter2\n", "bytes": 20, "truncated": False}},
        "data": {"password": "hunter2", "items": [{"note": "token " + token}, 3, None, 1.5]},
        "exit": {"code": 0, "signal": None},
    }
    original = copy.deepcopy(envelope)
    redactor = Redactor()
    out = redactor.redact_obj(envelope)
    assert envelope == original  # a copy: the input is untouched
    for secret in (token, "hunter2", fake(30)):
        assert secret not in repr(out)
    assert out["context"]["env_set"] == {
        "GIT_PAGER": "cat",
        "GITHUB_TOKEN": REDACTED,
        "GIT_ASKPASS": "/opt/shim",
    }
    assert out["data"]["password"] == REDACTED
    assert out["data"]["items"][1:] == [3, None, 1.5]
    assert out["output"]["stdout"] == {"text": "ok\npassword=[REDACTED]\n", "bytes": 20, "truncated": False}
    assert out["command"]["argv"][:2] == ["curl", "-H"]
    assert redactor.count == 5


def test_redact_obj_argv_flag_values() -> None:
    argv = ["mysql", "--password", "hunter2", "-h", "db", "--token=abc", "-v", "--api-key", "$KEY", 3, "x"]
    redactor = Redactor()
    out = redactor.redact_obj({"argv": argv, "pair": ("--client-secret", "s3")})
    assert out["argv"][:6] == ["mysql", "--password", REDACTED, "-h", "db", "--token=" + REDACTED]
    assert out["argv"][6:] == ["-v", "--api-key", "$KEY", 3, "x"]  # a placeholder and non-strings stay
    assert out["pair"] == ("--client-secret", REDACTED)
    assert redactor.count == 3


def test_redaction_is_idempotent() -> None:
    text = "".join(case[1] + "\n" for case in POSITIVE)
    once = Redactor().redact(text)
    again = Redactor()
    assert again.redact(once) == once
    assert again.count == 0


def test_non_ascii_text_keeps_positions() -> None:
    text = "‘héllo’ ✓ token=abc123xyz\nnext ☃ 𝄞 line\n\udcff api_key='" + fake(24) + "' ü\n"
    out = Redactor().redact(text)
    assert out == "‘héllo’ ✓ token=[REDACTED]\nnext ☃ 𝄞 line\n\udcff api_key='[REDACTED]' ü\n"


def test_huge_line_stays_linear() -> None:
    line = "x" * 2_000_000 + " key=" + "A" * 3_000_000 + " password=hunter2 " + "b" * 1_000_000 + "\n"
    start = time.process_time()
    out = Redactor().redact(line)
    assert time.process_time() - start < 5
    assert "hunter2" not in out
    assert out.count(REDACTED) == 1  # key= is not a secret name


@pytest.mark.parametrize(
    "name",
    ["API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "NPM_AUTH", "GITLAB_PAT", "MYSQL_PWD",
     "apiKey", "x-api-key", "client_secret", "SSH_PRIVATE_KEY", "SMTP_PASS", "GOOGLE_CREDENTIALS", "passwd"],
)  # fmt: skip
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["KEYBOARD_LAYOUT", "MONKEY", "TOKENIZERS_PARALLELISM", "PWD", "OLDPWD", "GIT_ASKPASS", "SSH_AUTH_SOCK",
     "PASSWORD_STORE_DIR", "TOKEN_TYPE", "HOME", "PATH", "max_tokens", "KEY", "BYPASS_CACHE", "AUTHOR"],
)  # fmt: skip
def test_not_secret_names(name: str) -> None:
    assert not is_secret_name(name)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=400))
def test_text_without_triggers_is_unchanged(text: str) -> None:
    assume(not any(trigger in text.lower() for trigger in TRIGGERS))
    assert Redactor().redact(text) == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([c[1] for c in NEGATIVE] + ["plain words", "a: b", "x=1"]), max_size=8))
def test_mixtures_of_look_alikes_are_unchanged(parts: list[str]) -> None:
    text = "\n".join(parts) + "\n"
    assert Redactor().redact(text) == text


# -- line shapes of issue 12 ------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "secret"), [
    ("export APIToken=abcd1234efgh5678", "abcd1234efgh5678"),
    ("DBPassword: hunter2secret", "hunter2secret"),
    ('"NPMToken": "s3cr3t-npm-value"', "s3cr3t-npm-value"),
    ("PGPASSWORD=s3cretpass psql -h db", "s3cretpass"),
    ("TOKEN ?= abcdef123456xyz", "abcdef123456xyz"),
    ("API_KEY ::= abcdef123456xyz", "abcdef123456xyz"),
    ("<password>s3cr3tvalue</password>", "s3cr3tvalue"),
    ("machine example.com login bob password s3cr3tpw", "s3cr3tpw"),
    ("  password s3cr3tpw", "s3cr3tpw"),
    ("- name: GITHUB_TOKEN\n  value: abc123def456ghi\n", "abc123def456ghi"),
    ("mysql -u root -pXk29sLq db", "Xk29sLq"),
    ("sshpass -p S3cret ssh host", "S3cret"),
    ("docker login -u bob -p S3cretPass registry", "S3cretPass"),
    ("redis-cli -h x -a S3cretPass ping", "S3cretPass"),
    ("curl -u bob:S3cretPass https://x", "S3cretPass"),
    ('var githubToken = "abcdef123456789"', "abcdef123456789"),
    ("url=https://x/?t=%3Dghp_" + "a1" * 18, "ghp_" + "a1" * 18),
    ("id ABIAABCDEFGHIJKLMNOP", "ABIAABCDEFGHIJKLMNOP"),
    ("id ACCAABCDEFGHIJKLMNOP", "ACCAABCDEFGHIJKLMNOP"),
    ("GR1348941" + "a1B2" * 5, "GR1348941" + "a1B2" * 5),
    ("key ABSK" + "QmVkcm9ja0FQSUtleS1" * 7, "ABSK" + "QmVkcm9ja0FQSUtleS1" * 7),
])
def test_issue_12_line_shapes(text: str, secret: str) -> None:
    out = Redactor().redact(text)
    assert secret not in out
    assert "[REDACTED]" in out


@pytest.mark.parametrize("text", [
    "def f(password: str, token: Optional[str]) -> None:",
    "docker run -u 1000:1000 image",
    "the password is wrong",
    "Enter password: ",
    "use --password-file ./pw.txt",
])
def test_issue_12_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(("text", "keep"), [
    ("postgres://app:abc/def+ghi=@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"),
    ("http://localhost:4873/@scope/pkg", "http://localhost:4873/@scope/pkg"),
    ("see https://host:8080/a/b@c.d", "see https://host:8080/a/b@c.d"),
    ("curl -u ci:" + "ops_eyJ" + "a1B2c3/+" * 60 + " https://x", "curl -u ci:[REDACTED] https://x"),
])
def test_url_and_option_passwords_with_slashes_and_length(text: str, keep: str) -> None:
    assert Redactor().redact(text) == keep


@pytest.mark.parametrize("token", [
    "dop_v1_" + "a1b2c3d4e5f6a7b8" * 4,  # DigitalOcean
    "lin_api_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9n",  # Linear
    "pscale_tkn_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876",  # PlanetScale
    "shpat_" + "0a1b2c3d4e5f60718293a4b5c6d7e8f9",  # Shopify
    "sntryu_" + "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",  # Sentry
])
def test_provider_formats_are_redacted_without_a_label(token: str) -> None:
    """gitleaks' format rules (agentwrap/secret_formats_data.py) apply to any line: a log, an argv."""
    for line in (f"2026-01-01 INFO uploading with {token} now", f"deploy --region eu {token}",
                 f"GET /cb?code=%3D{token} HTTP/1.1"):
        out = Redactor().redact(line)
        assert token not in out and "[REDACTED]" in out, out


@pytest.mark.parametrize("token", [
    "glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEi/LCJrIjoiWjlhQjhjNyJ9+Qk0=",  # Grafana Cloud: '/' early
    "ops_eyJ" + "aB3/dE6+gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nR2" * 6,  # 1Password: 250+ characters, '/' and '+'
    "patJ1OY3h6Q79h0Xy." + "0e0d12b8d9fb73a9" * 4,  # Airtable: its pattern's start, no "airtable" near
    "vPX0Q~e3LobTmTNHgLDRM1lZJSmGk~nkaR7ei.5a",  # Azure AD client secret: its keyword inside the token
    "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",  # MaxMind: its keyword at the end
    "SK021Df3254A2198b6E42cF8966515F94C",  # Twilio: a two-letter keyword
])
def test_formats_keyed_inside_or_after_a_slash_are_redacted_without_a_label(token: str) -> None:
    for line in (f"2026-01-01 INFO uploading with {token} now", f"deploy --region eu {token}"):
        out = Redactor().redact(line)
        assert "[REDACTED]" in out and not any(token[i:i + 12] in out for i in range(len(token) - 11)), out


@pytest.mark.parametrize("token", [
    "glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEi/LCJrIjoiWjlhQjhjNyJ9+Qk0=",  # '/', '+' and '=' escaped
    "pscale_tkn_" + "Zx9Yw8Vu7Ts6=Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876",
    "fm2_lJPECAAAAAAAAAAAAAAAAAAQJx3aGVGc/2Lz+wZkn0yWJ0Q6N8dQ4tqzZsDQXk9/aB3+cD5eF7gH9iJ1kL3mN5oP7qR9sT1uV3wX5yZ7==",
])
def test_percent_encoded_tokens_in_a_url_are_redacted(token: str) -> None:
    from urllib.parse import quote

    line = f"GET /callback?state=abc&code={quote(token, safe='')}&next=%2Fhome HTTP/1.1"
    out = Redactor().redact(line)
    assert out == "GET /callback?state=abc&code=[REDACTED]&next=%2Fhome HTTP/1.1", out


def test_base64_of_a_token_is_redacted_and_base64_of_anything_else_stays() -> None:
    import base64
    import os

    token = "dop_v1_" + "a1b2c3d4e5f6a7b8" * 4
    for plain in (token, f"DO_TOKEN={token}\n", f'{{"auth": "{token}"}}'):
        encoded = base64.b64encode(plain.encode()).decode()
        assert Redactor().redact(f"payload {encoded} sent") == "payload [REDACTED] sent"
    for plain in (os.urandom(300), b"just a sentence about tokens and keys, nothing secret in it at all"):
        line = f"data: {base64.b64encode(plain).decode()}\n"
        assert Redactor().redact(line) == line


@pytest.mark.parametrize("line", [
    "SKIPPED_TESTS_FOR_MODULE_parser_and_lexer_v2 ok",
    "patch_release_notes_for_version_1.2.3_final.txt",
    "see /usr/lib/python3.11/site-packages/skimage_filters_rank_generic/core.py",
    "keyboard_layout_eyeball_tracking_module_v12 loaded",
])
def test_words_that_start_like_a_short_keyword_stay(line: str) -> None:
    assert Redactor().redact(line) == line


def test_a_token_after_an_assignment_or_a_dot_inside_a_word_is_found() -> None:
    token = "glpat-" + "Ab3dE6gH9jK2mN5pQ8sT"
    for line in (f"url?x=1&private_token={token}", f"cfg.{token} loaded"):
        out = Redactor().redact(line)
        assert token not in out, out


@pytest.mark.parametrize("name", sorted(PLAIN_NAMES))
def test_a_plain_name_the_shortcut_answers_is_no_secret_by_the_whole_rule(name: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """PLAIN_NAMES only saves compiling SECRET_NAME: without it, each of them is still no secret."""
    monkeypatch.setattr(secret_names, "PLAIN_NAMES", frozenset())
    assert not is_secret_name(name)
