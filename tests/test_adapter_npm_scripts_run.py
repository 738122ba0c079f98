"""What `npm run SCRIPT` and npx say of the tools they run: the script's tools get the environment they get
when run directly (tsc's NO_COLOR, which keeps its related places), and no other script's changes; a failed
script is named in the summary; npx's packages are words, not npm's JSON list."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import aw

from agentwrap import registry

_SCRIPTS = {"build": "tsc", "lint": "eslint src", "t2": "false", "b2": "npx tsc", "loop": "npm run loop"}


def _project(folder: Path) -> Path:
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": "demo", "version": "1.0.0", "scripts": _SCRIPTS}))
    (folder / "tsconfig.json").write_text('{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}')
    (folder / "src/a.ts").write_text('interface P { name: string; age: number }\nconst p: P = { name: "a" };\n')
    return folder


def test_a_script_gets_the_environment_of_its_tools_and_only_of_them(tmp_path: Path):
    _project(tmp_path)
    npm = registry.builtin("npm")
    build, _ = registry.launch(npm, ["npm", "run", "build"], str(tmp_path))
    assert build.get("NO_COLOR") == ""  # tsc's: it prints related places only when NO_COLOR is unset
    assert build["npm_config_yes"] == "false"  # npm's own stays
    lint, _ = registry.launch(npm, ["npm", "run", "lint"], str(tmp_path))
    assert "NO_COLOR" not in lint
    prefixed, _ = registry.launch(npm, ["npm", "--prefix", str(tmp_path), "run", "build"], "/")
    assert prefixed.get("NO_COLOR") == ""
    nested, _ = registry.launch(npm, ["npm", "run", "b2"], str(tmp_path))  # a script that launches tsc
    assert nested.get("NO_COLOR") == ""
    looped, _ = registry.launch(npm, ["npm", "run", "loop"], str(tmp_path))  # ends though the script runs itself
    assert "NO_COLOR" not in looped
    _, effects = registry.launch(npm, ["npm", "run", "build"], str(tmp_path))
    assert effects.read_only is None  # a script may do more than its tools: its effects stay unknown


def test_npm_run_of_tsc_keeps_the_related_place(tmp_path: Path):
    if shutil.which("tsc") is None or shutil.which("npm") is None:
        pytest.skip("tsc or npm is not installed")
    error = aw("--cwd", str(_project(tmp_path)), "npm", "run", "build", detail="concise").error
    assert error["code"] == "TSC_TYPE_ERROR"
    assert error["notes"] == ["src/a.ts:1:29: 'age' is declared here."]


def test_a_failed_script_is_named_in_the_summary(tmp_path: Path):
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    env = aw("--cwd", str(_project(tmp_path)), "npm", "run", "t2", detail="concise").env
    assert env["error"]["code"] == "NPM_SCRIPT_FAILED"
    assert env["summary"] == "npm run t2: false exited with status 1"  # was `npm run: package.json script failed`


def test_npx_names_its_packages_in_words():
    from agentwrap.adapters import npm
    from agentwrap.capture import StreamResult
    from agentwrap.sdk import CapturedRun

    empty = StreamResult("", 0, 0, False, 0, None)
    line = 'npm error npx canceled due to missing packages and no YES option: ["cowsay@1.6.0","left-pad"]\n'
    run = CapturedRun(argv=("npx", "cowsay@1.6.0", "hi"), program="npx", exit_code=1, signal=None, stdout=empty,
                      stderr=empty, stderr_text=line)
    interp = npm.ADAPTER.interpret(run)
    assert interp.error is not None and interp.error.detail is not None
    assert interp.error.detail.startswith("npx needs to download cowsay@1.6.0, left-pad and")
    assert all("[" not in (p.detail or "") for p in interp.problems)
