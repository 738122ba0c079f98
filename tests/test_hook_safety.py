"""The hook never lets a rewrite slip past the user's rules, leaves interactive sessions to the host, and
fails open, with a reason on stderr, on input it cannot read; all through the real CLI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_hook import home, hook, sample, write  # noqa: F401 - `home` keeps each host's settings private

DODGES = ["'rm' -rf build", r"\rm x", 'r""m x', "FOO=1 rm x", "timeout 9 rm x", "timeout -s KILL 9 rm x", "nice rm x",
          "nice -n 5 rm x", "sudo rm -rf x", "sudo -u root rm x", "env rm x", "env -i A=1 rm x", "/bin/rm x",
          "time rm x", "command rm x", "nohup rm x", "stdbuf -oL rm x", "ionice -c 3 rm x", "ls && sudo rm x",
          "(cd sub && \\rm x)", "find . | xargs rm", "env -S 'rm x'"]


def claude(command: str, cwd: Path, mode: str = "bypassPermissions") -> dict[str, Any] | None:
    data = {**sample("claude-code"), "cwd": str(cwd), "permission_mode": mode}
    data["tool_input"] = {**data["tool_input"], "command": command}
    return hook("claude-code", data)[1]


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.parametrize("command", DODGES)
@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_a_rule_for_the_program_sees_it_however_it_is_spelled(tmp_path: Path, command: str, kind: str) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {kind: ["Bash(rm:*)"]}})
    # left alone: Claude Code applies the rule to the line as written; no "allow" in its place
    assert claude(command, tmp_path) is None


def test_without_a_rule_for_it_the_same_line_is_rewritten_and_allowed_in_bypass_mode(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(curl:*)"]}})
    answer = claude("sudo rm -rf x", tmp_path)
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_trailing_space_star_rule_names_the_bare_command_too(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(make *)"]}})
    assert claude("make", tmp_path) is None
    assert claude("nice make", tmp_path) is None


def test_a_program_known_only_when_the_line_runs_is_never_allowed_past_a_rule(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}})
    assert claude("ls && $CLEANER x", tmp_path) is None
    assert claude("ls && sudo $CLEANER x", tmp_path) is None
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash"]}})
    answer = claude("ls && $CLEANER x", tmp_path, mode="default")  # no rule could name it: rewritten, undecided
    assert answer is not None and "permissionDecision" not in answer["hookSpecificOutput"]


def test_allow_rules_still_allow_through_the_users_own_rules(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make:*)"]}})
    answer = claude("make -j4", tmp_path, mode="default")
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize("command", ["'rm' -rf x", "FOO=1 rm -rf x", "sudo rm -rf x", "/bin/rm x"])
def test_gemini_excluded_command_is_seen_however_it_is_spelled(tmp_path: Path, command: str) -> None:
    write(tmp_path / ".gemini" / "settings.json", {"tools": {"exclude": ["run_shell_command(rm)"]}})
    data = {**sample("gemini"), "cwd": str(tmp_path)}
    data["tool_input"] = {**data["tool_input"], "command": command}
    assert hook("gemini", data)[1] is None
    data["tool_input"] = {**data["tool_input"], "command": "ls -la"}
    assert hook("gemini", data)[1] is not None


@pytest.mark.parametrize("command", ["FOO=1 rm -rf x", "'rm' -rf x", "timeout 5 rm -rf x", "env rm -rf x"])
def test_opencode_deny_pattern_is_seen_however_it_is_spelled(home: Path, command: str) -> None:  # noqa: F811
    write(home / ".config" / "opencode" / "opencode.json", {"permission": {"bash": {"rm *": "deny", "*": "allow"}}})
    data = sample("opencode")
    data["args"] = {**data["args"], "command": command}
    assert hook("opencode", data)[1] is None
    data["args"] = {**data["args"], "command": "ls -la"}
    assert hook("opencode", data)[1] is not None


@pytest.mark.parametrize("command", [" && ".join(["true"] * 201), " | ".join(["cat"] * 300),
                                     " || ".join(["false"] * 400)], ids=["201-and", "300-pipe", "400-or"])
def test_a_very_long_chain_is_left_alone_without_a_traceback(command: str) -> None:
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": command}
    code, answer, err = hook("claude-code", data)
    assert (code, answer, err) == (0, None, "")


def test_a_long_chain_within_reach_is_rewritten() -> None:
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": " && ".join(["true"] * 100)}
    answer = hook("claude-code", data)[1]
    assert answer is not None and "--shell" in answer["hookSpecificOutput"]["updatedInput"]["command"]


INTERACTIVE = ["sudo vim /etc/hosts", "env vim x", "sudo -u root env EDITOR=x nano f", "git rebase -i HEAD~3",
               "git add -p", "git -C repo add --patch", "git commit", "git commit --amend", "crontab -e",
               "python3 -i", "python3 -i script.py", "python3", "node", "docker run -it ubuntu bash",
               "docker exec -i -t box sh", "kubectl exec -it pod -- sh", "mysql -u root", "psql -U app db",
               "sqlite3 app.db", "redis-cli -h cache", "sudo -i", "sudo -s", "sudo -e /etc/hosts", "bash -l",
               "make && (sudo vim x)", "timeout 60 python3", "strace -fo /tmp/t vim x", "env -iu TERM vim x",
               "runuser -u nobody -- vim x", "bwrap --bind / / --dev /dev vim x", "setarch -R vim x"]
NOT_INTERACTIVE = ["git commit -m 'fix'", "git commit -am fix", "git commit --no-edit --amend", "git add x.py",
                   "git rebase main", "python3 script.py", "python3 -c 'print(1)'", "python3 -m pytest -q",
                   "python3 --version", "echo 'print(1)' | python3", "python3 < script.py", "mysql -e 'select 1'",
                   "psql -c 'select 1'", "sqlite3 app.db 'select 1'", "redis-cli ping", "node app.js",
                   "docker run --rm ubuntu ls", "crontab -l", "sudo make install", "bash script.sh"]


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.parametrize("command", INTERACTIVE)
def test_an_interactive_session_is_left_to_the_host(command: str) -> None:
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": command}
    assert hook("claude-code", data)[:2] == (0, None)


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.parametrize("command", NOT_INTERACTIVE)
def test_the_same_programs_given_something_to_run_are_rewritten(command: str) -> None:
    data = sample("claude-code")
    data["tool_input"] = {**data["tool_input"], "command": command}
    assert hook("claude-code", data)[1] is not None


BAD_INPUT = {"not-json": (b"not json", "not JSON"), "empty": (b"", "not JSON"), "array": (b"[]", "a JSON array"),
             "null": (b"null", "JSON null"), "string": (b'"Bash"', "a JSON string"),
             "binary": (b"\xff\xfe", "not JSON"), "9-MiB": (b" " * ((8 << 20) + 1), "larger than 8 MiB"),
             "300-KiB-line": (json.dumps({"tool_name": "Bash", "tool_input": {"command": "echo " + "a" * (256 << 10)}})
                              .encode(), "longer than 256 KiB")}


@pytest.mark.parametrize(("raw", "why"), BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_input_it_cannot_read_fails_open_and_says_why_in_one_line(raw: bytes, why: str) -> None:
    code, answer, err = hook("claude-code", raw)
    assert (code, answer) == (0, None)
    assert err.count("\n") == 1 and why in err and err.startswith("agentwrap hook: ")


@pytest.mark.parametrize("raw", [b'{"tool_name": "Read", "tool_input": {}}', b'{"hook_event_name": "Stop"}'])
def test_a_call_that_is_not_a_shell_command_is_passed_on_silently(raw: bytes) -> None:
    assert hook("claude-code", raw) == (0, None, "")



# Commands that run another command from their own arguments: the parsed calls are `bash`, `find`, `git`,
# the `rm` is inside a string or behind `-exec` (agentwrap.hooks.inner).
HIDDEN = ["bash -c 'ls; rm x'", "sh -c 'rm x'", r"find . -exec rm {} \;", "find . -execdir rm {} +", "xargs rm",
          "env rm x", "timeout 5 rm x", "nice rm", "command rm", "git -c alias.x='!rm y' x", "bash -ec 'rm x'",
          "bash -o pipefail -c 'rm x'", "bash -c \"sh -c 'rm x'\"", "sudo -u me bash -c 'rm x'",
          "xargs sh -c 'rm \"$@\"' _", r"find . -exec bash -c 'rm \"$1\"' _ {} \;", "flock /tmp/l -c 'rm x'",
          "git -C sub -c alias.y='!rm z' y"]
# Commands whose inner command cannot be read before the line runs: left alone while any deny/ask rule exists.
OPAQUE = ["echo 'rm x' | sh", "bash -c \"$CMD\"", "git -c core.pager='rm y' log", "git -c alias.x=log x",
          "git --config-env=core.pager=P log"]


@pytest.mark.slow  # 2 x 23 hook runs; .ci/run runs -m slow
@pytest.mark.parametrize("command", HIDDEN + OPAQUE)
@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_a_rule_sees_the_command_a_command_runs_from_its_arguments(tmp_path: Path, command: str, kind: str) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {kind: ["Bash(rm:*)"]}})
    assert claude(command, tmp_path) is None  # bypass mode: "allow" here would run it past the rule


@pytest.mark.parametrize("command", ["bash -c 'ls; rm x'", r"find . -exec rm {} \;", "git -c alias.x='!rm y' x"])
def test_a_user_rule_sees_inside_bash_c_find_exec_and_git_aliases(home: Path, command: str) -> None:  # noqa: F811
    write(home / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(rm:*)"]}})
    assert claude(command, home / "project") is None
    write(home / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(curl:*)"]}})
    answer = claude(command, home / "project")  # no rule names rm: the same line is rewritten as before
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize("command", ["bash -c 'ls -la'", r"find . -name '*.o' -exec ls {} +",
                                     "git -c alias.x='!ls' x", "git -c color.ui=always log", "bash script.sh"])
def test_an_inner_command_no_rule_names_is_still_rewritten(tmp_path: Path, command: str) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(rm:*)"]}})
    answer = claude(command, tmp_path)
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize("command", OPAQUE[:2])
def test_an_unreadable_inner_command_is_rewritten_where_no_deny_or_ask_rule_is(tmp_path: Path, command: str) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(ls:*)"]}})
    answer = claude(command, tmp_path)
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_an_allow_rule_for_the_shell_does_not_allow_what_its_string_runs(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(bash:*)"]}})
    answer = claude("bash -c 'curl -X DELETE x'", tmp_path, mode="default")
    assert answer is not None and "permissionDecision" not in answer["hookSpecificOutput"]  # Claude Code asks
    answer = claude("bash -c 'curl x'", tmp_path.parent, mode="default")  # no rules at all: asks too
    assert answer is not None and "permissionDecision" not in answer["hookSpecificOutput"]


@pytest.mark.parametrize("command", ["bash -c 'rm -rf x'", r"find . -exec rm {} \;"])
def test_gemini_and_opencode_rules_see_inside_too(tmp_path: Path, home: Path, command: str) -> None:  # noqa: F811
    write(tmp_path / ".gemini" / "settings.json", {"tools": {"exclude": ["run_shell_command(rm)"]}})
    data = {**sample("gemini"), "cwd": str(tmp_path)}
    data["tool_input"] = {**data["tool_input"], "command": command}
    assert hook("gemini", data)[1] is None
    write(home / ".config" / "opencode" / "opencode.json", {"permission": {"bash": {"rm *": "deny", "*": "allow"}}})
    data = sample("opencode")
    data["args"] = {**data["args"], "command": command}
    assert hook("opencode", data)[1] is None
