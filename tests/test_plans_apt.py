"""Plans for apt-get: the simulation (`apt-get -s`) is the resolution, dpkg's database the installed state.
Applying needs the network and root, so apply is not run here; the plan, the drift rule and the
verification are, against this machine's real apt and dpkg."""

from __future__ import annotations

import shutil

import pytest

from agentwrap.safety.plans import packages as plans
from tests.conftest import aw

# dpkg and apt take one lock on the package database: these tests run on one xdist worker
DPKG = pytest.mark.xdist_group("dpkg")
pytestmark = [pytest.mark.slow,  # the whole file: -m slow (5-minute budget)
              pytest.mark.skipif(shutil.which("apt-get") is None or shutil.which("dpkg-query") is None,
                                reason="needs apt-get and dpkg"),
              DPKG]


def test_plan_names_each_package_it_would_install() -> None:
    ans = aw("plan", "--", "apt-get", "install", "-y", "--reinstall", "bash")
    assert ans.code == 0, ans.env
    facts = ans.env["data"]
    bash = facts["fingerprint"]["installed"]["bash"]
    assert bash  # bash is installed here
    candidate = facts["fingerprint"]["resolution"]["bash"]
    assert {"resource": "deb-package:bash", "action": "update", "from": bash, "to": candidate} in \
        facts["proposed_effects"]
    assert facts["dry_run"][:3] == ["apt-get", "install", "-s"]


def test_verification_reads_dpkg() -> None:
    planned = plans.apt_install_plan(["apt-get", "install", "--reinstall", "bash"], "/")
    installed = planned.fingerprint["installed"]["bash"]
    as_installed = {"fingerprint": {"resolution": {"bash": installed}}, "cwd": "/"}
    verified = plans.apt_install_verify(as_installed)
    assert verified["passed"] is True and verified["checks"][0]["actual"] == installed
    elsewhere = {"fingerprint": {"resolution": {"bash": "0.0-not-a-version"}}, "cwd": "/"}
    assert plans.apt_install_verify(elsewhere)["passed"] is False


def test_drift_names_the_package_that_changed() -> None:
    planned = {"installed": {"cowsay": None}, "resolution": {"cowsay": "3.03"}}
    now = {"installed": {"cowsay": "3.03"}, "resolution": {"cowsay": "3.04"}}
    changes = plans.package_drift(planned, now)
    assert "cowsay was not installed when planned and is 3.03 now" in changes
    assert any("resolver now picks cowsay 3.04" in c for c in changes)
    assert plans.package_drift(planned, planned) == []


def test_drift_a_dependency_installed_meanwhile_is_named_as_installed() -> None:
    """The resolver drops a dependency installed by hand since the plan: that is the cause, named from dpkg's
    real database (bash is installed here), not "the resolver now picks no longer bash: the index changed"."""
    planned = {"installed": {"cowsay": None, "bash": None}, "resolution": {"cowsay": "3.03", "bash": "5"}}
    now = {"installed": {"cowsay": None}, "resolution": {"cowsay": "3.03"}}
    changes = plans.apt_install_drift(planned, now)
    assert len(changes) == 1 and changes[0].startswith("bash was not installed when planned and is "), changes
    assert not changes[0].endswith("is not installed now")


def test_drift_a_package_the_resolver_drops_for_no_known_reason_is_said_in_english() -> None:
    planned = {"installed": {"cowsay": None, "no-such-package-x": None},
               "resolution": {"cowsay": "3.03", "no-such-package-x": "1"}}
    now = {"installed": {"cowsay": None}, "resolution": {"cowsay": "3.03"}}
    assert plans.apt_install_drift(planned, now) == [
        "the resolver no longer picks no-such-package-x: the index or the requirements changed"]
