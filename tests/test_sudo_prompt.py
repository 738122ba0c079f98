"""A sudo password prompt: `-n` is offered only to sudo itself; a script or program that runs sudo is told
what to change, with no command that would pass `-n` to it. Real programs reading /dev/tty."""

from __future__ import annotations

import sys

from conftest import aw

PY = sys.executable
ASKS = "import getpass; getpass.getpass('[sudo] password for root: ')"


def _minus_n(error):
    return [a for a in error["code_actions"] if "-n" in (a.get("command") or [])]


def test_a_script_whose_sudo_asks_gets_no_command_with_minus_n(tmp_path):
    script = tmp_path / "install.sh"
    script.write_text(f'#!/bin/sh\necho installing\n"{PY}" -c "{ASKS}"\necho done\n')
    script.chmod(0o755)
    a = aw("--cwd", str(tmp_path), "./install.sh")
    assert a.error["code"] == "INPUT_REQUIRED" and a.error["input_kind"] == "password", a.env
    assert _minus_n(a.error) == [], a.error["code_actions"]
    assert "sudo -n" in a.error["suggested_fix"] and "NOPASSWD" in a.error["suggested_fix"]
    assert "done" not in a.text()


def test_a_python_program_asking_like_sudo_gets_no_minus_n():
    a = aw(PY, "-c", ASKS)
    assert a.error["code"] == "INPUT_REQUIRED", a.env
    assert _minus_n(a.error) == [], a.error["code_actions"]


def test_sudo_itself_is_offered_sudo_minus_n(tmp_path):
    sudo = tmp_path / "sudo"  # a stand-in that asks as sudo does, on /dev/tty
    sudo.write_text(f'#!/bin/sh\nexec "{PY}" -c "{ASKS}"\n')
    sudo.chmod(0o755)
    a = aw(str(sudo), "apt-get", "update")
    assert a.error["code"] == "INPUT_REQUIRED", a.env
    assert [a["command"] for a in _minus_n(a.error)] == [[str(sudo), "-n", "apt-get", "update"]]
