"""The view for a person: agentwrap run in a real terminal (pexpect) picks pretty output with colour."""

from __future__ import annotations

import os
import sys

import pexpect
from conftest import ROOT


def _spawn(*args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    return pexpect.spawn(sys.executable, ["-m", "agentwrap", *args], env=full_env, timeout=30,
                         dimensions=(40, 200))


def test_a_terminal_gets_the_pretty_view_in_colour():
    child = _spawn("sh", "-c", "echo hello; exit 3")
    child.expect(pexpect.EOF)
    child.close()
    out = child.before.decode()
    assert "hello" in out
    assert "COMMAND_FAILED" in out
    assert "\x1b[" in out  # colour, because a person is looking
    assert not out.lstrip().startswith("{")
    assert child.exitstatus == 3


def test_no_color_is_respected_in_a_terminal():
    child = _spawn("echo", "plain", env={"NO_COLOR": "1"})
    child.expect(pexpect.EOF)
    child.close()
    out = child.before.decode()
    assert "plain" in out and "\x1b[" not in out
    assert child.exitstatus == 0


def test_agent_mode_in_a_terminal_is_still_json():
    child = _spawn("--agent", "echo", "hi")
    child.expect(pexpect.EOF)
    child.close()
    assert child.before.decode().lstrip().startswith("{")
