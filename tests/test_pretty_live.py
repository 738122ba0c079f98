"""A person at a terminal sees the program's output while it runs (agentwrap under a real pty, pexpect):
line by line in arrival order, cleaned and redacted, colours kept only where safe, the summary once at
the end, a resize passed on, Ctrl-C and prompts as before; json and jsonl on a terminal unchanged. What a
program redraws is read through pyte, an emulator nobody here wrote: a block rewritten with cursor-up ends
as its last frame, a secret in it stays hidden when the width cuts it, an open line shows while it waits."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pexpect
import pytest
from conftest import ROOT
from emulator import pyte_rows

from agentwrap.render.live import HOLD_CHARS, LiveView


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_CACHE_DIR": str(tmp_path / "cache"),
            "AGENTWRAP_STATE_DIR": str(tmp_path / "state")}
    for name in ("NO_COLOR", "COLUMNS", "LINES"):
        full.pop(name, None)
    return full


def spawn(env: dict[str, str], *args: str, cols: int = 100) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "agentwrap", *args], env=env, timeout=30, dimensions=(50, cols))


def seen(env: dict[str, str], *args: str) -> str:
    """Everything the person's terminal received from `agentwrap ARGS`."""
    child = spawn(env, *args)
    child.expect(pexpect.EOF)
    child.close()
    return str(child.before.decode())


def py(code: str) -> list[str]:
    return ["--", sys.executable, "-c", code]


@pytest.mark.slow
def test_the_first_line_shows_while_the_program_still_runs(env, tmp_path):
    done = tmp_path / "done"
    code = f"import time, pathlib; print('first line', flush=True); time.sleep(2); print('second line'); " \
           f"pathlib.Path({str(done)!r}).write_text('x')"
    child = spawn(env, *py(code))
    child.expect("first line")
    assert not done.exists()  # the program had not ended when the person read its first line
    child.expect("second line")
    child.expect(pexpect.EOF)
    child.close()
    assert done.exists() and child.exitstatus == 0


def test_lines_come_in_arrival_order_and_are_not_printed_again(env):
    code = ("import sys, time\nfor i in range(3):\n    print(f'out {i}', flush=True); time.sleep(0.05)\n"
            "    print(f'err {i}', file=sys.stderr, flush=True); time.sleep(0.05)\n")
    screen = seen(env, "--format", "pretty", *py(code)).replace("\r\n", "\n")
    lines = [line for line in screen.split("\n") if line.startswith(("out ", "err "))]
    assert lines == ["out 0", "err 0", "out 1", "err 1", "out 2", "err 2"]  # once each, as they came
    assert screen.count("$ ") == 1 and screen.index("$ ") < screen.index("out 0")
    assert "succeeded" in screen.split("err 2")[1]  # the summary comes after the output
    assert "--- stderr ---" not in screen


def test_secrets_are_redacted_before_they_are_shown(env):
    key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    code = ("import os, time\nprint('token', os.environ['API_TOKEN'], flush=True)\n"
            f"print('-----BEGIN PRIVATE KEY-----', flush=True); time.sleep(0.3)\n"
            f"print({key[:20]!r} + {key[20:]!r}, flush=True)\n"  # the key whole only in what it prints
            "time.sleep(0.3); print('-----END PRIVATE KEY-----')\n")
    screen = seen(env, "--env", "API_TOKEN=s3cr3t-value-9f8e7d", *py(code))
    assert "token [REDACTED]" in screen
    assert "s3cr3t-value-9f8e7d" not in screen
    assert key not in screen  # a key's body line is hidden even when its end came later


def test_a_progress_bar_shows_its_last_frame(env):
    code = ("import sys, time\nfor p in (10, 50, 100):\n    sys.stdout.write(f'\\rloading {p}%'); "
            "sys.stdout.flush(); time.sleep(0.05)\nprint()\nprint('done')\n")
    screen = seen(env, *py(code))
    assert "loading 100%\r\ndone" in screen
    assert "10%" not in screen and "50%" not in screen


def test_colour_is_kept_only_as_sgr_and_only_when_allowed(env):
    code = ("print('\\x1b[31mred words\\x1b[0m'); print('\\x1b]0;a title\\x07titled'); "
            "print('moved\\x1b[2K\\x1b[1Gagain')")
    screen = seen(env, *py(code))
    assert "\x1b[31mred words\x1b[0m" in screen  # the program's own colour, for a person
    assert "\x1b]" not in screen and "\x1b[2K" not in screen and "\x1b[1G" not in screen
    assert "\r\ntitled\r\n" in screen and "\r\nagain\r\n" in screen  # the others shown cleaned
    plain = seen({**env, "NO_COLOR": "1"}, *py(code))
    assert "\x1b" not in plain and "red words" in plain
    answer = json.loads(seen(env, "--format", "json", *py(code)))
    assert answer["output"]["stdout"]["text"] == "red words\ntitled\nagain\n"  # the envelope stays clean


def test_a_colour_aware_program_paints_for_a_person_and_not_for_an_agent(env):
    # a program that colours only when NO_COLOR is unset (no-color.org), as pytest and most CLIs do
    code = ("import os; off = os.environ.get('NO_COLOR'); print('NO_COLOR=' + repr(off)); "
            "print('plain' if off else '\\x1b[32mgreen words\\x1b[0m')")
    screen = seen(env, *py(code))
    assert "NO_COLOR=None" in screen and "\x1b[32mgreen words\x1b[0m" in screen  # pretty on a terminal
    answer = json.loads(seen(env, "--agent", *py(code)))
    assert answer["output"]["stdout"]["text"] == "NO_COLOR='1'\nplain\n"  # an agent's run turns colour off
    own = seen({**env, "NO_COLOR": "yes"}, *py(code))
    assert "NO_COLOR='yes'" in own and "\x1b[32m" not in own  # the person's own NO_COLOR reaches the program


@pytest.mark.skipif(not shutil.which("node"), reason="node is not installed")
def test_an_adapters_colour_off_variable_is_for_machines_only(env):
    code = "console.log('disabled=' + process.env.NODE_DISABLE_COLORS)"
    assert "disabled=undefined" in seen(env, "--", "node", "-e", code)  # node's adapter, a person's run
    answer = json.loads(seen(env, "--agent", "--", "node", "-e", code))
    assert answer["output"]["stdout"]["text"] == "disabled=1\n"


def test_a_resize_reaches_the_programs_terminal(env):
    code = ("import os, signal, sys, time\n"
            "signal.signal(signal.SIGWINCH, lambda *_: print('now', *os.get_terminal_size(1), flush=True))\n"
            "print('at', *os.get_terminal_size(1), flush=True)\ntime.sleep(5)\n")
    child = spawn(env, *py(code), cols=100)
    child.expect(r"at 100 50\r\n")
    child.setwinsize(40, 120)
    child.expect(r"now 120 40\r\n")
    child.sendintr()  # no need to wait out the sleep
    child.expect(pexpect.EOF)
    child.close()


def test_a_bar_redrawn_after_a_resize_shows_its_last_frame_at_the_new_width(env):
    code = ("import os, sys, time\nprint('bar', flush=True)\n"
            "for p in range(0, 101, 10):\n    cols = os.get_terminal_size(1).columns\n"
            "    fill = cols - 6\n    sys.stdout.write('\\r' + '#' * (fill * p // 100) + '.' * (fill - fill * p // 100)"
            " + f'{p:4d}%'); sys.stdout.flush(); time.sleep(0.15)\nprint()\n")
    child = spawn(env, *py(code), cols=60)
    child.expect("bar\r\n")
    time.sleep(0.6)  # frames at 60 columns first
    child.setwinsize(50, 120)
    child.expect(pexpect.EOF)
    child.close()
    screen = child.before.decode()  # what came after the line `bar`
    assert screen.startswith("#" * 114 + " 100%\r\n")  # the last frame alone, whole, at 120 columns


def test_ctrl_c_ends_the_tree_and_says_so(env, tmp_path):
    marker = tmp_path / "late"
    code = f"import time, pathlib; print('working', flush=True); time.sleep(3); pathlib.Path({str(marker)!r}).touch()"
    child = spawn(env, *py(code))
    child.expect("working")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert "INTERRUPTED" in child.before.decode()
    assert child.exitstatus == 130 and not marker.exists()


def test_a_prompt_is_shown_and_refused_not_answered(env):
    screen = seen(env, *py("print('hello'); name = input('Your name: '); print('go' + 't', name)"))
    assert "hello\r\nYour name: \r\n" in screen  # the question, shown once the run ended
    assert "INPUT_REQUIRED" in screen and "got" not in screen


def test_a_shell_line_is_shown_live_too(env):
    screen = seen(env, "--shell", "echo one; sleep 0.3; echo two >&2")  # two terminals: order needs a gap
    assert screen.split("\r\n")[1:4] == ["one", "two", "\x1b[1m\x1b[32m✔ echo succeeded\x1b[0m"]


def test_json_and_jsonl_on_a_terminal_are_unchanged(env):
    code = "print('hello')"
    events = [json.loads(line) for line in seen(env, "--format", "jsonl", *py(code)).splitlines() if line]
    assert events[0]["type"] == "operation_started" and events[-1]["type"] == "operation_completed"
    assert json.loads(seen(env, "--format", "json", *py(code)))["output"]["stdout"]["text"] == "hello\n"


def _view(tmp_path: Path, *, color: bool = False) -> tuple[LiveView, Path]:
    path = tmp_path / "screen"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    return LiveView(fd, "$ prog\n", [], cols=80, color=color), path


@pytest.mark.parametrize("color", [False, True])
def test_a_line_that_never_ends_is_shown_in_pieces_not_held(tmp_path, color):
    view, path = _view(tmp_path, color=color)
    piece = b"word " * 2000  # 10 kB at a time, 4 MB in all, never a newline
    for _ in range(400):
        view.output("stdout", b"\x1b[32m" + piece if color else piece)
        state = view.streams["stdout"]
        assert len(state.partial) <= HOLD_CHARS and len(state.raw) <= HOLD_CHARS
    view.finish()
    os.close(view.fd)
    assert path.read_text().count("word") == 400 * 2000


def test_binary_data_is_not_shown(tmp_path):
    view, path = _view(tmp_path)
    view.output("stdout", bytes(range(256)) * 64)
    view.output("stderr", b"a real line\n")
    view.finish()
    os.close(view.fd)
    text = path.read_text()
    assert "[agentwrap: stdout is binary data; not shown]" in text and "a real line" in text
    assert len(text) < 200


REDRAW = ('printf "a 1\\nb 1\\n"; sleep .2; printf "\\033[2Aa 2\\nb 2\\n"; sleep .2; '
          'printf "\\033[2Aa 3\\nb 3\\ndone\\n"')


def screen(child: pexpect.spawn, rows: int = 50, cols: int = 100) -> tuple[bytes, list[str]]:
    """The bytes the terminal received from here on, and the rows a terminal shows for them."""
    child.expect(pexpect.EOF)
    child.close()
    data = bytes(child.before)
    return data, pyte_rows(data, rows, cols)


def test_a_block_redrawn_with_cursor_up_shows_its_last_frame(env):
    child = spawn(env, "--", "bash", "-c", REDRAW)
    child.expect("a 1")  # the first frame was shown while the program ran
    data, rows = screen(child)
    shown = [row for row in rows if row[:2] in ("a ", "b ", "do")]
    assert shown == ["a 3", "b 3", "done"], rows
    assert b"\x1b[2A" in data  # painted over in place, not printed again


def test_a_secret_in_a_redraw_cut_by_the_width_stays_hidden(env):
    token = "s3cr3t-" + "9f8e7d6c5b4a" * 3  # longer than a row: the screen cuts it
    # (the token's line takes two rows of 30 columns, so the program goes up three to redraw it)
    code = ('printf "token %s\\nstep 1\\n" "$API_TOKEN"; sleep .2; printf "\\033[3Atoken %s\\nstep 2\\n" '
            '"$API_TOKEN"; sleep .2')
    child = spawn(env, "--env", f"API_TOKEN={token}", "--", "bash", "-c", code, cols=30)
    data, rows = screen(child, cols=30)
    text = "".join(rows)  # rows joined: a secret cut at the edge would read whole again
    assert token.encode() not in data and token not in text
    assert token[:12] not in text and token[-12:] not in text
    assert "token [REDACTED]" in rows and "step 2" in rows and "step 1" not in rows


@pytest.mark.slow
def test_an_open_line_is_shown_while_the_program_waits_and_not_repeated(env, tmp_path):
    late = tmp_path / "late"
    child = spawn(env, "--", "bash", "-c", f'printf "working... "; sleep 2; touch {late}; echo ok; echo done')
    child.expect_exact("\x1b[0m\r\n")  # the command line
    child.expect_exact("working... ")
    assert not late.exists()  # shown while the program still waited
    data, rows = screen(child)  # what came after it
    assert data.startswith(b"ok\r\ndone\r\n")  # only the rest of the line
    assert rows[:2] == ["ok", "done"]


def test_a_question_is_shown_once_and_refused(env):
    child = spawn(env, "--", "bash", "-c", 'printf "a line\\n"; read -p "Continue? " answer; echo "got $answer"')
    child.expect_exact("a line\r\nContinue? ")
    data, rows = screen(child)
    before, refused, _ = data.partition(b"INPUT_REQUIRED")
    assert refused and b"Continue?" not in before and b"got" not in before  # shown once, never answered
