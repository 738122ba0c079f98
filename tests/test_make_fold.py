"""make: a failed recipe that its compiler errors already explain is folded into the summary (no problem of its
own, every error's place and text kept), the summary names the target the deciding error builds first, and a
killed recipe's or program's advice matches its signal (the out-of-memory killer only for SIGKILL)."""

from __future__ import annotations

import os
import shutil
import sys

import pytest
from conftest import aw

from agentwrap.adapter import CapturedRun
from agentwrap.adapters.make import ADAPTER
from agentwrap.capture import StreamResult

_EMPTY = StreamResult("", 0, 0, False, 0, None)


def _run(text: str, argv: tuple[str, ...] = ("make", "-k")) -> CapturedRun:
    return CapturedRun(argv=argv, program="/usr/bin/make", exit_code=2, signal=None, stdout=_EMPTY, stderr=_EMPTY,
                       stdout_text=text, stderr_text="", complete=True)


# `make -k -j2` as printed: f2.c's errors first, then f1.o's failure, then f2.o's (out of order)
J2 = """cc -Wall -c f1.c -o f1.o
cc -Wall -c f2.c -o f2.o
f2.c:3:14: error: 'missing_y' undeclared (first use in this function)
f1.c:3:14: error: 'undefined_x' undeclared (first use in this function)
make: *** [Makefile:6: f1.o] Error 1
make: *** [Makefile:6: f2.o] Error 1
cc -Wall -c f3.c -o f3.o
f3.c:4:10: error: 'nope' undeclared (first use in this function)
make: *** [Makefile:6: f3.o] Error 1
make: Target 'app' not remade because of errors.
"""


def test_recipe_failures_the_compiler_errors_explain_are_folded_into_the_summary():
    out = ADAPTER.interpret(_run(J2))
    assert [p.code for p in out.problems] == ["GCC_ERROR"] * 3
    assert [(p.location or {}).get("file") for p in out.problems] == ["f2.c", "f1.c", "f3.c"]
    assert "missing_y" in out.problems[0].detail and (out.problems[0].location or {})["column"] == 14
    assert out.error is not None and (out.error.location or {})["file"] == "f2.c"
    # the deciding error's target first: the summary and the error agree
    assert out.summary == "make: the recipes for f2.o, f1.o, f3.o failed (3 compiler errors)"
    assert [t["target"] for t in (out.data or {})["failed_targets"]] == ["f1.o", "f2.o", "f3.o"]


def test_a_recipe_failure_no_compiler_error_explains_stays():
    text = J2.replace("make: Target", "false\nmake: *** [Makefile:9: check] Error 1\nmake: Target")
    out = ADAPTER.interpret(_run(text))
    kept = [p for p in out.problems if p.code == "MAKE_RECIPE_FAILED"]
    assert [(p.extra or {}).get("target") for p in kept] == ["check"]
    assert out.summary == "make: the recipes for f2.o, f1.o, f3.o failed (3 compiler errors)"


def test_a_sub_makes_failure_folds_its_parents_recipe_too():
    text = ("make[1]: Entering directory '/p/sub'\ncc -c x.c -o x.o\nx.c:1:1: error: expected ';'\n"
            "make[1]: *** [Makefile:2: x.o] Error 1\nmake[1]: Leaving directory '/p/sub'\n"
            "make: *** [Makefile:2: all] Error 2\n")
    out = ADAPTER.interpret(_run(text, ("make",)))
    assert [p.code for p in out.problems] == ["GCC_ERROR"]
    assert out.summary == "make: the recipes for x.o, all failed (1 compiler error)"


@pytest.mark.parametrize(("signal", "oom"), [("Killed", True), ("Terminated", False),
                                             ("Segmentation fault", False)])
def test_a_killed_recipes_advice_matches_its_signal(signal, oom):
    out = ADAPTER.interpret(_run(f"./tool\nmake: *** [Makefile:2: all] {signal}\n", ("make",)))
    assert out.error is not None and out.error.code == "MAKE_RECIPE_KILLED"
    assert ("out-of-memory" in (out.error.suggested_fix or "")) is oom


@pytest.mark.skipif(not shutil.which("sh"), reason="needs sh")
@pytest.mark.parametrize(("name", "oom"), [("SIGTERM", False), ("SIGKILL", True)])
def test_a_killed_programs_advice_matches_its_signal(name, oom):
    a = aw(sys.executable, "-c", f"import os, signal; os.kill(os.getpid(), signal.{name})")
    assert a.env["error"]["code"] == "KILLED_BY_SIGNAL" and name in a.env["error"]["detail"]
    assert ("out-of-memory" in a.env["error"]["suggested_fix"]) is oom, os.linesep + a.env["error"]["suggested_fix"]


@pytest.mark.skipif(not shutil.which("make") or not shutil.which("gcc"), reason="make/gcc not installed")
def test_make_k_says_each_error_once_and_no_recipe_line_again(tmp_path):
    (tmp_path / "Makefile").write_text("app: f1.o f2.o\n\tgcc -o $@ $^\n%.o: %.c\n\tgcc -w -c $< -o $@\n")
    (tmp_path / "f1.c").write_text("int f1(void) { return x1; }\n")
    (tmp_path / "f2.c").write_text("int f2(void) { return x2; }\n")
    env = aw("make", "-k", cwd=tmp_path, detail="concise").env
    assert env["summary"] == "make: the recipes for f1.o, f2.o failed (2 compiler errors)"
    places = [(p["location"]["file"], p["location"]["line"]) for p in [env["error"], *env.get("problems", [])]]
    assert places == [("f1.c", 1), ("f2.c", 1)] and "x1" in env["error"]["detail"]
    text = "".join(s.get("text", "") for s in (env.get("output") or {}).values())
    assert "Error 1" not in text and "not remade" not in text, "make's lines the summary says"


def test_another_compiles_scope_line_is_no_context_of_an_error():
    text = ("f1.c: In function 'f1':\nf2.c: In function 'f2':\nf1.c:3:14: error: 'x' undeclared\n"
            "make: *** [Makefile:6: f1.o] Error 1\n")
    out = ADAPTER.interpret(_run(text))
    assert out.error is not None and (out.error.extra or {})["context"] == ["f1.c: In function 'f1':"]
