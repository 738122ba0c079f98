"""apt, apt-get and dpkg through agentwrap, without changing this machine's packages.

Runs that would change anything either simulate (-s), name no real package, use a scratch dpkg admin
folder (`-o Dir::State::status=...`), or stop at apt's own confirmation prompt with dpkg replaced by
/bin/false, so not even an unexpected "yes" could install anything.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

from agentwrap import registry
from agentwrap.adapters import _apt_parse as parse

# dpkg and apt take one lock on the package database: these tests run on one xdist worker
DPKG = pytest.mark.xdist_group("dpkg")
pytestmark = [pytest.mark.skipif(shutil.which("apt-get") is None, reason="not a Debian-family system"), DPKG]
ROOT = os.geteuid() == 0
PROMPT_PACKAGE = "toilet"  # small, and pulls in two libraries, so apt asks before installing


def _plan_needs_confirmation(package: str) -> bool:
    """True when installing `package` would add other packages too (then apt-get asks first)."""
    proc = subprocess.run(["apt-get", "install", "-s", package], capture_output=True, text=True)
    return proc.returncode == 0 and len(re.findall(r"^Inst ", proc.stdout, re.M)) > 1


@pytest.mark.slow
@pytest.mark.skipif(not ROOT, reason="apt-get only asks for confirmation when it may install (root)")
def test_confirmation_prompt_stops_the_run_and_names_apt_get_y():
    if not _plan_needs_confirmation(PROMPT_PACKAGE):
        pytest.skip(f"{PROMPT_PACKAGE} is installed or unknown here")
    argv = ["apt-get", "-o", "Dir::Bin::dpkg=/bin/false", "install", PROMPT_PACKAGE]
    r = aw("--timeout", "60", *argv)
    assert r.code == 125
    err = r.error
    assert err["code"] == "INPUT_REQUIRED" and err["input_kind"] == "confirmation"
    assert "Do you want to continue?" in err["prompt"]
    approve, simulate = err["code_actions"][:2]
    assert approve["command"] == ["apt-get", "-y", *argv[1:]] and approve["is_preferred"] is True
    assert approve["applicability"] == "maybe_incorrect"  # it approves installs/removals the agent must review
    assert simulate["command"] == ["apt-get", "-s", *argv[1:]] and simulate["applicability"] == "machine_applicable"
    assert PROMPT_PACKAGE in r.env["data"]["plan"]["new"]  # what -y would approve
    status = subprocess.run(["dpkg", "-s", PROMPT_PACKAGE], capture_output=True)
    assert status.returncode != 0, "the prompt must never be answered"


@pytest.mark.skipif(not ROOT, reason="apt-get takes the dpkg lock only as root")
def test_held_lock_is_a_retryable_conflict_with_a_wait(tmp_path: Path):
    admin = tmp_path / "dpkg"
    (admin / "updates").mkdir(parents=True)
    shutil.copy("/var/lib/dpkg/status", admin / "status")
    fd = os.open(admin / "lock-frontend", os.O_RDWR | os.O_CREAT, 0o640)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as dpkg and apt lock it (fcntl, not flock)
        r = aw("apt-get", "-o", f"Dir::State::status={admin / 'status'}", "install", "nosuchpkg-agentwrap")
    finally:
        os.close(fd)
    assert r.code == 100
    err = r.error
    assert err["code"] == "APT_LOCKED" and err["category"] == "conflict"
    assert err["retryable"] is True and err["safe_to_retry"] is True and err["retry_after"] == 10
    assert str(os.getpid()) in err["detail"]
    assert err["code_actions"][0]["command"][:3] == ["apt-get", "-o", "DPkg::Lock::Timeout=120"]


def test_unknown_package_is_not_found_with_a_search():
    r = aw("apt-get", "install", "-s", "nosuchpkg-agentwrap")
    assert r.code == 100
    assert r.error["code"] == "APT_PACKAGE_NOT_FOUND" and r.error["category"] == "not_found"
    assert r.error["code_actions"][0]["command"] == ["apt-cache", "search", "--names-only", "nosuchpkg-agentwrap"]


@pytest.mark.skipif(not (ROOT and shutil.which("setpriv")), reason="needs root to become another user")
def test_not_root_is_an_authorization_problem():
    r = aw("--adapter", "apt", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
           "apt-get", "install", "nosuchpkg-agentwrap")
    assert r.code == 100
    assert r.error["code"] == "APT_NOT_ROOT" and r.error["category"] == "authorization"


@pytest.mark.slow
def test_simulation_reports_the_plan_as_data():
    r = aw("apt-get", "install", "-s", "apt")  # installed already: a no-op plan any system can make
    assert r.code == 0
    data = r.env["data"]
    assert data["simulated"] is True and data["counts"]["installed"] == 0
    assert r.env["summary"].startswith("apt would change:")


@pytest.mark.parametrize(("argv", "sub", "effects"), [
    (["apt-get", "install", "-y", "jq"], "install", (False, False, True, True)),
    (["apt-get", "-s", "install", "jq"], "install", (True, False, True, False)),
    (["apt-get", "-qs", "remove", "jq"], "remove", (True, False, True, False)),
    (["apt-get", "-o", "APT::Get::Assume-Yes=true", "purge", "jq"], "purge", (False, True, True, False)),
    (["apt-get", "dist-upgrade"], "dist-upgrade", (False, True, True, True)),
    (["apt-get", "update"], "update", (False, False, True, True)),
    (["apt", "list", "--installed"], "list", (True, False, True, False)),
    (["apt", "show", "jq"], "show", (True, False, True, False)),
    (["dpkg", "-l"], "list", (True, False, True, False)),
    (["dpkg", "-i", "x.deb"], "install", (False, False, True, False)),
    (["dpkg", "--purge", "jq"], "purge", (False, True, True, False)),
    (["dpkg", "--dry-run", "-r", "jq"], "remove", (True, False, True, False)),
])
def test_subcommands_and_effects(argv, sub, effects):
    adapter = registry.builtin("apt")
    assert adapter.subcommand(argv) == sub
    assert tuple(adapter.effects(argv)) == effects


def test_parsers_read_apt_list_dpkg_list_and_simulation_lines():
    listed = parse.apt_list("Listing...\napt/oldstable,now 2.6.1 amd64 [installed,upgradable to: 2.6.2]\n"
                            "libjq1/oldstable,now 1.6-2.1 amd64 [installed,automatic]\n")
    assert [(p["name"], p["automatic"], p["upgradable_to"]) for p in listed["packages"]] == [
        ("apt", False, "2.6.2"), ("libjq1", True, None)]
    table = parse.dpkg_list("||/ Name Version Architecture Description\n+++-====-====-====-====\n"
                            "ii  libc6:amd64    2.36-9 amd64        GNU C Library\n"
                            "rc  oldpkg         1.0    all          gone\n")
    assert [(p["name"], p["architecture"], p["installed"]) for p in table["packages"]] == [
        ("libc6", "amd64", True), ("oldpkg", "all", False)]
    plan = parse.changes("Remv postfix [3.7]\nInst exim4 (4.96 Debian:12 [amd64])\n"
                         "1 upgraded, 1 newly installed, 1 to remove and 0 not upgraded.\n")
    assert plan["remove"] == [{"name": "postfix", "version": "3.7"}]
    assert plan["install"][0]["name"] == "exim4" and plan["counts"]["removed"] == 1


def _concise_text(case_name: str) -> tuple[str, str]:
    from conftest import ROOT

    from agentwrap import fixtures
    from agentwrap.render import views

    case = next(c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "apt" and c.name == case_name)
    out = views.concise(fixtures.replay_record(registry.builtin("apt"), case)).get("output", {})
    return (out.get("stdout", {}).get("text", ""), out.get("stderr", {}).get("text", ""))


def test_concise_install_leaves_out_what_the_data_holds():
    """A real `apt-get install -y cowsay` (captured): the counts line and each Unpacking / Setting up /
    Processing triggers line are in data.counts and data.install; the suggestions and sizes stay."""
    stdout, _ = _concise_text("install-cowsay")
    assert not re.search(r"^(?:Unpacking|Setting up|Processing triggers|\d+ upgraded, )", stdout, re.M), stdout
    assert "Suggested packages:" in stdout and "After this operation" in stdout


def test_concise_dpkg_list_drops_its_legend_and_padding():
    stdout, _ = _concise_text("dpkg-list")
    assert "Desired=" not in stdout and "+++-" not in stdout and "Err?=" not in stdout, stdout
    assert "  " not in stdout.replace("\n", " \n")  # cells one space apart


@pytest.mark.parametrize("case_name", ["remove-one-simulated", "remove-held-simulated"])
def test_concise_removal_plan_is_said_once_by_the_data_whatever_its_length(case_name: str):
    """A real `apt-get -s remove bc` (captured): the one-name `REMOVED:` list and each `Remv NAME [VERSION]`
    line are data.plan.remove and data.remove; the held list is data.plan.held_changed; a list the data
    does not hold (packages no longer required) stays."""
    stdout, _ = _concise_text(case_name)
    assert "REMOVED" not in stdout and not re.search(r"^Remv ", stdout, re.M), stdout
    if case_name == "remove-held-simulated":
        assert "held packages" not in stdout and "no longer required:\n  libjq1 libonig5" in stdout


def test_a_one_name_list_the_data_does_not_hold_whole_stays():
    """`jq` is in data.plan.remove, but a list of `jq` alone under another heading is not that list."""
    from agentwrap.outcome.lean import facts_said, lean_text

    text = "The following packages will be REMOVED:\n  jq yq\nThe following extra packages:\n  jq\n"
    said = facts_said([], {"plan": {"remove": ["jq", "yq"]}})
    lean, *_ = lean_text(text, (), said, layout=False)
    assert lean == "The following extra packages:\n  jq\n"
