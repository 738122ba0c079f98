"""The pip adapter on real pip runs: offline, against hand-made wheels and a throw-away virtualenv."""

from __future__ import annotations

import base64
import functools
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, aw

from agentwrap import fixtures, registry
from agentwrap.render import views

PIP = [sys.executable, "-m", "pip"]
OFFLINE = ["--isolated", "--no-index"]


def _wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] = (), payload: str = "") -> None:
    dist = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": f"__version__ = {version!r}\n",
             **({f"{name}/blob.txt": payload} if payload else {}),
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                 + "".join(f"Requires-Dist: {r}\n" for r in requires),
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as whl:
        for path, text in files.items():
            whl.writestr(path, text)
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(text.encode())}")
        whl.writestr(f"{dist}/RECORD", "\n".join([*record, f"{dist}/RECORD,,"]) + "\n")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A virtualenv with pip, and a folder of wheels: beta 1.0/2.0, alpha (beta==1.0), gamma (beta>=2.0)."""
    root = tmp_path_factory.mktemp("pipenv")
    wheels = root / "wheels"
    wheels.mkdir()
    for args in (("beta", "1.0"), ("beta", "2.0"), ("alpha", "1.0", ("beta==1.0",)), ("gamma", "1.0", ("beta>=2.0",))):
        _wheel(wheels, *args)
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, capture_output=True)
    return root / "venv" / "bin" / "pip", wheels


@pytest.mark.slow
def test_install_upgrade_is_data_and_effects_then_already_satisfied(env):
    pip, wheels = env
    links = [*OFFLINE, "--find-links", str(wheels)]
    assert aw(str(pip), "install", *links, "beta==1.0").code == 0
    answer = aw(str(pip), "install", *links, "beta==2.0", "gamma")
    assert answer.code == 0
    assert answer.env["data"]["installed"] == [
        {"name": "beta", "version": "2.0", "action": "update", "replaced": "1.0"},
        {"name": "gamma", "version": "1.0", "action": "create"}]
    assert answer.env["effects"] == [
        {"resource": "python-package:beta", "action": "update", "version": "2.0"},
        {"resource": "python-package:gamma", "action": "create", "version": "1.0"}]
    again = aw(str(pip), "install", *links, "beta", "gamma")
    assert again.env["data"]["already_satisfied"] == ["beta", "gamma"]
    assert again.env["summary"] == "nothing to install: requirements already satisfied"


@pytest.mark.slow
def test_not_found_version_not_found_and_conflict(env):
    pip, wheels = env
    links = [*OFFLINE, "--find-links", str(wheels)]
    missing = aw(str(pip), "install", *links, "no-such-project-xyz").error
    assert (missing["code"], missing["category"], missing["available_versions"]) == (
        "PIP_NO_MATCHING_DISTRIBUTION", "not_found", [])
    version = aw(str(pip), "install", *links, "beta==3.0").error
    assert version["available_versions"] == ["1.0", "2.0"]
    fix = version["code_actions"][0]["command"]
    assert fix == [str(pip), "install", "beta==2.0"]
    conflict = aw(str(pip), "install", *links, "alpha", "gamma").error
    assert (conflict["code"], conflict["category"], conflict["status"]) == ("PIP_DEPENDENCY_CONFLICT", "conflict", 409)
    assert conflict["conflicts"] == ["alpha 1.0 depends on beta==1.0", "gamma 1.0 depends on beta>=2.0"]


@pytest.mark.slow
def test_uninstall_question_is_refused_and_the_fix_applies(env):
    pip, wheels = env
    aw(str(pip), "install", *OFFLINE, "--find-links", str(wheels), "beta")
    asked = aw(str(pip), "uninstall", "beta", detail="detailed")
    error = asked.error
    assert (error["code"], error["category"], error["safe_to_retry"]) == ("PIP_CONFIRMATION_REQUIRED",
                                                                          "input_required", True)
    assert asked.env["context"]["env_set"]["PIP_NO_INPUT"] == "1"
    fix = error["code_actions"][0]
    assert fix["command"] == [str(pip), "uninstall", "beta", "-y"]
    done = aw(*fix["command"])
    assert done.code == 0 and done.env["effects"][0]["action"] == "delete"
    assert aw(str(pip), "uninstall", "-y", "beta").env["problems"][0]["code"] == "PIP_SKIPPED_NOT_INSTALLED"


@pytest.mark.slow
def test_check_and_show(env):
    pip, wheels = env
    aw(str(pip), "install", *OFFLINE, "--find-links", str(wheels), "beta==2.0")
    aw(str(pip), "install", *OFFLINE, "--find-links", str(wheels), "--no-deps", "alpha")
    # PYTHONPATH (set so the test imports agentwrap from the checkout) must not reach the venv's pip: a
    # checkout with agentwrap.egg-info in it (left by `pip install .`) would be checked too.
    check = aw("--env", "PYTHONPATH=", str(pip), "check")
    assert check.env["data"]["broken"] == [{"name": "alpha", "version": "1.0", "requirement": "beta==1.0",
                                            "installed": "beta 2.0"}]
    assert check.error["code"] == "PIP_BROKEN_REQUIREMENT"
    show = aw(str(pip), "show", "beta").env["data"]["packages"][0]
    assert (show["name"], show["version"]) == ("beta", "2.0")
    assert "alpha" in show["required_by"]
    assert aw(str(pip), "show", "nothere").error["code"] == "PIP_PACKAGE_NOT_INSTALLED"


@pytest.mark.slow
def test_list_table_equals_pips_own_json():
    own = json.loads(subprocess.run([*PIP, "list", "--format=json"], capture_output=True, check=True).stdout)
    big = ("--max-inline-bytes", "1M")  # room for every package of this machine (data is bounded at 2x)
    table = aw(*big, *PIP, "list").env["data"]["packages"]
    assert [(p["name"], p["version"]) for p in table] == [(p["name"], p["version"]) for p in own]
    # (an editable install's location shows only without the PYTHONPATH the test run sets for agentwrap)
    def same(packages):
        return [{k: v for k, v in p.items() if k != "editable_project_location"} for p in packages]

    assert same(aw(*big, *PIP, "list", "--format=json").env["data"]["packages"]) == same(own)
    cut = aw("--max-inline-bytes", "1k", *PIP, "list", "--format=json").env["data"]
    assert len(cut["packages"]) + cut.get("packages_omitted", 0) == len(own)
    assert all(set(p) <= {"name", "version"} for p in cut["packages"]), "a cut list keeps each item's identity"
    frozen = {p["name"].lower() for p in aw(*PIP, "freeze").env["data"]["packages"] if p.get("name")}
    assert {p["name"].lower() for p in own} - frozen <= {"pip", "setuptools", "wheel", "distribute"}


def test_unreachable_index_is_a_retryable_network_problem(tmp_path):
    answer = aw("--cwd", str(tmp_path), *PIP, "download", "--isolated", "--index-url", "http://127.0.0.1:9/simple",
                "--retries", "1", "--no-deps", "-d", str(tmp_path), "somepkg")
    error = answer.error
    assert (error["code"], error["category"], error["retryable"]) == ("PIP_NETWORK_ERROR", "network", True)
    assert "Connection refused" in error["detail"]
    assert [p["code"] for p in answer.env["problems"]] == ["PIP_NETWORK_ERROR"]  # not also "not found"


OS_PIP = shutil.which("pip3", path="/usr/bin") and list(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED"))


@pytest.mark.skipif(not OS_PIP, reason="needs an OS Python marked EXTERNALLY-MANAGED (PEP 668)")
def test_externally_managed_environment_offers_a_venv(tmp_path):
    # pip refuses before it changes anything; a venv never triggers PEP 668, so the OS Python is the only real case
    answer = aw("--cwd", str(tmp_path), "/usr/bin/pip3", "install", "--no-index", "some-package")
    error = answer.error
    assert (error["code"], error["category"]) == ("PIP_EXTERNALLY_MANAGED", "precondition")
    venv, override = error["code_actions"]
    assert venv["command"][:2] == ["sh", "-c"] and "python3 -m venv .venv" in venv["command"][2]
    assert venv["is_preferred"] and override["command"][-1] == "--break-system-packages"
    assert override["applicability"] == "maybe_incorrect"


def test_effects_and_prompt_catalog():
    from agentwrap import registry

    pip = registry.builtin("pip")
    assert pip.effects(["pip", "install", "x"]).open_world is True
    assert pip.effects(["pip", "uninstall", "-y", "x"]).destructive is True
    assert pip.effects(["pip", "list"]).read_only is True
    assert pip.effects(["pip", "list", "--outdated"]).open_world is True
    assert pip.effects(["pip", "--python", "/v/bin/python", "freeze"]).read_only is True
    assert pip.effects(["pip", "config", "set", "global.x", "1"]).read_only is False
    fix, actions = pip.prompt_help(["pip", "uninstall", "x"], "Proceed (Y/n)? ", "confirmation")
    assert actions[0].command == ("pip", "uninstall", "x", "-y")
    assert pip.environment(["pip", "install"]) == {"PIP_NO_INPUT": "1"}


def test_show_of_two_packages_says_them_as_data_alone():
    """`pip show beta alpha` (captured): the concise envelope holds both packages as data, and no inline text,
    not even the `---` pip prints between them (it separates what the data already lists apart)."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures") if (c.adapter, c.name) == ("pip", "show"))
    assert "\n---" in case.path(".out").read_text()
    view = views.concise(fixtures.replay_record(registry.builtin("pip"), case))
    assert [p["name"] for p in view["data"]["packages"]] == ["beta", "alpha"]
    assert "output" not in view, view.get("output")


def _show(artifact: str) -> str:
    return str(aw("artifact", "show", artifact, "--limit", "1048576").env["data"]["text"])


def test_a_long_list_of_releases_keeps_the_newest_and_the_nearest_and_counts_the_rest(tmp_path):
    """300 releases (botocore has 2,559): the problem keeps the ones an agent can pick, the newest and those
    next to the version asked for, counts the rest, and says where pip's whole list is; the standard
    envelope too."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    versions = [f"{i // 20}.{i % 20}" for i in range(300)]
    for version in versions:
        _wheel(wheels, "tiny", version)
    args = (*PIP, "download", *OFFLINE, "--find-links", str(wheels), "-d", str(tmp_path / "got"), "tiny==7.7.5")
    view = aw(*args, detail="concise").env
    error = view["error"]
    assert error["available_versions"] == ["7.6", "7.7", "7.8", "7.9", "14.15", "14.16", "14.17", "14.18", "14.19"]
    assert error["available_versions_omitted"] == 291
    assert error["code_actions"][0]["command"][-1] == "tiny==14.19"
    assert len(json.dumps(view)) < 2000, len(json.dumps(view))
    warning = next(w["message"] for w in view["warnings"] if w["code"] == "OUTPUT_TRUNCATED")
    assert "stderr in artifact art_" in warning, warning
    assert f"(from versions: {', '.join(versions)})" in _show(warning.rsplit(" ", 1)[-1])
    standard = aw(*args).env
    assert [p["available_versions"] for p in [standard["error"], *standard["problems"]]] == [
        error["available_versions"]] * 2
    assert len(json.dumps(standard)) < 6000, len(json.dumps(standard))


def test_an_install_says_what_it_installed_once(tmp_path):
    """pip's `Successfully installed alpha-1.0 beta-1.0` is what data.installed (and effects) list."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "beta", "1.0")
    _wheel(wheels, "alpha", "1.0", ("beta==1.0",))
    answer = aw(*PIP, "install", *OFFLINE, "--find-links", str(wheels), "--target", str(tmp_path / "t"), "alpha",
                detail="concise")
    assert answer.code == 0
    assert sorted(p["name"] for p in answer.env["data"]["installed"]) == ["alpha", "beta"]
    assert "Successfully installed" not in json.dumps(answer.env), answer.env.get("output")


def test_a_local_index_without_a_project_is_said_once_per_index(tmp_path):
    """pip says `Location 'file:///…/simple/NAME/' is ignored` for every project a local index lacks (tens in
    one install, on every run while the configuration names the folder): one line of each index stays."""
    wheels, empty = tmp_path / "wheels", tmp_path / "empty" / "simple"
    wheels.mkdir()
    empty.mkdir(parents=True)
    for name in ("beta", "delta", "epsilon"):
        _wheel(wheels, name, "1.0")
    _wheel(wheels, "alpha", "1.0", ("beta==1.0",))
    missing = tmp_path / "missing" / "simple"  # never made: a configured folder that is not there
    args = (*PIP, "install", "--isolated", "--disable-pip-version-check", "--index-url", empty.as_uri(),
            "--extra-index-url", missing.as_uri(), "--find-links", str(wheels), "alpha", "delta", "epsilon")
    answer = aw(*args, "--target", str(tmp_path / "t"), detail="concise")
    assert answer.code == 0, answer.env
    inline = [line for s in answer.env.get("output", {}).values() for line in s["text"].splitlines()]
    assert inline == [f"WARNING: Location '{index.as_uri()}/alpha/' is ignored: it is neither a file nor a directory."
                      for index in (empty, missing)], inline
    whole = aw(*args, "--target", str(tmp_path / "t2")).env["output"]["stderr"]["artifact"]
    assert _show(whole).count("is ignored") == 8  # 4 projects, 2 indexes


def test_a_conflict_names_a_project_once_however_it_is_spelled(tmp_path):
    """`Beta_Pkg>=2.0` beside `beta-pkg==1.0` is one project (PEP 503): the detail and the fix name it once."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for version in ("1.0", "2.0"):
        _wheel(wheels, "Beta_Pkg", version)
    _wheel(wheels, "alpha", "1.0", ("Beta_Pkg>=2.0",))
    error = aw(*PIP, "download", *OFFLINE, "--find-links", str(wheels), "-d", str(tmp_path / "got"),
               "beta-pkg==1.0", "alpha", detail="concise").error
    assert error["code"] == "PIP_DEPENDENCY_CONFLICT"
    assert error["conflicts"] == ["The user requested beta-pkg==1.0", "alpha 1.0 depends on Beta_Pkg>=2.0"]
    assert error["detail"].endswith("their dependencies conflict on beta-pkg"), error["detail"]
    assert "one version of beta-pkg satisfies" in error["suggested_fix"]


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def test_a_dry_run_says_what_it_would_install_and_its_progress_bars_are_noise(tmp_path):
    """`pip install --dry-run`: pip's `Would install A-1.0 B-2.0` is data.would_install and the summary, not
    "nothing to install"; a download's progress bar (rich's `━━━━ 152.4/152.4 kB …`, as the terminal left it)
    is not inline. The wheels come from a loopback HTTP server: pip draws no bar for a local file."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "alpha", "1.0")
    _wheel(wheels, "beta", "2.0")
    # over 40 kB, the size from which pip draws a bar (the wheel is stored, not compressed)
    _wheel(wheels, "big", "1.0", payload=base64.b64encode(os.urandom(90_000)).decode())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietFiles, directory=str(wheels)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        links = ["--isolated", "--no-index", "--no-cache-dir", "--find-links", f"http://127.0.0.1:{server.server_port}/"]
        answer = aw(*PIP, "install", *links, "--dry-run", "--ignore-installed", "alpha", "beta", "big",
                    detail="concise")
        whole = aw(*PIP, "install", *links, "--dry-run", "--ignore-installed", "big").env["output"]["stdout"]["text"]
    finally:
        server.shutdown()
    assert answer.code == 0, answer.env
    assert answer.env["summary"] == "would install 3 packages (dry run)"
    assert answer.env["data"]["would_install"] == [{"name": "alpha", "version": "1.0"},
                                                   {"name": "beta", "version": "2.0"},
                                                   {"name": "big", "version": "1.0"}]
    assert "output" not in answer.env, answer.env["output"]
    assert "━━━━" in whole and " kB " in whole, whole  # the bar, kept in the standard envelope


def test_an_upgrade_says_the_version_it_replaced_and_pips_uninstall_lines_are_noise(tmp_path):
    """`pip install -U beta` over beta 1.0: the old version, which pip says only in its uninstall lines
    (`Found existing installation: beta 1.0`), is the item's `replaced` and the summary's; those lines, and
    `pip uninstall -y`'s, are not inline (data says them). beta is not also "already satisfied"."""
    wheels, target = tmp_path / "wheels", tmp_path / "venv"
    wheels.mkdir()
    for version in ("1.0", "2.0"):
        _wheel(wheels, "beta", version)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True, capture_output=True)
    python = str(target / "bin" / "python")
    links = [*PIP, "--python", python, "install", *OFFLINE, "--find-links", str(wheels)]
    assert aw(*links, "beta==1.0").code == 0
    upgrade = aw(*links, "-U", "beta", detail="concise").env
    assert upgrade["data"]["installed"] == [{"name": "beta", "version": "2.0", "action": "update", "replaced": "1.0"}]
    assert "already_satisfied" not in upgrade["data"], upgrade["data"]
    assert upgrade["summary"] == "upgraded beta 1.0 -> 2.0"
    assert "output" not in upgrade, upgrade["output"]
    removed = aw(*PIP, "--python", python, "uninstall", "-y", "beta", detail="concise").env
    assert removed["data"]["uninstalled"] == [{"name": "beta", "version": "2.0"}]
    assert "output" not in removed, removed["output"]
