"""What the agent reads: clean text, bounded size, artifacts, redaction, and the other formats."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import aw

PY = sys.executable


def test_seq_two_million_is_bounded_and_the_artifact_is_exact():
    a = aw("seq", "1", "2000000")
    assert len(a.stdout) < 16 * 1024
    out = a.env["output"]["stdout"]
    assert out["truncated"] is True and out["lines"] == 2_000_000
    assert out["omitted_lines"] > 1_900_000
    art = next(x for x in a.env["artifacts"] if x["id"] == out["artifact"])
    real = subprocess.run(["seq", "1", "2000000"], capture_output=True, check=True).stdout
    path = Path(art["uri"].removeprefix("file://"))
    assert art["sha256"] == hashlib.sha256(real).hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()
    assert art["bytes"] == len(real)
    assert path.stat().st_mode & 0o777 == 0o600
    assert any(w["code"] == "OUTPUT_TRUNCATED" for w in a.env["warnings"])
    assert a.text().startswith("1\n2\n3\n") and a.text().endswith("1999999\n2000000\n")


def test_salient_lines_from_the_middle_are_kept():
    script = "for i in range(100000):\n    print('line', i)\n    if i == 50000: print('error: the needle')"
    a = aw(PY, "-c", script)
    assert "error: the needle" in a.text()


def test_artifact_show_pages_back_the_full_output():
    a = aw("seq", "1", "50000")
    art = a.env["output"]["stdout"]["artifact"]
    page = aw("artifact", "show", art, "--lines", "100:102")
    assert "100\n101\n102" in json.dumps(page.env["data"]).replace("\\n", "\n")


def test_ls_color_always_is_what_ls_color_never_prints(tmp_path):
    for name in ("dir", "exe.sh", "plain.txt", "link"):
        (tmp_path / name).touch() if name != "dir" else (tmp_path / name).mkdir()
    (tmp_path / "exe.sh").chmod(0o755)
    colored = aw("--cwd", str(tmp_path), "ls", "--color=always", "-1")
    plain = subprocess.run(["ls", "--color=never", "-1"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert colored.text() == plain
    assert colored.env["output"]["stdout"]["bytes"] > len(plain)


def test_git_colored_log_is_plain_text(tmp_path):
    run = {"cwd": tmp_path, "check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q"], **run)
    for i in range(3):
        (tmp_path / f"f{i}").write_text(str(i))
        subprocess.run(["git", "add", "."], **run)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", f"c{i}"], **run)
    a = aw("--cwd", str(tmp_path), "git", "-c", "color.ui=always", "log", "--graph", "--decorate")
    plain = subprocess.run(["git", "log", "--graph", "--decorate", "--no-color"], cwd=tmp_path,
                           capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert a.text() == plain.stdout


def test_a_carriage_return_progress_bar_leaves_its_last_state():
    a = aw("printf", "Downloading  10%%\\rDownloading  55%%\\rDownloading 100%%\\ndone\\n")
    assert a.text() == "Downloading 100%\ndone\n"


def test_invalid_utf8_is_replaced_with_a_warning():
    a = aw("printf", "ok \\377\\376 bytes\\n")
    assert a.text() == "ok \ufffd\ufffd bytes\n"
    assert any(w["code"] == "INVALID_UTF8" for w in a.env["warnings"])


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_binary_output_never_crashes():
    a = aw("head", "-c", "200000", "/dev/urandom")
    assert a.code == 0
    assert len(a.stdout) < 16 * 1024
    assert {"INVALID_UTF8", "BINARY_OUTPUT"} & {w["code"] for w in a.env["warnings"]}


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_binary_output_is_said_not_shown_and_text_with_a_stray_byte_is_shown():
    a = aw("cat", "/bin/sh", detail="concise")
    assert a.code == 0 and "output" not in a.env
    [warning] = [w for w in a.env["warnings"] if w["code"] == "BINARY_OUTPUT"]
    assert f"({os.path.getsize(os.path.realpath('/bin/sh'))} bytes)" in warning["message"]
    assert "INVALID_UTF8" not in {w["code"] for w in a.env["warnings"]}
    log = aw("printf", "build ok\\n\\377 stray\\n" + "line of text\\n" * 40, detail="concise")
    assert "\ufffd stray" in log.text() and "BINARY_OUTPUT" not in {w["code"] for w in log.env.get("warnings", [])}


@pytest.mark.slow
def test_one_line_of_100_megabytes_is_bounded():
    a = aw(PY, "-c", "import sys; sys.stdout.write('x' * 100_000_000)", timeout=300)
    assert a.code == 0
    assert a.env["output"]["stdout"]["bytes"] == 100_000_000
    assert len(a.stdout) < 16 * 1024
    assert a.env["artifacts"][0]["bytes"] == 100_000_000


def test_secrets_are_redacted_everywhere():
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    a = aw("--env", "DEPLOY_TOKEN=s3cr3t-value-123", "sh", "-c",
           f'echo "token {token}"; echo "env $DEPLOY_TOKEN"; echo "url https://bob:pa55word@example.com/x" >&2',
           "--", token)
    blob = a.stdout.decode()
    for secret in (token, "s3cr3t-value-123", "pa55word"):
        assert secret not in blob
    assert a.env["context"]["env"]["DEPLOY_TOKEN"] == "[REDACTED]"
    assert "example.com" in a.text("stderr")


def test_ordinary_hashes_are_not_redacted():
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"
    uuid = "123e4567-e89b-12d3-a456-426614174000"
    a = aw("echo", sha, uuid)
    assert a.text() == f"{sha} {uuid}\n"


def test_jsonl_stream_is_ordered_and_ends_with_the_envelope():
    from agentwrap.schema_files import load

    a = aw("--format", "jsonl", "sh", "-c",
           "printf 'step 1/4\\rstep 2/4\\rstep 3/4\\rstep 4/4\\n'; echo hello", check=False)
    events = [json.loads(line) for line in a.stdout.decode().splitlines()]
    schema = load("event")
    for e in events:
        jsonschema.validate(e, schema)
    assert events[0]["type"] == "operation_started"
    assert events[-1]["type"] == "operation_completed"
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["envelope"]["status"] == "success" and a.code == 0
    progress = [e["percent"] for e in events if e["type"] == "progress"]
    assert progress == sorted(progress) and progress
    assert "hello" in "".join(e["text"] for e in events if e["type"] == "output")


def test_jsonl_usage_error_is_still_a_stream():
    a = aw("--format", "jsonl", "--timeout", "zz", "echo", check=False)
    events = [json.loads(line) for line in a.stdout.decode().splitlines()]
    assert [e["type"] for e in events] == ["operation_started", "operation_completed"]
    assert events[-1]["status"] == "error" and a.code == 125


def test_problem_format_prints_only_the_problem_on_error():
    a = aw("--format", "problem", "sh", "-c", "exit 4", check=False)
    problem = json.loads(a.stdout)
    assert a.code == 4
    assert problem["code"] == "COMMAND_FAILED" and "schema_version" not in problem
    ok = aw("--format", "problem", "true", check=False)
    assert json.loads(ok.stdout)["status"] == "success"


def test_fields_and_detail_project_the_envelope():
    a = aw("--fields", "exit.code,output.stdout.text", "echo", "hi", check=False)
    env = json.loads(a.stdout)
    assert env["exit"] == {"code": 0} and env["output"] == {"stdout": {"text": "hi\n"}}
    assert "metrics" not in env and env["status"] == "success"
    concise = json.loads(aw("--detail", "concise", "echo", "hi", check=False).stdout)
    assert "context" not in concise and concise["output"]["stdout"]["text"] == "hi\n"


def test_pretty_format_shows_output_and_the_fix():
    a = aw("--format", "pretty", "sh", "-c", "echo out; exit 2", agent=False, check=False)
    text = a.stdout.decode()
    assert "out" in text and "COMMAND_FAILED" in text and "\x1b" not in text
    assert a.code == 2
