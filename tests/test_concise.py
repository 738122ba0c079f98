"""Detail levels (CONTRACT 2a) on real runs: `--agent` reads the concise projection, each fact once, and
nothing the caller needs is lost (the standard envelope and the artifact keep the rest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, aw, check_envelope

from agentwrap.outcome import bound, lean

PY = sys.executable


def agent(*args: str, cwd: Path | None = None) -> tuple[int, dict]:
    """`agentwrap --agent ARGS` exactly as an agent's tool configuration runs it (no --detail)."""
    proc = subprocess.run([PY, "-m", "agentwrap", "--agent", *args], capture_output=True, timeout=60, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)
    assert b"Traceback" not in proc.stderr, proc.stderr
    env = json.loads(proc.stdout)
    check_envelope(env, proc.returncode)
    return proc.returncode, env


def test_agent_mode_is_concise_and_a_small_command_costs_little():
    code, env = agent("--", "echo", "hi")
    assert code == 0
    assert env == {"schema_version": "1.0", "status": "success", "summary": "echo succeeded",
                   "output": {"stdout": {"text": "hi\n"}}}


def test_a_failure_says_its_code_once_and_keeps_its_fix(tmp_path):
    code, env = agent("--", "ls", str(tmp_path / "missing"))
    assert code == 2 and env["exit"] == {"code": 2}
    assert env["error"]["code"] == "FILE_NOT_FOUND" and "suggested_fix" in env["error"]
    for absent in ("request_id", "context", "metrics", "command", "problems", "artifacts"):
        assert absent not in env, "the deciding problem is not listed again"
    error = env["error"]  # the deciding problem is whole (CONTRACT 2a), without null members
    for member in ("type", "title", "status", "detail", "code", "category", "retryable", "safe_to_retry"):
        assert member in error
    assert None not in error.values() and "tool" not in error
    assert "ls: cannot access" not in json.dumps(env), "the line the problem was read from is not repeated"


@pytest.mark.skipif(not (os.path.exists("/usr/bin/make") and os.path.exists("/usr/bin/gcc")), reason="no make/gcc")
def test_a_compilers_place_is_said_once_by_the_location(tmp_path):
    native = tmp_path / "native"
    native.mkdir()
    (native / "Makefile").write_text("bad: bad.c\n\tgcc -Wall -o bad bad.c\n")
    (native / "bad.c").write_text("int main(void) {\n    int width = 1;\n    return widht;\n}\n")
    _, env = agent("--cwd", str(tmp_path), "--", "make", "-C", "native")
    error = env["error"]
    assert error["location"]["file"].endswith("native/bad.c") and error["location"]["line"] == 3
    assert error["detail"].startswith("‘widht’ undeclared"), "no `bad.c:3:12: error: ` before the message"
    standard = aw("--cwd", str(tmp_path), "--", "make", "-C", "native").env["error"]
    assert standard["detail"].startswith("bad.c:3:12: error: ‘widht’"), "the record keeps the tool's line"


@pytest.mark.parametrize(("detail", "lean"), [
    ("src/b.ts:1:21 - error TS2305: Module '\"./a\"' has no exported member 'missing'.",  # tsc --pretty
     "error TS2305: Module '\"./a\"' has no exported member 'missing'."),
    ("src/b.ts(1,21): error TS2305: Module '\"./a\"' has no exported member 'missing'.",  # tsc, msbuild
     "error TS2305: Module '\"./a\"' has no exported member 'missing'."),
    ("src/b.ts:1:2 - error TS2305: elsewhere", "src/b.ts:1:2 - error TS2305: elsewhere"),  # another column: kept
])
def test_every_compiler_place_form_is_said_once(detail, lean):
    from agentwrap.render.concise_problems import _without_location

    assert _without_location(detail, {"file": "src/b.ts", "line": 1, "column": 21}) == lean


def test_detail_levels_nest(tmp_path):
    concise = aw("--env", "MY_VAR=1", "sh", "-c", "echo out; echo err >&2", detail="concise").env
    standard = aw("--env", "MY_VAR=1", "sh", "-c", "echo out; echo err >&2").env
    detailed = aw("--env", "MY_VAR=1", "sh", "-c", "echo out; echo err >&2", detail="detailed").env
    assert set(concise) < set(standard) <= set(detailed)
    assert standard["context"]["env"] == {"MY_VAR": "1"} and "env_set" not in standard["context"]
    env_set = detailed["context"]["env_set"]
    assert env_set["GIT_TERMINAL_PROMPT"] == "0" and env_set["MY_VAR"] == "1" and "AGENTWRAP_SHIMS" in env_set
    assert detailed["output"]["stdout"]["lean_bytes"] == 4


def test_the_prevention_environment_is_listed_once_by_describe():
    env = aw("describe", "git").env
    prevention = env["data"]["prevention_env"]
    assert prevention["GIT_TERMINAL_PROMPT"] == "0" and prevention["GIT_PAGER"] == "cat"


def test_describe_says_which_prevention_variables_a_persons_run_leaves_out():
    data = aw("describe", "node").env["data"]
    assert data["prevention_env"]["NODE_DISABLE_COLORS"] == "1" and data["prevention_env"]["NO_COLOR"] == "1"
    assert sorted(data["prevention_env_machine_only"]) == ["NODE_DISABLE_COLORS", "NO_COLOR"]
    assert aw("capabilities").env["data"]["prevention_env_machine_only"] == ["NO_COLOR"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of 20 commits whose messages are long: a log that must be cut to fit."""
    genv = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, env=genv, capture_output=True)

    git("init", "-q", "-b", "main")
    for i in range(20):
        (tmp_path / "f.txt").write_text(f"{i}\n")
        git("add", "f.txt")
        git("commit", "-q", "-m", f"Change {i} of the file\n\n" + "This paragraph explains the change. " * 40)
    (tmp_path / "new.txt").write_text("x\n")
    return tmp_path


@pytest.mark.skipif(not os.path.exists("/usr/bin/git"), reason="git not installed")
def test_parsed_read_commands_send_data_not_text(repo):
    _, status = agent("--cwd", str(repo), "--", "git", "status")
    assert status["data"]["untracked"] == ["new.txt"] and "output" not in status
    _, log = agent("--cwd", str(repo), "--", "git", "log", "-n", "20")
    commits = log["data"]["commits"]
    assert len(commits) == 20, "a cut log keeps every commit's sha and subject before dropping any"
    assert all(c["abbrev"] and c["subject"].startswith("Change ") for c in commits)
    assert "output" not in log or len(log["output"]["stdout"]["text"]) <= 1100
    _, patch = agent("--cwd", str(repo), "--", "git", "log", "-p", "-n", "1")
    assert "+19" in patch["output"]["stdout"]["text"], "a patch is text the log parser does not keep"


def test_pytest_failures_are_stated_once_with_their_evidence(tmp_path):
    (tmp_path / "test_a.py").write_text("def test_ok():\n    pass\n\ndef test_bad():\n    a = [1, 2]\n"
                                        "    assert a == [1, 3]\n")
    code, env = agent("--cwd", str(tmp_path), "--", PY, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert code == 1 and env["summary"].startswith("pytest: 1 failed, 1 passed")
    error = env["error"]
    assert error["location"] == {"file": "test_a.py", "line": 6}
    assert "assert [1, 2] == [1, 3]" in error["detail"]
    assert any(line.startswith("E ") and "At index 1 diff: 2 != 3" in line for line in error["evidence"])
    assert any(line.startswith(">") and "assert a == [1, 3]" in line for line in error["evidence"])
    blob = json.dumps(env)
    assert blob.count("assert [1, 2] == [1, 3]") == 1, "the failure is stated once, in the detail"
    assert "====" not in blob and "[100%]" not in blob and "crash" not in error.get("suggested_fix", "")


def test_a_diff_of_the_two_values_the_message_compares_is_not_repeated(tmp_path):
    (tmp_path / "test_u.py").write_text("import unittest\n\nclass T(unittest.TestCase):\n    def test_u(self):\n"
                                        "        self.assertEqual([['A'], ['D', 'F']], [['A'], ['D', 'X']])\n\n"
                                        "def test_a():\n    assert 'hello world' == 'hello there'\n")
    _, env = agent("--cwd", str(tmp_path), "--", PY, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    shown = [env["error"], *env["problems"]]
    assert {p["location"]["line"] for p in shown} == {5, 8}
    for problem in shown:
        evidence = problem["evidence"]
        assert evidence[0].startswith(">"), "the failing source line stays"
        assert not any(line.startswith("E") and line[1:].strip()[:2] in ("- ", "+ ", "? ") for line in evidence), (
            "each side is in the detail already; its `?` markers mark lines that are not shown")
    blob = json.dumps(env)
    assert "First differing element 1:" in blob, "what the sides do not say stays"


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_noise_is_dropped_counted_and_kept_in_the_artifact(tmp_path):
    (tmp_path / "test_a.py").write_text("".join(f"def test_{i}():\n    pass\n" for i in range(30)))
    args = ("--cwd", str(tmp_path), PY, "-m", "pytest", "-v", "-p", "no:cacheprovider")
    concise = aw(*args, detail="concise").env
    assert concise["summary"].startswith("pytest: 30 passed") and "output" not in concise
    detailed = aw(*args, detail="detailed").env
    stream = detailed["output"]["stdout"]
    assert stream["noise_lines"] >= 30 and detailed["noise_rules_fired"]
    shown = aw("artifact", "show", stream["artifact"], "--grep", "PASSED").env
    assert "test_a.py::test_29 PASSED" in json.dumps(shown)


def test_file_reads_are_exact(tmp_path):
    text = "title\n=====\n\n\n    x = 1          # aligned comment   \n"
    (tmp_path / "README.rst").write_text(text)
    _, env = agent("--", "cat", str(tmp_path / "README.rst"))
    assert env["output"]["stdout"]["text"] == text, "a file an agent edits is shown byte for byte"


def test_lean_text_helpers():
    said = lean.facts_said([], {"nodeid": "tests/test_a.py::test_x", "outcome": "failed", "message": "assert 1 == 2"})
    assert lean.restates("FAILED tests/test_a.py::test_x - assert 1 == 2", said)
    assert not lean.restates("E   At index 2 diff: 3 != 4", said)
    said.lines.add("E   - abd")
    assert lean.restates("  E   - abd", said) and not lean.restates("E   + ABC", said)
    assert lean.tidy("." * 5 + " " * 40 + "[100%]") == ".....  [100%]"
    assert lean.tidy("E       ?          ^") == "E       ?          ^", "alignment that points is content"
    assert lean.tidy("=" * 80 + " 2 passed " + "=" * 80) == "=== 2 passed ==="


def test_bound_data_keeps_every_items_identity_before_dropping_items():
    data = {"commits": [{"sha": f"{i:040x}", "subject": f"s{i}", "body": "b" * 2000} for i in range(20)]}
    cut, omitted = bound.bound_data(data, 4096)
    assert omitted == 0 and [c["subject"] for c in cut["commits"]] == [f"s{i}" for i in range(20)]
    assert "body" not in cut["commits"][0]
    many = {"commits": [{"sha": f"{i:040x}", "subject": f"s{i}"} for i in range(500)]}
    cut, omitted = bound.bound_data(many, 4096)
    assert omitted and cut["commits_omitted"] == omitted and len(cut["commits"]) + omitted == 500


def test_a_command_parsed_whole_sends_the_form_still_whole_else_the_cut_data():
    text = "a1 fix\nb2 add\n"
    data = {"commits": [{"abbrev": "a1", "subject": "fix"}, {"abbrev": "b2", "subject": "add"}]}
    assert bound.text_rather_than_data(text, False, data, False), "both whole: the cheaper (one-line text)"
    assert bound.text_rather_than_data(text, False, data, True), "the data was cut, the text is whole"
    assert not bound.text_rather_than_data(text, True, data, False), "the text was cut, the data is whole"
    assert not bound.text_rather_than_data(text, True, data, True), "both cut: the data keeps every identity"
    whole = {"commits": [{"abbrev": "a1", "date": "2024", "refs": ["HEAD"], "subject": "fix"}], "author": "T"}
    cut, _ = bound.bound_data(whole, 70)
    assert cut["commits"] == [{"abbrev": "a1", "subject": "fix"}]
    assert bound.dropped_members(whole, cut) == ("commits.date", "commits.refs")
    assert bound.dropped_members(whole, bound.bound_data(whole, 10)[0]) == (), "no commit left: they were counted"


def test_a_toml_adapters_noise_rules_apply_and_are_checked(tmp_path):
    adapters = tmp_path / "adapters"
    adapters.mkdir()
    tool = tmp_path / "fetchit"
    tool.write_text("#!/bin/sh\nfor i in 1 2 3; do echo \"progress $i/3\"; done\necho 'fetched 3 files'\n")
    tool.chmod(0o755)
    (adapters / "fetchit.toml").write_text('name = "fetchit"\n[[noise]]\npattern = "^progress \\\\d+/\\\\d+$"\n')
    env = {"AGENTWRAP_ADAPTER_DIR": str(adapters)}
    view = aw(str(tool), env=env, detail="concise").env
    assert view["output"]["stdout"]["text"] == "fetched 3 files\n"
    full = aw(str(tool), env=env, detail="detailed").env
    assert full["output"]["stdout"]["noise_lines"] == 3 and "progress 1/3" in full["output"]["stdout"]["text"]
    (adapters / "fetchit.toml").write_text('name = "fetchit"\n[[noise]]\npatern = "x"\n')
    broken = aw(str(tool), env=env, detail="standard").env
    warning = next(w for w in broken["warnings"] if w["code"] == "ADAPTER_LOAD_FAILED")
    assert "noise[1]" in warning["message"] and "did you mean 'pattern'" in warning["message"]


def _in_a_terminal(probe: list[str], rows: int, cols: int) -> bytes:
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    proc = subprocess.Popen([PY, "-m", "agentwrap", "--", *probe], stdin=slave, stdout=slave, stderr=slave,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=30)
    os.close(master)
    return out


def test_a_persons_terminal_sets_the_programs_window(tmp_path):
    """Pretty on a terminal: the program is laid out for the person's window, not the agent's 250 columns."""
    probe = [PY, "-c", "import os; print('size', *os.get_terminal_size())"]
    assert b"size 100 30" in _in_a_terminal(probe, 30, 100)
    # a terminal that says it has no rows (`stty rows 0`, as `script -qc` leaves it) gets a usual height
    assert b"size 60 24" in _in_a_terminal(probe, 0, 60)
    _, env = agent("--", *probe)  # an agent's run keeps the wide window
    assert env["output"]["stdout"]["text"] == "size 250 50\n"


def test_a_prompt_keeps_what_a_caller_dispatches_on():
    code, env = agent("--", PY, "-c", "input('Your name: ')")
    assert code == 125 and env["error"]["code"] == "INPUT_REQUIRED"
    assert (env["error"]["prompt"], env["error"]["input_kind"]) == ("Your name:", "text")
    assert "code" not in env.get("exit", {}), "no exit code is null in a concise envelope"


def test_a_span_on_one_line_says_its_line_once_and_the_summary_its_crate(tmp_path):
    from agentwrap import fixtures, registry
    from agentwrap.artifacts import ArtifactStore
    from agentwrap.render import views

    case = fixtures.Case("cargo", "option-note", ROOT / "fixtures" / "cargo" / "option-note")
    record = fixtures.replay_record(registry.builtin("cargo"), case, store=ArtifactStore(tmp_path))
    assert record.standard()["error"]["location"] == {"file": "src/lib.rs", "line": 14, "column": 21,
                                                      "end_line": 14, "end_column": 38}
    view = views.concise(record)
    assert view["error"]["location"] == {"file": "src/lib.rs", "line": 14, "column": 21, "end_column": 38}
    # cargo's own `could not compile` is a problem of the record; concise, the summary says it
    assert [p["code"] for p in record.standard()["problems"]] == ["E0308", "CARGO_COMPILE_FAILED"]
    assert "problems" not in view and "could not compile `optnote` (lib)" in view["summary"]


def test_fields_in_agent_mode_keep_the_concise_members():
    # an agent narrowing its answer still gets the lean error (no request id, no null members), and the
    # answer still validates
    code, env = agent("--fields", "status,exit.code", "--", "false")
    assert code == 1 and env["exit"] == {"code": 1}
    assert "request_id" not in env and "instance" not in env["error"] and None not in env["error"].values()


def test_agentwraps_own_refusal_is_concise_too():
    code, env = agent("--read-only", "--", "git", "push")
    assert code == 125 and env["error"]["code"] == "MUTATION_REFUSED"
    error = env["error"]
    assert "severity" not in error, "an error's severity is the default one"
    assert all("kind" not in a or a["kind"] != "command" for a in error.get("code_actions", []))
    commands = [a.get("command") for a in error.get("code_actions", [])]
    assert error.get("read_only_alternative") not in commands, "the alternative is said once, by its action"


def test_a_failure_a_pipe_hid_is_said_once(tmp_path):
    # decided_by names the stage, its status and that the pipe hid it; a warning and pipestatus saying the
    # same again are the standard record's
    code, env = agent("--cwd", str(tmp_path), "--shell", "ls missing-file 2>&1 | cat -n")
    assert code == 2 and env["status"] == "error"
    decided = env["command"]["decided_by"]
    assert decided == {"command": "ls missing-file 2>&1", "index": 1, "stage": 1, "stages": 2, "exit_code": 2,
                       "hidden_by_pipe": True}
    assert "warnings" not in env
    standard = aw("--cwd", str(tmp_path), "--shell", "ls missing-file 2>&1 | cat -n").env
    assert standard["command"]["decided_by"]["pipestatus"] == [2, 0]
    assert [w["code"] for w in standard["warnings"]] == ["PIPE_HID_FAILURE"]
