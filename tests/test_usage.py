"""Bad input to agentwrap answers as a Problem with the contract's exit code, never a traceback."""

from __future__ import annotations

import os
import sys

import pytest
from conftest import aw

PY = sys.executable


@pytest.mark.parametrize(("args", "needle"), [
    (["--timeout", "banana", "echo", "hi"], "--timeout"),
    (["--timeout"], "needs a value"),
    (["--bogus", "echo"], "unknown option --bogus"),
    (["--tiemout", "5", "echo"], "did you mean --timeout"),
    (["--format", "pretty", "echo"], "conflict"),
    (["--format", "xml", "echo"], "--format"),
    (["--adapter", "generic", "--no-adapter", "echo"], "conflict"),
    (["--answer", "no-equals-sign", "echo"], "REGEX=REPLY"),
    (["--answer", "(unclosed=x", "echo"], "invalid regular expression"),
    (["--env", "1BAD=x", "echo"], "--env"),
    (["--max-inline-bytes", "lots", "echo"], "byte count"),
    (["--detail", "verbose", "echo"], "--detail"),
    (["--fields", "nonsense.x", "echo"], "--fields"),
    (["--agent=yes", "echo"], "takes no value"),
    ([], "no program given"),
    (["--adapter", "nosuch", "echo"], "no such adapter"),
    (["--cwd", "/no/such/dir", "echo"], "no such directory"),
    (["--stdin", "/no/such/file", "cat"], "cannot read"),
    (["--stdin", "/", "cat"], "is a directory"),
])
def test_usage_problems(args, needle):
    a = aw(*args)
    assert a.code == 125
    assert a.error["code"] == "USAGE"
    assert a.error["category"] == "usage"
    assert needle in a.error["detail"]


def test_a_bad_option_after_agent_answers_in_the_agent_projection():
    """The parse stops at the bad option, but `--agent` before it was read: the answer is concise."""
    a = aw("--agent", "--bogus", "--", "ls", agent=False)
    assert a.code == 125 and a.error["code"] == "USAGE"
    assert "request_id" not in a.env and "output" not in a.env and "context" not in a.env
    full = aw("--agent", "--detail", "standard", "--bogus", "--", "ls", agent=False)
    assert "request_id" in full.env and "output" in full.env


def test_program_not_found_is_127():
    a = aw("no-such-program-xyz", "--flag")
    assert a.code == 127
    assert a.error["code"] == "PROGRAM_NOT_FOUND"
    assert a.env["command"]["argv"] == ["no-such-program-xyz", "--flag"]


def test_a_directory_is_not_executable_126(tmp_path):
    a = aw(str(tmp_path))
    assert a.code == 126 and a.error["code"] == "NOT_EXECUTABLE"
    assert "chmod" not in a.error["suggested_fix"]  # no mode makes a directory a program


def test_a_file_without_execute_bit_is_126(tmp_path):
    script = tmp_path / "s.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    a = aw(str(script))
    assert a.code == 126 and a.error["code"] == "NOT_EXECUTABLE"


def test_a_missing_interpreter_is_126(tmp_path):
    script = tmp_path / "s"
    script.write_text("#!/no/such/interpreter -x\n")
    script.chmod(0o755)
    a = aw(str(script))
    assert a.code == 126 and a.error["code"] == "NOT_EXECUTABLE"
    # the missing interpreter is named, and the file's mode (already executable) is not blamed
    assert "`/no/such/interpreter`" in a.error["detail"] and "chmod" not in a.error["suggested_fix"]


def test_double_dash_runs_a_program_named_like_a_subcommand():
    a = aw("--", "explain")
    assert a.code == 127 and a.error["code"] == "PROGRAM_NOT_FOUND"


def test_wrapper_options_end_at_the_program():
    a = aw("sh", "-c", 'echo "$@"', "sh", "--timeout", "banana")
    assert a.code == 0 and a.text() == "--timeout banana\n"


def test_explicit_run_form():
    a = aw("run", "--timeout", "5s", "--", "echo", "ok")
    assert a.code == 0 and a.text() == "ok\n"


def test_help_and_version_answer_in_json():
    assert "usage" in aw("--help").env["data"]
    assert aw("--version").env["data"]["version"]
    assert "usage" in aw("explain", "--help").env["data"]


def test_internal_errors_are_problems_not_tracebacks(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    # The artifact cache cannot be created (its parent is a file): the run still answers, bounded.
    a = aw(PY, "-c", "print('x' * 50000)", env={"AGENTWRAP_CACHE_DIR": str(blocker / "cache")})
    assert a.code == 0
    assert any(w["code"] == "ARTIFACT_UNAVAILABLE" for w in a.env["warnings"])
    assert a.env["output"]["stdout"]["truncated"] is True
    assert len(a.stdout) < 16 * 1024


def test_usage_error_in_pretty_format_is_readable():
    a = aw("--format", "json", "--timeout", "x", "echo", agent=False)
    assert a.error["code"] == "USAGE"


def test_non_agent_default_format_is_json_when_stdout_is_not_a_terminal():
    a = aw("echo", "hi", agent=False)
    assert a.env["status"] == "success"
    assert os.environ.get("NO_COLOR") is None


def test_the_usage_line_of_apply_names_each_of_its_options():
    # Read from apply's own --help, so an option added there and not to the usage line is caught.
    usage = aw("--help").env["data"]["usage"]
    (line,) = [line.strip() for line in usage.splitlines() if line.strip().startswith("agentwrap apply PLAN_ID")]
    own = aw("apply", "--help").env["data"]["usage"]
    options = {word.strip("[],") for word in own.split() if word.strip("[],").startswith("--")} - {"--help"}
    assert options and all(option in line for option in options), (line, options)
