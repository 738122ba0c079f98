"""gcc/g++/clang through agentwrap: every diagnostic is a located problem whose location equals the compiler's own
machine-readable output (-fdiagnostics-format=json, -fdiagnostics-parseable-fixits), fix-its are edits an agent
can apply, linker and driver failures name the remedy."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.adapter import CapturedRun
from agentwrap.adapters import compiler_diagnostics
from agentwrap.adapters.gcc import ADAPTER, invocation
from agentwrap.capture import StreamResult

needs_gcc = pytest.mark.skipif(not shutil.which("gcc") or not shutil.which("g++"), reason="gcc/g++ not installed")
needs_clang = pytest.mark.skipif(not shutil.which("clang"), reason="clang not installed (apt-get install -y clang)")
DIAG_CODES = {"GCC_ERROR", "GCC_WARNING", "GCC_MISSING_HEADER", "GCC_NOTE", "GCC_INTERNAL_COMPILER_ERROR"}

BROKEN_C = """#include <stdio.h>

int add(int a, int b) {
    return a + b
}

int main(void) {
\tint unused; const char *s = "h\u00e9llo";
    printf("%d %s\\n", add(1, "x"), s);
    undeclared_fn(3);
    return 0;
}
"""
NOINC_C = """int main(void) {
    printf("hi\\n");
    return strlen("x");
}
"""
HDR_H = "int f(void) { return x; }\n"
INC_C = '#include "hdr.h"\nint main(void) { return f(); }\n'
BROKEN_CPP = """#include <cstdio>
#include <vector>
struct S { int value; };
class C { public: int m; }
template <class T> int twice(T t) { return t * 2; }
int main() {
    S s{1};
    std::vector<int> v;
    v.push_bak(1);
    int q = s.valeu;
    pritnf("%d\\n", q);
    nullptr_t z;
    struct W { int w };
    twice(v);
    return 0
}
"""
CLANG_CPP = """template <class T> void f() { std::vector<T>::iterator it; }
#include <vector>
struct A { int x };
struct S { int value; };
int g(S *s) { return s.value; }
int main() {
    int arr[3] = {1, 2, 3}
    nullptr_t z;
    return 0
}
"""

# gcc's fix-its of every shape its caret block prints: a format specifier whose caret ends its range (`~^`, `~~^`
# under %d, %ld, %zu, %lu), a misspelt identifier (`^~~~~`), `->` for `.` on a pointer, the missing `;`, and
# the `#include <stdio.h>` line a note inserts
FIXITS_C = """#include <stddef.h>
struct point { int x; };
int get(struct point *p) { return p.x; }
int main(void) {
    int count = 3;
    long big = 4;
    size_t n = 2;
    printf("%d\\n", "str");
    printf("%ld\\n", count);
    printf("%zu\\n", count);
    printf("%lu %d\\n", count, n);
    printf("%d %s\\n", big, count);
    return coutn
}
"""


def _write(tmp: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp / name).write_text(text)


def _json_diagnostics(argv: list[str], cwd: Path) -> list[dict]:
    proc = subprocess.run([argv[0], "-fdiagnostics-format=json", *argv[1:]], capture_output=True, text=True, cwd=cwd)
    raw, _ = json.JSONDecoder().raw_decode(proc.stderr.lstrip())
    return raw


def _loc(caret: dict) -> tuple:
    return (caret["file"], caret["line"], caret["column"])


def _edits(problems: list[dict]) -> list[tuple]:
    out = []
    for p in problems:
        for action in p["code_actions"]:
            e = action.get("edit")
            if e:
                out.append((e["file"], e["line"], e["column"], e.get("end_column"), e.get("insert", e.get("replace"))))
    return sorted(out)


CASES = [
    (["gcc", "broken.c"], {"broken.c": BROKEN_C}),  # the issue's own example
    (["g++", "broken.cpp"], {"broken.cpp": BROKEN_CPP}),
    (["gcc", "-Wall", "-c", "broken.c"], {"broken.c": BROKEN_C}),
    (["gcc", "-c", "noinc.c"], {"noinc.c": NOINC_C}),
    (["gcc", "-c", "inc.c"], {"inc.c": INC_C, "hdr.h": HDR_H}),
    (["gcc", "-Wall", "-Werror", "-c", "broken.c"], {"broken.c": BROKEN_C}),
    (["g++", "-Wall", "-c", "broken.cpp"], {"broken.cpp": BROKEN_CPP}),
    (["gcc", "-Wall", "-c", "fixits.c"], {"fixits.c": FIXITS_C}),
]


@needs_gcc
@pytest.mark.parametrize(("argv", "files"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_locations_and_fixits_equal_gccs_json(tmp_path, argv, files):
    _write(tmp_path, files)
    answer = aw(*argv, cwd=tmp_path)
    raw = _json_diagnostics(argv, tmp_path)
    problems = [p for p in answer.env["problems"] if p["code"] in DIAG_CODES]
    # top-level errors and warnings, in order, at exactly gcc's own locations
    want = [(_loc(d["locations"][0]["caret"]), d["kind"] == "warning") for d in raw if d["kind"] != "note"]
    got = [((p["location"]["file"], p["location"]["line"], p["location"]["column"]), p["severity"] == "warning")
           for p in problems]
    assert got == want
    # every note, attached as `related` (gcc's JSON sometimes lists a note after its diagnostic, not inside it),
    # but gcc's note on how it reports ("each undeclared identifier is reported only once"), which says nothing
    # of the code; a note at its diagnostic's own place leaves the location to the diagnostic (said once)
    notes = sorted(_loc(n["locations"][0]["caret"]) for d in raw for n in [d, *d.get("children", [])]
                   if n["kind"] == "note" and not n["message"].startswith("each undeclared identifier"))
    related = sorted((loc["file"], loc["line"], loc["column"]) for p in problems for r in p.get("related", [])
                     for loc in [r.get("location", p["location"])])
    assert related == notes
    assert not any("reported only once" in r["message"] for p in problems for r in p.get("related", []))
    # every fix-it gcc suggests, as an edit with its exact range and text
    fixits = sorted((f["start"]["file"], f["start"]["line"], f["start"]["column"],
                     None if f["next"]["column"] == f["start"]["column"] else f["next"]["column"], f["string"])
                    for d in raw for n in [d, *d.get("children", [])] for f in n.get("fixits", []))
    assert _edits(problems) == fixits
    options = [d.get("option") for d in raw if d["kind"] != "note"]
    assert [p.get("option") for p in problems] == options
    errors = [p for p in problems if p["severity"] == "error"]
    assert (answer.error or {}).get("location") == (errors[0]["location"] if errors else None)
    assert answer.env["data"]["errors"] == sum(d["kind"] in ("error", "fatal error") for d in raw)


@pytest.mark.parametrize("compiler", ["gcc", pytest.param("clang", marks=needs_clang)])
@pytest.mark.parametrize("indent", ["    ", "\t\t"], ids=["spaces", "tabs"])
@needs_gcc
def test_applying_the_machine_applicable_fixit_makes_it_compile(tmp_path, compiler, indent):
    # gcc counts display columns (a tab is 8) and clang bytes: the edit is in characters of the file itself
    (tmp_path / "semi.c").write_text(f"int f(int a) {{\n{indent}return a + 1\n}}\nint main(void) {{ return f(-1); }}\n")
    answer = aw(compiler, "-c", "semi.c", cwd=tmp_path)
    assert answer.error["code"] == "GCC_ERROR"
    action = answer.error["code_actions"][0]
    assert action["applicability"] == "machine_applicable" and action["is_preferred"]
    edit = action["edit"]
    assert edit["column_unit"] == "character"
    lines = (tmp_path / edit["file"]).read_text().splitlines(keepends=True)
    row = lines[edit["line"] - 1]
    lines[edit["line"] - 1] = row[:edit["column"] - 1] + edit["insert"] + row[edit["column"] - 1:]
    (tmp_path / edit["file"]).write_text("".join(lines))
    again = aw(compiler, "-c", "semi.c", cwd=tmp_path)
    assert again.env["status"] == "success"
    assert again.env["effects"] == [{"resource": "semi.o", "action": "write", "kind": "file"}]
    assert again.env["data"]["outputs"] == ["semi.o"]


@needs_gcc
def test_user_json_and_parseable_fixits_are_read_exactly(tmp_path):
    _write(tmp_path, {"broken.cpp": BROKEN_CPP})
    plain = aw("g++", "-c", "broken.cpp", cwd=tmp_path).env["problems"]
    as_json = aw("g++", "-c", "-fdiagnostics-format=json", "broken.cpp", cwd=tmp_path).env["problems"]
    parseable = aw("g++", "-c", "-fdiagnostics-parseable-fixits", "broken.cpp", cwd=tmp_path).env["problems"]
    assert [p["location"] for p in as_json] == [p["location"] for p in plain]
    assert _edits(as_json) == _edits(plain) == _edits(parseable)


def _parseable_fixits(argv: list[str], cwd: Path) -> list[tuple]:
    """gcc's own fix-its (`-fdiagnostics-parseable-fixits`), as `_edits` gives agentwrap's."""
    proc = subprocess.run([argv[0], "-fdiagnostics-parseable-fixits", *argv[1:]], capture_output=True, text=True,
                          cwd=cwd)
    exact = []
    for line in proc.stderr.splitlines():
        m = compiler_diagnostics._FIXIT.match(line)
        if m:
            c1, c2 = int(m.group("c1")), int(m.group("c2"))
            text = compiler_diagnostics._unescape(m.group("text"))
            exact.append((m.group("file"), int(m.group("l1")), c1, None if c1 == c2 else c2, text))
    return sorted(exact)


@needs_gcc
def test_every_edit_equals_gccs_own_fixit_span(tmp_path):
    # `~^` under `%d`: the range is both characters (the caret ends it), so the edit that puts `%s` in its place
    # takes out `%d`, not `%` (which made `"%sd\n"`)
    _write(tmp_path, {"fixits.c": FIXITS_C})
    argv = ["gcc", "-Wall", "-c", "fixits.c", "-o", "/dev/null"]
    exact = _parseable_fixits(argv, tmp_path)
    assert len(exact) == 11
    answer = aw(*argv, cwd=tmp_path)
    assert _edits(answer.env["problems"]) == exact
    titles = [a["title"] for p in answer.env["problems"] for a in p["code_actions"] if a.get("edit")]
    assert "Replace `%d` with `%s`" in titles and "Replace `%ld` with `%d`" in titles
    assert "Replace `%zu` with `%u`" in titles and "Replace `coutn` with `count`" in titles
    # the same log read back later (`agentwrap normalize`: the files unread, gcc's display columns)
    log = tmp_path / "build.log"
    log.write_text(subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path).stderr)
    read = aw("normalize", "--adapter", "gcc", "--format", "jsonl", str(log), check=False)
    problems = [json.loads(line) for line in read.stdout.splitlines()]
    assert _edits(problems) == exact
    assert "Replace `%lu` with `%u`" in [a["title"] for p in problems for a in p.get("code_actions", [])]


@needs_gcc
def test_undefined_reference_suggests_the_missing_library_and_it_links(tmp_path):
    (tmp_path / "m.c").write_text('#include <math.h>\nint main(int c, char **v) { return (int)sqrt((double)c); }\n')
    answer = aw("gcc", "m.c", "-o", "m", cwd=tmp_path)
    assert answer.error["code"] == "GCC_UNDEFINED_REFERENCE"
    assert answer.error["category"] == "not_found"
    assert answer.error["location"]["file"] == "m.c"
    codes = [p["code"] for p in answer.env["problems"]]
    assert codes == ["GCC_UNDEFINED_REFERENCE", "GCC_LINK_FAILED"]
    fix = answer.error["code_actions"][0]
    assert fix["command"] == ["gcc", "m.c", "-o", "m", "-lm"]
    assert aw(*fix["command"], cwd=tmp_path).env["status"] == "success"
    # collect2's line: its fix names the symbol and the files linked, never "the messages above this line"
    link = answer.env["problems"][1]["suggested_fix"]
    assert link.startswith("'sqrt' is used but defined in none of the files linked into m (m.c): define it")
    (tmp_path / "a.c").write_text("int x = 1;\nint main(void) { return 0; }\n")
    (tmp_path / "b.c").write_text("int x = 2;\n")
    twice = aw("gcc", "a.c", "b.c", cwd=tmp_path)
    assert [p["code"] for p in twice.env["problems"]] == ["GCC_MULTIPLE_DEFINITION", "GCC_LINK_FAILED"]
    assert twice.env["problems"][1]["suggested_fix"].startswith(
        "'x' is defined more than once in the files linked into a.out (a.c, b.c): keep one definition")


@needs_gcc
def test_missing_library_missing_header_and_driver_errors(tmp_path):
    (tmp_path / "ok.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "hdr.c").write_text("#include <nosuchlib/nosuch.h>\nint main(void) { return 0; }\n")
    lib = aw("gcc", "ok.c", "-lfoo", cwd=tmp_path)
    assert lib.error["code"] == "GCC_LIBRARY_NOT_FOUND" and lib.error["category"] == "dependency"
    install = lib.error["code_actions"][0]
    assert install["command"] == ["apt-get", "install", "-y", "libfoo-dev"]
    assert install["applicability"] == "has_placeholders"
    assert lib.env["problems"][-1]["suggested_fix"] == ("The linker found no library -lfoo: install it or add its "
                                                        "folder with -L<DIR>.")
    header = aw("gcc", "-c", "hdr.c", cwd=tmp_path)
    assert header.error["code"] == "GCC_MISSING_HEADER"
    assert header.error["location"] == {"file": "hdr.c", "line": 1, "column": 10}
    assert ["gcc", "-I<DIR>", "-c", "hdr.c"] in [a.get("command") for a in header.error["code_actions"]]
    assert aw("gcc", cwd=tmp_path).error["code"] == "GCC_NO_INPUT_FILES"
    option = aw("gcc", "-Wunused-variabl", "-c", "ok.c", cwd=tmp_path)
    assert option.error["code"] == "GCC_UNRECOGNIZED_OPTION" and option.error["category"] == "usage"
    assert option.error["code_actions"][0]["command"] == ["gcc", "-Wunused-variable", "-c", "ok.c"]
    missing = aw("gcc", "-c", "nosuch.c", cwd=tmp_path)
    assert missing.error["code"] == "GCC_INPUT_NOT_FOUND" and missing.error["location"] == {"file": "nosuch.c"}


def _clang_sarif_supported() -> bool:
    proc = subprocess.run(["clang", "-fdiagnostics-format=sarif", "-fsyntax-only", "-x", "c", "-"], input="",
                          capture_output=True, text=True)
    return "invalid value" not in proc.stderr


@needs_clang
def test_clang_fixits_equal_clangs_parseable_fixits(tmp_path):
    _write(tmp_path, {"broken.c": BROKEN_C, "a.cpp": CLANG_CPP})
    for argv in (["clang", "-Wall", "-c", "broken.c"], ["clang++", "-c", "a.cpp"]):
        answer = aw(*argv, cwd=tmp_path)
        proc = subprocess.run([*argv[:1], "-fdiagnostics-parseable-fixits", *argv[1:]], capture_output=True,
                              text=True, cwd=tmp_path)
        exact = []
        for line in proc.stderr.splitlines():
            m = compiler_diagnostics._FIXIT.match(line)
            if m:
                c1, c2 = int(m.group("c1")), int(m.group("c2"))
                exact.append((m.group("file"), int(m.group("l1")), c1, None if c1 == c2 else c2, m.group("text")))
        assert _edits(answer.env["problems"]) == sorted(exact)
        plain = subprocess.run([*argv[:1], "-fno-caret-diagnostics", *argv[1:]], capture_output=True, text=True,
                               cwd=tmp_path)
        heads = [m.group("file", "line", "column") for line in plain.stderr.splitlines()
                 if (m := compiler_diagnostics.DIAG.match(line)) and m.group("severity") != "note"]
        assert [(p["location"]["file"], str(p["location"]["line"]), str(p["location"]["column"]))
                for p in answer.env["problems"] if p["code"] in DIAG_CODES] == heads
    if _clang_sarif_supported():  # clang >= 15: compare with its own SARIF too
        argv = ["clang", "-Wall", "-c", "broken.c"]
        sarif = subprocess.run([argv[0], "-fdiagnostics-format=sarif", *argv[1:]], capture_output=True, text=True,
                               cwd=tmp_path)
        doc, _ = json.JSONDecoder().raw_decode(sarif.stderr[sarif.stderr.index("{"):])
        regions = [(r["locations"][0]["physicalLocation"]["region"]["startLine"],
                    r["locations"][0]["physicalLocation"]["region"]["startColumn"])
                   for r in doc["runs"][0]["results"] if r.get("level") != "note"]
        answer = aw(*argv, cwd=tmp_path)
        assert [(p["location"]["line"], p["location"]["column"]) for p in answer.env["problems"]
                if p["code"] in DIAG_CODES] == regions


def _run(stderr: str, argv: tuple[str, ...] = ("gcc", "-c", "x.c"), code: int = 1) -> CapturedRun:
    empty = StreamResult("", 0, 0, False, 0, None)
    return CapturedRun(argv=argv, program="/usr/bin/gcc", exit_code=code, signal=None, stdout=empty, stderr=empty,
                       duration_ms=0, stdout_text="", stderr_text=stderr, complete=True, subcommand=None)


def test_known_packages_and_ld_variants_without_a_compiler():
    text = ("/usr/bin/ld: cannot find -lz: No such file or directory\n"
            "/usr/bin/ld: b.o:(.bss+0x0): multiple definition of `counter'; a.o:(.bss+0x0): first defined here\n"
            "ld.lld: error: undefined symbol: helper\n"
            "x.c:3:1: internal compiler error: Segmentation fault\n"
            "gcc: fatal error: cannot execute 'cc1plus': execvp: No such file or directory\n")
    interp = ADAPTER.interpret(_run(text, ("gcc", "a.o", "b.o", "-lz")))
    codes = [p.code for p in interp.problems]
    assert codes == ["GCC_LIBRARY_NOT_FOUND", "GCC_MULTIPLE_DEFINITION", "GCC_UNDEFINED_REFERENCE",
                     "GCC_INTERNAL_COMPILER_ERROR", "GCC_COMPILER_MISSING"]
    assert interp.problems[0].code_actions[0].command == ("apt-get", "install", "-y", "zlib1g-dev")
    assert interp.problems[1].category == "conflict" and interp.problems[1].location == {"file": "b.o"}
    assert interp.problems[3].location == {"file": "x.c", "line": 3, "column": 1}
    assert interp.problems[4].code_actions[0].command == ("apt-get", "install", "-y", "g++")


def test_invocation_modes():
    assert invocation(["gcc", "-c", "src/a.c", "b.c"])["outputs"] == ["a.o", "b.o"]
    assert invocation(["gcc", "-o", "app", "a.c"]) == {"mode": "link", "inputs": ["a.c"], "outputs": ["app"]}
    assert invocation(["gcc", "-E", "a.c"])["outputs"] == []
    assert invocation(["gcc", "-v", "a.c"])["mode"] == "link"
    assert invocation(["gcc", "-v"])["mode"] == "info"
    assert invocation(["g++", "-I", "inc", "-x", "c++", "-S", "a.cc"])["outputs"] == ["a.s"]
    assert ADAPTER.effects(["gcc", "-E", "a.c"]).read_only is True
    assert ADAPTER.effects(["gcc", "-c", "a.c"]).read_only is False


def test_parser_without_columns_orphan_notes_and_parseable_fixits():
    text = ("d.c:2: error: #error \"unsupported platform\"\n"
            "    2 | #error \"unsupported platform\"\n"
            "      |  ^~~~~\n"
            "d.c:3:13: error: expected ';' before '}' token\n"
            "fix-it:\"d.c\":{3:13-3:13}:\";\"\n"
            "cc1: note: unrecognized command-line option '-Wno-foo' may have been intended to silence\n")
    diags = compiler_diagnostics.parse(text)
    assert [d.location for d in diags] == [{"file": "d.c", "line": 2}, {"file": "d.c", "line": 3, "column": 13}]
    fix = diags[1].fixes[0]
    assert (fix.exact, fix.unit, fix.edit()["insert"]) == (True, "byte", ";")
    interp = ADAPTER.interpret(_run(text))
    assert interp.error is not None and interp.error.location == {"file": "d.c", "line": 2}
    assert interp.error.code_actions == ()
    assert interp.problems[1].code_actions[0].applicability == "machine_applicable"
