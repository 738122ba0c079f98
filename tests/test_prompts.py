"""Prompts: prevented, detected for certain (the kernel says so), answered only when authorised."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import aw

PY = sys.executable


@pytest.mark.parametrize("no_pty", [False, True], ids=["pty", "pipes"])
def test_input_prompt_is_input_required_within_two_seconds(no_pty):
    a = aw(*(["--no-pty"] if no_pty else []), PY, "-c", "input('Your name: ')")
    assert a.code == 125
    assert a.error["code"] == "INPUT_REQUIRED"
    assert "Your name" in a.error["prompt"]
    assert a.error["input_kind"] == "text"
    assert a.error["detection"] == "kernel"
    assert a.wall < 3.0
    templates = [c for c in a.error["code_actions"] if "--answer" in (c.get("command") or [])]
    assert templates and templates[0]["applicability"] == "has_placeholders"


def test_silent_readline_is_caught():
    a = aw(PY, "-c", "import sys; sys.stdin.readline()")
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.wall < 3.0


def test_getpass_reading_dev_tty_is_caught_as_password():
    a = aw(PY, "-c", "import getpass; getpass.getpass('Password: ')")
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.error["input_kind"] == "password"
    assert a.error["source"] == "dev-tty"
    assert a.wall < 3.0


def test_prompt_in_a_grandchild_is_caught():
    a = aw("sh", "-c", f"{PY} -c \"input('Continue? [y/N] ')\"; echo after")
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.error["input_kind"] == "confirmation"


def test_answer_replies_and_the_run_goes_on():
    a = aw("--answer", "name:=Ada", PY, "-c", "n = input('Your name: '); print('hello', n)")
    assert a.code == 0, a.env
    assert "hello Ada" in a.text()
    assert a.env["context"]["answered"][0]["pattern"] == "name:"
    assert any(w["code"] == "PROMPT_ANSWERED" for w in a.env["warnings"])


def test_password_reply_is_never_echoed():
    secret = "correct-horse-battery"
    a = aw("--answer", f"Password={secret}", PY, "-c",
           "import getpass; p = getpass.getpass('Password: '); print('length', len(p)); print('got', p)")
    assert a.code == 0, a.env
    assert "length 21" in a.text()
    assert secret.encode() not in a.stdout and secret.encode() not in a.stderr


def test_unmatched_answer_still_stops_at_the_prompt():
    a = aw("--answer", "colour=blue", PY, "-c", "input('Your name: ')")
    assert a.error["code"] == "INPUT_REQUIRED"


def test_a_reply_that_keeps_being_refused_is_not_repeated_forever():
    a = aw("--answer", "PIN:=0000", PY, "-c", "while True: input('PIN: ')", timeout=30)
    assert a.error["code"] == "INPUT_REQUIRED"
    assert len(a.env["context"]["answered"]) <= 3


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_a_quiet_slow_program_is_not_a_prompt():
    a = aw(PY, "-c", "import time; print('Working', end='', flush=True); time.sleep(2.5); print(' done')")
    assert a.code == 0
    assert a.text() == "Working done\n"


def test_editor_request_is_input_required_with_the_editor_kind(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "f").write_text("x")
    subprocess.run(["git", "-C", str(tmp_path), "add", "f"], check=True)
    a = aw("--cwd", str(tmp_path), "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit")
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.error["input_kind"] == "editor"
    assert a.code == 125
    assert not (tmp_path / ".git" / "index.lock").exists()


def test_git_credential_prompt_is_prevented():
    a = aw("git", "ls-remote", "https://127.0.0.1:9/nothing.git", timeout=30)
    assert a.env["status"] == "error"
    assert a.wall < 10


def test_askpass_answer_reaches_the_program(tmp_path):
    askpass_user = tmp_path / "ask.sh"
    askpass_user.write_text("#!/bin/sh\n\"$SSH_ASKPASS\" 'Password for host: '\n")
    askpass_user.chmod(0o755)
    a = aw("--answer", "Password for=hunter22", str(askpass_user))
    assert a.code == 0
    assert "hunter22" not in a.stdout.decode()


def test_askpass_reply_the_program_rejects_is_not_sent_again(tmp_path):
    # ssh asks its askpass again after a wrong password: a second reply would be a second failed login
    asker = tmp_path / "ask.sh"
    log = tmp_path / "replies"
    asker.write_text(f"#!/bin/sh\nfor i in 1 2 3; do \"$SSH_ASKPASS\" 'Password for host: ' >> {log} || exit 5; done\n")
    asker.chmod(0o755)
    a = aw("--answer", "Password for=wrongpass99", str(asker))
    assert log.read_text().splitlines() == ["wrongpass99"]  # sent once, never again
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.error["answer_rejected"]["times"] == 1
    answered = [w for w in a.env.get("warnings", []) if w["code"] == "PROMPT_ANSWERED"]
    assert answered and "Password for host" in answered[0]["message"]  # the reply that was sent is reported


def test_raw_mode_reader_waiting_in_select_is_caught_by_the_kernel():
    script = ("import tty, select, sys; tty.setcbreak(0); print('Pick one: ', end='', flush=True); "
              "select.select([0], [], [])")
    a = aw(PY, "-c", script)
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.error["detection"] == "kernel-wait"  # its select set holds our terminal
    assert a.wall < 4


def test_a_select_reader_in_canonical_mode_is_a_confirmation():
    script = ("import select, sys; print('Continue? [y/N] ', end='', flush=True); "
              "select.select([sys.stdin], [], [])")
    a = aw(PY, "-c", script)
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.error["detection"] == "kernel-wait"  # once only the prompt text could say so
    assert a.error["input_kind"] == "confirmation"


def test_jsonl_reports_the_prompt_as_an_event():
    import json

    a = aw("--format", "jsonl", PY, "-c", "input('Your name: ')", check=False)
    events = [json.loads(line) for line in a.stdout.decode().splitlines()]
    kinds = [e["type"] for e in events]
    assert "prompt_detected" in kinds
    assert kinds[-1] == "operation_completed" and events[-1]["status"] == "error"
    assert a.code == 125


def test_the_shims_refusal_line_is_the_one_the_runner_knows(tmp_path):
    from agentwrap.runner.shims import ShimDir, refusal_line

    shims = ShimDir(tmp_path, [])
    proc = subprocess.run([shims.paths["askpass"], "Password for x:"], capture_output=True, text=True,
                          env={**os.environ, "AGENTWRAP_SHIM_WAIT": "0"}, timeout=10)
    assert proc.returncode == 1 and proc.stdout == ""  # a refusal never answers, not even with nothing
    assert proc.stderr.strip() == refusal_line("askpass", "Password for x:")


@pytest.mark.skipif(not __import__("shutil").which("ssh-keygen"), reason="ssh-keygen not installed")
def test_a_refused_passphrase_is_never_taken_for_an_empty_one(tmp_path):
    """ssh-keygen takes a failed askpass as an empty passphrase: held at the request, it writes nothing."""
    a = aw("--cwd", str(tmp_path), "ssh-keygen", "-q", "-t", "ed25519", "-f", "k1", check=True)
    assert a.code == 125 and a.error["code"] == "INPUT_REQUIRED" and a.error["input_kind"] == "password"
    assert not (tmp_path / "k1").exists() and not (tmp_path / "k1.pub").exists()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "k2")], check=True)
    before = (tmp_path / "k2").read_bytes()
    b = aw("--cwd", str(tmp_path), "ssh-keygen", "-p", "-f", "k2")
    assert b.code == 125 and b.error["code"] == "INPUT_REQUIRED"
    assert (tmp_path / "k2").read_bytes() == before, "the key was not rewritten without a passphrase"
    assert a.wall < 10 and b.wall < 10


def test_a_refused_request_is_input_required_even_when_the_program_exits_0(tmp_path):
    """A program that asks the editor, is refused and then says it succeeded did not get what it asked."""
    script = tmp_path / "asks.sh"
    script.write_text('#!/bin/sh\n"$EDITOR" "$1" || true\necho "unchanged"\nexit 0\n')
    script.chmod(0o755)
    a = aw("--env", "AGENTWRAP_SHIM_WAIT=0", str(script), str(tmp_path / "f.txt"))  # the shim gives up at once
    assert a.code == 125 and a.error["code"] == "INPUT_REQUIRED" and a.error["input_kind"] == "editor"


RAW_WAIT = ("import select, sys, time, tty; tty.setraw(0); "
            "[(sys.stdout.write(f'\\r[{i * 10:3d}%] unpacking'), sys.stdout.flush(), select.select([0], [], [], 1.5)) "
            "for i in range(3)]; print('\\r\\ndone')")  # quiet long enough between redraws to look like a prompt


@pytest.mark.slow  # a long real run: the `-m slow` step
def test_a_guess_never_ends_a_program_that_is_changing_something():
    """A raw-mode terminal and a progress line look like a prompt: for a mutating program (make's effects
    say so) only the kernel's word may end it, so it finishes untouched; a read-only one is still refused."""
    done = aw("--adapter", "make", "--", PY, "-c", RAW_WAIT, timeout=60)
    assert done.code == 0 and "done" in done.text(), done.env.get("error")
    assert done.wall >= 3  # it ran to its end


def test_a_read_only_program_waiting_in_raw_mode_is_still_refused():
    waits = aw("--", PY, "-c", "import select, tty; tty.setraw(0); select.select([0], [], [], 30)", timeout=60)
    assert waits.code == 125 and waits.error["code"] == "INPUT_REQUIRED" and waits.wall < 10


def test_a_timed_prompt_is_refused_before_it_answers_itself():
    """bash's `read -t` waits in select(2) in canonical mode: the kernel's view of the select set says it
    waits for our terminal, so the installer never goes on with its default."""
    line = 'read -t 5 -p "Installing to /opt/app in 5 seconds. Type another directory, or wait: " d; echo installed'
    a = aw("--detail", "detailed", "bash", "-c", line, timeout=30)
    assert a.code == 125 and a.error["code"] == "INPUT_REQUIRED" and a.error["detection"] == "kernel-wait"
    assert "installed" not in a.text() and a.wall < 3
    assert "Type another directory" in a.error["prompt"]


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.skipif(not __import__("shutil").which("node"), reason="node not installed")
def test_an_event_loop_reading_the_terminal_is_found_by_its_epoll_set():
    a = aw("node", "-e", "process.stdout.write('Name? '); process.stdin.on('data', () => process.exit(0))",
           timeout=30)
    assert a.code == 125 and a.error["detection"] == "kernel-wait" and a.wall < 5
    quiet = aw("node", "-e", "setTimeout(() => console.log('done'), 1500)", timeout=30)  # epoll, no terminal
    assert quiet.code == 0 and quiet.text() == "done\n"


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_a_wait_on_something_else_is_not_a_prompt():
    """select(2) on a pipe of its own for two quiet seconds: not our terminal, so the program runs on."""
    code = "import os, select; r, w = os.pipe(); select.select([r], [], [], 2); print('done')"
    a = aw(PY, "-c", code, timeout=30)
    assert a.code == 0 and a.text() == "done\n"


def test_yes_no_questions_without_y_n_are_confirmations(tmp_path):
    (tmp_path / "x").write_text("x")
    (tmp_path / "y").write_text("y")
    for argv in (["rm", "-i", "x"], ["cp", "-i", "x", "y"], ["mv", "-i", "x", "y"]):
        a = aw("--cwd", str(tmp_path), *argv)
        assert a.code == 125 and a.error["input_kind"] == "confirmation", (argv, a.error)
    assert (tmp_path / "x").read_text() == "x" and (tmp_path / "y").read_text() == "y"  # nothing was done


def test_the_prompt_line_decides_the_kind():
    from agentwrap.runner.prompts import classify

    assert classify("this file mentions a token and an account\nYour name: ") == "text"
    assert classify("Password for bob: ") == "password"
    assert classify("Select a region:\n 1) eu\n 2) us\n> ") == "selection"


def test_refusals_name_the_programs_own_non_interactive_form(tmp_path):
    (tmp_path / "x").write_text("x")
    a = aw("--cwd", str(tmp_path), "rm", "-i", "x")
    assert a.error["code_actions"][0]["command"] == ["rm", "-f", "x"] and (tmp_path / "x").exists()
    (tmp_path / "y").write_text("y")
    b = aw("--cwd", str(tmp_path), "cp", "-i", "x", "y")
    assert [c["command"] for c in b.error["code_actions"][:2]] == [["cp", "-n", "x", "y"], ["cp", "-f", "x", "y"]]


@pytest.mark.skipif(not __import__("shutil").which("less"), reason="less not installed")
def test_a_pager_started_directly_is_a_pager_with_a_way_to_read_the_file(tmp_path):
    (tmp_path / "f.txt").write_text("hello\n")
    a = aw("--cwd", str(tmp_path), "less", "f.txt")
    assert a.code == 125 and a.error["input_kind"] == "pager"
    assert a.error["code_actions"][0]["command"] == ["cat", "--", "f.txt"]


def test_an_editor_started_directly_is_an_editor(tmp_path):
    from agentwrap.runner.prompts import kind_of

    assert kind_of("/usr/bin/vim", "~\n~\n") == "editor" and kind_of("nano", "") == "editor"
    assert kind_of("less", "f.txt (END)") == "pager" and kind_of("python3", "Your name: ") == "text"


BLINK = ("import sys, threading, time\n"
         "def animate():\n"
         "    frames = {frames}\n"
         "    i = 0\n"
         "    while True:\n"
         "        sys.stdout.write(frames[i % len(frames)]); sys.stdout.flush(); i += 1; time.sleep(0.2)\n"
         "threading.Thread(target=animate, daemon=True).start()\n"
         "input('Name: ')\n")


@pytest.mark.parametrize("frames", [["\x1b[?25l", "\x1b[?25h"], ["\r⠋ waiting", "\r⠙ waiting", "\r⠹ waiting"]],
                         ids=["blinking-cursor", "spinner"])
def test_a_prompt_that_keeps_animating_is_still_found(frames):
    """A blinking cursor or a spinner drawn while the program reads never lets the output go quiet;
    animation counts as silence, so the read is found instead of waiting for the timeout."""
    a = aw("--timeout", "20", PY, "-c", BLINK.format(frames=frames), timeout=40)
    assert a.code == 125 and a.error["code"] == "INPUT_REQUIRED" and a.wall < 6, (a.code, a.wall)


def test_common_programs_prompts_name_their_own_flags(tmp_path):
    (tmp_path / "f").write_text("a\n")
    subprocess.run(["gzip", "-k", str(tmp_path / "f")], check=True)
    a = aw("--cwd", str(tmp_path), "gzip", "f")
    assert a.code == 125 and a.error["input_kind"] == "confirmation"
    assert a.error["code_actions"][0]["command"] == ["gzip", "-f", "f"] and "-f" in a.error["suggested_fix"]
    assert (tmp_path / "f").exists(), "nothing was overwritten or removed"


@pytest.mark.skipif(not (__import__("shutil").which("unzip") and __import__("shutil").which("zip")),
                    reason="zip/unzip not installed")
def test_unzip_replace_question_offers_never_and_always(tmp_path):
    (tmp_path / "a.txt").write_text("mine\n")
    subprocess.run(["zip", "-q", "z.zip", "a.txt"], cwd=tmp_path, check=True)
    (tmp_path / "a.txt").write_text("changed\n")
    a = aw("--cwd", str(tmp_path), "unzip", "z.zip")
    assert [c["command"] for c in a.error["code_actions"][:2]] == [["unzip", "-n", "z.zip"], ["unzip", "-o", "z.zip"]]
    assert (tmp_path / "a.txt").read_text() == "changed\n"


@pytest.mark.parametrize(("argv", "prompt", "kind", "first"), [
    (["sudo", "apt-get", "update"], "[sudo] password for bob: ", "password", ["sudo", "-n", "apt-get", "update"]),
    (["/usr/bin/sudo", "-u", "bob", "ls"], "[sudo] password for bob: ", "password",
     ["/usr/bin/sudo", "-n", "-u", "bob", "ls"]),
    (["psql", "-h", "db"], "Password for user bob: ", "password", ["psql", "-w", "-h", "db"]),
    (["python3", "manage.py", "flush"], "Type 'yes' to continue, or 'no' to cancel: ", "confirmation",
     ["python3", "manage.py", "flush", "--noinput"]),
    (["dpkg", "-i", "x.deb"], "*** config.conf (Y/I/N/O/D/Z) [default=N] ? ", "confirmation",
     ["dpkg", "--force-confold", "-i", "x.deb"]),
    (["sqlite3"], "sqlite>", "text", ["sqlite3", "<DATABASE>", "<SQL>"]),
    (["ssh-keygen", "-f", "k"], "Enter passphrase (empty for no passphrase):", "password",
     ["ssh-keygen", "-N", "<PASSPHRASE>", "-f", "k"]),
    (["openssl", "req", "-new"], "Country Name (2 letter code) [AU]:", "text",
     ["openssl", "req", "-new", "-subj", "/CN=<CN>"]),
])
def test_the_generic_prompt_catalog(argv, prompt, kind, first):
    from agentwrap.adapter import generic_spec

    fix, actions = generic_spec().prompt_help(argv, None, prompt, kind)
    assert fix and list(actions[0].command or ()) == first


@pytest.mark.parametrize("argv", [["./install.sh"], ["python3", "-c", "x"], ["make", "install"]])
def test_a_sudo_prompt_of_another_program_offers_no_command(argv):
    from agentwrap.adapter import generic_spec

    fix, actions = generic_spec().prompt_help(argv, None, "[sudo] password for bob: ", "password")
    assert fix and "sudo -n" in fix and actions == []


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.skipif(not (__import__("shutil").which("gpg") and __import__("shutil").which("gpg-agent")
                         and __import__("shutil").which("pinentry-curses")), reason="gpg, gpg-agent, pinentry needed")
def test_a_pinentry_of_an_agent_already_running_is_found_and_ended(tmp_path):
    """The desktop case: gpg-agent runs before the command, so its pinentry is outside agentwrap's tree;
    it draws and reads on our terminal, and is found there (a hang until the timeout before)."""
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    subprocess.run(["gpg-agent", "--daemon", "--pinentry-program", str(shutil.which("pinentry-curses"))], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
    (tmp_path / "s.txt").write_text("secret\n")
    try:
        a = aw("--cwd", str(tmp_path), "--timeout", "20", "gpg", "-c", "s.txt", env={"GNUPGHOME": str(home)},
               timeout=60)
        assert a.code == 125 and a.error["input_kind"] == "password" and a.wall < 12, (a.code, a.wall)
        assert a.error["prompt"] == "Passphrase:" and a.error["process"].startswith("pinentry")
        assert not (tmp_path / "s.txt.gpg").exists()
        import time

        time.sleep(1)  # the pinentry that drew on our terminal is ended with the run
        assert subprocess.run(["pgrep", "-x", "pinentry-curses"], capture_output=True).returncode == 1
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=20)


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_a_raw_mode_program_sleeping_in_select_is_not_a_prompt():
    """select(2) with no read set is a sleep: the kernel shows the set, so raw mode alone does not count."""
    code = ("import select, sys, tty; tty.setraw(0); "
            "[(sys.stdout.write(f'\\r{i}%'), sys.stdout.flush(), select.select([], [], [], 0.6)) for i in range(4)]")
    a = aw(PY, "-c", code, timeout=30)
    assert a.code == 0 and a.wall >= 2, (a.code, a.error)


PEER_WAIT = ("import select, socket, sys, threading, time; a, b = socket.socketpair(); "
             "threading.Timer(2.5, lambda: b.send(b'x')).start(); print('working remotely', flush=True); "
             "select.select([sys.stdin, a], [], []); print('peer answered', flush=True)")


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_a_wait_on_the_terminal_and_a_socket_is_a_relay_not_a_question():
    """ssh forwarding stdin while its remote command runs waits on our terminal and its socket alike: that
    is not a prompt until the screen asks one (a kill here would end a legitimate remote `make`)."""
    a = aw("--", PY, "-c", PEER_WAIT, timeout=60)
    assert a.code == 0 and "peer answered" in a.text()


def test_a_relay_whose_screen_asks_a_question_is_refused():
    script = PEER_WAIT.replace("'working remotely'", "'[sudo] password for you: ', end=''").replace("2.5", "60")
    a = aw("--", PY, "-c", script, timeout=60)
    assert a.error["code"] == "INPUT_REQUIRED" and a.error["detection"] == "kernel-peer"
    assert a.wall < 20


# An event loop (asyncio, as prompt_toolkit's REPLs run: IPython, pgcli, litecli) always waits on its
# self-pipe, a socket, beside the terminal: the screen's own prompt is what says it asks.
LOOP_PROMPT = ("import asyncio, sys\n"
               "async def main():\n"
               "    loop = asyncio.get_running_loop(); asked = loop.create_future()\n"
               "    loop.add_reader(0, lambda: asked.set_result(sys.stdin.readline()))\n"
               "    sys.stdout.write(PROMPT); sys.stdout.flush()\n"
               "    print(await asyncio.wait_for(asked, WAIT))\n"
               "asyncio.run(main())\n")


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.parametrize("prompt", ["In [1]: ", ">>> ", "sqlite> "])
def test_an_event_loop_repl_prompt_is_refused(prompt):
    a = aw("--", PY, "-c", LOOP_PROMPT.replace("PROMPT", repr(prompt)).replace("WAIT", "60"), timeout=60)
    assert a.error["code"] == "INPUT_REQUIRED" and a.error["detection"] == "kernel-peer"
    assert a.wall < 20


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
def test_an_event_loop_that_prints_no_prompt_runs_on():
    """The same wait with a progress line last on the screen is a program at work, not a question."""
    script = ("import asyncio, sys\n"
              "async def main():\n"
              "    loop = asyncio.get_running_loop(); asked = loop.create_future()\n"
              "    loop.add_reader(0, lambda: asked.set_result(sys.stdin.readline()))\n"
              "    print('fetching 100%', flush=True)\n"
              "    done, _ = await asyncio.wait([asked], timeout=2.5)\n"
              "    print('finished without input' if not done else 'read')\n"
              "asyncio.run(main())\n")
    a = aw("--", PY, "-c", script, timeout=60)
    assert a.code == 0 and "finished without input" in a.text()
