"""The pytest adapter on real pytest runs; failing tests' locations checked against pytest's own --junitxml."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import aw, own_command

from agentwrap.adapters import _pytest_parse

PYTEST = shutil.which("pytest")
pytestmark = pytest.mark.skipif(PYTEST is None, reason="pytest is not on PATH")
FAST = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # no third-party plugins: fast and the same on every machine

PROJECT = {
    "tests/helper.py": """\
        def check(x):
            if x < 0:
                raise ValueError(f"negative: {x}")
            return x
    """,
    "tests/conftest.py": """\
        import os
        import sys

        import pytest

        sys.path.insert(0, os.path.dirname(__file__))


        @pytest.fixture
        def broken():
            raise RuntimeError("fixture exploded")
    """,
    "tests/test_math.py": """\
        import pytest
        from helper import check


        def test_ok():
            assert 1 + 1 == 2


        def test_equal():
            a = [1, 2, 3]
            assert a == [1, 2, 4]


        def test_helper():
            check(-1)


        def test_uses_broken(broken):
            pass


        def test_missing_fixture(nothere):
            pass


        @pytest.mark.parametrize("n", [1, 2, 3])
        def test_param(n):
            assert n != 2


        class TestGroup:
            def test_method(self):
                assert "abc".upper() == "abd"
    """,
    "tests/test_other.py": """\
        def test_equal():
            raise KeyError("same name as in test_math")
    """,
}


def _project(root: Path) -> Path:
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return root


def _junit(root: Path) -> dict[str, dict[str, object]]:
    """nodeid -> where pytest's own junitxml says the test failed: the last traceback line in the test's own
    file (else the last one at all), and the crash (the last `path:line` of the failure text)."""
    xml = root / "junit.xml"
    subprocess.run([PYTEST, "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", "-o", "junit_family=xunit1"],
                   cwd=root, capture_output=True, env={**os.environ, **FAST}, check=False)
    out = {}
    for case in ET.parse(xml).iter("testcase"):
        bad = [child for child in case if child.tag in ("failure", "error")]
        if not bad:
            continue
        file = case.get("file")
        text = bad[0].text or ""
        lines = [(Path(root, m[1]).resolve(), int(m[2])) for m in re.finditer(r"^(\S[^:\n]*):(\d+)(?::|$)", text, re.M)]
        in_test_file = [(path, n) for path, n in lines if path == Path(root, file).resolve()]
        classes = case.get("classname", "").split(".")
        module = file.rsplit("/", 1)[-1].removesuffix(".py")
        scope = classes[classes.index(module) + 1:] if module in classes else []
        nodeid = "::".join([file, *scope, case.get("name")])
        out[nodeid] = {"where": (in_test_file or lines)[-1], "crash": lines[-1]}
    return out


def test_failing_tests_are_problems_located_where_junitxml_says(tmp_path):
    root = _project(tmp_path)
    answer = aw("--cwd", str(root), "pytest", "-p", "no:cacheprovider", env=FAST)
    assert answer.code == 1
    data = answer.env["data"]
    assert (data["passed"], data["failed"], data["errors"]) == (3, 5, 2)
    problems = {p["nodeid"]: p for p in answer.env["problems"] if "nodeid" in p}
    junit = _junit(root)
    assert set(problems) == set(junit)  # every failing test and test error, nothing else
    for nodeid, expected in junit.items():
        location = problems[nodeid]["location"]
        assert (Path(root, location["file"]).resolve(), location["line"]) == expected["where"], nodeid
        assert not Path(location["file"]).is_absolute()  # as pytest prints it, relative to the project
        crash = problems[nodeid].get("crash") or location
        assert (Path(root, crash["file"]).resolve(), crash["line"]) == expected["crash"], nodeid
    assert problems["tests/test_math.py::test_helper"]["crash"] == {"file": "tests/helper.py", "line": 3}
    assert problems["tests/test_math.py::test_missing_fixture"]["code"] == "PYTEST_FIXTURE_NOT_FOUND"
    assert problems["tests/test_math.py::test_uses_broken"]["code"] == "PYTEST_TEST_ERROR"
    assert problems["tests/test_other.py::test_equal"]["exception"] == "KeyError"  # same title, other file
    assert answer.error["code"] == "PYTEST_TEST_FAILED"
    rerun = answer.error["code_actions"][0]["command"]
    assert aw("--cwd", str(root), *rerun, env=FAST).env["data"]["failed"] == 1  # the fix an agent can apply


@pytest.mark.parametrize("style", ["short", "line", "native", "no"])
def test_every_traceback_style_still_names_the_failing_tests(tmp_path, style):
    root = _project(tmp_path)
    answer = aw("--cwd", str(root), "pytest", "-q", f"--tb={style}", "-p", "no:cacheprovider", env=FAST)
    nodeids = {p.get("nodeid") for p in answer.env["problems"]}
    assert "tests/test_math.py::test_param[2]" in nodeids
    assert "tests/test_math.py::TestGroup::test_method" in nodeids
    method = next(p for p in answer.env["problems"] if p.get("nodeid") == "tests/test_math.py::TestGroup::test_method")
    assert method["location"]["file"] == "tests/test_math.py"
    if style != "no":
        assert method["location"]["line"] == 33


@pytest.mark.slow
def test_collection_errors_no_tests_and_usage(tmp_path):
    (tmp_path / "test_imp.py").write_text("import not_a_module_xyz\n\ndef test_a():\n    pass\n")
    (tmp_path / "test_syn.py").write_text("def test_b(:\n    pass\n")
    collect = aw("--cwd", str(tmp_path), "pytest", "-p", "no:cacheprovider", env=FAST)
    assert collect.code == 2
    assert [(p["code"], p["location"]) for p in collect.env["problems"]] == [
        ("PYTEST_IMPORT_ERROR", {"file": "test_imp.py", "line": 1}),
        ("PYTEST_COLLECTION_ERROR", {"file": "test_syn.py", "line": 1})]
    assert collect.error["code_actions"][0]["command"][-1] == "not_a_module_xyz"
    empty = tmp_path / "empty"
    empty.mkdir()
    none = aw("--cwd", str(empty), "pytest", "-p", "no:cacheprovider", env=FAST)
    assert (none.code, none.error["code"], none.error["category"]) == (5, "PYTEST_NO_TESTS", "not_found")
    assert none.error["code_actions"][0]["command"][:3] == ["pytest", "--collect-only", "-q"]
    deselected = aw("--cwd", str(tmp_path), "pytest", "test_imp.py", "--continue-on-collection-errors",
                    "-k", "nomatch", env=FAST)
    assert deselected.error["code"] in ("PYTEST_ALL_DESELECTED", "PYTEST_IMPORT_ERROR")
    assert aw("--cwd", str(tmp_path), "pytest", "nope/", env=FAST).error["code"] == "PYTEST_PATH_NOT_FOUND"
    usage = aw("--cwd", str(tmp_path), "pytest", "--no-such-flag", env=FAST)
    assert (usage.code, usage.error["code"]) == (4, "PYTEST_USAGE")


def test_success_counts_collect_only_and_effects(tmp_path):
    (tmp_path / "test_ok.py").write_text("import pytest\n\n@pytest.mark.parametrize('n', [1, 2])\n"
                                         "def test_n(n):\n    assert n\n\n@pytest.mark.skip\ndef test_s():\n    pass\n")
    ok = aw("--cwd", str(tmp_path), "pytest", "-v", "-p", "no:cacheprovider", env=FAST)
    assert ok.code == 0
    assert (ok.env["data"]["passed"], ok.env["data"]["skipped"]) == (2, 1)
    assert ok.env["summary"].startswith("pytest: 2 passed, 1 skipped in ")
    assert {r["outcome"] for r in ok.env["data"]["results"]} == {"passed", "skipped"}
    listed = aw("--cwd", str(tmp_path), "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", env=FAST)
    assert listed.env["data"]["tests"] == ["test_ok.py::test_n[1]", "test_ok.py::test_n[2]", "test_ok.py::test_s"]
    from agentwrap import registry

    adapter = registry.builtin("pytest")
    assert adapter.effects(["pytest", "--co"]).read_only is True
    assert adapter.effects(["pytest", "tests"]).read_only is None  # tests can do anything


def test_parser_on_text_without_a_rootdir_line():
    text = ("F                                                                        [100%]\n"
            "=================================== FAILURES ===================================\n"
            "____________________________________ test_a ____________________________________\n"
            "/abs/proj/t/test_a.py:2: in test_a\n    assert 0\nE   assert 0\n"
            "=========================== short test summary info ============================\n"
            "FAILED t/test_a.py::test_a - assert 0\n1 failed in 0.01s\n")
    data = _pytest_parse.parse(text)
    assert data["failed"] == 1 and data["duration_ms"] == 10
    assert data["failures"] == [{"nodeid": "t/test_a.py::test_a", "outcome": "failed", "when": "call",
                                 "title": "test_a", "file": "t/test_a.py", "line": 2, "message": "assert 0",
                                 "exception": "AssertionError",
                                 "evidence": ["/abs/proj/t/test_a.py:2: in test_a", "    assert 0", "E   assert 0"]}]


@pytest.mark.skipif(sys.platform != "linux", reason="prompt detection by the kernel")
def test_pdb_prompt_names_the_way_out(tmp_path):
    (tmp_path / "test_bp.py").write_text("def test_bp():\n    breakpoint()\n")
    answer = aw("--cwd", str(tmp_path), "--timeout", "20", "pytest", "-p", "no:cacheprovider", env=FAST)
    assert answer.error["code"] == "INPUT_REQUIRED"
    first = own_command(answer.error["code_actions"][0]["command"])
    assert first[:4] == ["agentwrap", "--env", "PYTHONBREAKPOINT=0", "--"]


def test_a_test_that_misses_the_projects_own_package_is_not_told_to_install_it(tmp_path):
    (tmp_path / ".git").mkdir()
    test = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    for name, text in (("pkg/__init__.py", ""), ("pkg/calc.py", "def add(a, b):\n    return a + b\n"),
                       ("tests/test_calc.py", test)):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    line = f"cd tests && {sys.executable} -m pytest -q -p no:cacheprovider"
    answer = aw("--cwd", str(tmp_path), "--shell", line, env=FAST)
    error = answer.error
    assert (error["code"], error["module"]) == ("PYTEST_IMPORT_ERROR", "pkg")
    assert error["local_module"] == str(tmp_path / "pkg")
    assert "pythonpath = ." in error["suggested_fix"] and "this project's own package" in error["suggested_fix"]
    assert not any("pip" in action["command"] for action in error["code_actions"])  # 'pkg' on PyPI: a stranger's
    (action,) = error["code_actions"]
    assert action["is_preferred"]
    assert action["command"] == ["env", f"PYTHONPATH={tmp_path}", sys.executable, "-m", "pytest", "-q", "-p",
                                 "no:cacheprovider"]
    done = subprocess.run(action["command"], cwd=tmp_path / "tests", capture_output=True, text=True,
                          env={**os.environ, **FAST})
    assert done.returncode == 0, done.stdout
