"""A plain command action of a run in another folder (`--cwd sub`) carries that folder (`cwd`, absolute):
run as the envelope gives it, from the caller's folder, it fixes the file the program read (CONTRACT 3)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")


def _run_as_given(action: dict[str, Any], caller: Path) -> subprocess.CompletedProcess[bytes]:
    """The action run by a caller in `caller`: its command, in its `cwd` when it names one."""
    return subprocess.run(action["command"], cwd=action.get("cwd", caller), capture_output=True, timeout=60)


def _unused_import(caller: Path) -> Path:
    (caller / "sub").mkdir()
    source = caller / "sub" / "a.py"
    source.write_text("import os\n\nprint(1)\n")
    (caller / "a.py").write_text("import os\n\nprint(2)\n")  # the same name in the caller's folder: untouched
    return source


def test_a_fix_of_a_run_in_another_folder_fixes_that_folders_file_from_the_callers(tmp_path):
    source = _unused_import(tmp_path)
    error = aw("--cwd", "sub", "--", "ruff", "check", "--no-cache", "a.py", cwd=tmp_path).error
    fix = next(a for a in error["code_actions"] if a["is_preferred"])
    assert fix["command"][:3] == ["ruff", "check", "--fix"]  # the tool's own command, as without --cwd
    assert fix["cwd"] == str(tmp_path / "sub")
    done = _run_as_given(fix, tmp_path)
    assert done.returncode == 0, done.stdout
    assert source.read_text() == "\nprint(1)\n"
    assert (tmp_path / "a.py").read_text() == "import os\n\nprint(2)\n"


def test_the_concise_envelope_keeps_the_actions_folder(tmp_path):
    _unused_import(tmp_path)
    error = aw("--cwd", "sub", "--", "ruff", "check", "--no-cache", "a.py", cwd=tmp_path, detail="concise").error
    assert next(a for a in error["code_actions"] if a["is_preferred"])["cwd"] == str(tmp_path / "sub")


def test_a_run_in_the_callers_own_folder_keeps_the_plain_command(tmp_path):
    _unused_import(tmp_path)
    for extra in ((), ("--cwd", ".")):
        error = aw(*extra, "--", "ruff", "check", "--no-cache", "a.py", cwd=tmp_path).error
        fix = next(a for a in error["code_actions"] if a["is_preferred"])
        assert fix["command"][:3] == ["ruff", "check", "--fix"] and "cwd" not in fix
