"""Secrets an adapter names (Interpretation.secrets) leave every field and every artifact: terraform's values
marked `"sensitive": true`, a kubectl Secret's data. Real terraform and kubectl where installed, real
artifact files always."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.artifacts import ArtifactStore, check_intact, rewrite_hidden

SECRET = "hunter2-Sup3rS3cretValue"
ATTRIBUTE = "R3sourceS3cretPass"
CONFIG = f'''variable "pw" {{
  type      = string
  default   = "{SECRET}"
  sensitive = true
}}
output "db_pw" {{
  value     = var.pw
  sensitive = true
}}
output "plain" {{
  value = "hello"
}}
resource "terraform_data" "r" {{
  input = {{ user = "admin", pass = sensitive("{ATTRIBUTE}") }}
}}
'''


def _artifact_files() -> dict[str, bytes]:
    folder = Path(os.environ["AGENTWRAP_CACHE_DIR"]) / "artifacts"
    return {p.name: p.read_bytes() for p in folder.glob("art_*.txt")} if folder.is_dir() else {}


def _assert_clean(answer_stdout: bytes, env: dict, *values: str) -> None:
    """No value in the envelope's bytes, in any artifact it names (on disk and through `artifact show`)."""
    for value in values:
        assert value.encode() not in answer_stdout
    for ref in env.get("artifacts", []):
        on_disk = Path(ref["uri"].removeprefix("file://")).read_bytes()
        shown = aw("artifact", "show", ref["id"], "--limit", "1000000")
        assert shown.env["status"] == "success", shown.env  # its bytes and sha256 still verify
        for value in values:
            assert value.encode() not in on_disk
            assert value.encode() not in shown.stdout


def test_rewrite_finds_a_value_across_every_chunk_boundary(tmp_path):
    store = ArtifactStore(tmp_path)
    text = b"".join(b"line %d: token=abcdefgh and abcdefgh-longer here\n" % i for i in range(40))
    for chunk in (1, 2, 3, 5, 7, 8, 9, 64, 1 << 20):
        with store.create(name="stdout") as writer:
            writer.write(text)
        ref = writer.close()
        new, count = rewrite_hidden(ref, [b"abcdefgh", b"abcdefgh-longer"], b"[REDACTED]", chunk=chunk)
        whole = text.replace(b"abcdefgh-longer", b"[REDACTED]").replace(b"abcdefgh", b"[REDACTED]")
        assert Path(new.path).read_bytes() == whole, chunk
        assert count == 80
        stored = store.get(ref.id)  # the sidecar says the new size and sha256
        assert (stored.bytes, stored.sha256) == (new.bytes, new.sha256)
        with open(stored.path, "rb") as fh:
            check_intact(stored, fh)


needs_terraform = pytest.mark.skipif(shutil.which("terraform") is None, reason="terraform is not installed")


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("terraform") is None:
        pytest.skip("terraform is not installed")
    work = tmp_path_factory.mktemp("tf")
    (work / "main.tf").write_text(CONFIG)
    for args in (["init", "-input=false"], ["apply", "-auto-approve", "-input=false"],
                 ["plan", "-input=false", "-out=tfplan"]):
        subprocess.run(["terraform", *args, "-no-color"], cwd=work, capture_output=True, check=True)
    return work


@needs_terraform
@pytest.mark.slow
@pytest.mark.parametrize("budget", ["4096", "256"])  # inline and kept whole, or spilled while it ran
@pytest.mark.parametrize("args", [("output", "-json"), ("show", "-json"), ("show", "-json", "tfplan")])
def test_terraform_sensitive_values_are_in_no_view_and_no_artifact(applied, args, budget):
    raw = subprocess.run(["terraform", *args], cwd=applied, capture_output=True, text=True).stdout
    assert SECRET in raw  # terraform itself prints them
    for detail in ("concise", "standard", "detailed"):
        answer = aw("--cwd", str(applied), "--max-inline-bytes", budget, "--detail", detail, "--", "terraform", *args)
        assert answer.env["status"] == "success"
        _assert_clean(answer.stdout, answer.env, SECRET, ATTRIBUTE)
    assert any(w["code"] == "REDACTED" for w in answer.env["warnings"])
    if args[0] == "output":
        assert answer.env["data"]["outputs"] == {"db_pw": "<sensitive>", "plain": "hello"}
        assert "hello" in (answer.env["output"]["stdout"]["text"] or Path(
            answer.env["artifacts"][0]["uri"].removeprefix("file://")).read_text())  # the rest stays


@needs_terraform
@pytest.mark.slow
def test_terraform_jsonl_sends_no_output_event_before_the_values_are_hidden(applied):
    answer = aw("--cwd", str(applied), "--format", "jsonl", "--", "terraform", "output", "-json", check=False)
    events = [json.loads(line) for line in answer.stdout.decode().splitlines()]
    assert SECRET.encode() not in answer.stdout
    assert not [e for e in events if e["type"] == "output"]
    assert [e["code"] for e in events if e["type"] == "warning"] == ["OUTPUT_EVENTS_WITHHELD"]
    assert events[-1]["envelope"]["data"]["outputs"]["db_pw"] == "<sensitive>"
    ledger = Path(os.environ["AGENTWRAP_STATE_DIR"]) / "stats.jsonl"
    assert not ledger.exists() or SECRET not in ledger.read_text()


needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")


@needs_kubectl
@pytest.mark.slow
@pytest.mark.parametrize("budget", ["4096", "256"])
@pytest.mark.parametrize("form", ["yaml", "json"])
def test_kubectl_secret_data_is_hidden_as_printed_and_decoded(form, budget):
    value, other = "v4lue-S3cret-one", "an0ther-S3cret-value-that-is-long"
    argv = ["kubectl", "create", "secret", "generic", "x", f"--from-literal=k={value}",
            f"--from-literal=pw={other}", "--dry-run=client", "-o", form]
    raw = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    import base64

    printed = [base64.b64encode(v.encode()).decode() for v in (value, other)]
    assert all(p in raw for p in printed)
    answer = aw("--max-inline-bytes", budget, "--", *argv)
    assert answer.env["status"] == "success"
    _assert_clean(answer.stdout, answer.env, value, other, *printed)
    assert "[REDACTED]" in answer.stdout.decode()


@needs_kubectl
def test_kubectl_secret_jsonl_events_hold_no_value_not_even_the_argvs():
    """--from-literal=k=VALUE is in the argv: `operation_started` must not echo it (the value is known to be
    a secret only once the adapter has read the output)."""
    value = "l1teral-S3cret-in-argv"
    answer = aw("--format", "jsonl", "--", "kubectl", "create", "secret", "generic", "x",
                f"--from-literal=k={value}", "--dry-run=client", "-o", "yaml", check=False)
    lines = answer.stdout.decode().splitlines()
    assert any('"operation_started"' in line for line in lines)
    assert value not in answer.stdout.decode()


@needs_kubectl
@pytest.mark.slow
def test_kubectl_jsonpath_of_a_secrets_data_is_the_secret():
    """`-o jsonpath={.data.k}` prints the value alone: the adapter names each word of it, printed and decoded."""
    import base64

    from agentwrap.adapters import _kubectl_parse as kp

    argv = ["kubectl", "create", "secret", "generic", "x", "--from-literal=k=pick3d-S3cret-value",
            "--dry-run=client", "-o", "jsonpath={.data.k}"]
    printed = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    assert printed == base64.b64encode(b"pick3d-S3cret-value").decode()
    answer = aw("--", *argv)
    _assert_clean(answer.stdout, answer.env, printed, "pick3d-S3cret-value")
    assert kp.picked_values(printed, ("kubectl", "get", "secret", "x", "-o", "jsonpath={.metadata.name}")) == []
    assert kp.names_a_secret(["kubectl", "get", "configmap,secret", "-o", "yaml"])
    assert not kp.names_a_secret(["kubectl", "get", "secrets"])  # the table shows no value


@needs_terraform
@pytest.mark.slow
def test_pretty_on_a_terminal_shows_no_sensitive_value_live(applied):
    """A person's live view comes before the adapter names the secrets: such a run is shown at its end."""
    import sys

    import pexpect

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    child = pexpect.spawn(sys.executable, ["-m", "agentwrap", "--cwd", str(applied), "--", "terraform", "output",
                                           "-json"], env=env, timeout=60, dimensions=(50, 120))
    child.expect(pexpect.EOF)
    child.close()
    seen = child.before.decode()
    assert SECRET not in seen
    assert "hello" in seen and "[REDACTED]" in seen  # the rest of the output is shown, once, at the end


@needs_terraform
@pytest.mark.slow
@pytest.mark.parametrize("args", [("output", "-raw", "db_pw"), ("output", "-json", "db_pw"), ("output", "db_pw")])
def test_terraform_one_sensitive_output_printed_bare_is_hidden(applied, args):
    """`output -raw NAME` prints the value and nothing that says it is sensitive: the local state says so."""
    raw = subprocess.run(["terraform", *args], cwd=applied, capture_output=True, text=True).stdout
    assert SECRET in raw
    for detail in ("concise", "standard", "detailed"):
        answer = aw("--cwd", str(applied), "--detail", detail, "--", "terraform", *args)
        assert answer.env["status"] == "success"
        assert "[REDACTED]" in json.dumps(answer.env)
        _assert_clean(answer.stdout, answer.env, SECRET)
    stored = _artifact_files()
    assert stored and not [name for name, data in stored.items() if SECRET.encode() in data]
    events = aw("--cwd", str(applied), "--format", "jsonl", "--", "terraform", *args, check=False)
    assert SECRET.encode() not in events.stdout and b"OUTPUT_EVENTS_WITHHELD" in events.stdout


@needs_terraform
@pytest.mark.slow
def test_terraform_one_output_keeps_a_plain_value_and_hides_what_no_state_vouches_for(applied, tmp_path):
    plain = aw("--cwd", str(applied), "--", "terraform", "output", "-raw", "plain")
    assert plain.env["data"] == {"name": "plain", "value": "hello"}  # the state says it is not sensitive
    # TF_DATA_DIR moves the backend's record where agentwrap does not look: whether it is sensitive is unknown
    env = {**os.environ, "TF_DATA_DIR": str(tmp_path / "data")}
    unknown = subprocess.run([sys.executable, "-m", "agentwrap", "--cwd", str(applied), "--", "terraform", "output",
                              "-raw", "plain"], capture_output=True, env=env)
    answer = json.loads(unknown.stdout)
    assert answer["status"] == "success" and answer["data"]["value"] == "[REDACTED]"
    assert b"hello" not in unknown.stdout
