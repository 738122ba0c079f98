"""`agentwrap --shell` and `-- bash -c`: the real bash runs the line; each command is read by its own adapter.

The shapes are those of rtk's bug reports (rtk-ai/rtk#1560, #2861, #3197, #557, #846, #2974): a pipe's
right side must receive what it would receive anyway, `;;` must stay `;;`, and no exit status may be
swallowed. Every expectation is checked against what bash itself does with the same line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agentwrap.shell import grammar, model
from tests.conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def bash(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git = ["git", "-c", "user.email=a@example.com", "-c", "user.name=A"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    for i in range(4):
        (tmp_path / f"f{i}").write_text(f"{i}\n")
        subprocess.run([*git, "-C", str(tmp_path), "add", f"f{i}"], check=True)
        subprocess.run([*git, "-C", str(tmp_path), "commit", "-qm", f"commit {i}"], check=True)
    return tmp_path


def test_git_log_head_shows_exactly_what_bash_shows(repo: Path) -> None:
    line = "git log | head -3"
    answer = aw("--cwd", str(repo), "--shell", line)
    assert answer.code == 0 and answer.env["status"] == "success"
    assert answer.text() == bash(line, repo).stdout
    # git was ended by SIGPIPE (or saw EPIPE) when head stopped reading: not git's failure
    assert answer.env["command"]["decided_by"]["argv"] == ["head", "-3"]


def test_case_with_double_semicolons_runs_as_bash_runs_it(tmp_path: Path) -> None:
    line = "for w in a b c; do case $w in a) echo first;; b) echo second;; *) echo other;; esac; done"
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.code == 0
    assert answer.text() == bash(line, tmp_path).stdout == "first\nsecond\nother\n"


def test_ls_grep_xargs_rm_deletes_what_bash_deletes(tmp_path: Path) -> None:
    for name in ("keep1", "keep2", "xdel1", "xdel2"):
        (tmp_path / name).write_text("")
    answer = aw("--cwd", str(tmp_path), "--shell", "ls | grep -v x | xargs rm")
    assert answer.code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["xdel1", "xdel2"]


@pytest.mark.parametrize(("line", "code", "stage"), [
    ("false | true", 1, 1),  # bash says 0; the failure the pipe hid is reported with its stage
    ("true | false", 1, 2),
    ("false", 1, 1),
    ("exit 3", 3, 1),
    ("true; false", 1, 1),
])
def test_exit_codes_are_never_swallowed(tmp_path: Path, line: str, code: int, stage: int) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.code == code
    assert answer.env["status"] == "error"
    assert answer.env["command"]["decided_by"]["stage"] == stage


@pytest.mark.parametrize("line", ["! true", "! false", "true && ! true", "if false; then echo x; fi",
                                  "while false; do :; done", "! grep -q zzz /etc/hostname", "false || true"])
def test_negations_and_conditions_end_as_bash_ends_them(tmp_path: Path, line: str) -> None:
    # a condition's failure is the plan, and `!` turns a command's status around: the line's status is bash's
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    expected = bash(line, tmp_path).returncode
    assert (answer.env["status"] == "success") == (expected == 0)
    assert answer.env["exit"]["code"] == expected
    # a line failed by its `!` says so, instead of leaving "exited 1 and printed nothing" unexplained
    negated = [w for w in answer.env.get("warnings") or [] if w["code"] == "SHELL_NEGATED_SUCCESS"]
    assert bool(negated) == (line in ("! true", "true && ! true"))


@pytest.mark.parametrize(("links", "read"), [(200, True), (1500, False)])
def test_a_long_chain_runs_and_ends_as_bash_ends_it(tmp_path: Path, links: int, read: bool) -> None:
    line = " && ".join(["true"] * links) + " && false"
    answer = aw("--cwd", str(tmp_path), "--shell", line, detail="concise")
    assert answer.env["status"] == "error" and answer.env["exit"]["code"] == 1
    if read:  # read command by command: the last one decided
        assert answer.env["command"]["decided_by"]["command"] == "false"
    else:  # too deep to read by commands: run unchanged, said so
        assert [w["code"] for w in answer.env["warnings"]] == ["SHELL_NOT_PARSED"]


_NESTED = {  # lines that nest n deep, each way shfmt's tree can nest
    "chain": lambda n: " && ".join(["true"] * n), "pipe": lambda n: " | ".join(["true"] * n),
    "subst": lambda n: "echo " + "$( echo " * n + "x" + " )" * n,
    "quoted": lambda n: "echo " + '"$( echo ' * n + "x" + ' )"' * n,
    "subshell": lambda n: "( " * n + "true" + " )" * n, "group": lambda n: "{ " * n + "true;" + " }" * n,
    "if": lambda n: "if true; then " * n + "true;" + " fi;" * n,
}


@pytest.mark.slow
@pytest.mark.parametrize("form", sorted(_NESTED))
def test_the_deepest_line_let_through_to_shfmt_is_read_and_one_deeper_is_not(form: str) -> None:
    # the estimate stands in for shfmt's tree: whatever it lets through must decode and be walked
    deepest = max(n for n in range(1, 600) if grammar.nesting(_NESTED[form](n)) <= grammar.MAX_DEPTH)
    line = _NESTED[form](deepest)
    parsed = grammar.parse(line)
    assert parsed.tree is not None, parsed.reason
    assert model.build(line, parsed.tree).units
    assert "nests too deep" in grammar.parse(_NESTED[form](deepest + 1)).reason


def test_a_very_deep_line_is_refused_before_shfmt_sees_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # shfmt's indented tree of 1500 links is 240 MB and took 13 s, then the JSON decoder gave up
    monkeypatch.setenv("AGENTWRAP_SHFMT", str(tmp_path / "no-shfmt-here"))  # asked, it would say "not found"
    for line in (" && ".join(["true"] * 1500), "echo " + "$( " * 500 + "true" + " )" * 500,
                 " | ".join(["true"] * 15000)):
        parsed = grammar.parse(line)
        assert parsed.tree is None and "nests too deep" in parsed.reason
    assert grammar.nesting("echo '" + "|" * 5000 + "'") == 0  # quoted: nothing nests
    assert grammar.nesting("\n".join(["a | b"] * 3000)) == 2  # each statement starts anew


def test_a_line_longer_than_one_argument_is_a_usage_problem(tmp_path: Path) -> None:
    request = tmp_path / "request.json"  # too long for a command line: it comes as a request
    request.write_text(json.dumps({"shell": " && ".join(["true"] * 20000), "cwd": str(tmp_path)}))
    answer = aw("run", "--input", str(request))
    assert answer.code == 125 and answer.env["error"]["code"] == "USAGE"
    assert "bash FILE" in answer.env["error"]["detail"]  # not bash's "cannot execute: Argument list too long"
    assert answer.wall < 10


def test_exit_status_seen_by_the_line_is_unchanged(tmp_path: Path) -> None:
    # the trace must not change `$?`, PIPESTATUS or `$_` for the line itself
    line = 'echo foo bar; echo "_=$_"; false; echo "st=$?"; false | true; echo "ps=${PIPESTATUS[*]}"; echo ok'
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.text() == bash(line, tmp_path).stdout == "foo bar\n_=bar\nst=1\nps=1 0\nok\n"
    assert answer.env["command"]["decided_by"]["command"] == "false"  # the pipe hid it from bash's status


def test_make_tail_reports_makes_failure(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("all:\n\t@echo building\n\t@false\n")
    line = "make 2>&1 | tail -5"
    assert bash(line, tmp_path).returncode == 0  # what the agent would have believed
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.env["status"] == "error" and answer.code == 2
    decided = answer.env["command"]["decided_by"]
    assert decided["argv"] == ["make"] and decided["stage"] == 1 and decided["hidden_by_pipe"]
    assert answer.env["command"]["adapter"] == "make"
    assert answer.text() == bash(line, tmp_path).stdout  # tail received make's output unchanged
    assert any(w["code"] == "PIPE_HID_FAILURE" for w in answer.env["warnings"])


def test_a_line_whose_own_status_is_a_later_stages_exits_with_the_deciding_stages(tmp_path: Path) -> None:
    """`make | grep x`: bash's status is grep's 1 (no match), but make's 2 decided the line. agentwrap exits
    with make's code, as it would have had the pipe hidden it; the envelope keeps the line's own status."""
    (tmp_path / "Makefile").write_text("all:\n\t@echo building\n\t@false\n")
    line = "make 2>&1 | grep nothing-like-this"
    assert bash(line, tmp_path).returncode == 1
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.env["status"] == "error" and answer.code == 2 and answer.error["exit_code"] == 2
    assert answer.env["exit"]["code"] == 1
    assert answer.env["command"]["decided_by"]["argv"] == ["make"]


def test_a_hidden_failure_that_printed_nothing_lost_nothing_to_the_pipe(tmp_path: Path) -> None:
    """`false | true`: false wrote nothing for `true` to cut, so its summary claims no partial reading."""
    answer = aw("--cwd", str(tmp_path), "--shell", "false | true; echo hi")
    assert answer.env["summary"] == "false: exit status 1"
    assert answer.env["command"]["decided_by"]["hidden_by_pipe"]


def test_a_stage_whose_status_its_adapter_calls_success_is_no_hidden_failure(tmp_path: Path) -> None:
    """grep's status 1 is "no match", a success to its adapter as it is alone: `grep x f | cat` hid nothing,
    so no warning says a failure was hidden; a grep that really failed (status 2) still decides."""
    (tmp_path / "f").write_text("a\nb\n")
    quiet = aw("--cwd", str(tmp_path), "--shell", "grep zzz f | cat")
    assert quiet.env["status"] == "success" and quiet.env["warnings"] == [], quiet.env["warnings"]
    assert "decided_by" not in quiet.env["command"] or not quiet.env["command"]["decided_by"].get("hidden_by_pipe")
    failed = aw("--cwd", str(tmp_path), "--shell", "grep zzz missing | cat")
    assert failed.env["status"] == "error" and failed.error["code"] == "GREP_NO_SUCH_FILE"
    assert failed.env["command"]["decided_by"]["hidden_by_pipe"]


@pytest.mark.skipif(shutil.which("pytest") is None, reason="needs the pytest command")
def test_cd_then_pytest_gives_pytests_located_problems(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "test_x.py").write_text("def test_a():\n    assert 1 == 2\n\n\ndef test_b():\n    pass\n")
    answer = aw("--cwd", str(tmp_path), "--shell", "cd sub && pytest -q -p no:cacheprovider")
    assert answer.code == 1
    assert answer.env["command"]["adapter"] == "pytest"
    assert answer.env["command"]["decided_by"]["cwd"] == str(sub)
    assert answer.error is not None and answer.error["code"] == "PYTEST_TEST_FAILED"
    assert answer.error["location"] == {"file": "sub/test_x.py", "line": 2}


def test_bash_c_form_is_read_the_same_way(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--", "bash", "-c", 'false | true; echo "$0 $1"', "zero", "one")
    assert answer.text() == "zero one\n"
    assert answer.env["command"]["argv"][:2] == ["bash", "-c"]


def test_grep_without_match_in_a_pipe_is_not_a_failure(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    answer = aw("--cwd", str(tmp_path), "--shell", "grep nothing a.txt | wc -l")
    assert answer.code == 0 and answer.text().strip() == "0"


def test_redirected_output_is_read_from_its_file(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("all:\n\t@false\n")
    answer = aw("--cwd", str(tmp_path), "--shell", "make > build.log 2>&1")
    assert answer.code == 2
    assert answer.env["command"]["adapter"] == "make"
    assert any(p["code"] == "MAKE_RECIPE_FAILED" for p in answer.env["problems"])


def test_unparsable_line_runs_unchanged_with_a_warning(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", 'echo "unterminated')
    assert answer.code == bash('echo "unterminated', tmp_path).returncode
    assert any(w["code"] == "SHELL_NOT_PARSED" for w in answer.env["warnings"])


def test_set_x_line_runs_untraced(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", "set -x; echo hi")
    assert answer.text() == "hi\n" and answer.text("stderr") == "+ echo hi\n"
    assert any(w["code"] == "SHELL_NOT_TRACED" for w in answer.env["warnings"])


def test_missing_shfmt_falls_back_to_generic(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", "false | true", env={"AGENTWRAP_SHFMT": "/nonexistent"})
    assert answer.code == 0  # bash's own status: no parse, no stage to report
    assert any("shfmt was not found" in w["message"] for w in answer.env["warnings"])


def test_concise_names_the_deciding_command(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", "echo a && ls /nonexistent-aw", detail="concise")
    assert answer.code == 2
    # which command, once: its words, stage 1 of 1, the exit code `exit` gives and the caller's cwd say nothing more
    assert answer.env["command"] == {"decided_by": {"command": "ls /nonexistent-aw", "index": 2}}
    elsewhere = aw("--cwd", str(tmp_path), "--shell", "cd / && ls /nonexistent-aw | cat", detail="concise")
    assert elsewhere.env["command"]["decided_by"]["cwd"] == "/", "a command that ran elsewhere says where"
    assert elsewhere.env["command"]["decided_by"]["stages"] == 2
    alone = aw("--cwd", str(tmp_path), "--shell", "ls /nonexistent-aw", detail="concise")
    assert alone.code == 2 and "command" not in alone.env, "a line of one command: the caller wrote it"
    assert alone.env["summary"].startswith("ls: ")


def test_shell_with_program_is_a_usage_error() -> None:
    answer = aw("--shell", "ls", "extra")
    assert answer.code == 125 and answer.error is not None and answer.error["code"] == "USAGE"


def test_no_mark_reaches_the_output_of_a_busy_line(tmp_path: Path) -> None:
    line = "for i in $(seq 1 300); do echo line $i; echo err $i >&2; done; echo end"
    answer = aw("--cwd", str(tmp_path), "--max-inline-bytes", "65536", "--shell", line)
    expected = bash(line, tmp_path)
    assert answer.text() == expected.stdout and answer.text("stderr") == expected.stderr
    assert b"7799" not in answer.stdout


def test_pipes_mode_is_traced_too(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--no-pty", "--shell", "false | true; echo x")
    assert answer.code == 1 and answer.text() == "x\n"
    assert answer.env["command"]["decided_by"]["command"] == "false"


def test_a_subshell_decides_with_its_own_status(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", "echo a; (exit 3)")
    assert answer.code == 3
    assert answer.env["command"]["decided_by"]["command"] == "(exit 3)"


def test_a_prompt_inside_a_line_is_input_required(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", 'echo start; read -p "Name: " n; echo "hi $n"')
    assert answer.code == 125 and answer.error is not None and answer.error["code"] == "INPUT_REQUIRED"


def test_a_timeout_inside_a_line_names_the_running_command(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--timeout", "1", "--shell", "echo a && sleep 30")
    assert answer.code == 124
    assert answer.env["command"]["decided_by"]["argv"] == ["sleep", "30"]


def test_an_earlier_command_of_a_loop_is_read_by_its_adapter(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    line = "for d in a missing; do ls $d; done"
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.code == bash(line, tmp_path).returncode == 2
    assert answer.env["command"]["decided_by"]["argv"] == ["ls", "$d"]


def test_a_failure_the_line_went_on_from_is_a_warning(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", "echo one; ls /nonexistent-aw; echo two")
    assert answer.code == 0  # bash's status is `echo two`'s
    assert [w["message"] for w in answer.env["warnings"] if w["code"] == "SHELL_EARLIER_FAILURE"] == [
        "`ls /nonexistent-aw` exited 2; the line went on, and its status is a later command's"]


@pytest.mark.skipif(Path("/bin/sh").resolve().name == "bash", reason="needs an sh that is not bash")
def test_sh_that_is_not_bash_runs_untraced(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--", "sh", "-c", "echo one; ls /nonexistent-aw")
    assert answer.code == 2
    assert any(w["code"] == "SHELL_NOT_TRACED" for w in answer.env["warnings"])


@pytest.mark.skipif(Path("/bin/sh").resolve().name == "bash", reason="needs an sh that is not bash")
def test_sh_running_one_command_is_read_by_its_adapter_without_a_warning(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--", "sh", "-c", "ls /nonexistent-aw")
    assert answer.code == 2 and answer.error is not None and answer.error["code"] == "FILE_NOT_FOUND"
    assert not any(w["code"] == "SHELL_NOT_TRACED" for w in answer.env["warnings"])


def test_an_appended_log_is_not_read_as_this_runs_output(tmp_path: Path) -> None:
    (tmp_path / "build.log").write_text("make: *** [old] Error 9\n")
    (tmp_path / "Makefile").write_text("all:\n\t@echo fine\n")
    answer = aw("--cwd", str(tmp_path), "--shell", "make >> build.log 2>&1")
    assert answer.code == 0 and answer.env["status"] == "success"


@pytest.mark.parametrize("line", ["declare -F", "set | grep -c __aw_ || true", "compgen -A function"])
def test_listings_show_what_bash_shows_without_the_trace(tmp_path: Path, line: str) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.text() == bash(line, tmp_path).stdout


def test_a_prompt_inside_a_line_is_answered_by_rerunning_the_whole_line(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    line = "cd sub && python3 -c \"input('Project name: ')\""
    a = aw("--cwd", str(tmp_path), "--", "bash", "-c", line)
    assert a.error["code"] == "INPUT_REQUIRED" and a.error["prompt"] == "Project name:"
    reruns = [act["command"] for act in a.error["code_actions"] if act.get("command", [""])[0] == "agentwrap"]
    assert reruns and all(cmd[-3:] == ["bash", "-c", line] for cmd in reruns), reruns


FAILING_TESTS = "def test_ok():\n    assert 1\n\n\ndef test_bad():\n    x = 3\n    assert x == 4\n"


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_a_tail_after_pytest_still_lets_pytest_be_read_whole(tmp_path: Path) -> None:
    # `| tail -3` shows only pytest's summary; the failure's place is in the lines tail dropped
    (tmp_path / "test_a.py").write_text(FAILING_TESTS)
    line = "python3 -m pytest -q -p no:cacheprovider 2>&1 | tail -3"
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.error["code"] == "PYTEST_TEST_FAILED"
    assert answer.error["location"] == {"file": "test_a.py", "line": 7}
    assert "may not be the total" not in answer.env["summary"]  # counted in all of pytest's output
    shown = bash(line, tmp_path).stdout.splitlines()
    assert answer.text().splitlines()[:1] == shown[:1] and len(answer.text().splitlines()) == len(shown)


@pytest.mark.slow  # runs pytest twice; .ci/run runs it
def test_a_head_after_pytest_keeps_its_lines_and_makes_up_no_fact(tmp_path: Path) -> None:
    # pytest exits 1, head 0: pytest's failure decides, and what head printed is what the caller asked to see
    (tmp_path / "test_a.py").write_text(FAILING_TESTS)
    line = "COLUMNS=80 python3 -m pytest -q -p no:cacheprovider | head -3"  # bash's own run has no terminal
    concise = aw("--cwd", str(tmp_path), "--shell", line, detail="concise")
    assert concise.env["output"]["stdout"]["text"] == bash(line, tmp_path).stdout  # `.F`, the rule, `test_bad`
    assert concise.error["code"] == "PYTEST_TEST_FAILED" and not concise.error["detail"].endswith(": ")
    data = aw("--cwd", str(tmp_path), "--shell", line).env.get("data") or {}
    # head's copy has all of pytest's output when pytest ended first (the counts are its own), else none
    assert (data.get("passed"), data.get("failed")) in ((None, None), (1, 1))


@pytest.mark.slow  # runs pytest; .ci/run runs it
def test_a_head_that_cut_pytest_off_says_so_and_what_it_saw(tmp_path: Path) -> None:
    # the line's own head keeps no copy: pytest is read from the 3 lines head let through
    (tmp_path / "test_a.py").write_text(FAILING_TESTS)
    line = 'head() { command head "$@"; }; COLUMNS=80 python3 -m pytest -q -p no:cacheprovider | head -3'
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.error["code"] == "PYTEST_TEST_FAILED" and answer.error["detail"] == "test_bad failed"
    assert "let through, not whole" in answer.env["summary"]
    assert "passed" not in answer.env["data"] and "failed" not in answer.env["data"]  # no final line: no counts
    assert not [w for w in answer.env["warnings"] if w["code"] == "DATA_PARTIAL"]  # the summary says why
    assert answer.text() == bash(line, tmp_path).stdout


@pytest.mark.slow  # runs 500 tests; .ci/run runs it
def test_pytest_cut_off_by_head_is_not_a_failure_when_it_read_none(tmp_path: Path) -> None:
    # pytest exits 1 on EPIPE when head stops reading: its copy shows it was cut off, and no test failed in it
    (tmp_path / "test_a.py").write_text("import pytest\n\n\n@pytest.mark.parametrize('i', range(500))\n"
                                        "def test_ok(i):\n    assert i >= 0\n")
    line = "COLUMNS=80 python3 -m pytest -v -p no:cacheprovider | head -2"
    answer = aw("--cwd", str(tmp_path), "--shell", line)
    assert answer.env["status"] == "success" and answer.env["command"]["decided_by"]["argv"] == ["head", "-2"]
    assert answer.text() == bash(line, tmp_path).stdout


@pytest.mark.parametrize("line", [
    'seq 1 100000 | tail -2; echo "ps=${PIPESTATUS[*]}"',
    'set -o pipefail; (exit 4) | tail -1; echo "st=$?"',
    "echo hi | tail -n1 | tail -c 3",
    "tail -1 /etc/hostname; echo x | tail",
    "yes | head -3 | tail -1",
    "tail() { echo mine; }; echo x | tail",  # the line's own tail wins
    "seq 1 3000000 | tail -1",  # more than the copy keeps
    "seq 3 | { tail -1 f.txt; cat; } | tail -9",  # a tail of a file leaves the pipe to the next command
    'printf "f.txt\\nf.txt\\n" | while read f; do tail -n1 "$f"; done | tail -5',
    "seq 3 | tail -n 2 -",
    "type tail; seq 2 | tail -1",  # says what tail is, as bash does
    'seq 1 100000 | head -2; echo "ps=${PIPESTATUS[*]}"',  # head's copy: seq is still ended by SIGPIPE
    "set -o pipefail; seq 100000 | head -1; echo st=$?",
    "seq 100000 | { head -1; cat; } | wc -l",  # a head that shares its pipe with cat is not copied
    "seq 3 | head -n 2 -",
    "head() { echo mine; }; echo x | head",
    "type head; seq 2 | head -1",
])
def test_a_tail_stage_prints_and_ends_as_bash_s_own(tmp_path: Path, line: str) -> None:
    (tmp_path / "f.txt").write_text("l1\nl2\nl3\n")
    temp = tmp_path / "tmp"
    temp.mkdir()
    answer = aw("--cwd", str(tmp_path), "--shell", line, timeout=120, env={"TMPDIR": str(temp)})
    assert list(temp.glob("agentwrap_*")) == []  # the run's folder, and the copies tail kept, are gone
    expected = bash(line, tmp_path)
    assert answer.text() == expected.stdout
    assert answer.env["exit"]["code"] == expected.returncode
    assert not [w for w in answer.env["warnings"] if w["code"] == "TREE_ENDED"]  # the copy's writer was waited for


def test_output_thrown_away_is_not_read_as_empty_output(repo: Path) -> None:
    answer = aw("--cwd", str(repo), "--shell", "git log -n 3 > /dev/null", detail="concise")
    assert answer.env["status"] == "success"
    assert "no commits" not in answer.env["summary"] and "data" not in answer.env  # the commits went to /dev/null



def test_a_prompt_in_an_early_stage_names_the_stage_that_asked(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--timeout", "20s", "--shell", "python3 -c \"input('name: ')\" | tail -3")
    assert answer.error["code"] == "INPUT_REQUIRED"
    assert answer.env["command"]["decided_by"]["argv"][0] == "python3"  # not tail, which only read its output
    assert answer.env["summary"].startswith("python3")


def test_a_pipeline_set_e_ended_is_not_blamed_on_its_last_stage(tmp_path: Path) -> None:
    answer = aw("--cwd", str(tmp_path), "--shell", "set -eo pipefail; false | cat; echo after")
    assert answer.code == bash("set -eo pipefail; false | cat; echo after", tmp_path).returncode == 1
    decided = answer.env["command"]["decided_by"]
    assert decided["command"] == "false | cat" and decided["stage"] is None  # no status says which stage failed
    assert "cat exited" not in answer.error["detail"]
