"""`terraform state pull` prints the state as JSON without -json: every value in clear, the ones the
configuration marks sensitive beside `"sensitive": true` (outputs) or named by a resource instance's
`sensitive_attributes` paths. agentwrap hides them in the envelope, the artifact and `artifact show` alike,
whatever their names or shapes (a secret-looking name or value was hidden before; `note` or `pin` were not)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("terraform") is None, reason="terraform is not installed")

SECRET = "plain words nobody would flag 7731"
CONFIG = """variable "note" {
  type      = string
  sensitive = true
}
resource "terraform_data" "db" {
  input = {
    note = var.note
    host = "db.internal"
  }
}
output "pin" {
  value     = var.note
  sensitive = true
}
output "host" {
  value = terraform_data.db.input.host
}
"""


def test_state_pull_hides_what_the_state_marks_sensitive(tmp_path: Path) -> None:
    work = tmp_path / "tf"
    work.mkdir()
    (work / "main.tf").write_text(CONFIG)
    for argv in (["init", "-input=false"], ["apply", "-auto-approve", "-input=false", "-var", f"note={SECRET}"]):
        subprocess.run(["terraform", *argv, "-no-color"], cwd=work, capture_output=True, check=True, timeout=120)
    raw = subprocess.run(["terraform", "state", "pull"], cwd=work, capture_output=True, text=True).stdout
    assert raw.count(SECRET) >= 3  # the output, the resource's input and its output, all in clear

    state = tmp_path / "state"
    got = aw("--cwd", str(work), "--max-inline-bytes", "256", "--", "terraform", "state", "pull",
             env={"AGENTWRAP_STATE_DIR": str(state)})
    assert got.code == 0 and SECRET not in got.stdout.decode()
    assert "db.internal" in got.stdout.decode() or got.env["output"]["stdout"]["artifact"]  # the rest stays
    artifact = got.env["output"]["stdout"]["artifact"]
    shown = aw("artifact", "show", artifact, env={"AGENTWRAP_STATE_DIR": str(state)})
    assert SECRET not in shown.stdout.decode() and "db.internal" in shown.stdout.decode()


@pytest.mark.parametrize("words", [["show"], ["state", "show", "terraform_data.db"]])
def test_show_hides_a_sensitive_value_a_provider_copied_in_clear(tmp_path: Path, words: list[str]) -> None:
    """terraform prints `note = (sensitive value)` in the input, and the same value in clear in the
    output attribute terraform_data copied it to: the state says it is sensitive, so agentwrap hides it."""
    work = tmp_path / "tf"
    work.mkdir()
    (work / "main.tf").write_text(CONFIG)
    for argv in (["init", "-input=false"], ["apply", "-auto-approve", "-input=false", "-var", f"note={SECRET}"]):
        subprocess.run(["terraform", *argv, "-no-color"], cwd=work, capture_output=True, check=True, timeout=120)
    raw = subprocess.run(["terraform", *words, "-no-color"], cwd=work, capture_output=True, text=True).stdout
    assert SECRET in raw and "(sensitive value)" in raw
    got = aw("--cwd", str(work), "--", "terraform", *words)
    assert got.code == 0 and SECRET not in got.stdout.decode()
    assert "db.internal" in got.env["output"]["stdout"]["text"]
