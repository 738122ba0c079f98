"""`agentwrap capture` records a fixture someone will share: the program runs once (never again as
`PROGRAM --version` unasked), and the secrets the run's envelope hides are hidden from the fixture's
bytes, argv and name too."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import aw

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def _tool(tmp_path, name, body):
    tools = tmp_path / "bin"
    tools.mkdir(exist_ok=True)
    path = tools / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return {"PATH": f"{tools}:{os.environ['PATH']}", "AGENTWRAP_ADAPTER_DIR": str(tmp_path / "adapters")}


def test_capture_runs_an_unknown_program_once(tmp_path):
    log = tmp_path / "runs.log"
    env = _tool(tmp_path, "deploy", f'echo "$*" >> {log}\necho deployed\n')
    answer = aw("capture", "--dir", str(tmp_path / "fx"), "--", "deploy", "prod", env=env)
    assert answer.code == 0
    assert log.read_text() == "prod\n"  # no `deploy --version`: it would have deployed again
    meta = json.loads((tmp_path / "fx" / "generic" / "prod.meta.json").read_text())
    assert meta["tool_version"] is None


def test_a_version_command_is_run_when_the_caller_asks(tmp_path):
    env = _tool(tmp_path, "deploy", 'case "$1" in version) echo "deploy 1.2.3" ;; *) echo deployed ;; esac\n')
    aw("capture", "--dir", str(tmp_path / "fx"), "--version-command", "deploy version", "--", "deploy",
       "prod", env=env)
    meta = json.loads((tmp_path / "fx" / "generic" / "prod.meta.json").read_text())
    assert (meta["tool_version"], meta["version_command"]) == ("deploy 1.2.3", ["deploy", "version"])


def test_a_failed_version_command_records_no_version(tmp_path):
    env = _tool(tmp_path, "greet", 'echo "error: guest $1 not found" >&2\nexit 2\n')
    aw("capture", "--dir", str(tmp_path / "fx"), "--version-command", "greet --version", "--name", "x", "--",
       "greet", "bob", env=env)
    assert json.loads((tmp_path / "fx" / "generic" / "x.meta.json").read_text())["tool_version"] is None


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_builtin_adapters_tool_gets_its_version(tmp_path):
    aw("capture", "--dir", str(tmp_path / "fx"), "--name", "v", "--", "git", "--version")
    meta = json.loads((tmp_path / "fx" / "git" / "v.meta.json").read_text())
    assert meta["tool_version"].startswith("git version ")


LEAKY = f'echo "token is $API_TOKEN"\necho "Authorization: Bearer {TOKEN}"\necho "args $*" >&2\n'


def _fixture_text(folder) -> str:
    return "\n".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def test_a_fixture_holds_no_secret_the_envelope_hides(tmp_path):
    env = _tool(tmp_path, "leaky", LEAKY)
    answer = aw("capture", "--dir", str(tmp_path / "fx"), "--name", "leak",
                "--env", "API_TOKEN=s3cr3tvalue123", "--", "leaky", f"--token={TOKEN}", "--password", "hunter2",
                env=env)
    text = _fixture_text(tmp_path / "fx")
    for secret in ("s3cr3tvalue123", TOKEN, "hunter2"):
        assert secret not in text
    assert "token is [REDACTED]" in (tmp_path / "fx" / "generic" / "leak.out").read_text()
    meta = json.loads((tmp_path / "fx" / "generic" / "leak.meta.json").read_text())
    assert meta["argv"] == ["leaky", "--token=[REDACTED]", "--password", "[REDACTED]"]
    (warning,) = [w for w in answer.env["warnings"] if w["code"] == "REDACTED"]
    assert warning["message"].startswith("6 secrets were redacted from the fixture")


@pytest.mark.parametrize(("args", "name"), [(["--password", "hunter2"], "password"),
                                            (["deploy", f"--token={TOKEN}"], "deploy")])
def test_a_case_name_is_never_made_of_a_secret_and_the_reported_path_exists(tmp_path, args, name):
    env = _tool(tmp_path, "leaky", LEAKY)
    answer = aw("capture", "--dir", str(tmp_path / "fx"), "--", "leaky", *args, env=env)
    assert answer.env["data"]["case"] == str(tmp_path / "fx" / "generic" / name)
    assert all(os.path.exists(path) for path in answer.env["data"]["files"])
