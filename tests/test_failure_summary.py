"""Every failure's summary is ours, on real runs (CONTRACT 2a rule 1): the program and subcommand that
failed and how, never the error's detail again; the detail keeps the tool's own words. The wrapper's own
failures (not found, refused, usage, timeout, a prompt), shell lines, `--format pretty` and the MCP text
(tests/test_mcp.py) each still show the detail once. Every failing fixture is checked too
(tests/test_fixtures.py::test_a_failure_summary_never_restates_its_error_detail)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, aw

from agentwrap.failure_summary import restates


def _once(env: dict) -> tuple[str, str]:
    summary, detail = env["summary"], env["error"]["detail"]
    assert not restates(summary, detail) and detail not in summary, (summary, detail)
    return summary, detail


def test_a_tool_failure_is_named_by_its_program_subcommand_and_title(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    a = aw("git", "statsu", cwd=tmp_path, check=True, detail="concise")
    summary, detail = _once(a.env)
    assert a.env["error"]["code"] == "GIT_UNKNOWN_COMMAND"
    assert summary == "git statsu: Unknown command"  # the title `Unknown git command`, git said once
    assert "statsu" in detail  # the tool's own words stay in the error


def test_a_generic_failure_says_its_exit_status_and_the_detail_says_why() -> None:
    a = aw("sh", "-c", "echo 'frobnicator: the flux is wrong' >&2; exit 3", check=True, detail="concise")
    summary, detail = _once(a.env)
    assert a.env["error"]["code"] == "COMMAND_FAILED"
    assert summary == "sh: exit status 3"
    assert "the flux is wrong" in detail and "the flux" not in summary


def test_the_summary_is_the_same_string_at_every_detail_level(tmp_path: Path) -> None:
    levels = {d: aw("grep", "x", str(tmp_path / "nope.txt"), check=True, detail=d).env
              for d in ("concise", "standard", "detailed")}
    assert len({env["summary"] for env in levels.values()}) == 1
    assert levels["concise"]["summary"] == "grep: input file not found"
    _once(levels["standard"])


def test_program_not_found_and_not_executable(tmp_path: Path) -> None:
    missing = aw("no-such-program-aw7", check=True, detail="concise")
    assert missing.env["error"]["code"] == "PROGRAM_NOT_FOUND" and missing.code == 127
    assert _once(missing.env)[0] == "no-such-program-aw7: not found"
    script = tmp_path / "tool.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    plain = aw(str(script), check=True, detail="concise")
    assert plain.env["error"]["code"] == "NOT_EXECUTABLE" and plain.code == 126
    assert _once(plain.env)[0] == "tool.sh: not executable"


def test_agentwraps_own_refusals(tmp_path: Path) -> None:
    usage = aw("--timeout", "soon", "--", "echo", "hi", check=True, detail="concise")
    assert usage.env["error"]["code"] == "USAGE"
    assert _once(usage.env)[0] == "Invalid agentwrap invocation"  # agentwrap's, not echo's
    assert "soon" in usage.env["error"]["detail"]
    refused = aw("--read-only", "rm", str(tmp_path / "f"), check=True, detail="concise")
    assert refused.env["error"]["code"] == "MUTATION_REFUSED"
    assert _once(refused.env)[0] == "rm: Mutating command refused"
    push = aw("--read-only", "git", "push", "origin", "main", cwd=tmp_path, check=True, detail="concise")
    assert _once(push.env)[0] == "git push: Mutating command refused"  # the subcommand, though no adapter ran


def test_a_timeout_names_the_program() -> None:
    a = aw("--timeout", "1", "sleep", "30", check=True, detail="concise")
    assert a.env["error"]["code"] == "TIMEOUT"
    assert _once(a.env)[0] == "sleep: exceeded the time limit"


def test_a_prompt_says_what_kind_and_the_error_says_the_prompt() -> None:
    a = aw(sys.executable, "-c", "input('Deploy to which region? ')", check=True, detail="concise")
    error = a.env["error"]
    assert error["code"] == "INPUT_REQUIRED" and error["input_kind"] == "text"
    summary, detail = _once(a.env)
    assert summary == f"{os.path.basename(sys.executable)} -c: asked for text input"  # -c: the python adapter's mode
    assert "Deploy to which region?" in detail and "region" not in summary  # the prompt is said in the error


def test_a_shell_line_names_the_command_that_decided(tmp_path: Path) -> None:
    a = aw("bash", "-c", f"cd {tmp_path} && grep -q foo missing.txt", check=True, detail="concise")
    summary, _ = _once(a.env)
    assert summary == "grep: input file not found"
    assert a.env["command"]["decided_by"]["command"] == "grep -q foo missing.txt"


def test_pretty_shows_the_summary_then_the_code_and_detail() -> None:
    proc = subprocess.run([sys.executable, "-m", "agentwrap", "--format", "pretty", "--", "sh", "-c",
                           "echo 'frobnicator: the flux is wrong' >&2; exit 3"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"},
                          stdin=subprocess.DEVNULL)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 3
    first = lines.index("✘ sh: exit status 3")
    assert lines[first + 1].startswith("  COMMAND_FAILED: sh exited with status 3: ")
    assert "the flux is wrong" in lines[first + 1]


def test_a_program_killed_by_a_signal_is_named_with_the_signal() -> None:
    a = aw(sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", check=True,
           detail="concise")
    assert a.env["error"]["code"] == "KILLED_BY_SIGNAL" and a.env["exit"]["signal"] == 11
    assert _once(a.env)[0] == f"{os.path.basename(sys.executable)} -c: killed by SIGSEGV"
