"""tsc through agentwrap: every `error TSnnnn` is a located problem equal to tsc's own plain output (tsc has no
JSON), in its plain and its pretty form; a missing @types package carries tsc's own install command; option
and project errors are named; other tools' lines in a saved log are never read as tsc's.

Needs tsc on PATH (`npm install -g typescript`); skipped otherwise.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.adapter import CapturedRun
from agentwrap.adapters.tsc import ADAPTER
from agentwrap.capture import StreamResult

TSC = shutil.which("tsc")
needs_tsc = pytest.mark.skipif(TSC is None, reason="tsc not installed (npm install -g typescript)")

TSCONFIG = ('{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2020", "module": "commonjs", '
            '"types": [] }, "include": ["src"] }\n')
MAIN = '''import { helper } from "./missing";

interface User { name: string; age: number }

const user: User = { name: "ada", age: "36" };
function greet(u: User): string {
  return u.age;
}
greet({ name: "bob" });
console.log(process.env.HOME, helper, user);
'''
UTIL = '''type Point = { x: number; y: string };
export const p: Point = { x: 1 } as unknown as { x: string; y: string };
export function f(a) { return a }
'''
PLAIN = re.compile(r"^(?P<file>\S+)\((?P<line>\d+),(?P<column>\d+)\): error (?P<code>TS\d+):", re.M)


def _project(tmp: Path) -> Path:
    (tmp / "tsconfig.json").write_text(TSCONFIG)
    (tmp / "src").mkdir()
    (tmp / "src" / "main.ts").write_text(MAIN)
    (tmp / "src" / "util.ts").write_text(UTIL)
    return tmp


def _own(project: Path) -> list[tuple[str, int, int, str]]:
    assert TSC is not None
    out = subprocess.run([TSC, "-p", ".", "--pretty", "false"], capture_output=True, text=True, cwd=project)
    return [(m["file"], int(m["line"]), int(m["column"]), m["code"]) for m in PLAIN.finditer(out.stdout)]


@needs_tsc
@pytest.mark.parametrize("form", [[], ["--pretty"]], ids=["as-run", "pretty"])
def test_locations_and_codes_equal_tscs_plain_output(tmp_path, form):
    assert TSC is not None
    project = _project(tmp_path)
    answer = aw("--", TSC, "-p", ".", *form, cwd=project)
    own = _own(project)
    assert len(own) >= 6
    assert [(p["location"]["file"], p["location"]["line"], p["location"]["column"], p["rule"])
            for p in answer.env["problems"]] == own
    assert answer.code == 1 and answer.env["command"]["adapter"] == "tsc"
    assert answer.env["data"] == {"errors": len(own), "warnings": 0, "files": 2}
    chained = next(p for p in answer.env["problems"] if p["location"]["file"] == "src/util.ts")
    assert chained["notes"][0] == "Types of property 'x' are incompatible."


@needs_tsc
@pytest.mark.parametrize("form", [["--pretty", "false"], ["--pretty"]], ids=["plain", "pretty"])
def test_the_concise_detail_is_tscs_message_without_a_stray_place(tmp_path, form):
    """`src/b.ts:1:21 - error TS2305: ...` once read `21 - error TS2305` in the concise view (a strip of
    `file:line:` left the column) and the plain `src/b.ts(1,21): ...` kept its place: the location says it."""
    assert TSC is not None
    project = _project(tmp_path)
    concise = aw("--", TSC, "-p", ".", *form, cwd=project, detail="concise").env
    shown = [concise["error"], *concise.get("problems", [])]
    assert all(re.match(r"error TS\d+: ", p["detail"]) for p in shown), [p["detail"] for p in shown]
    unchained = [p for p in shown if "notes" not in p and p["code"] == "TSC_TYPE_ERROR"]
    assert unchained and all("notes" not in (p.get("suggested_fix") or "") for p in unchained)


@needs_tsc
def test_missing_module_and_type_definitions(tmp_path):
    assert TSC is not None
    answer = aw("--", TSC, "-p", ".", cwd=_project(tmp_path))
    assert answer.error["code"] == "TSC_IMPORT_NOT_FOUND" and answer.error["rule"] == "TS2307"  # ./missing
    node = next(p for p in answer.env["problems"] if p["rule"] in ("TS2591", "TS2580"))
    assert node["code_actions"][0]["command"] == ["npm", "i", "--save-dev", "@types/node"]
    assert node["code_actions"][0]["applicability"] == "maybe_incorrect"


@needs_tsc
@pytest.mark.parametrize("via", ["tsc", "npm run build"])
def test_a_relative_import_of_a_missing_file_is_a_wrong_path_not_a_package(tmp_path, via):
    """`import { missing } from "./nope"`: no package can provide it, so the fix names the files tsc looked
    for and says the path is wrong or the file is missing; it is not retryable and offers no npm install.
    A bare specifier (`left-pad-nope`) stays a missing package."""
    assert TSC is not None
    if via != "tsc" and not shutil.which("npm"):
        pytest.skip("npm not installed")
    (tmp_path / "tsconfig.json").write_text(TSCONFIG)
    (tmp_path / "package.json").write_text('{"name": "rel", "version": "1.0.0", "scripts": {"build": "tsc"}}')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "index.ts").write_text('import { missing } from "./nope";\nimport { up } from "../lib/gone";\n'
                                               'import pad from "left-pad-nope";\nconsole.log(missing, up, pad);\n')
    argv = ["--", TSC, "-p", "."] if via == "tsc" else ["npm", "run", "build"]
    c = aw(*argv, cwd=tmp_path, detail="concise").env
    error = c["error"]
    assert (error["code"], error["category"], error["retryable"]) == ("TSC_IMPORT_NOT_FOUND", "not_found", False)
    fix = error["suggested_fix"]
    assert all(f in fix for f in ("src/nope.ts", "src/nope.tsx", "src/nope.d.ts", "src/nope/index.ts")), fix
    assert "does not exist" in fix and "npm install" not in fix and "@types" not in fix
    assert not any("npm" in a["command"] for a in error.get("code_actions", []))
    standard = aw(*argv, cwd=tmp_path).env["problems"]
    by_module = {re.search(r"module '([^']+)'", p["detail"])[1]: p for p in standard}
    assert by_module["../lib/gone"]["code"] == "TSC_IMPORT_NOT_FOUND" and not by_module["../lib/gone"]["retryable"]
    assert "lib/gone.ts" in by_module["../lib/gone"]["suggested_fix"]
    assert by_module["left-pad-nope"]["code"] == "TSC_MISSING_MODULE" and by_module["left-pad-nope"]["retryable"]


@needs_tsc
def test_clean_project_is_a_success(tmp_path):
    assert TSC is not None
    (tmp_path / "tsconfig.json").write_text('{ "compilerOptions": { "strict": true, "noEmit": true, "types": [] } }')
    (tmp_path / "ok.ts").write_text("export const add = (a: number, b: number): number => a + b;\n")
    answer = aw("--", TSC, "-p", ".", cwd=tmp_path)
    assert answer.code == 0 and answer.env["data"] == {"errors": 0, "warnings": 0, "files": 0}
    assert answer.env["summary"].startswith("tsc: no errors")


@pytest.mark.slow
@needs_tsc
def test_option_project_and_config_errors(tmp_path):
    assert TSC is not None
    (tmp_path / "tsconfig.json").write_text('{\n  "compilerOptions": {\n    "noSuchOption": true\n  }\n}\n')
    (tmp_path / "ok.ts").write_text("export const n = 1;\n")
    config = aw("--", TSC, "-p", ".", cwd=tmp_path)
    assert config.error["code"] == "TSC_CONFIG_ERROR"
    assert config.error["location"] == {"file": "tsconfig.json", "line": 3, "column": 5}
    option = aw("--", TSC, "--noSuchFlag", cwd=tmp_path)
    assert option.error["code"] == "TSC_CONFIG_ERROR" and option.error["rule"] == "TS5023"
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "tsconfig.json").write_text('{ "include": ["src"] }')
    assert aw("--", TSC, cwd=empty).error["code"] == "TSC_NO_INPUTS"
    bare = tmp_path / "bare"
    bare.mkdir()
    help_only = aw("--", TSC, cwd=bare)
    if not any((p / "tsconfig.json").exists() for p in bare.parents):  # tsc looks upward for one
        assert help_only.error["code"] == "TSC_NO_PROJECT"
        assert help_only.error["code_actions"][0]["command"] == ["tsc", "--init"]


def test_effects_follow_emit_options():
    assert ADAPTER.effects(["tsc", "--noEmit"]).read_only is True
    assert ADAPTER.effects(["tsc", "-p", "."]).read_only is False  # emits .js unless tsconfig says noEmit
    assert ADAPTER.effects(["tsc", "-b", "--clean"]).destructive is True
    assert ADAPTER.effects(["tsc", "--version"]).read_only is True


_EMPTY = StreamResult("", 0, 0, False, 0, None)


def test_saved_logs_read_only_tsc_lines():
    text = ("main.c:3:5: error: expected ';'\napp.py:3: error: Name \"x\" is not defined  [name-defined]\n"
            "app.py:1:8: F401 [*] `os` imported but unused\nFound 2 errors in 1 file (checked 2 source files)\n")
    run = CapturedRun(argv=("tsc",), program="tsc", exit_code=1, signal=None, stdout=_EMPTY, stderr=_EMPTY,
                      duration_ms=0, stdout_text=text, stderr_text="", complete=True, subcommand=None)
    assert ADAPTER.find_problems(run) == []
    run = run._replace(stdout_text=text + "web/a.tsx(4,2): error TS1005: ';' expected.\n")
    assert [(p.code, p.location, p.extra["rule"]) for p in ADAPTER.find_problems(run)] == [
        ("TSC_SYNTAX_ERROR", {"file": "web/a.tsx", "line": 4, "column": 2}, "TS1005")]
