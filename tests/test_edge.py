"""The testable edge: `cli.main(argv, env) -> ExitStatus`, with the environment injected."""

from __future__ import annotations

import io
import json
import textwrap

from agentwrap.cli import main
from agentwrap.environment import Environment, ExitStatus


def call(argv: list[str], **env: object) -> tuple[ExitStatus, str]:
    out = io.StringIO()
    code = main(argv, Environment(stdout=out, stderr=io.StringIO(), **env))  # type: ignore[arg-type]
    return code, out.getvalue()


def test_an_answer_in_process_returns_its_status():
    code, text = call(["--agent", "explain", "TIMEOUT"], stdout_isatty=False)
    assert code is ExitStatus.SUCCESS
    assert json.loads(text)["data"]["code"] == "TIMEOUT"


def test_a_real_run_in_process_passes_the_programs_status_through():
    code, text = call(["--agent", "--", "sh", "-c", "echo hi; exit 3"], stdout_isatty=False)
    assert code == 3 and code.name == "PROGRAM_3"
    assert json.loads(text)["exit"]["code"] == 3
    assert call(["--agent", "--", "true"])[0] is ExitStatus.SUCCESS


def test_usage_errors_are_agentwraps_status_not_an_exit():
    code, text = call(["--agent", "--timeout", "soon", "--", "true"])
    assert code is ExitStatus.AGENTWRAP
    assert json.loads(text)["error"]["code"] == "USAGE"


def test_the_terminal_flag_chooses_the_format():
    _, pretty = call(["explain", "TIMEOUT"], stdout_isatty=True)
    _, plain = call(["explain", "TIMEOUT"], stdout_isatty=False)
    json.loads(plain)
    assert "\n" not in plain.strip()  # one JSON value on one line for a pipe
    assert "✔ TIMEOUT" in pretty  # the person's view on a terminal


def test_the_config_folder_is_injected(tmp_path):
    (tmp_path / "adapters").mkdir()
    (tmp_path / "adapters" / "hello.toml").write_text(
        textwrap.dedent("""
        name = "hello"
        matches = ["echo"]
        has_subcommands = false
        [descriptor]
        purpose = "injected"
    """)
    )
    code, text = call(
        ["--agent", "--detail", "standard", "--", "echo", "hi"], config_dir=tmp_path, cache_dir=tmp_path / "cache"
    )
    assert code is ExitStatus.SUCCESS
    assert json.loads(text)["command"]["adapter"] == "hello"
    # and the process's own environment is back as it was
    _, again = call(["--agent", "--detail", "standard", "--", "echo", "hi"])
    assert json.loads(again)["command"]["adapter"] != "hello"


def test_stdin_is_injected():
    code, text = call(["--agent", "--stdin", "-", "--", "cat"], stdin=io.BytesIO(b"fed\n"))
    assert code is ExitStatus.SUCCESS
    assert json.loads(text)["output"]["stdout"]["text"].strip() == "fed"
