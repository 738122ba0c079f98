"""A shell line's commands whose adapters name secrets after the run (terraform's sensitive values, a kubectl
Secret's data): no live output event carries the line's text, and the values leave the envelope and its
artifacts whichever command decides the line (`... | cat` is decided by cat). Real bash, terraform, kubectl."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

SECRET = "sh3ll-Sup3rS3cretValue"
CONFIG = f'''output "pw" {{
  value     = "{SECRET}"
  sensitive = true
}}
output "plain" {{
  value = "hello"
}}
'''


def _clean(stdout: bytes, envelope: dict, *values: str) -> None:
    for value in values:
        assert value.encode() not in stdout
    for ref in envelope.get("artifacts", []):
        on_disk = Path(ref["uri"].removeprefix("file://")).read_bytes()
        shown = aw("artifact", "show", ref["id"], "--limit", "1000000")
        for value in values:
            assert value.encode() not in on_disk and value.encode() not in shown.stdout


def _jsonl(*args: str) -> tuple[bytes, list[dict]]:
    answer = aw("--format", "jsonl", *args, check=False)
    return answer.stdout, [json.loads(line) for line in answer.stdout.decode().splitlines()]


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("terraform") is None:
        pytest.skip("terraform is not installed")
    work = tmp_path_factory.mktemp("tf")
    (work / "main.tf").write_text(CONFIG)
    for args in (["init", "-input=false"], ["apply", "-auto-approve", "-input=false"]):
        subprocess.run(["terraform", *args, "-no-color"], cwd=work, capture_output=True, check=True)
    return work


@pytest.mark.slow
@pytest.mark.parametrize("line", ["terraform output -json", "terraform output -raw pw; echo; echo done",
                                  "terraform output -json | cat"])
def test_a_lines_terraform_values_reach_no_event_and_no_field(applied, line):
    stdout, events = _jsonl("--cwd", str(applied), "--shell", line)
    assert SECRET.encode() not in stdout
    assert not [e for e in events if e["type"] == "output"]
    assert "OUTPUT_EVENTS_WITHHELD" in [e.get("code") for e in events if e["type"] == "warning"]
    for detail in ("concise", "standard", "detailed"):
        answer = aw("--cwd", str(applied), "--detail", detail, "--max-inline-bytes", "256", "--shell", line)
        assert answer.env["status"] == "success"
        _clean(answer.stdout, answer.env, SECRET)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_a_secret_piped_through_cat_is_hidden_though_cat_decides():
    value = "pip3d-S3cret-value"
    line = f"kubectl create secret generic x --from-literal=k={value} --dry-run=client -o yaml | cat"
    printed = base64.b64encode(value.encode()).decode()
    stdout, events = _jsonl("--shell", line)
    assert events[-1]["envelope"]["status"] == "success"
    assert value.encode() not in stdout and printed.encode() not in stdout  # the started event's argv too
    for detail in ("concise", "standard", "detailed"):
        answer = aw("--detail", detail, "--shell", line)
        _clean(answer.stdout, answer.env, value, printed)
        assert "[REDACTED]" in answer.stdout.decode()


@pytest.mark.slow
def test_a_line_without_such_a_command_still_streams(tmp_path):
    _, events = _jsonl("--cwd", str(tmp_path), "--shell", "echo hello; echo there")
    assert [e for e in events if e["type"] == "output"]
    assert "argv" in events[0]
