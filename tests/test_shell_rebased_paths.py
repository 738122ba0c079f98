"""A shell line's command that ran after `cd`: its problem's location and the edit that fixes it name
one file, from the caller's folder (`cd sub && cargo build` prints `src/main.rs`)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")

MAIN = 'fn main() {\n    let widht = 3;\n    println!("{}", width);\n}\n'


def test_the_edit_names_the_file_the_location_names(tmp_path):
    crate = tmp_path / "sub"
    subprocess.run(["cargo", "init", "-q", "--offline", "--name", "demo", str(crate)], check=True,
                   capture_output=True)
    (crate / "src" / "main.rs").write_text(MAIN)
    error = aw("--shell", "cd sub && cargo build -q --offline", cwd=tmp_path, timeout=180).error
    assert error["location"]["file"] == "sub/src/main.rs"
    edits = [a["edit"] for a in error["code_actions"] if a.get("kind") == "edit"]
    assert edits and all(e["file"] == "sub/src/main.rs" for e in edits)
    # applied from the caller's folder, the edit fixes the build
    edit = edits[0]
    lines = (tmp_path / edit["file"]).read_text().splitlines(keepends=True)
    row = lines[edit["line"] - 1]
    lines[edit["line"] - 1] = row[:edit["column"] - 1] + edit["replace"] + row[edit["end_column"] - 1:]
    (tmp_path / edit["file"]).write_text("".join(lines))
    assert aw("--shell", "cd sub && cargo build -q --offline", cwd=tmp_path, timeout=180).code == 0
