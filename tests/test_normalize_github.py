"""agentwrap normalize on GitHub Actions logs as the runner writes them: a step's output after its
`##[group]Run …` header, annotations (`::error file=…::`, `##[error]`), the runner's `exit code N` line,
and one log line read by two tools' adapters."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.logs.engine import LogResult, Normalizer


def _stamped(text: str) -> str:
    return "".join(f"2024-05-01T12:00:0{i % 10}.0000000Z {line}\n" for i, line in enumerate(text.splitlines()))


def _read(text: str) -> LogResult:
    return Normalizer(forced=None, max_problems=100).run(io.BytesIO(text.encode()))


DEPLOY = _stamped("##[group]Run ./deploy.sh\n./deploy.sh\nshell: /usr/bin/bash -e {0}\n##[endgroup]\n"
                  "deploying...\nPermission denied (publickey).\n##[error]Process completed with exit code 255.")


def test_a_failed_step_without_a_diagnostic_is_an_error_quoting_its_last_lines(tmp_path):
    log = tmp_path / "fail_only.log"
    log.write_text(DEPLOY)
    a = aw("normalize", str(log))
    assert a.code == 255 and a.env["status"] == "error"
    assert a.error["code"] == "COMMAND_FAILED" and a.error["step"] == "Run ./deploy.sh"
    assert "Permission denied (publickey)." in a.error["detail"]
    assert "shell: /usr/bin/bash" not in a.error["detail"]  # the step's header is no output of it
    assert a.env["data"]["failed_steps"] == [{"step": "Run ./deploy.sh", "exit_code": 255}]


def test_a_failed_step_with_its_own_error_is_not_reported_twice():
    log = _stamped("##[group]Run mypy src\nmypy src\n##[endgroup]\n"
                   'src/a.py:10: error: Incompatible return value type (got "int", expected "str")  [return-value]\n'
                   "Found 1 error in 1 file (checked 1 source file)\n##[error]Process completed with exit code 1.")
    result = _read(log)
    assert [p.code for p in result.problems] == ["MYPY_TYPE_ERROR"]
    assert result.failed_steps == [{"step": "Run mypy src", "exit_code": 1}]


def test_the_exit_code_given_for_a_plain_log_quotes_its_last_lines(tmp_path):
    log = tmp_path / "plain.log"
    log.write_text("deploying...\nPermission denied (publickey).\n\n")
    a = aw("normalize", "--exit-code", "255", str(log))
    assert a.code == 255 and a.error["code"] == "COMMAND_FAILED"
    assert a.error["detail"].endswith("its last lines:\n  deploying...\n  Permission denied (publickey).")


def test_annotations_become_problems_with_their_decoded_properties():
    log = _stamped("##[error]src/x.py:3: something bad\n"
                   "::error file=src/y.py,line=4,col=2,endLine=4,endColumn=9,title=Bad%2C very%3A bad::first%0Asecond\n"
                   "::warning::plain warning\n::notice file=a.c::just so")
    result = _read(log)
    found = [(p.severity, p.detail, p.location, p.title) for p in result.problems]
    assert found == [
        ("error", "src/x.py:3: something bad", {"file": "src/x.py", "line": 3}, "Workflow annotation"),
        ("error", "first\nsecond", {"file": "src/y.py", "line": 4, "column": 2, "end_line": 4, "end_column": 9},
         "Bad, very: bad"),
        ("warning", "plain warning", None, "Workflow annotation"),
        ("note", "just so", {"file": "a.c"}, "Workflow annotation"),
    ]
    assert result.lines == 4


def test_a_steps_output_follows_its_header_group_up_to_the_next_step():
    log = _stamped("##[group]Run mypy src\nmypy src\n##[endgroup]\n##[group]Installing\nstub\n##[endgroup]\n"
                   'src/a.py:10: error: Incompatible return value type (got "int", expected "str")  [return-value]\n'
                   "##[group]Run gcc -c m.c\ngcc -c m.c\n##[endgroup]\n"
                   "m.c:4:15: error: expected expression before ';' token")
    result = _read(log)
    assert [(p.code, (p.extra or {}).get("step")) for p in result.problems] == [
        ("MYPY_TYPE_ERROR", "Run mypy src"), ("GCC_ERROR", "Run gcc -c m.c")]
    assert result.steps == ["Run mypy src", "Run gcc -c m.c"]


@pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("mypy")), reason="needs gcc and mypy")
@pytest.mark.parametrize("flags", [["--show-column-numbers"], ["--show-column-numbers", "--show-error-end"]])
def test_a_mypy_line_beside_gcc_output_is_one_mypy_problem(tmp_path: Path, flags: list[str]):
    (tmp_path / "a.py").write_text("def f() -> str:\n    return 1\n")
    (tmp_path / "m.c").write_text("int f(int x) {\n    return x +;\n}\n")
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *flags, "a.py"], cwd=tmp_path,
                          capture_output=True, text=True).stdout
    gcc = subprocess.run(["gcc", "-fdiagnostics-color=never", "-c", "m.c", "-o", "/dev/null"], cwd=tmp_path,
                         capture_output=True, text=True).stderr
    assert "a.py:2:12" in mypy and "m.c:2:15: error" in gcc
    result = _read(mypy + gcc)
    assert sorted((p.code, p.location["file"]) for p in result.problems if p.location) == [
        ("GCC_ERROR", "m.c"), ("MYPY_TYPE_ERROR", "a.py")]
