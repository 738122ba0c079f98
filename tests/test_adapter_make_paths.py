"""Paths of a build that runs in another folder than the caller's (a sub-make, `make -C`, `cd sub && make`,
gcc given `../src/x.c`): a problem's location, its edits and its notes name one file, from the caller's folder,
so that applying the edit there changes the file the location points at."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("make") or not shutil.which("gcc"), reason="make/gcc not installed")

# a missing semicolon, a misspelled identifier (gcc's fix-it: `width`) and unused variables
SOURCE = """#include <stdio.h>
int main(void) {
    int width = 3;
    int unused = 4;
    printf("%d\\n", widht)
    return 0;
}
"""
COMPILE = "all:\n\tgcc -Wall -c {src} -o x.o\n"


def _compiler_problems(env: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in env["problems"] if p["code"].startswith("GCC_")]


def _assert_one_path(env: dict[str, Any], expected: str, caller: Path) -> None:
    """Every compiler problem's location and edits name `expected`, a file that exists from `caller`."""
    problems = _compiler_problems(env)
    assert problems and (caller / expected).is_file()
    for p in problems:
        assert p["location"]["file"] == expected
        assert [a["edit"]["file"] for a in p.get("code_actions", []) if a.get("edit")] in ([], [expected])
    assert sum(bool(p.get("code_actions")) for p in problems) == 2  # the fix-its: `width` and `;`


def _apply(edit: dict[str, Any], caller: Path) -> None:
    path = caller / edit["file"]
    lines = path.read_text().splitlines(keepends=True)
    line = lines[edit["line"] - 1]
    end = edit.get("end_column", edit["column"])
    lines[edit["line"] - 1] = line[:edit["column"] - 1] + edit.get("insert", edit.get("replace", "")) + line[end - 1:]
    path.write_text("".join(lines))


def test_a_sub_makes_compiler_paths_are_the_callers(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/x.c").write_text(SOURCE)
    (tmp_path / "sub/Makefile").write_text(COMPILE.format(src="x.c"))
    (tmp_path / "Makefile").write_text("all:\n\t$(MAKE) -C sub\n")
    answer = aw("make", cwd=tmp_path)
    _assert_one_path(answer.env, "sub/x.c", tmp_path)
    # the failed recipes are the compiler error's: folded into the summary, listed in data, no problem each
    assert not [p for p in answer.env["problems"] if p["code"] == "MAKE_RECIPE_FAILED"]
    assert [t["target"] for t in answer.env["data"]["failed_targets"]] == ["all", "all"]
    # the file was read, so the edits count characters; applied from the caller's folder, they compile
    for p in _compiler_problems(answer.env):
        for action in p.get("code_actions", []):
            assert action["edit"]["column_unit"] == "character"
    for p in reversed(_compiler_problems(answer.env)):  # the later column first: the earlier stays put
        for action in p.get("code_actions", []):
            _apply(action["edit"], tmp_path)
    again = aw("make", cwd=tmp_path)
    assert again.env["status"] == "success"
    assert again.env["data"]["compiler"] == {"errors": 0, "linker_errors": 0, "warnings": 1}


def test_cd_sub_then_make_in_a_shell_line(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/x.c").write_text(SOURCE)
    (tmp_path / "sub/Makefile").write_text(COMPILE.format(src="x.c"))
    answer = aw("--cwd", str(tmp_path), "--shell", "cd sub && make")
    assert answer.env["command"]["decided_by"]["cwd"] == str(tmp_path / "sub")
    _assert_one_path(answer.env, "sub/x.c", tmp_path)


def test_gcc_given_a_parent_relative_source(tmp_path: Path) -> None:
    for folder in ("src", "build"):
        (tmp_path / folder).mkdir()
    (tmp_path / "src/x.c").write_text(SOURCE)
    (tmp_path / "build/Makefile").write_text(COMPILE.format(src="../src/x.c"))
    shell = aw("--cwd", str(tmp_path), "--shell", "cd build && gcc -Wall -c ../src/x.c -o /dev/null")
    _assert_one_path(shell.env, "src/x.c", tmp_path)
    concise = aw("--cwd", str(tmp_path), "--shell", "cd build && gcc -Wall -c ../src/x.c -o /dev/null",
                 detail="concise").env
    assert not concise["error"]["detail"].startswith("../src/x.c:")  # the place is the location's, said once
    made = aw("make", "-C", "build", cwd=tmp_path)
    _assert_one_path(made.env, "src/x.c", tmp_path)  # not `build/../src/x.c`
    outside = aw("gcc", "-Wall", "-c", "../src/x.c", "-o", "/dev/null", cwd=tmp_path / "build")
    _assert_one_path(outside.env, str(tmp_path / "src/x.c"), tmp_path)  # above the caller's folder: absolute


def test_parallel_sub_makes_are_told_apart_by_the_file_they_hold(tmp_path: Path) -> None:
    """Under -j both sub-makes are open when the compiler prints: the folder holding the file decides."""
    for folder, name in (("lib", "a.c"), ("app", "b.c")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text(SOURCE)
        (tmp_path / folder / "Makefile").write_text(COMPILE.format(src=name))
    (tmp_path / "Makefile").write_text("all: l a\nl:\n\t$(MAKE) -C lib\na:\n\t$(MAKE) -C app\n")
    answer = aw("make", "-j2", "-k", cwd=tmp_path)
    files = {p["location"]["file"] for p in _compiler_problems(answer.env)}
    assert files == {"lib/a.c", "app/b.c"}
    for p in _compiler_problems(answer.env):
        assert all(a["edit"]["file"] == p["location"]["file"] for a in p.get("code_actions", []))


def test_a_sub_makes_syntax_error_names_its_makefile(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/Makefile").write_text("all:\n    @echo built\n")
    (tmp_path / "Makefile").write_text("all:\n\t$(MAKE) -C sub\n")
    answer = aw("make", cwd=tmp_path)
    assert answer.error["code"] == "MAKE_SYNTAX_ERROR"
    assert answer.error["location"] == {"file": "sub/Makefile", "line": 2}
    assert answer.error["suggested_fix"].startswith("Fix sub/Makefile line 2;")
    assert "sub/Makefile" in answer.error["code_actions"][0]["title"]
    # the parent's failed recipe only says the sub-make failed: the syntax error above is its explanation
    parent = next(p for p in answer.env["problems"] if p["code"] == "MAKE_RECIPE_FAILED")
    assert parent["location"] == {"file": "Makefile", "line": 2} and "suggested_fix" not in parent
