"""Plan, apply, verify on pip install, in a fresh virtual environment with a local wheel folder (no network)."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import aw


def _wheel(folder: Path, name: str, version: str) -> None:
    """A minimal pure-Python wheel, written as the wheel spec says (PEP 427): module, METADATA, WHEEL, RECORD."""
    info = f"{name}-{version}.dist-info"
    files = {f"{name}.py": f"VERSION = {version!r}\n",
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(text)}")
        z.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
    return path


@pytest.mark.slow  # a long real run: the `-m slow` step
def test_pip_plan_apply_verify_and_drift(venv: Path, tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "tinypkg", "1.0")
    argv = [str(venv / "bin" / "pip"), "install", "--no-index", "--find-links", str(wheels), "tinypkg"]
    env = {"PIP_FIND_LINKS": ""}
    plan = aw("plan", "--", *argv, env=env)
    assert plan.code == 0, plan.env
    facts = plan.env["data"]
    assert facts["proposed_effects"] == [{"resource": "python-package:tinypkg", "action": "create",
                                          "from": None, "to": "1.0"}]
    assert facts["fingerprint"]["resolution"] == {"tinypkg": "1.0"}
    _wheel(wheels, "tinypkg", "1.1")  # a newer release appears on the index between plan and apply
    drift = aw("apply", facts["plan_id"], env=env)
    assert drift.error is not None and drift.error["code"] == "PLAN_DRIFT"
    assert "tinypkg 1.1" in drift.error["detail"]
    listed = subprocess.run([str(venv / "bin" / "pip"), "list"], capture_output=True, text=True).stdout
    assert "tinypkg" not in listed  # nothing was installed
    again = aw("plan", "--", *argv, env=env).env["data"]
    applied = aw("apply", again["plan_id"], "--expect-hash", again["digest"], env=env)
    assert applied.code == 0, applied.env
    assert applied.env["verification"]["passed"] is True
    assert applied.env["verification"]["checks"][0]["actual"] == "1.1"
