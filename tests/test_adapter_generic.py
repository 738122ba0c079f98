"""The generic rules (adapters/generic.toml): common failures of ANY program, precise enough to run on every
failed run. Real programs end to end (cat, ls, grep, sh, bash, python, dd), then the patterns against the
exact lines shells, libc and runtimes print, and against ordinary prose that must not trigger them."""

from __future__ import annotations

import shutil
import sys

import pytest
from conftest import aw

from agentwrap.adapter import BaseAdapter, CapturedRun
from agentwrap.capture import StreamResult


def test_cat_ls_grep_missing_files(tmp_path):
    # --no-adapter: grep has an adapter of its own (GREP_NO_SUCH_FILE); here the generic rules are under test.
    for argv in (["cat", "missing.txt"], ["ls", "missing.txt"], ["grep", "x", "missing.txt"]):
        error = aw("--cwd", str(tmp_path), "--no-adapter", "--", *argv).error
        assert error["code"] == "FILE_NOT_FOUND", argv
        assert error["category"] == "not_found" and error["detail"] == "no such file or directory: missing.txt"


@pytest.mark.parametrize(("line", "path"), [("cd nosuch && ls", "nosuch"), ("source nosuch.sh", "nosuch.sh"),
                                           ("pushd nosuch", "nosuch")])
def test_a_bash_builtin_given_a_missing_path_is_file_not_found(tmp_path, line, path):
    """`bash: line 1: cd: nosuch: No such file or directory`: bash names its builtin between the line and the
    path; the path is what is missing, and trying it again is safe (before: COMMAND_FAILED, `dependency`)."""
    error = aw("--cwd", str(tmp_path), "--shell", line).error
    assert (error["code"], error["category"], error["safe_to_retry"]) == ("FILE_NOT_FOUND", "not_found", True)
    assert error["detail"] == f"no such file or directory: {path}"


def test_a_rejected_argument_is_named_not_the_help_pointer_after_it(tmp_path):
    # coreutils print the error, then `Try 'ls --help' for more information.`: the error is the fact
    for argv, said in ((["ls", "--bogus"], "unrecognized option '--bogus'"),
                       (["cp", "onlyone"], "missing destination file operand after 'onlyone'"),
                       (["sort", "-q"], "invalid option -- 'q'")):
        error = aw("--cwd", str(tmp_path), "--", *argv).error
        assert error["code"] == "PROGRAM_USAGE" and error["category"] == "usage", argv
        assert error["detail"] == f"{argv[0]}: {said}" and "--help" in error["suggested_fix"]


def test_grep_without_a_match_is_not_dressed_up(tmp_path):
    # Without an adapter, exit 1 with no output is an unexplained failure and no generic rule claims it.
    (tmp_path / "a.txt").write_text("alpha\n")
    error = aw("--cwd", str(tmp_path), "--no-adapter", "--", "grep", "zzz", "a.txt").error
    assert error["code"] == "COMMAND_FAILED" and error["exit_code"] == 1


def test_missing_command_in_a_script_has_location_and_install_hint(tmp_path):
    (tmp_path / "deploy.sh").write_text("echo start\nfrobnicate --all\n")
    error = aw("--cwd", str(tmp_path), "--", "bash", "./deploy.sh").error
    assert error["code"] == "COMMAND_NOT_FOUND" and error["category"] == "dependency"
    assert error["location"] == {"file": "./deploy.sh", "line": 2}
    assert error["code_actions"][0]["applicability"] == "has_placeholders"
    inline = aw("--", "sh", "-c", "frobnicate --all").error
    assert inline["code"] == "COMMAND_NOT_FOUND" and "`frobnicate`" in inline["detail"]


def test_permission_denied_and_connection_refused(tmp_path):
    (tmp_path / "run.sh").write_text("#!/bin/sh\necho hi\n")
    denied = aw("--cwd", str(tmp_path), "--", "bash", "-c", "./run.sh").error
    assert denied["code"] == "PERMISSION_DENIED" and denied["code_actions"][0]["command"] == ["ls", "-ld", "./run.sh"]
    refused = aw("--", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/9").error
    assert refused["code"] == "CONNECTION_REFUSED" and refused["retryable"] is True


def test_disk_full_and_memory_error():
    # --no-pty: under a terminal, dd closes it before printing and the runner's hang-up can kill it first
    full = aw("--no-pty", "--", "dd", "if=/dev/zero", "of=/dev/full", "bs=1k", "count=1").error
    assert full["code"] == "DISK_FULL" and full["code_actions"][0]["command"] == ["df", "-h"]
    memory = aw("--adapter", "generic", "--", sys.executable, "-c", "x = bytearray(1 << 50)").error
    assert memory["code"] == "OUT_OF_MEMORY" and memory["retryable"] is True


def test_uncaught_python_exception_located_in_the_callers_code(tmp_path):
    (tmp_path / "app.py").write_text("import json\n\n\ndef load(text):\n    return json.loads(text)\n\n\nload('{x')\n")
    error = aw("--adapter", "generic", "--cwd", str(tmp_path), "--", sys.executable, "app.py").error
    assert error["code"] == "UNCAUGHT_EXCEPTION"
    assert error["detail"].startswith("json.decoder.JSONDecodeError: ")
    assert error["location"] == {"file": "app.py", "line": 5}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_uncaught_node_error_located(tmp_path):
    (tmp_path / "boom.js").write_text("function start() {\n  throw new Error('port is not configured');\n}\nstart();\n")
    error = aw("--adapter", "generic", "--cwd", str(tmp_path), "--", "node", "boom.js").error
    assert error["code"] == "UNCAUGHT_EXCEPTION" and error["detail"] == "Error: port is not configured"
    assert error["location"] == {"file": "boom.js", "line": 2, "column": 9}


def test_prose_does_not_trigger_the_rules():
    text = "note: permission denied and connection refused are documented; too many requests, rate limits"
    error = aw("--", "sh", "-c", f"echo '{text}'; exit 3").error
    assert error["code"] == "COMMAND_FAILED"


_EMPTY = StreamResult("", 0, 0, False, 0, None)


def _error(stderr: str, exit_code: int = 1) -> tuple[str, dict | None, float | None]:
    run = CapturedRun(argv=("prog",), program="/bin/prog", exit_code=exit_code, signal=None, stdout=_EMPTY,
                      stderr=_EMPTY, duration_ms=0, stdout_text="", stderr_text=stderr, complete=True, subcommand=None)
    e = BaseAdapter().interpret(run).error
    assert e is not None
    return e.code, e.location, e.retry_after


@pytest.mark.parametrize(("text", "code"), [
    ("cp: cannot stat 'a b.txt': No such file or directory", "FILE_NOT_FOUND"),
    ("python3: can't open file '/tmp/x.py': [Errno 2] No such file or directory", "FILE_NOT_FOUND"),
    ("Error: ENOENT: no such file or directory, open 'cfg.json'", "FILE_NOT_FOUND"),
    ("touch: cannot touch '/root/x': Permission denied", "PERMISSION_DENIED"),
    ("PermissionError: [Errno 13] Permission denied: '/etc/shadow'", "PERMISSION_DENIED"),
    ("bash: line 1: frobnicate: command not found", "COMMAND_NOT_FOUND"),
    ("/usr/bin/env: 'python': No such file or directory", "COMMAND_NOT_FOUND"),
    ("zsh: command not found: foo", "COMMAND_NOT_FOUND"),
    ("Traceback (most recent call last):\n  File \"/a.py\", line 1, in <module>\n"
     "ModuleNotFoundError: No module named 'yaml'", "MODULE_NOT_FOUND"),
    ("Error: Cannot find module 'express'\nRequire stack:\n- /tmp/a.js", "MODULE_NOT_FOUND"),
    ("curl: (6) Could not resolve host: example.invalid", "HOST_NOT_FOUND"),
    ("dial tcp: lookup foo.invalid on 127.0.0.53:53: no such host", "HOST_NOT_FOUND"),
    ("connect: Network is unreachable", "NETWORK_UNREACHABLE"),
    ("ssh: connect to host 10.0.0.1 port 22: Connection timed out", "CONNECTION_TIMED_OUT"),
    ("OSError: [Errno 28] No space left on device", "DISK_FULL"),
    ("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", "OUT_OF_MEMORY"),
    ("bash: fork: Cannot allocate memory", "OUT_OF_MEMORY"),
    ("mkdir: cannot create directory 'out': File exists", "ALREADY_EXISTS"),
    ("cat: /tmp: Is a directory", "WRONG_FILE_TYPE"),
    ("touch: cannot touch '/x/y': Read-only file system", "READ_ONLY_FILESYSTEM"),
    ("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nrequests.exceptions.ConnectionError: "
     "HTTPConnectionPool(host='h', port=9): Max retries exceeded ([Errno 111] Connection refused'))",
     "CONNECTION_REFUSED"),
])
def test_rules_match_the_real_phrasing(text, code):
    assert _error(text)[0] == code


@pytest.mark.parametrize(("text", "exit_code", "code"), [
    ("bash: line 1: 4242 Killed                  python big.py", 137, "OUT_OF_MEMORY"),
    ("Killed", 1, "COMMAND_FAILED"),
    ("bash: line 1: 4242 Segmentation fault      (core dumped) ./prog", 139, "PROGRAM_CRASHED"),
    ("Aborted by the user", 1, "COMMAND_FAILED"),
])
def test_signal_phrases_need_the_matching_exit_code(text, exit_code, code):
    assert _error(text, exit_code)[0] == code


def test_rate_limit_reads_retry_after():
    assert _error("Error: API rate limit exceeded. Try again in 2 minutes.")[::2] == ("RATE_LIMITED", 120.0)
    assert _error("HTTP/1.1 429 Too Many Requests\nRetry-After: 30")[::2] == ("RATE_LIMITED", 30.0)


@pytest.mark.parametrize("prose", [
    "the docs say permission denied errors are rare",
    "error: the file was not found",
    "tests: 3 passed, 1 failed; see connection refused handling docs",
    "WARNING: retrying after too many requests is recommended",
    "git@github.com: Permission denied (publickey).",
    "Killed 3 processes",
    "we hit a rate limit last week",
    "error: unknown option `--frobnicate'",  # a tool's own `error:` line: which program it is, nobody says
])
def test_ordinary_prose_stays_command_failed(prose):
    assert _error(prose)[0] == "COMMAND_FAILED"
