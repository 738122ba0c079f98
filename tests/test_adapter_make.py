"""make through agentwrap: a failed recipe carries the compiler's own diagnostics (the first real compiler error
decides, at gcc's own location), make's own failures name the fix, and dry runs are known to be read-only."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.adapters.make import ADAPTER, dry_run, targets

pytestmark = pytest.mark.skipif(not shutil.which("make") or not shutil.which("gcc"), reason="make/gcc not installed")

BROKEN_C = """#include <stdio.h>
int add(int a, int b) {
    return a + b
}
int main(void) {
    int unused;
    printf("%d\\n", add(1, "x"));
    return 0;
}
"""
MAKEFILE = "CFLAGS = -Wall\n\nprog: main.o\n\t$(CC) -o $@ $^\n\n%.o: %.c\n\t$(CC) $(CFLAGS) -c $<\n"


def _project(tmp: Path, source: str = BROKEN_C, makefile: str = MAKEFILE) -> Path:
    (tmp / "main.c").write_text(source)
    (tmp / "Makefile").write_text(makefile)
    return tmp


def test_recipe_failure_is_decided_by_the_compilers_first_error(tmp_path):
    project = _project(tmp_path)
    answer = aw("make", "CC=gcc", cwd=project)
    raw, _ = json.JSONDecoder().raw_decode(subprocess.run(
        ["gcc", "-Wall", "-fdiagnostics-format=json", "-c", "main.c"], capture_output=True, text=True,
        cwd=project).stderr)
    compiler = [p for p in answer.env["problems"] if p["code"].startswith("GCC_")]
    assert [(p["location"]["line"], p["location"]["column"]) for p in compiler] == [
        (d["locations"][0]["caret"]["line"], d["locations"][0]["caret"]["column"]) for d in raw]
    assert answer.error["code"] == "GCC_ERROR"
    assert answer.error["location"] == {"file": "main.c", "line": 3, "column": 17}
    assert answer.error["code_actions"][0]["edit"] == {"file": "main.c", "line": 3, "column": 17, "insert": ";",
                                                       "column_unit": "character"}
    # the summary is ours (which recipe failed, the counts); the error's detail is the compiler's own line
    assert answer.env["summary"] == ("make: the recipe for target 'main.o' failed with status 1 "
                                     "(1 compiler error, 2 warnings)")
    assert answer.error["detail"].startswith("main.c:3:17: error: expected")
    assert answer.error["detail"] not in answer.env["summary"]
    # the failed recipe says nothing the compiler's error does not: the summary names it, data lists it
    assert "MAKE_RECIPE_FAILED" not in [p["code"] for p in answer.env["problems"]]
    assert answer.env["data"]["failed_targets"][0]["target"] == "main.o"
    assert answer.env["data"]["compiler"] == {"errors": 1, "linker_errors": 0, "warnings": 2}


def test_make_dash_C_makes_compiler_paths_usable_from_the_callers_folder(tmp_path):
    (tmp_path / "proj").mkdir()
    project = _project(tmp_path / "proj")
    answer = aw("make", "-C", str(project), "CC=gcc", cwd=tmp_path)
    # relative to the folder the caller ran make from (shorter than absolute, and as usable)
    assert answer.error["location"]["file"] == "proj/main.c" and (tmp_path / "proj/main.c").samefile(project / "main.c")
    assert answer.error["code_actions"][0]["edit"]["file"] == "proj/main.c"
    assert answer.env["data"]["failed_targets"][0]["target"] == "main.o"
    (tmp_path / "elsewhere").mkdir()
    outside = aw("make", "-C", str(project), "CC=gcc", cwd=tmp_path / "elsewhere")  # not below the caller's folder
    assert outside.error["location"]["file"] == str(project / "main.c")


@pytest.mark.skipif(not shutil.which("clang"), reason="clang not installed")
def test_clang_recipes_and_linker_errors_too(tmp_path):
    project = _project(tmp_path)
    assert aw("make", "CC=clang", cwd=project).error["location"] == {"file": "main.c", "line": 3, "column": 17}
    (project / "main.c").write_text("void helper(void);\nint main(void) { helper(); return 0; }\n")
    linked = aw("make", "CC=gcc", cwd=project)
    assert linked.error["code"] == "GCC_UNDEFINED_REFERENCE"
    assert [p["code"] for p in linked.env["problems"]] == ["GCC_UNDEFINED_REFERENCE", "GCC_LINK_FAILED"]


def test_a_failed_link_keeps_its_command_line_and_names_the_missing_symbol(tmp_path):
    """make's built-in rule echoes `cc -Wall   -c -o main.o main.c` (its variables' spacing): compile lines go
    however they are spaced, and so does a link line that worked; a failed link's line stays (it says which
    files were linked), the summary counts a linker error and GCC_LINK_FAILED's fix names the symbol."""
    (tmp_path / "Makefile").write_text("CFLAGS = -Wall\napp: main.o util.o\n\tcc -o app main.o util.o\n")
    (tmp_path / "main.c").write_text("void helper(void);\nint main(void) { helper(); return 0; }\n")
    (tmp_path / "util.c").write_text("int util(void) { return 1; }\n")
    failed = aw("make", cwd=tmp_path, detail="concise")
    assert failed.env["summary"] == "make: the recipe for target 'app' failed with status 1 (1 linker error)"
    assert failed.env["output"]["stdout"]["text"] == "cc -o app main.o util.o\n"
    link = next(p for p in failed.env["problems"] if p["code"] == "GCC_LINK_FAILED")
    assert link["suggested_fix"] == ("'helper' is used but defined in none of the files linked into app (main.o, "
                                     "util.o): define it in one of their sources, or add the object file or "
                                     "library (-l<lib>) that defines it to the link.")
    standard = aw("make", cwd=tmp_path)
    assert standard.env["data"]["compiler"] == {"errors": 0, "linker_errors": 1, "warnings": 0}
    (tmp_path / "util.c").write_text("void helper(void) {}\n")
    built = aw("make", cwd=tmp_path, detail="concise")
    assert built.env["status"] == "success" and "output" not in built.env, "echoed commands say no fact"


def test_a_builtin_rules_recipe_names_its_target(tmp_path):
    """`make: *** [<builtin>: main.o] Error 1`: `<builtin>` says the recipe is make's own rule, the target is
    main.o (with -k too, where the failed recipe is reported and make goes on)."""
    (tmp_path / "Makefile").write_text("app: main.o\n\t$(CC) -o app main.o\n")
    (tmp_path / "main.c").write_text("int main(void) { return 0 }\n")
    for args in ((), ("-k",)):
        answer = aw("make", *args, cwd=tmp_path)
        assert answer.env["summary"] == "make: the recipe for target 'main.o' failed with status 1 (1 compiler error)"
        assert "MAKE_RECIPE_FAILED" not in [p["code"] for p in answer.env["problems"]]
        assert answer.env["data"]["failed_targets"] == [{"target": "main.o", "makefile": None, "line": None,
                                                         "status": 1, "signal": None}]


def test_python_traceback_in_a_recipe(tmp_path):
    (tmp_path / "gen.py").write_text("def main():\n    return 1 / 0\n\nmain()\n")
    (tmp_path / "Makefile").write_text("out.txt: gen.py\n\tpython3 gen.py > $@\n")
    answer = aw("make", cwd=tmp_path)
    assert answer.error["code"] != "MAKE_RECIPE_FAILED"
    assert answer.error["location"]["line"] == 2
    assert answer.error["location"]["file"].endswith("gen.py")
    assert "ZeroDivisionError" in answer.error["detail"]


def test_missing_separator_fix_can_be_applied(tmp_path):
    (tmp_path / "Makefile").write_text("all:\n    @echo built\n")
    answer = aw("make", cwd=tmp_path)
    assert answer.error["code"] == "MAKE_SYNTAX_ERROR"
    assert answer.error["location"] == {"file": "Makefile", "line": 2}
    fix = answer.error["code_actions"][0]
    assert fix["command"][0] == "sed"
    subprocess.run(fix["command"], cwd=tmp_path, check=True)
    assert aw("make", cwd=tmp_path).env["status"] == "success"


def test_make_own_failures(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    none = aw("make", "-C", str(empty), cwd=tmp_path)
    assert none.error["code"] == "MAKE_NO_MAKEFILE" and none.error["category"] == "precondition"
    assert none.error["code_actions"][0]["command"] == ["make", "-C", "<DIR>"]
    _project(tmp_path)
    rule = aw("make", "nosuch", cwd=tmp_path)
    assert rule.error["code"] == "MAKE_NO_RULE" and rule.error["target"] == "nosuch"
    (tmp_path / "Makefile").write_text("lint:\n\tcodecheck-not-installed src/\n")
    missing = aw("make", "lint", cwd=tmp_path)
    assert missing.error["code"] == "MAKE_COMMAND_NOT_FOUND"
    assert missing.error["command"] == "codecheck-not-installed"


def test_success_up_to_date_and_question(tmp_path):
    project = _project(tmp_path, source="int main(void) { return 0; }\n")
    assert aw("make", "-q", "CC=gcc", cwd=project).env["data"]["question_up_to_date"] is False
    built = aw("make", "CC=gcc", cwd=project)
    assert built.env["status"] == "success" and built.env["summary"] == "make built the default target"
    again = aw("make", "CC=gcc", cwd=project)
    assert again.env["data"]["up_to_date"] == ["prog"]
    assert aw("make", "-q", "CC=gcc", cwd=project).env["data"]["question_up_to_date"] is True


def test_targets_and_effects():
    assert targets(["make", "-C", "dir", "-j", "4", "CC=clang", "all", "test"]) == ["all", "test"]
    assert targets(["make", "-j", "all"]) == ["all"]
    assert dry_run(["make", "-n", "install"]) and dry_run(["make", "-sq"]) and dry_run(["make", "--dry-run"])
    assert not dry_run(["make", "-Onone", "-j4"]) and not dry_run(["make", "-C", "n"])
    assert ADAPTER.effects(["make", "clean"]).destructive is True
    assert ADAPTER.effects(["make", "-n", "clean"]).read_only is True
    assert ADAPTER.effects(["make", "deploy"]).open_world is True
    assert ADAPTER.effects(["make"]).idempotent is True
