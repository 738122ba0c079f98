"""The python adapter and the shared traceback parser: real interpreter runs through agentwrap."""

from __future__ import annotations

import importlib.util
import shlex
import subprocess
import sys
import textwrap

import pytest
from conftest import aw

from agentwrap.adapters import tracebacks
from agentwrap.adapters.python_errors import DISTRIBUTIONS, distribution_for

PY = sys.executable


def _script(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_exception_location_is_the_innermost_user_frame(tmp_path):
    _script(tmp_path, "app.py", """\
        import json


        def load(text):
            return json.loads(text)


        load("{bad")
    """)
    answer = aw("--cwd", str(tmp_path), PY, "app.py")
    error = answer.error
    assert answer.code == 1
    assert error["code"] == "PYTHON_EXCEPTION"
    assert error["exception"] == "json.decoder.JSONDecodeError"
    assert error["detail"].startswith("json.decoder.JSONDecodeError: Expecting property name")
    assert error["location"] == {"file": "app.py", "line": 5}  # not json/decoder.py
    assert error["raised_at"]["file"].endswith("decoder.py")
    assert error["safe_to_retry"] is False  # a script can do anything


def test_chain_is_reported_and_the_last_exception_decides(tmp_path):
    _script(tmp_path, "chain.py", """\
        def inner():
            raise KeyError("id")


        try:
            inner()
        except KeyError as exc:
            raise RuntimeError("lookup failed") from exc
    """)
    error = aw("--cwd", str(tmp_path), PY, "chain.py").error
    assert error["exception"] == "RuntimeError"
    assert error["location"]["line"] == 8
    assert error["chain"] == [{"exception": "KeyError", "message": "'id'", "relation": "cause",
                               "location": {"file": "chain.py", "line": 2}}]


def test_syntax_error_location_equals_what_compile_reports(tmp_path):
    source = "import os\n\nvalue = (1 +* 2)\nprint(value)\n"
    path = _script(tmp_path, "typo.py", source)
    with pytest.raises(SyntaxError) as info:
        compile(source, str(path), "exec")
    error = aw("--cwd", str(tmp_path), PY, "typo.py").error
    assert error["code"] == "PYTHON_SYNTAX_ERROR"
    assert error["location"] == {"file": path.name, "line": info.value.lineno, "column": info.value.offset}
    assert error["safe_to_retry"] is True  # the script never started


def test_indented_syntax_error_column_counts_from_the_first_non_blank_character(tmp_path):
    source = "def f():\n        y = 1 +* 2\n"
    _script(tmp_path, "ind.py", source)
    with pytest.raises(SyntaxError) as info:
        compile(source, "ind.py", "exec")
    error = aw("--cwd", str(tmp_path), PY, "ind.py").error
    indent = len(source.splitlines()[1]) - len(source.splitlines()[1].lstrip())
    assert error["location"]["column"] + indent == info.value.offset
    assert "first non-blank" in error["column_basis"]


def test_missing_module_suggests_the_right_distribution(tmp_path):
    missing = next((m for m in ("cv2", "bs4", "sklearn", "PIL", "yaml") if importlib.util.find_spec(m) is None), None)
    if missing is None:
        pytest.skip("every mapped module is installed here")
    _script(tmp_path, "imp.py", f"import {missing}\n")
    error = aw("--cwd", str(tmp_path), PY, "imp.py").error
    assert error["code"] == "PYTHON_MODULE_NOT_FOUND"
    assert error["module"] == missing
    action = error["code_actions"][0]
    assert action["command"] == [PY, "-m", "pip", "install", DISTRIBUTIONS[missing]]
    assert action["applicability"] == "maybe_incorrect"  # the name may be a local module
    assert action["is_preferred"] is True  # a known import name's distribution


def test_a_distribution_guessed_from_the_import_name_is_offered_but_never_preferred(tmp_path):
    """`import nosuchmod_xyz`: a PyPI name nobody mapped to that import may be anyone's (typosquatting), so the
    install is there to see, not the fix an agent takes without checking the name."""
    error = aw("--cwd", str(tmp_path), PY, "-c", "import nosuchmod_xyz").error
    assert error["code"] == "PYTHON_MODULE_NOT_FOUND" and "distribution_guess" in error
    (action,) = error["code_actions"]
    assert action["command"] == [PY, "-m", "pip", "install", "nosuchmod_xyz"]
    assert not action.get("is_preferred")


def _own_package(tmp_path):
    """A project (a git root) whose `pkg/` a script under `sub/` imports: `python sub/use.py` misses it."""
    (tmp_path / ".git").mkdir()
    _script(tmp_path, "pkg/__init__.py", "")
    _script(tmp_path, "pkg/calc.py", "def add(a, b):\n    return a + b\n")
    _script(tmp_path, "sub/use.py", "from pkg.calc import add\n\nprint(add(1, 2))\n")


def test_the_projects_own_package_is_never_installed_from_pypi(tmp_path):
    _own_package(tmp_path)
    for ran_in, script in ((tmp_path, "sub/use.py"), (tmp_path / "sub", "use.py")):  # the root's, a parent's
        error = aw("--cwd", str(ran_in), PY, script).error
        assert (error["code"], error["module"]) == ("PYTHON_MODULE_NOT_FOUND", "pkg")
        assert error["local_module"] == str(tmp_path / "pkg")
        assert "this project's own package" in error["suggested_fix"]
        assert f"PYTHONPATH={tmp_path}" in error["suggested_fix"]
        assert "distribution" not in error  # 'pkg' on PyPI is a stranger's package
        assert not any("pip" in action["command"] for action in error["code_actions"])
        preferred = [a["command"] for a in error["code_actions"] if a.get("is_preferred")]
        assert preferred == [["env", f"PYTHONPATH={tmp_path}", PY, script]]
        for action in error["code_actions"]:  # each one runs the script as it was meant to run
            done = subprocess.run(action["command"], cwd=ran_in, capture_output=True, text=True)
            assert (done.returncode, done.stdout) == (0, "3\n"), done.stderr
    from_root = aw("--cwd", str(tmp_path), PY, "sub/use.py").error
    assert [a["command"] for a in from_root["code_actions"]][1] == [PY, "-m", "sub.use"]
    assert "`" + shlex.join([PY, "-m", "sub.use"]) + "`" in from_root["suggested_fix"]


def test_dash_c_code_is_the_location_and_the_library_frame_where_it_was_raised():
    error = aw(PY, "-c", "import json; json.loads('{bad')").error
    assert error["exception"] == "json.decoder.JSONDecodeError"
    assert error["location"] == {"file": "<string>", "line": 1}  # the -c code, as python names it
    assert error["raised_at"]["file"].endswith("decoder.py") and error["raised_at"]["function"] == "raw_decode"
    assert "-c" in error["location_is"]


def test_a_frames_header_and_its_code_line_stay_or_go_together(tmp_path):
    _script(tmp_path, "app.py", """\
        import json


        def load(text):
            return json.loads(text)


        load("{bad")
    """)
    for argv in ([PY, "app.py"], [PY, "-c", "import json; json.loads('{bad')"]):
        view = aw("--cwd", str(tmp_path), *argv, detail="concise").env
        text = view["output"]["stderr"]["text"]
        lines = [line for line in text.splitlines() if line.strip().strip("^")]  # less the caret lines
        assert "self.scan_once(s, idx)" in text  # the library's code line, where it was raised
        for above, line in zip(lines, lines[1:], strict=False):
            if line.startswith("    "):  # a code line: the header of its own frame is right above it
                assert above.startswith('  File "'), text


def test_distribution_guess_is_honest():
    assert distribution_for("yaml") == "PyYAML"
    assert distribution_for("google.protobuf") == "protobuf"
    assert distribution_for("requests") == "requests"
    assert distribution_for("yaml.nope") is None  # 'yaml' is there; a submodule is missing
    assert distribution_for("_sqlite3") is None


def test_script_not_found_usage_and_dash_m(tmp_path):
    missing = aw("--cwd", str(tmp_path), PY, "nope.py").error
    assert (missing["code"], missing["safe_to_retry"]) == ("PYTHON_SCRIPT_NOT_FOUND", True)
    assert aw(PY, "-Q").error["code"] == "PYTHON_USAGE"
    assert aw(PY, "-c").error["code"] == "PYTHON_USAGE"
    no_module = aw(PY, "-m", "no_such_module_xyz").error
    assert no_module["code"] == "PYTHON_MODULE_NOT_FOUND"
    assert aw(PY, "-m", "json").error["code"] == "PYTHON_NO_MAIN_MODULE"


def test_a_survived_traceback_is_a_warning_on_success(tmp_path):
    _script(tmp_path, "ok.py", "import traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n"
                               "    traceback.print_exc()\nprint('done')\n")
    answer = aw("--cwd", str(tmp_path), PY, "ok.py")
    assert answer.code == 0
    assert [(p["exception"], p["severity"]) for p in answer.env["problems"]] == [("ZeroDivisionError", "warning")]


def test_version_and_effects():
    answer = aw(PY, "--version")
    assert answer.env["data"]["version"] == ".".join(map(str, sys.version_info[:3]))
    from agentwrap import registry

    python = registry.builtin("python")
    assert python.effects([PY, "script.py"]).read_only is None  # unknown, honestly
    assert python.effects([PY, "--version"]).read_only is True
    assert python.effects([PY, "-m", "pip", "uninstall", "x"]).destructive is True  # pip's own facts
    assert python.subcommand([PY, "-u", "-m", "pip", "install", "x"]) == "-m pip install"
    assert python.subcommand([PY, "-W", "ignore", "-c", "pass"]) == "-c"


def test_python_dash_m_pytest_is_read_by_the_pytest_adapter(tmp_path):
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert 1 == 2\n")
    answer = aw("--cwd", str(tmp_path), PY, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert answer.env["command"]["adapter"] == "python"
    assert answer.env["data"]["failed"] == 1
    error = answer.error
    assert error["code"] == "PYTEST_TEST_FAILED"
    assert error["location"] == {"file": "test_a.py", "line": 2}
    assert error["code_actions"][0]["command"][:3] == [PY, "-m", "pytest"]  # the same interpreter


# --- the shared parser, on text ------------------------------------------------------------------------------

GROUP = """\
  + Exception Group Traceback (most recent call last):
  |   File "/w/grp.py", line 1, in <module>
  |     raise ExceptionGroup("boom", [ValueError("a"), TypeError("b")])
  | ExceptionGroup: boom (2 sub-exceptions)
  +-+---------------- 1 ----------------
    | ValueError: a
    +---------------- 2 ----------------
    | TypeError: b
    +------------------------------------
"""
NESTED = """\
  × Preparing metadata (pyproject.toml) did not run successfully.
  ╰─> [3 lines of output]
      Traceback (most recent call last):
        File "/w/setup.py", line 7, in <module>
      RuntimeError: cannot build
      [end of output]
"""


def test_exception_groups_and_indented_tracebacks():
    (group,) = tracebacks.parse(GROUP)
    assert group.final.type == "ExceptionGroup"
    assert group.final.sub_exceptions == ("ValueError: a", "TypeError: b")
    assert group.final.location() == {"file": "/w/grp.py", "line": 1}
    (nested,) = tracebacks.parse(NESTED)
    assert nested.final.headline() == "RuntimeError: cannot build"
    assert nested.final.location() == {"file": "/w/setup.py", "line": 7}


def test_pseudo_files_of_no_user_code_give_no_location_and_multiline_messages_are_kept():
    text = 'Traceback (most recent call last):\n  File "<frozen runpy>", line 88, in _run_code\nE: one\ntwo\n'
    (problem,) = tracebacks.problems(text)
    assert problem.location is None
    assert problem.extra is not None and problem.extra["message"] == "one\ntwo"
    assert problem.detail == "E: one"
    # `-c` code is the user's: python names it `<string>`, and so does the location
    (dash_c,) = tracebacks.problems(text.replace("<frozen runpy>", "<string>").replace("88", "1"))
    assert dash_c.location == {"file": "<string>", "line": 1}


@pytest.mark.parametrize(("code", "says"), [
    ('d = {"a": 1}\nd["k"]\n', ["The key 'k' is not in the mapping looked up at t.py:2", "`.get('k', DEFAULT)`",
                                "not in the traceback"]),
    ('import os\nos.environ["AW_NO_SUCH_VARIABLE"]\n', ["environment variable AW_NO_SUCH_VARIABLE is not set",
                                                        "`--env AW_NO_SUCH_VARIABLE=VALUE`", "os.environ.get("]),
    ("import re\nm = re.match('x', 'y')\nm.group(0)\n", ["The value used at t.py:3 is None where `.group`",
                                                         "trace where it was set", "is not None"]),
    ("def add(a, b):\n    return a + b\n\nadd(1, 2, 3)\n",
     ["The call at t.py:4 passes 3 positional arguments where add() takes 2"]),
    ("def add(a, b):\n    return a + b\n\nadd(1)\n", ["The call at t.py:4 leaves out 'b' that add() requires"]),
    ("class C:\n    def m():\n        pass\n\nC().m()\n", ["C.m() takes 0", "a method defined without `self`?"]),
    ("items = [1]\nitems[3]\n", ["An index into a list at t.py:2 is past its end", "`sys.argv[N]`"]),
    ("total, count = 3, 0\nprint(total / count)\n", ["A divisor at t.py:2 is zero"]),
    ('int("abc")\n', ["The text 'abc' is not a base-10 integer", "at t.py:1"]),
    ('import json\njson.loads("")\n', ["not valid JSON at its line 1 column 1", "the json module raised",
                                      "empty input"]),
    ("prnt(1)\n", ["Use `print` instead of `prnt` at t.py:1"]),
])
def test_an_exception_whose_kind_says_what_to_do_gets_that_fix(tmp_path, code, says):
    _script(tmp_path, "t.py", code)
    error = aw("--cwd", str(tmp_path), PY, "t.py", detail="concise").error
    assert error["code"] == "PYTHON_EXCEPTION"
    for words in says:
        assert words in error["suggested_fix"], error["suggested_fix"]
    assert "fix the code at the location" not in error["suggested_fix"]


def test_an_exception_whose_kind_says_nothing_more_has_no_fix_rather_than_a_template(tmp_path):
    _script(tmp_path, "t.py", "raise RuntimeError('the backend said no')\n")
    concise = aw("--cwd", str(tmp_path), PY, "t.py", detail="concise").error
    assert concise["code"] == "PYTHON_EXCEPTION" and concise["detail"] == "RuntimeError: the backend said no"
    assert "suggested_fix" not in concise  # "fix the code at the location" says nothing the location does not
    assert aw("--cwd", str(tmp_path), PY, "t.py").error["suggested_fix"] is None  # the full record: null
    _script(tmp_path, "f.py", "open('data/in.csv')\n")
    missing = aw("--cwd", str(tmp_path), PY, "f.py", detail="concise").error
    assert missing["code"] == "PYTHON_FILE_NOT_FOUND" and "Create 'data/in.csv'" in missing["suggested_fix"]


def test_dash_m_from_the_wrong_folder_names_the_folder_that_holds_the_package(tmp_path):
    (tmp_path / ".git").mkdir()
    _script(tmp_path, "sub/__init__.py", "")
    _script(tmp_path, "sub/use.py", "print('used')\n")
    (tmp_path / "other").mkdir()
    error = aw("--cwd", str(tmp_path / "other"), PY, "-m", "sub.use").error
    assert (error["code"], error["module"], error["target"]) == ("PYTHON_MODULE_NOT_FOUND", "sub", "sub.use")
    assert error["local_module"] == str(tmp_path / "sub")
    assert f"from {tmp_path}, the folder that holds sub" in error["suggested_fix"]
    assert not any("pip" in a["command"] for a in error["code_actions"])  # 'sub' on PyPI is a stranger's
    for action in error["code_actions"]:  # each one runs the module as it was meant to run
        done = subprocess.run(action["command"], cwd=action.get("cwd", tmp_path / "other"), capture_output=True,
                              text=True)
        assert (done.returncode, done.stdout) == (0, "used\n"), done.stderr
    assert [a.get("cwd") for a in error["code_actions"]] == [str(tmp_path / "other"), str(tmp_path)]


def test_dash_m_of_a_package_nowhere_in_reach_says_to_run_it_from_its_folder(tmp_path):
    (tmp_path / ".git").mkdir()
    error = aw("--cwd", str(tmp_path), PY, "-m", "nosuchpkg_xyz.use").error
    assert (error["code"], error["module"], error["target"]) == ("PYTHON_MODULE_NOT_FOUND", "nosuchpkg_xyz",
                                                                  "nosuchpkg_xyz.use")
    assert error["detail"] == "python -m nosuchpkg_xyz.use: No module named nosuchpkg_xyz"
    assert "Run it from the folder that contains `nosuchpkg_xyz/` (the project root)" in error["suggested_fix"]
    assert "check the module name" in error["suggested_fix"]
    assert not any(a.get("is_preferred") for a in error["code_actions"])  # an install is a guess here


def test_a_bad_call_made_by_library_code_points_at_the_callback_and_the_fix_names_files_as_the_location_does():
    text = ('Traceback (most recent call last):\n  File "/w/app.py", line 3, in <module>\n    run(on_done)\n'
            '  File "/usr/lib/python3.11/site-packages/lib/x.py", line 9, in run\n    callback(1, 2)\n'
            "TypeError: on_done() takes 1 positional argument but 2 were given\n")
    [found] = tracebacks.problems(text, cwd="/w")
    assert found.location == {"file": "/w/app.py", "line": 3}  # made relative later, with the location
    assert found.suggested_fix == ("A call made in library code (reached from app.py:3) passes 2 positional "
                                   "arguments where on_done() takes 1: a function you passed to it as a callback "
                                   "may have the wrong signature.")
    assert found.extra["function"] == "on_done"
    [elsewhere] = tracebacks.problems(text, cwd="/elsewhere")
    assert "(reached from /w/app.py:3)" in (elsewhere.suggested_fix or "")
