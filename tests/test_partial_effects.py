"""What a stopped program left half done is named with the command that finishes or undoes it (issue 8 item 5),
and a Python program that ended on a traceback is never a success, whatever its exit code (CONTRACT 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from conftest import aw

# dpkg and apt take one lock on the package database, and two tests here install the same package: the
# module runs on one xdist worker
pytestmark = pytest.mark.xdist_group("dpkg")

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="changes users or packages: needs root")


def test_a_git_lock_left_by_a_stopped_program_is_named_with_its_removal(tmp_path: Path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    script = "touch .git/index.lock; read -p 'Continue? [y/N] ' a; rm -f .git/index.lock"
    a = aw("--cwd", str(tmp_path), "bash", "-c", script)
    lock = str(tmp_path / ".git" / "index.lock")
    assert a.error["code"] == "INPUT_REQUIRED" and os.path.exists(lock)
    (effect,) = a.env["effects"]
    assert effect["resource"] == lock and effect["complete"] is False and effect["undo"] == ["rm", "-f", lock]
    assert ["rm", "-f", lock] in [x.get("command") for x in a.error["code_actions"]]


def test_a_lock_that_was_there_before_is_not_ours(tmp_path: Path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".git" / "index.lock").write_text("")
    a = aw("--cwd", str(tmp_path), "bash", "-c", "read -p 'Continue? [y/N] ' a")
    assert a.error["code"] == "INPUT_REQUIRED" and not a.env.get("effects")


def test_a_traceback_that_ends_the_output_is_an_error_even_with_exit_0():
    code = "import traceback\ntry:\n    1/0\nexcept Exception:\n    traceback.print_exc()"
    a = aw("--", sys.executable, "-c", code)
    assert a.code == 1 and a.env["status"] == "error" and a.env["exit"]["code"] == 0
    assert a.error["code"] == "PYTHON_EXCEPTION" and "ZeroDivisionError" in a.error["detail"]


def test_a_logged_traceback_the_program_survived_is_a_warning():
    code = ("import sys, traceback\ntry:\n    1/0\nexcept Exception:\n    traceback.print_exc()\n"
            "print('retrying', file=sys.stderr)")
    a = aw("--", sys.executable, "-c", code)
    assert a.code == 0 and a.env["problems"][0]["severity"] == "warning"


@pytest.mark.slow
@ROOT_ONLY
@pytest.mark.skipif(not shutil.which("adduser") or not shutil.which("deluser"), reason="needs adduser")
def test_adduser_stopped_at_the_password_names_the_user_it_created():
    user = "awt" + uuid.uuid4().hex[:8]
    try:
        a = aw("adduser", user, timeout=60)
        assert a.error["code"] == "INPUT_REQUIRED" and a.error["input_kind"] == "password"
        (effect,) = a.env["effects"]
        assert effect["resource"] == f"user:{user}" and effect["undo"] == ["deluser", "--remove-home", user]
        shadow = subprocess.run(["getent", "shadow", user], capture_output=True, text=True).stdout
        assert shadow.split(":")[1] in ("!", "*", "!*")  # no password was set: only an answer could
        subprocess.run(effect["undo"], capture_output=True, check=True)
        assert subprocess.run(["getent", "passwd", user], capture_output=True).returncode != 0
    finally:
        subprocess.run(["deluser", "--remove-home", user], capture_output=True)


def _install(deb: Path) -> None:
    """The set-up's `dpkg -i`: it waits (up to 30 s) while another dpkg or apt holds the package database's
    lock, which is no part of what is tested; any other failure fails the test with dpkg's own words."""
    for _ in range(60):
        done = subprocess.run(["dpkg", "-i", str(deb)], capture_output=True, text=True)
        if done.returncode == 0:
            return
        if "lock" not in done.stderr:
            break
        time.sleep(0.5)
    pytest.fail(f"set-up: dpkg -i {deb.name} exited {done.returncode}: {done.stderr.strip()}")


def _deb(folder: Path, version: str) -> Path:
    pkg = folder / f"pkg{version}"
    (pkg / "DEBIAN").mkdir(parents=True)
    (pkg / "etc").mkdir()
    (pkg / "DEBIAN" / "control").write_text(f"Package: agentwrap-test-conf\nVersion: {version}\nArchitecture: all\n"
                                            "Maintainer: agentwrap <a@b>\nDescription: agentwrap test package\n")
    (pkg / "DEBIAN" / "conffiles").write_text("/etc/agentwrap-test-conf.conf\n")
    (pkg / "etc" / "agentwrap-test-conf.conf").write_text(f"setting={version}\n")
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(pkg), str(folder / f"p{version}.deb")],
                   check=True, capture_output=True)
    return folder / f"p{version}.deb"


@pytest.mark.slow
@ROOT_ONLY
@pytest.mark.skipif(not shutil.which("dpkg-deb"), reason="needs dpkg")
def test_dpkg_stopped_at_a_conffile_question_names_the_unpacked_package(tmp_path: Path):
    """A throwaway package of our own with a configuration file changed since it was installed."""
    first, second = _deb(tmp_path, "1"), _deb(tmp_path, "2")
    try:
        _install(first)
        with open("/etc/agentwrap-test-conf.conf", "a") as f:
            f.write("mine\n")
        a = aw("--cwd", str(tmp_path), "dpkg", "-i", second.name, timeout=60)
        assert a.error["code"] == "INPUT_REQUIRED" and a.error["input_kind"] == "confirmation"
        (effect,) = a.env["effects"]
        assert effect["resource"] == "package:agentwrap-test-conf" and effect["complete"] is False
        assert effect["finish"] == ["dpkg", "--force-confold", "--configure", "-a"]
        assert a.error["code_actions"][0]["command"] == ["dpkg", "--force-confold", "-i", second.name]
        assert "mine" in Path("/etc/agentwrap-test-conf.conf").read_text()  # nothing only an answer could do
    finally:
        _purge("agentwrap-test-conf")
    assert subprocess.run(["dpkg", "--audit"], capture_output=True, text=True).stdout == ""


def _purge(package: str, wait: float = 20.0) -> None:
    """Purge `package`, waiting while another dpkg holds its lock (on a busy machine a dpkg run elsewhere, or
    one this test's run left ending, can hold it for a moment; a purge that gave up would leave the package
    unpacked and the audit would blame this test's run)."""
    import time

    deadline = time.monotonic() + wait
    while True:
        done = subprocess.run(["dpkg", "--purge", package], capture_output=True, text=True)
        if done.returncode == 0 or "lock" not in done.stderr or time.monotonic() > deadline:
            return
        time.sleep(0.5)


@pytest.mark.slow
@ROOT_ONLY
@pytest.mark.skipif(not shutil.which("dpkg-deb") or not shutil.which("apt-get"), reason="needs apt and dpkg")
def test_apt_relaying_dpkgs_conffile_question_is_refused_not_left_to_hang(tmp_path: Path):
    """apt waits on our terminal and on the one it made for dpkg: that alone is no prompt (it does so while
    dpkg unpacks), but dpkg blocked reading apt's terminal is, for certain."""
    first, second = _deb(tmp_path, "1"), _deb(tmp_path, "2")
    try:
        _install(first)
        with open("/etc/agentwrap-test-conf.conf", "a") as f:
            f.write("mine\n")
        a = aw("--cwd", str(tmp_path), "--timeout", "120", "apt-get", "install", "-y", f"./{second.name}",
               timeout=180)
        assert a.error["code"] == "INPUT_REQUIRED" and a.error["detection"] == "kernel"
        assert a.error["process"] == "dpkg" and a.error["input_kind"] == "confirmation"
        assert a.error["code_actions"][0]["command"] == ["apt-get", "-o", "Dpkg::Options::=--force-confold",
                                                         "install", "-y", f"./{second.name}"]
        assert a.env["effects"][0]["resource"] == "package:agentwrap-test-conf"
        assert "mine" in Path("/etc/agentwrap-test-conf.conf").read_text()
    finally:
        _purge("agentwrap-test-conf")
    assert subprocess.run(["dpkg", "--audit"], capture_output=True, text=True).stdout == ""
