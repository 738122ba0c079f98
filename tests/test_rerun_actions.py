"""A suggested `agentwrap ...` rerun says what the caller said: `--agent`, `--cwd`, `--env`, a timeout.
Run as given, a rerun without them would answer in another form, in another folder, without the
caller's variables."""

from __future__ import annotations

import sys

from conftest import aw

from agentwrap.options import Options
from agentwrap.outcome.rerun import carried, merged

ASKS = [sys.executable, "-c", "input('Your name: ')"]


def _reruns(env: dict) -> list[list[str]]:
    return [a["command"] for a in env["error"]["code_actions"] if a["command"][0] == "agentwrap"]


def test_an_agents_rerun_keeps_agent_mode_folder_and_timeout(tmp_path):
    answer = aw("--cwd", str(tmp_path), "--timeout", "30s", "--", *ASKS, detail="concise")
    assert answer.error["code"] == "INPUT_REQUIRED"
    reruns = _reruns(answer.env)
    assert len(reruns) == 2  # --stdin FILE and --answer REGEX=REPLY
    for command in reruns:
        head = command[:command.index("--")]
        assert head[:2] == ["agentwrap", "--agent"]
        assert head[head.index("--cwd") + 1] == str(tmp_path)
        assert head[head.index("--timeout") + 1] == "30s"
        assert command[command.index("--") + 1:] == ASKS


def test_a_secret_variable_is_asked_for_again_never_echoed():
    answer = aw("--env", "GITHUB_TOKEN=ghp_notarealtoken1234", "--env", "LANG=C", "--", *ASKS, detail="concise")
    for action in answer.error["code_actions"]:
        if action["command"][0] != "agentwrap":
            continue
        assert "GITHUB_TOKEN=<GITHUB_TOKEN>" in action["command"] and "LANG=C" in action["command"]
        assert action["applicability"] == "has_placeholders"
    assert b"ghp_notarealtoken1234" not in answer.stdout


def test_an_option_the_action_sets_itself_is_not_doubled():
    caller = Options(agent=True, stdin="used.txt", env={"LANG": "C", "EDITOR": "vim"})
    action = ("agentwrap", "--stdin", "<ANSWERS_FILE>", "--env", "EDITOR=true", "--", "git", "commit")
    command = merged(action, carried(caller))
    assert command.count("--stdin") == 1 and "<ANSWERS_FILE>" in command  # the action's own file
    assert "EDITOR=true" in command and "EDITOR=vim" not in command and "LANG=C" in command
    assert command[:2] == ("agentwrap", "--agent") and command[-3:] == ("--", "git", "commit")
    # a subcommand takes agent mode only: its options are its own
    wait = ("agentwrap", "op", "wait", "op_1")
    assert merged(wait, carried(caller)) == ("agentwrap", "--agent", "op", "wait", "op_1")


def test_a_person_without_options_gets_the_bare_command():
    assert carried(Options()) == ()
    env = aw("--", *ASKS, agent=False, check=False)
    assert b'"agentwrap","--agent"' not in env.stdout.replace(b" ", b"")


def test_the_prompt_is_said_once_in_concise():
    env = aw("--", *ASKS, detail="concise").env
    assert "output" not in env  # the stream held only the prompt, which the problem quotes
    assert "remediation" not in env["error"]  # provide_input {prompt, input_kind}: the members beside it
    assert env["error"]["prompt"] == "Your name:" and env["error"]["input_kind"] == "text"
    standard = aw("--", *ASKS).env
    assert standard["output"]["stderr"]["text"] == "Your name: "
    assert standard["error"]["remediation"][0]["action"] == "provide_input"


def test_capture_help_answers_with_its_usage():
    answer = aw("capture", "--help")
    assert answer.code == 0 and "--name CASE" in answer.env["data"]["usage"]


def test_the_shells_read_is_not_blamed_for_a_programs_own_prompt(tmp_path):
    (tmp_path / "rmme").write_text("x")
    error = aw("--cwd", str(tmp_path), "--shell", "rm -i rmme", detail="concise").error
    assert "read" not in error["suggested_fix"]
    assert any(a.get("command", [])[-3:] == ["rm", "-f", "rmme"] for a in error["code_actions"])
