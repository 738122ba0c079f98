"""Refusals name the program's own way past its prompt (issue 8 item 5), never one that does more than asked."""

from __future__ import annotations

import os
import shutil
import sys

import pytest
from conftest import aw, own_command

PY = sys.executable


def _commands(a) -> list[list[str] | None]:
    return [own_command(x.get("command")) for x in a.error["code_actions"]]


def test_python_input_names_standard_input_once():
    a = aw("--", PY, "-c", "input('Your name: ')")
    assert a.error["input_kind"] == "text"
    commands = _commands(a)
    assert commands[0] == ["agentwrap", "--stdin", "<ANSWERS_FILE>", "--", PY, "-c", "input('Your name: ')"]
    assert sum(1 for c in commands if c and c[:2] == ["agentwrap", "--stdin"]) == 1  # the generic one not repeated


def test_getpass_says_standard_input_cannot_reach_it():
    a = aw("--", PY, "-c", "import getpass; getpass.getpass()")
    assert a.error["input_kind"] == "password"
    assert "getpass, which reads the terminal" in a.error["suggested_fix"]
    assert not any(c and c[:2] == ["agentwrap", "--stdin"] for c in _commands(a))


def test_bash_read_and_bc_take_standard_input():
    read = aw("--", "bash", "-c", "read -p 'Project name: ' n")
    assert "read" in read.error["code_actions"][0]["title"] and _commands(read)[0][:2] == ["agentwrap", "--stdin"]
    # the line decided by its `read` is run again whole: a builtin alone is no program to run
    assert all(c[-3:] == ["bash", "-c", "read -p 'Project name: ' n"] for c in _commands(read) if c)
    if shutil.which("bc"):
        bc = aw("--", "bc", "-q")
        assert _commands(bc)[0] == ["agentwrap", "--stdin", "<EXPRESSIONS_FILE>", "--", "bc", "-q"]


def test_the_answer_file_alternative_really_works(tmp_path):
    (tmp_path / "answers").write_text("bob\n")
    a = aw("--stdin", str(tmp_path / "answers"), "--", PY, "-c", "print('hello', input('Your name: '))")
    assert a.code == 0 and "hello bob" in a.text()


def test_rm_i_offers_its_own_flag_and_no_answer_file(tmp_path):
    (tmp_path / "x").write_text("x\n")
    a = aw("--cwd", str(tmp_path), "rm", "-i", "x")
    commands = _commands(a)
    assert commands[0] == ["rm", "-f", "x"]
    assert not any(c and c[:2] == ["agentwrap", "--stdin"] for c in commands)
    assert (tmp_path / "x").exists()


@pytest.mark.parametrize(("argv", "kind", "first"), [
    (["passwd", "nobody"], "password", ["agentwrap", "--stdin", "<USER_PASSWORD_FILE>", "--", "chpasswd"]),
])
def test_program_entries_of_the_catalog_live(argv, kind, first):
    if not shutil.which(argv[0]):
        pytest.skip(f"{argv[0]} not installed")
    a = aw("--", *argv)
    assert a.error["input_kind"] == kind and _commands(a)[0] == first


@pytest.mark.parametrize(("argv", "prompt", "kind", "first"), [
    (["composer", "require", "x/y"], "Do you trust \"x/y\" to execute code? [y,n,d,?]", "confirmation",
     ["composer", "--no-interaction", "require", "x/y"]),
    (["poetry", "init"], "Package name [app]:", "text", ["poetry", "--no-interaction", "init"]),
    (["gh", "auth", "login"], "? What account do you want to log into?", "selection",
     ["agentwrap", "--stdin", "<TOKEN_FILE>", "--", "gh", "auth", "login", "--with-token"]),
    (["gh", "pr", "create"], "? Title", "text", ["agentwrap", "--env", "GH_PROMPT_DISABLED=1", "--", "gh", "pr",
                                                 "create"]),
    (["gcloud", "projects", "delete", "p"], "Do you want to continue (Y/n)?", "confirmation",
     ["gcloud", "--quiet", "projects", "delete", "p"]),
    (["crontab", "-e"], "", "editor", ["crontab", "-l"]),
    (["vim", "f.txt"], "", "editor", ["vim", "-es", "-u", "NONE", "-c", "<EX_COMMAND>", "-c", "wq", "f.txt"]),
    (["man", "ls"], "Manual page ls(1) line 1 (press h for help or q to quit)", "pager", ["man", "-P", "cat", "ls"]),
    (["journalctl", "-u", "x"], "lines 1-20", "pager", ["journalctl", "--no-pager", "-u", "x"]),
    (["dpkg", "-i", "p.deb"], "*** p.conf (Y/I/N/O/D/Z) [default=N] ?", "confirmation",
     ["dpkg", "--force-confold", "-i", "p.deb"]),
    (["adduser", "new"], "New password:", "password", ["adduser", "--gecos", "", "new", "--disabled-password"]),
    (["ssh-keygen", "-y", "-f", "k"], "Enter passphrase:", "password", ["ssh-keygen", "-P", "<PASSPHRASE>", "-y", "-f",
                                                                        "k"]),
    (["openssl", "genrsa", "-aes256", "-out", "k.pem"], "Enter PEM pass phrase:", "password",
     ["openssl", "genrsa", "-aes256", "-out", "k.pem", "-passout", "file:<PASSPHRASE_FILE>"]),
    (["openssl", "passwd"], "Password:", "password",
     ["agentwrap", "--stdin", "<PASSWORD_FILE>", "--", "openssl", "passwd", "-stdin"]),
    (["gdb", "-q"], "(gdb)", "text", ["gdb", "-batch", "-ex", "<COMMAND>", "-q"]),
    (["ipython"], "In [1]:", "text", ["ipython", "-c", "<CODE>"]),
    (["perl", "x.pl"], "Continue?", "confirmation", ["agentwrap", "--stdin", "<ANSWERS_FILE>", "--", "perl", "x.pl"]),
    (["psql", "-W", "db"], "Password:", "password", ["psql", "-w", "-W", "db"]),
])
def test_program_entries_of_the_catalog(argv, prompt, kind, first):
    """Programs not installed here: the catalog's entry for each, as the refusal would carry it."""
    from agentwrap.adapter import generic_spec

    _, actions = generic_spec().prompt_help(argv, None, prompt, kind)
    assert actions and list(actions[0].command or []) == first
    assert not any(a.command and "EDITOR=true" in " ".join(a.command) for a in actions)  # crontab: never


@pytest.mark.slow  # ~10 s each: kept out of the default suite's 5-minute budget, run by -m slow
@pytest.mark.skipif(not shutil.which("npm"), reason="needs npm")
def test_npm_login_names_the_registry_it_was_given():
    a = aw("--timeout", "60", "npm", "login", "--auth-type=legacy", "--registry", "http://127.0.0.1:9/", timeout=90)
    assert a.error["code"] == "INPUT_REQUIRED" and a.error["prompt"] == "Username:"
    assert _commands(a)[0] == ["npm", "config", "set", "//127.0.0.1:9/:_authToken=<TOKEN>"]
    assert "registry.npmjs.org" not in a.error["suggested_fix"]



def test_a_new_commit_is_not_offered_to_save_an_empty_message(tmp_path):
    import subprocess

    git = ["git", "-c", "user.email=a@example.com", "-c", "user.name=A"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    (tmp_path / "a").write_text("a\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "a"], check=True)
    env = {"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A",
           "GIT_COMMITTER_EMAIL": "a@example.com"}

    def saves_unchanged(*args: str) -> bool:
        a = aw("--cwd", str(tmp_path), "--timeout", "30s", "--", "git", *args, env=env)
        assert a.error["code"] == "INPUT_REQUIRED"
        # git's own -m/-F commands are there: the generic hint without a command would only repeat them
        assert all(x.get("command") for x in a.error["code_actions"])
        keeps = [c for c in _commands(a) if c and ("EDITOR=true" in c or "--no-edit" in c)]
        assert len(keeps) in (0, 2)  # both ways of keeping the text, or neither
        return bool(keeps)

    assert not saves_unchanged("commit")  # git's prepared text is only comments: saving it aborts the commit
    assert saves_unchanged("commit", "--amend")  # the last commit's message is there to keep
    # concluding a merge: the same `git commit`, but git prepared "Merge branch ..." (the editor shim saw it)
    run = lambda *a: subprocess.run(["git", "-C", str(tmp_path), *a], env={**os.environ, **env},  # noqa: E731
                                    check=False, capture_output=True)
    run("commit", "-q", "-m", "a")
    run("checkout", "-q", "-b", "side")
    (tmp_path / "a").write_text("side\n")
    run("commit", "-qam", "side")
    run("checkout", "-q", "-")
    (tmp_path / "a").write_text("main\n")
    run("commit", "-qam", "main")
    assert run("merge", "side").returncode == 1  # a conflict, resolved by hand
    (tmp_path / "a").write_text("both\n")
    run("add", "a")
    assert saves_unchanged("commit")
