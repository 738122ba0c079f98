"""`agentwrap hook HOST` with each host's recorded hook input, through the real CLI.

The samples in tests/hook_samples/ follow each host's published hook input:
- claude-code: code.claude.com/docs/en/hooks (PreToolUse, Bash tool_input: command, description,
  timeout, run_in_background);
- codex: the codex-hooks PreToolUse command input schema (hooks.json, tool_name Bash);
- gemini: geminicli.com/docs/hooks/reference (BeforeTool, run_shell_command);
- copilot: docs.github.com, Copilot CLI hooks reference (camelCase preToolUse; toolArgs a JSON string);
- cursor: cursor.com/docs/agent/hooks (beforeShellExecution);
- opencode: opencode.ai/docs/plugins (`tool.execute.before`: input.tool, output.args), as the plugin sends it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

SAMPLES = Path(__file__).parent / "hook_samples"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every host's settings are read from a private home: the machine's own rules never leak in."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def hook(host: str, data: Any, wrapper: list[str] | None = None,
         env: dict[str, str] | None = None) -> tuple[int, dict[str, Any] | None, str]:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    argv = [sys.executable, "-m", "agentwrap", "hook", host]
    if wrapper:  # run the hook as the host would, under a parent whose command line carries `wrapper`
        argv = ["bash", "-c", shlex.join(argv) + "; exit $?", *wrapper]
    child_env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_HOOK_PROGRAM": "agentwrap", **(env or {})}
    proc = subprocess.run(argv, input=raw, capture_output=True, timeout=60, check=False, env=child_env)
    assert b"Traceback" not in proc.stderr
    out = proc.stdout.decode()
    return proc.returncode, json.loads(out) if out.strip() else None, proc.stderr.decode()


def host_shell_env(tmp_path: Path) -> dict[str, str]:
    """The environment of the host's shell that runs a rewritten line: its `agentwrap` is this checkout's."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "agentwrap").write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m agentwrap \"$@\"\n")
    (shim / "agentwrap").chmod(0o755)
    return {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{shim}:{os.environ['PATH']}"}


def sample(host: str) -> dict[str, Any]:
    return dict(json.loads((SAMPLES / f"{host}.json").read_text()))


def test_claude_code_keeps_every_field_and_keeps_cd_in_the_host_shell() -> None:
    data = sample("claude-code")
    code, answer, _ = hook("claude-code", data)
    assert code == 0 and answer is not None
    out = answer["hookSpecificOutput"]
    # no rule allows it: no decision, Claude Code asks the user as it would have
    assert out["hookEventName"] == "PreToolUse" and "permissionDecision" not in out
    updated = out["updatedInput"]
    assert {k: v for k, v in updated.items() if k != "command"} == {
        k: v for k, v in data["tool_input"].items() if k != "command"}
    assert updated["command"] == "cd sub && agentwrap --agent --timeout 115s -- pytest -q"


def test_claude_code_allows_only_what_the_users_rules_allow(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "project"
    write(project / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(cd:*)", "Bash(pytest:*)"]}})
    data = {**sample("claude-code"), "cwd": str(project)}
    answer = hook("claude-code", data)[1]
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    # one command the rules do not cover: no decision
    data["tool_input"] = {**data["tool_input"], "command": "cd sub && pytest -q && git push"}
    answer = hook("claude-code", data)[1]
    assert answer is not None and "permissionDecision" not in answer["hookSpecificOutput"]


@pytest.mark.parametrize("rules", [{"deny": ["Bash(git push:*)"]}, {"ask": ["Bash(git push:*)"]}])
def test_claude_code_deny_and_ask_rules_keep_the_original(home: Path, rules: dict[str, Any]) -> None:
    # the host would match its rules against the rewritten command, which no rule names
    write(home / ".claude" / "settings.json", {"permissions": {"allow": ["Bash"], **rules}})
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": "git status && git push origin main"}
    assert hook("claude-code", data)[:2] == (0, None)


@pytest.mark.parametrize(("mode", "decision"), [("plan", None), ("bypassPermissions", "allow")])
def test_claude_code_modes(mode: str, decision: str | None) -> None:
    answer = hook("claude-code", {**sample("claude-code"), "permission_mode": mode})[1]
    if decision is None:
        assert answer is None
    else:
        assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == decision


def test_codex_rules_files_that_may_forbid_keep_the_original(home: Path) -> None:
    write(home / ".codex" / "rules" / "default.rules", 'prefix_rule(pattern=["git", "push"], decision="forbidden")\n')
    assert hook("codex", {**sample("codex"), "permission_mode": "bypassPermissions"})[1] is None


def test_gemini_excluded_commands_keep_the_original(home: Path) -> None:
    write(home / ".gemini" / "settings.json", {"tools": {"exclude": ["run_shell_command(make)"]}})
    assert hook("gemini", sample("gemini"))[1] is None


def test_copilot_deny_tool_flag_keeps_the_original() -> None:
    assert hook("copilot", sample("copilot"), wrapper=["copilot", "--deny-tool=shell(rm)"])[1] is None
    assert hook("copilot", sample("copilot"), wrapper=["copilot", "--allow-all-tools"])[1] is not None


def test_opencode_ask_pattern_keeps_the_original(home: Path) -> None:
    write(home / ".config" / "opencode" / "opencode.json", {"permission": {"bash": {"npm *": "ask"}}})
    assert hook("opencode", sample("opencode"))[1] is None


def test_codex_rewrites_only_what_the_users_mode_already_allows() -> None:
    data = sample("codex")
    assert hook("codex", data)[1] is None  # "default" asks the user: a rewrite would need "allow"
    code, answer, _ = hook("codex", {**data, "permission_mode": "bypassPermissions"})
    assert code == 0 and answer is not None
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow"
    assert out["updatedInput"] == {"command": "agentwrap --agent --shell 'git log | head -3'"}


def test_gemini_before_tool() -> None:
    data = sample("gemini")
    _, answer, _ = hook("gemini", data)
    assert answer is not None
    tool_input = answer["hookSpecificOutput"]["tool_input"]
    assert tool_input == {**data["tool_input"], "command": "agentwrap --agent --shell 'make 2>&1 | tail -5'"}
    assert "decision" not in answer


def test_copilot_tool_args_arrive_as_a_json_string() -> None:
    data = sample("copilot")
    _, answer, _ = hook("copilot", data)
    assert answer is not None and "permissionDecision" not in answer
    assert answer["modifiedArgs"] == {**json.loads(data["toolArgs"]), "command": "agentwrap --agent -- git status"}


def test_cursor_cannot_rewrite_and_gets_no_answer() -> None:
    assert hook("cursor", sample("cursor"))[:2] == (0, None)


def test_opencode_plugin_args() -> None:
    data = sample("opencode")
    _, answer, _ = hook("opencode", data)
    command = "agentwrap --agent --timeout 115s --shell 'npm test 2>&1 | tail -40'"
    assert answer == {"args": {**data["args"], "command": command}}


@pytest.mark.parametrize("command", [
    "cat <<EOF\nhello\nEOF",  # heredoc
    "echo $(date)",  # command substitution
    "diff <(ls a) <(ls b)",  # process substitution
    "sleep 10 &",  # a job nobody would supervise
    "vim notes.txt",  # an interactive session the user asked for
    "python3",  # a REPL
    "ssh host",
    "agentwrap --agent -- ls",  # already wrapped
    "env agentwrap --agent -- ls",  # already wrapped, behind a wrapper or as a module
    "timeout 5 agentwrap --agent -- ls",
    "python -m agentwrap --agent -- ls",
    "/opt/venv/bin/python3.12 -m agentwrap --agent -- ls",
    "cd sub",  # the host shell's own folder
    "export A=1",
    "f() { ls; }; f",
    'echo "unterminated',  # not a complete line
    "",
])
def test_left_alone(command: str) -> None:
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": command}
    assert hook("claude-code", data)[:2] == (0, None)


def test_no_rewrite_when_the_hosts_shell_could_not_start_agentwrap() -> None:
    env = {"AGENTWRAP_HOOK_PROGRAM": "", "PATH": "/nonexistent"}
    assert hook("claude-code", sample("claude-code"), env=env)[:2] == (0, None)
    answer = hook("claude-code", sample("claude-code"), env={"AGENTWRAP_HOOK_PROGRAM": "/opt/aw/bin/agentwrap"})[1]
    assert answer is not None
    command = answer["hookSpecificOutput"]["updatedInput"]["command"]
    assert command == "cd sub && /opt/aw/bin/agentwrap --agent --timeout 115s -- pytest -q"


def test_run_in_background_is_left_alone() -> None:
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": "pytest -q", "run_in_background": True}
    assert hook("claude-code", data)[:2] == (0, None)


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b'{"tool_name": "Read", "tool_input": {}}',
                                 b'{"tool_name": "Bash", "tool_input": {"command": 5}}', b"\xff\xfe"])
def test_input_it_does_not_understand_fails_open(raw: bytes) -> None:
    assert hook("claude-code", raw)[:2] == (0, None)


def test_unknown_host_fails_open_and_says_why() -> None:
    code, answer, err = hook("nohost", {})
    assert (code, answer) == (0, None) and "expected one host" in err


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("pytest") is None, reason="needs bash, pytest")
def test_claude_code_rewrite_runs_to_one_envelope_with_pytests_problems(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "test_x.py").write_text("def test_a():\n    assert 1 == 2\n")
    _, answer, _ = hook("claude-code", sample("claude-code"))
    assert answer is not None
    command = answer["hookSpecificOutput"]["updatedInput"]["command"]
    env = host_shell_env(tmp_path)  # the host runs the rewritten line in its own shell
    proc = subprocess.run(["bash", "-c", command.replace("pytest -q", "pytest -q -p no:cacheprovider")],
                          cwd=tmp_path, capture_output=True, env=env, timeout=120, check=False)
    envelope = json.loads(proc.stdout)  # exactly one JSON value
    assert envelope["error"]["code"] == "PYTEST_TEST_FAILED"
    assert envelope["error"]["location"] == {"file": "test_x.py", "line": 2}
    assert proc.returncode == 1


def test_git_log_head_through_the_hook_shows_what_bash_shows(tmp_path: Path) -> None:
    git = ["git", "-c", "user.email=a@example.com", "-c", "user.name=A", "-C", str(tmp_path)]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for i in range(4):
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", f"c{i}"], check=True)
    data = sample("codex")
    _, answer, _ = hook("codex", {**data, "permission_mode": "bypassPermissions"})
    assert answer is not None
    line = shlex.split(answer["hookSpecificOutput"]["updatedInput"]["command"])[-1]
    proc = subprocess.run([sys.executable, "-m", "agentwrap", "--agent", "--shell", line], cwd=tmp_path,
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60, check=False)
    expected = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert json.loads(proc.stdout)["output"]["stdout"]["text"] == expected.stdout


def test_rules_see_the_commands_inside_a_subshell(home: Path) -> None:
    write(home / ".claude" / "settings.json", {"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}})
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": "echo a && (rm -rf build)"}
    assert hook("claude-code", data)[:2] == (0, None)
    data["tool_input"] = {**data["tool_input"], "command": "{ make; vim notes; } | tail"}
    assert hook("claude-code", data)[:2] == (0, None)
    data["tool_input"] = {**data["tool_input"], "command": "(cd sub && make) | tail -5"}
    answer = hook("claude-code", data)[1]
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize(("tool_input", "env", "flag"), [
    ({}, {}, "--timeout 115s"),  # Claude Code's default limit, 2 minutes
    ({"timeout": 600000}, {}, "--timeout 595s"),
    ({"timeout": 900000}, {}, "--timeout 595s"),  # asked for more than Claude Code's ceiling
    ({"timeout": 900000}, {"BASH_MAX_TIMEOUT_MS": "1200000"}, "--timeout 895s"),
    ({}, {"BASH_DEFAULT_TIMEOUT_MS": "300000"}, "--timeout 295s"),
    ({"timeout": 8000}, {}, "--timeout 6s"),  # a short limit keeps a quarter of it for the ending
])
def test_claude_code_gives_agentwrap_a_limit_inside_its_own(tool_input: dict[str, Any], env: dict[str, str],
                                                            flag: str) -> None:
    """Claude Code ends a Bash call at its limit, agentwrap and all, and then no envelope reaches the agent:
    the rewrite gives agentwrap a shorter one, so that it ends the tree itself and answers TIMEOUT."""
    data = {**sample("claude-code"), "tool_input": {"command": "git status", **tool_input}}
    _, answer, _ = hook("claude-code", data, env=env)
    assert answer is not None
    assert answer["hookSpecificOutput"]["updatedInput"]["command"] == f"agentwrap --agent {flag} -- git status"


def test_a_host_without_a_known_limit_gets_agentwrap_s_own() -> None:
    data = sample("gemini")
    _, answer, _ = hook("gemini", data)
    assert answer is not None and "--timeout" not in answer["hookSpecificOutput"]["tool_input"]["command"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_command_past_the_hosts_limit_still_answers_with_an_envelope(tmp_path: Path) -> None:
    """The host's side, acted out: the rewritten line runs under a kill at the host's limit (4 s here), and
    what the agent reads is agentwrap's TIMEOUT envelope with the program's output, not a killed process."""
    data = {**sample("claude-code"), "permission_mode": "bypassPermissions",
            "tool_input": {"command": "echo started; sleep 30", "timeout": 4000}}
    _, answer, _ = hook("claude-code", data)
    assert answer is not None
    command = answer["hookSpecificOutput"]["updatedInput"]["command"]
    env = host_shell_env(tmp_path)
    proc = subprocess.run(["timeout", "-s", "KILL", "4", "bash", "-c", command], cwd=tmp_path,
                          capture_output=True, env=env, check=False)
    assert proc.returncode == 124, (proc.returncode, proc.stderr[-500:])  # agentwrap's own TIMEOUT, not KILL's 137
    envelope = json.loads(proc.stdout)
    assert envelope["error"]["code"] == "TIMEOUT" and "started" in envelope["output"]["stdout"]["text"]
