"""`npm run SCRIPT` through agentwrap: npm's header before a script (`> demo@1.0.0 build`, then `> ` and each
line of the script's command) restates what the caller ran, so the concise text leaves it out; the
script's own output stays, a code frame's `> 1 | ...` line included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("npm"), reason="npm not installed (apt-get install -y npm)")

# what a linter's code frame prints at column 0 (ESLint's codeframe formatter, Babel's code frames)
_FRAME = "> 1 | const x = 1;"


def _project(folder: Path, **fields: object) -> Path:
    (folder / "build.js").write_text(f"console.log('built ok');\nconsole.log({json.dumps(_FRAME)});\n")
    scripts = {"build": "node build.js", "two": "echo one &&\necho two"}
    (folder / "package.json").write_text(json.dumps({"name": "demo", "scripts": scripts, **fields}))
    return folder


def _concise_stdout(folder: Path, *args: str) -> list[str]:
    env = aw("--cwd", str(folder), "npm", *args, detail="concise").env
    assert env["status"] == "success", env
    return env["output"]["stdout"]["text"].splitlines()


@pytest.mark.parametrize("version", [{"version": "1.0.0"}, {}])  # `> demo@1.0.0 build`, or `> build`
def test_the_script_header_is_left_out_and_the_scripts_output_kept(tmp_path, version):
    proj = _project(tmp_path, **version)
    assert _concise_stdout(proj, "run", "build") == ["built ok", _FRAME]


def test_each_line_of_a_multi_line_command_goes_with_the_header(tmp_path):
    assert _concise_stdout(_project(tmp_path), "run", "two") == ["one", "two"]


def test_the_standard_text_still_has_the_header(tmp_path):
    out = aw("--cwd", str(_project(tmp_path, version="1.0.0")), "npm", "run", "build").env["output"]
    assert "> demo@1.0.0 build\n> node build.js\n" in out["stdout"]["text"]
