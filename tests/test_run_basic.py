"""Running real programs: exit codes, signals, streams, the terminal the program sees."""

from __future__ import annotations

import os
import sys

from conftest import aw

PY = sys.executable


def test_echo_succeeds_with_clean_stdout():
    a = aw("echo", "hello")
    assert a.code == 0
    assert a.text() == "hello\n"
    assert a.env["command"]["program"].endswith("/echo")
    assert a.env["context"]["pty"] is True
    assert a.env["exit"] == {"code": 0, "signal": None, "timed_out": False, "duration_ms": a.env["exit"]["duration_ms"]}


def test_stdout_and_stderr_stay_separate_and_are_all_terminals():
    a = aw(PY, "-c", "import os,sys; print(os.isatty(0), os.isatty(1), os.isatty(2)); "
                     "print('to stderr', file=sys.stderr)")
    assert a.text("stdout") == "True True True\n"
    assert a.text("stderr") == "to stderr\n"


def test_newlines_are_not_rewritten_to_crlf():
    a = aw("printf", "a\\nb\\n")
    assert a.text() == "a\nb\n"
    assert a.env["output"]["stdout"]["bytes"] == 4


def test_exit_code_is_exact_and_unexplained_failure_is_command_failed():
    a = aw("sh", "-c", "echo 'fatal: something broke' >&2; exit 3")
    assert a.code == 3
    assert a.error["code"] == "COMMAND_FAILED"
    assert "something broke" in a.error["detail"]
    assert a.env["exit"]["code"] == 3


def test_a_silent_failure_is_not_sent_to_read_output_it_does_not_have():
    a = aw("sh", "-c", "exit 3")
    assert a.error["code"] == "COMMAND_FAILED" and a.env["output"]["stdout"]["bytes"] == 0
    assert "output" not in a.error["suggested_fix"] and "exit status 3" in a.error["suggested_fix"]
    loud = aw("sh", "-c", "echo broke; exit 3")
    assert "output" in loud.error["suggested_fix"]


def test_signal_death_is_128_plus_n():
    a = aw("sh", "-c", "kill -SEGV $$")
    assert a.code == 128 + 11
    assert a.env["exit"]["signal"] == 11
    assert a.error["code"] == "KILLED_BY_SIGNAL"


def test_no_output_lost_when_program_exits_at_once():
    a = aw("--max-inline-bytes", "1M", PY, "-c", "import os; os.write(1, b'x' * 300000 + b'\\nend\\n')")
    assert a.env["output"]["stdout"]["bytes"] == 300005
    assert a.text().endswith("end\n")


def test_no_pty_runs_on_pipes():
    a = aw("--no-pty", PY, "-c", "import os; print(os.isatty(0), os.isatty(1), os.isatty(2))")
    assert a.text() == "False False False\n"
    assert a.env["context"]["pty"] is False


def test_stdin_file_is_fed_through_a_pipe_beyond_the_terminal_line_limit(tmp_path):
    data = tmp_path / "in.txt"
    data.write_text("y" * 100_000)  # one line far over the 4095-byte canonical terminal line
    a = aw("--stdin", str(data), PY, "-c", "import sys; print(len(sys.stdin.read()))")
    assert a.text() == "100000\n"
    assert a.env["context"]["stdin"] == "file"


def test_stdin_dash_feeds_agentwraps_own_input():
    a = aw("--stdin", "-", PY, "-c", "import sys; print(sys.stdin.read().upper())", input=b"abc")
    assert a.text() == "ABC\n"


def test_cwd_and_env_reach_the_program(tmp_path):
    a = aw("--cwd", str(tmp_path), "--env", "GREETING=hi there", "sh", "-c", 'pwd; echo "$GREETING"')
    assert a.text() == f"{tmp_path}\nhi there\n"
    assert a.env["context"]["cwd"] == str(tmp_path)
    assert a.env["context"]["env"] == {"GREETING": "hi there"}  # what the caller set; --detail detailed adds the rest


def test_prevention_environment_is_set_and_echoed():
    a = aw("sh", "-c", 'echo "$GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER $PIP_NO_INPUT $DEBIAN_FRONTEND $TERM $NO_COLOR"',
           detail="detailed")
    assert a.text() == "0 cat cat 1 noninteractive xterm-256color 1\n"
    env_set = a.env["context"]["env_set"]
    for name in ("GIT_TERMINAL_PROMPT", "PAGER", "PIP_NO_INPUT", "DEBIAN_FRONTEND", "EDITOR", "GIT_ASKPASS",
                 "npm_config_yes"):
        assert name in env_set
    assert env_set["npm_config_yes"] == "false"  # refuse, never consent


def test_metrics_are_reported():
    a = aw(PY, "-c", "x = bytearray(50_000_000); sum(range(3_000_000))")
    m = a.env["metrics"]
    assert m["max_rss_bytes"] > 50_000_000
    assert m["cpu_ms"] > 0
    assert m["duration_ms"] >= m["cpu_ms"] // 2


def test_program_closing_its_terminal_early_still_finishes():
    a = aw("sh", "-c", "echo before; exec 1>&- 2>&-; sleep 0.3; exit 0")
    assert a.code == 0
    assert a.text() == "before\n"


def test_empty_output_is_an_empty_string():
    a = aw("true")
    assert a.text() == "" and a.env["output"]["stdout"]["lines"] == 0


def test_exit_zero_is_success_even_with_stderr():
    a = aw("sh", "-c", "echo warning: meh >&2")
    assert a.code == 0 and a.env["status"] == "success"


def test_user_env_overrides_prevention():
    a = aw("--env", "PAGER=more", "sh", "-c", 'echo "$PAGER"')
    assert a.text() == "more\n"


def test_inherited_environment_is_kept():
    a = aw("sh", "-c", 'echo "$HOME"')
    assert a.text() == f"{os.environ['HOME']}\n"


def test_a_program_that_closes_its_output_before_exiting_is_not_hung_up():
    # dd closes stdout and stderr, then exits: closing the terminal under it would SIGHUP it.
    for _ in range(8):
        a = aw("dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=20")
        assert a.code == 0, a.env["exit"]
        assert a.env["exit"]["signal"] is None
