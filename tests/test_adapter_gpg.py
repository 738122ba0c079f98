"""gpg: its prompts name gpg's own batch forms, and pinentry's dialog reads as text, not `lqqqk`.

The fixture replays need no gpg; the live runs use a private GNUPGHOME and skip where gpg is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, aw

from agentwrap import fixtures, registry
from agentwrap.terminal import TerminalCleaner

FIXTURES = ROOT / "fixtures" / "gpg"


def _replayed(case: str) -> dict:
    env, _ = fixtures.replay(registry.builtin("gpg"), fixtures.Case("gpg", case, FIXTURES / case))
    return env


def _commands(env: dict) -> list[list[str]]:
    return [a.get("command") for a in env["error"]["code_actions"]]


def test_the_passphrase_prompt_offers_a_passphrase_file_never_the_passphrase_itself():
    env = _replayed("passphrase-prompt")
    assert env["error"]["input_kind"] == "password" and env["error"]["prompt"] == "Passphrase:"
    assert _commands(env)[0] == ["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase-file", "<FILE>",
                                 "-c", "notes.txt"]
    assert "--passphrase-file" in env["error"]["suggested_fix"]


def test_the_overwrite_question_offers_another_output_and_yes():
    env = _replayed("overwrite-prompt")
    assert env["error"]["input_kind"] == "confirmation"
    commands = _commands(env)
    assert commands[0][:3] == ["gpg", "-o", "<OUTPUT>"] and commands[1][:2] == ["gpg", "--yes"]


def test_really_sign_offers_batch_yes():
    env = _replayed("really-sign-prompt")
    assert env["error"]["prompt"] == "Really sign? (y/N)"
    assert _commands(env)[0][:3] == ["gpg", "--batch", "--yes"]


def test_batch_mode_refusing_to_overwrite_is_its_own_problem():
    env = _replayed("batch-output-exists")
    assert env["error"]["code"] == "GPG_OUTPUT_EXISTS" and env["error"]["category"] == "conflict"


def test_pinentrys_box_is_drawn_with_box_characters():
    """pinentry-curses draws its frame with DEC line drawing (`ESC ( 0` then `lqqqk`): the captured
    bytes read as the frame a person sees."""
    raw = (FIXTURES / "passphrase-prompt.out").read_bytes()
    assert b"\x1b(0" in raw and b"lqqq" in raw  # the capture really is line drawing
    cleaner = TerminalCleaner()
    cleaner.feed(raw[:raw.rindex(b"\x1b[?1049l")])  # the screen while pinentry asked (it leaves when ended)
    screen = cleaner.screen_tail(50)
    assert "┌────" in screen and "└────" in screen and "│ Passphrase:" in screen
    assert "lqqq" not in screen and "mqqq" not in screen


@pytest.mark.skipif(not shutil.which("gpg"), reason="needs gpg")
def test_gpg_symmetric_encryption_is_refused_at_the_passphrase_and_writes_nothing(tmp_path: Path):
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    (tmp_path / "notes.txt").write_text("secret notes\n")
    env = {"GNUPGHOME": str(home)}
    try:
        a = aw("--cwd", str(tmp_path), "--env", f"GNUPGHOME={home}", "--timeout", "20", "gpg", "-c", "notes.txt")
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env={**os.environ, **env}, capture_output=True)
    assert a.code == 125 and a.error["code"] == "INPUT_REQUIRED"
    assert a.error["input_kind"] == "password" and "q" * 5 not in a.error["prompt"]
    assert "--passphrase-file" in a.error["code_actions"][0]["command"]
    assert not (tmp_path / "notes.txt.gpg").exists()
