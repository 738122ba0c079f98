"""What a `[[rules]]` table's templates make of a match: values spliced into a shell script are quoted,
a group's wait is read as a duration or left out, and a template or pattern that can only mislead is
refused when the spec loads (docs/adapters.md, "Teach it the failure")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT, aw

from agentwrap.adapter import BaseAdapter
from agentwrap.capture import StreamResult
from agentwrap.records import CapturedRun
from agentwrap.spec import Spec, SpecError

RULE = {"code": "GREET_GUEST_NOT_FOUND",
        "pattern": r"^error: guest (?P<guest>\S+) not found in (?P<file>\S+)",
        "title": "greet: the guest is not on the list", "category": "not_found", "status": 404,
        "retryable": False, "safe_to_retry": True}


def _spec(**rule: object) -> Spec:
    return Spec.from_dict({"name": "greet", "has_subcommands": False, "rules": [{**RULE, **rule}]}, "test")


def _problems(spec: Spec, stderr: str) -> list[dict[str, object]]:
    empty = StreamResult("", 0, 0, False, 0, None)
    run = CapturedRun(argv=("greet", "x"), program="/bin/greet", exit_code=2, signal=None, stdout=empty,
                      stderr=empty, stderr_text=stderr)
    return [p.to_dict() for p in BaseAdapter(spec).find_problems(run)]


def _shell_action(stderr: str) -> list[str]:
    spec = _spec(code_actions=[{"title": "Add the guest", "command": ["sh", "-c", "echo {guest} >> {file}"]}])
    return list(_problems(spec, stderr)[0]["code_actions"][0]["command"])  # type: ignore[index]


@pytest.mark.parametrize("guest", ["eve;date>INJECTED", "o'brien", "$(touch${IFS}INJECTED)",
                                   "`touch${IFS}INJECTED`", "x&&touch${IFS}INJECTED"])
def test_a_value_in_a_shell_script_is_one_word_that_runs_nothing(tmp_path, guest):
    command = _shell_action(f"error: guest {guest} not found in guests.txt\n")
    subprocess.run(command, cwd=tmp_path, check=True, timeout=30)
    assert not (tmp_path / "INJECTED").exists()
    assert (tmp_path / "guests.txt").read_text() == guest + "\n"


def test_a_plain_value_reads_as_the_tutorial_shows_it():
    command = _shell_action("error: guest bob not found in guests.txt\n")
    assert command == ["sh", "-c", "echo bob >> guests.txt"]


def test_quotes_around_a_placeholder_in_a_shell_script_are_refused():
    with pytest.raises(SpecError, match="quotes"):
        _spec(code_actions=[{"title": "Add", "command": ["sh", "-c", "echo '{guest}' >> {file}"]}])


RATE = {"code": "GREET_RATE", "pattern": r"retry in (?P<wait>\S+)", "title": "greet: rate limited",
        "category": "rate_limit", "status": 429, "retryable": True, "safe_to_retry": True,
        "retry_after": "wait"}


@pytest.mark.parametrize(("said", "seconds"), [("30", 30.0), ("30s", 30.0), ("2m", 120.0), ("500ms", 0.5),
                                               ("nan", None), ("inf", None), ("1e400", None), ("-5", None),
                                               ("9" * 400, None), ("soon", None)])
def test_a_groups_wait_is_a_duration_or_nothing_and_the_reading_stays(said, seconds):
    spec = Spec.from_dict({"name": "greet", "has_subcommands": False, "rules": [RATE]}, "test")
    (problem,) = _problems(spec, f"error: rate limited, retry in {said}\n")
    assert problem["code"] == "GREET_RATE"
    assert problem.get("retry_after") == seconds


@pytest.mark.parametrize("wait", [float("nan"), float("inf"), -5])
def test_a_literal_wait_that_is_no_wait_is_refused(wait):
    with pytest.raises(SpecError, match="retry_after"):
        Spec.from_dict({"name": "greet", "rules": [{**RATE, "retry_after": wait}]}, "test")


@pytest.mark.parametrize("rule", [{"detail": "at {line}"}, {"suggested_fix": "Fix {nosuch} in {file}"},
                                  {"code_actions": [{"title": "Fix {nosuch}", "command": ["greet"]}]},
                                  {"code_actions": [{"title": "Fix", "command": ["greet", "{nosuch}"]}]}])
def test_a_template_naming_a_value_no_run_has_is_refused(rule):
    with pytest.raises(SpecError, match="nosuch|line"):
        _spec(**rule)


def test_templates_may_name_the_values_every_run_has_and_shell_variables():
    spec = _spec(detail="{prog}: {match}", suggested_fix="Export ${GREET_HOME} and add {guest} to {file}.")
    (problem,) = _problems(spec, "error: guest bob not found in guests.txt\n")
    assert problem["detail"] == "greet: error: guest bob not found in guests.txt"
    assert problem["suggested_fix"] == "Export ${GREET_HOME} and add bob to guests.txt."


def test_an_optional_group_that_did_not_match_says_nothing():
    spec = _spec(pattern=r"^error: guest (?P<guest>\S+) not found in (?P<file>\S+)(?: ticket (?P<x>T\d+))?",
                 detail="ticket={x}", suggested_fix="Add {guest}{x}.",
                 code_actions=[{"title": "Close", "command": ["close", "{x}"]}])
    (problem,) = _problems(spec, "error: guest bob not found in guests.txt\n")
    assert (problem["detail"], problem["suggested_fix"]) == ("ticket=", "Add bob.")
    assert not problem.get("code_actions")  # no honest command without the ticket


@pytest.mark.parametrize("pattern", [r"(?P<x>T\d+)?", r"^", r".*", r"error|"])
def test_a_pattern_that_matches_the_empty_string_is_refused(pattern):
    with pytest.raises(SpecError, match="empty string"):
        _spec(pattern=pattern)


def _user_tool(tmp_path, script: str, toml: str) -> dict[str, str]:
    """A `greet` program on PATH and a user adapter for it: the environment a run of it needs."""
    folder, tools = tmp_path / "adapters", tmp_path / "bin"
    folder.mkdir()
    tools.mkdir()
    (tools / "greet").write_text(script)
    (tools / "greet").chmod(0o755)
    (folder / "greet.toml").write_text(textwrap.dedent(toml))
    return {"AGENTWRAP_ADAPTER_DIR": str(folder), "PATH": f"{tools}:{os.environ['PATH']}"}


def test_the_tutorial_action_offers_a_safe_command_in_a_live_run(tmp_path):
    env = _user_tool(tmp_path, '#!/bin/sh\necho "error: guest $1 not found in guests.txt" >&2\nexit 2\n', '''\
        name = "greet"
        has_subcommands = false
        [[rules]]
        code = "GREET_GUEST_NOT_FOUND"
        pattern = "^error: guest (?P<guest>\\\\S+) not found in (?P<file>\\\\S+)"
        title = "greet: the guest is not on the list"
        category = "not_found"
        status = 404
        retryable = false
        safe_to_retry = true
        [[rules.code_actions]]
        title = "Add the guest"
        command = ["sh", "-c", "echo {guest} >> {file}"]
        ''')
    answer = aw("--", "greet", "eve;date>INJECTED", env=env)
    assert answer.error is not None and answer.error["code"] == "GREET_GUEST_NOT_FOUND"
    (action,) = answer.error["code_actions"]
    assert action["command"] == ["sh", "-c", "echo 'eve;date>INJECTED' >> guests.txt"]


def test_a_bad_group_wait_in_a_live_run_keeps_the_reading_and_valid_json(tmp_path):
    made = _user_tool(tmp_path, '#!/bin/sh\necho "error: rate limited, retry in $1" >&2\nexit 3\n', '''\
        name = "greet"
        has_subcommands = false
        [[rules]]
        code = "GREET_RATE"
        pattern = "retry in (?P<wait>\\\\S+)"
        title = "greet: rate limited"
        category = "rate_limit"
        status = 429
        retryable = true
        safe_to_retry = true
        retry_after = "wait"
        ''')
    env = {**os.environ, **made, "PYTHONPATH": str(ROOT)}
    for said, seconds in (("30s", 30.0), ("nan", None)):
        done = subprocess.run([sys.executable, "-m", "agentwrap", "--agent", "--", "greet", said], env=env,
                              capture_output=True, timeout=60, check=False)

        def no_constants(name: str) -> None:
            raise AssertionError(f"{name} is not JSON")

        answer = json.loads(done.stdout, parse_constant=no_constants)
        assert answer["error"]["code"] == "GREET_RATE", answer
        assert answer["error"].get("retry_after") == seconds
        assert not answer.get("warnings")
