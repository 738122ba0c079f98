"""mypy through agentwrap: every error is a located problem whose location and error code equal mypy's own
JSON output (`-O json`), notes stay with their error, missing stubs carry an install action, and the adapter
never reads another tool's `file:line: error:` lines when it serves `agentwrap normalize`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.adapter import CapturedRun
from agentwrap.adapters.mypy import ADAPTER
from agentwrap.capture import StreamResult

HAVE_MYPY = shutil.which("mypy") is not None
needs_mypy = pytest.mark.skipif(not HAVE_MYPY, reason="mypy not installed")

APP = '''def greet(name: str) -> str:
    return len(name)


def main() -> None:
    count: int = "three"
    print(undefined_name)
'''
PROTO = '''from typing import Protocol


class Sized(Protocol):
    def size(self) -> int: ...


class Box:
    def size(self) -> str:
        return "big"


def measure(item: Sized) -> int:
    return item.size()


measure(Box())
reveal_type(measure)
x = [1]  # type: ignore
'''
STUBS = "import markdown\n"  # mypy knows types-Markdown exists, installed or not


CACHE = "--cache-dir=" + str(Path(__file__).resolve().parent.parent / ".pytest_cache" / "mypy-adapter-cache")


def _project(tmp: Path) -> Path:
    (tmp / "app.py").write_text(APP)
    (tmp / "proto.py").write_text(PROTO)
    (tmp / "stubs.py").write_text(STUBS)
    return tmp


def _json_supported(cwd: Path) -> bool:
    out = subprocess.run(["mypy", CACHE, "-O", "json", "-c", "x: int = 'a'"], capture_output=True, text=True, cwd=cwd)
    return out.returncode == 1 and out.stdout.strip().startswith("{")


@pytest.mark.slow
@needs_mypy
def test_locations_and_codes_equal_mypys_json_output(tmp_path):
    if not _json_supported(tmp_path):
        pytest.skip("this mypy has no -O json")
    project = _project(tmp_path)
    files = ["app.py", "proto.py", "stubs.py"]
    flags = ["--show-column-numbers", "--warn-unused-ignores", CACHE]
    answer = aw("--", "mypy", *flags, *files, cwd=project)
    own = subprocess.run(["mypy", "-O", "json", *flags, *files], capture_output=True, text=True, cwd=project)
    records = [json.loads(line) for line in own.stdout.splitlines() if line.startswith("{")]
    assert records, own.stdout + own.stderr

    def loc(r):  # mypy's JSON columns are 0-based (-1: none), its text columns 1-based
        return (r["file"], r["line"], r["column"] + 1 if r["column"] >= 0 else None, r["code"], r["severity"])

    ours = [(p["location"]["file"], p["location"]["line"], p["location"].get("column"), p["rule"] or "misc",
             p["severity"]) for p in answer.env["problems"]]
    assert sorted(ours, key=str) == sorted(map(loc, records), key=str)
    # notes mypy attaches to an error (JSON `hint`) are that problem's notes, not problems of their own
    hinted = {(r["file"], r["line"]): r["hint"].splitlines() for r in records if r["hint"]}
    for p in answer.env["problems"]:
        key = (p["location"]["file"], p["location"]["line"])
        if key in hinted:
            notes = [n for n in hinted[key] if not n.startswith("See https://mypy.rtfd")]
            if p is answer.env["problems"][0] and p["code_actions"]:  # the deciding error: its fix and action
                notes = [n for n in notes if not n.startswith("Hint: ")]  # say the hint, its notes do not
                assert p["suggested_fix"].startswith("Install the stubs mypy names")
            assert [n for n in p.get("notes", []) if not n.startswith("See https://mypy.rtfd")] == notes


@needs_mypy
def test_errors_decide_the_run_and_counts_are_data(tmp_path):
    answer = aw("--", "mypy", "app.py", "proto.py", CACHE, cwd=_project(tmp_path))
    assert answer.code == 1
    first = answer.env["problems"][0]  # mypy's order (modules as it processed them) is kept
    assert answer.error["code"] == "MYPY_TYPE_ERROR" and answer.error["rule"] == first["rule"]
    assert answer.error["location"] == first["location"]
    assert answer.error["detail"] == first["detail"]
    assert answer.env["summary"] == "mypy: 4 errors in 2 files (checked 2 source files)"  # counts; error: the first
    assert {(p["location"]["file"], p["location"]["line"], p["rule"]) for p in answer.env["problems"]} == {
        ("app.py", 2, "return-value"), ("app.py", 6, "assignment"), ("app.py", 7, "name-defined"),
        ("proto.py", 17, "arg-type"), ("proto.py", 18, None)}
    assert answer.env["data"] == {"errors": 4, "warnings": 0, "notes": 1, "files": 2, "checked": 2, "blocked": False}
    conflict = next(p for p in answer.env["problems"] if p["location"]["line"] == 17)
    assert conflict["notes"][0].startswith('Following member(s) of "Box" have conflicts')
    assert answer.env["command"]["adapter"] == "mypy"


@needs_mypy
def test_missing_stubs_name_the_package_to_install(tmp_path):
    answer = aw("--", "mypy", "stubs.py", CACHE, cwd=_project(tmp_path))
    assert answer.error["code"] == "MYPY_MISSING_IMPORT"
    assert answer.error["category"] == "dependency"
    assert answer.error["code_actions"][0]["command"] == ["python3", "-m", "pip", "install", "types-Markdown"]
    assert answer.error["code_actions"][0]["applicability"] == "maybe_incorrect"


@needs_mypy
def test_clean_run_is_a_success_with_counts(tmp_path):
    (tmp_path / "ok.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    answer = aw("--", "mypy", "ok.py", CACHE, cwd=tmp_path)
    assert answer.code == 0
    assert answer.env["summary"] == "mypy: no errors (checked 1 source file)"
    assert answer.env["data"]["errors"] == 0 and answer.env["data"]["checked"] == 1


@needs_mypy
def test_usage_and_missing_file_are_named(tmp_path):
    usage = aw("--", "mypy", "--no-such-flag", "x.py", cwd=tmp_path)
    assert usage.error["code"] == "MYPY_USAGE" and usage.code == 2
    missing = aw("--", "mypy", "nothere.py", cwd=tmp_path)
    assert missing.error["code"] == "MYPY_FILE_NOT_FOUND"
    assert missing.error["location"] == {"file": "nothere.py"}


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@needs_mypy
def test_install_types_prompt_names_the_non_interactive_flag(tmp_path):
    """`mypy --install-types` asks `Install? [yN]` when an earlier run recorded missing stubs; agentwrap ends it
    there (nothing is installed) and offers mypy's own --non-interactive."""
    (tmp_path / "stubs.py").write_text(STUBS)
    cache = "--cache-dir=" + str(tmp_path / "cache")
    subprocess.run(["mypy", cache, "stubs.py"], cwd=tmp_path, capture_output=True)
    if not (tmp_path / "cache" / "missing_stubs").exists():
        pytest.skip("this mypy records no missing stubs in its cache")
    answer = aw("--", "mypy", cache, "--install-types", "stubs.py", cwd=tmp_path)
    assert answer.error["code"] == "INPUT_REQUIRED" and "Install?" in answer.error["prompt"]
    assert answer.error["code_actions"][0]["command"] == ["mypy", cache, "--install-types", "stubs.py",
                                                           "--non-interactive"]


def test_effects_and_subcommands():
    assert ADAPTER.effects(["mypy", "src"]).read_only is True
    assert ADAPTER.subcommand(["mypy", "src/app.py"]) is None
    assert ADAPTER.subcommand(["dmypy", "run", "--", "x.py"]) == "run"
    assert ADAPTER.effects(["dmypy", "status"]).read_only is True
    assert ADAPTER.effects(["dmypy", "start"]).read_only is False
    assert ADAPTER.effects(["mypy", "--install-types", "--non-interactive", "x.py"]).open_world is True


_EMPTY = StreamResult("", 0, 0, False, 0, None)
OTHER_TOOLS = """main.c:3:5: error: expected ';' before '}' token
src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.
app.py:1:8: F401 [*] `os` imported but unused
lib.rs:2:5: error: cannot find value `x` in this scope
Found 2 errors in 2 files.
"""


def _log(text: str) -> list:
    run = CapturedRun(argv=("mypy",), program="mypy", exit_code=1, signal=None, stdout=_EMPTY, stderr=_EMPTY,
                      duration_ms=0, stdout_text=text, stderr_text="", complete=True, subcommand=None)
    return ADAPTER.find_problems(run)


def test_saved_log_reads_only_mypy_lines():
    assert _log(OTHER_TOOLS) == []
    mixed = OTHER_TOOLS + 'pkg/mod.py:12: error: Name "x" is not defined  [name-defined]\n'
    assert [(p.code, p.location, p.extra["rule"]) for p in _log(mixed)] == [
        ("MYPY_TYPE_ERROR", {"file": "pkg/mod.py", "line": 12}, "name-defined")]


def test_pretty_wrapped_messages_are_rejoined():
    text = ('a.py:3: error: Cannot find implementation or library stub for module named\n'
            '"nonexistent_pkg"  [import-not-found]\n    import nonexistent_pkg\n    ^\n'
            'a.py:11: error: Argument 1 to "f" has incompatible type "str"; expected "int" \n[arg-type]\n'
            '    f("a")\n      ^~~\n')
    found = _log(text)
    assert [(p.code, p.extra["rule"]) for p in found] == [("MYPY_MISSING_IMPORT", "import-not-found"),
                                                          ("MYPY_TYPE_ERROR", "arg-type")]


def test_normalize_reads_a_saved_mypy_log(tmp_path):
    log = tmp_path / "ci.log"
    log.write_text("$ mypy src\nsrc/a.py:4:5: error: Incompatible return value type (got \"int\", expected \"str\")"
                   "  [return-value]\nFound 1 error in 1 file (checked 3 source files)\n")
    answer = aw("normalize", str(log))
    assert answer.env["data"]["tools"] == {"mypy": 1}
    assert answer.env["problems"][0]["location"] == {"file": "src/a.py", "line": 4, "column": 5}
    assert answer.env["problems"][0]["rule"] == "return-value"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
