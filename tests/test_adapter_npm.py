"""npm/npx through agentwrap: registry, resolution, engine, permission and network failures are precise problems
with honest fixes; a missing script lists the scripts that exist; npx never installs unasked; ls/outdated/view and
installs become data."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("npm") or not shutil.which("npx"),
                                reason="npm not installed (apt-get install -y npm)")
NO_SUCH = "agentwrap-no-such-pkg-12345"


def _package(folder: Path, **fields: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": folder.name, "version": "1.0.0", **fields}))
    return folder


def test_e404_names_the_package(tmp_path):
    a = aw("--cwd", str(tmp_path), "npm", "view", NO_SUCH)
    assert a.error["code"] == "NPM_PACKAGE_NOT_FOUND"
    assert a.error["detail"].startswith(f"{NO_SUCH} is not in the registry")
    assert (a.error["status"], a.error["retryable"], a.error["safe_to_retry"]) == (404, False, True)
    assert a.error["code_actions"][0]["command"] == ["npm", "search", NO_SUCH]


def test_eresolve_names_both_sides_and_the_real_fix(tmp_path):
    proj = _package(tmp_path / "peer", dependencies={"react": "17.0.2", "react-dom": "18.2.0"})
    a = aw("--cwd", str(proj), "npm", "install")
    assert a.error["code"] == "NPM_PEER_CONFLICT" and a.error["category"] == "conflict"
    assert a.error["detail"].startswith("react-dom@18.2.0 needs peer react@^18.2.0, but react@17.0.2 is in the tree")
    commands = [(x["command"], x["applicability"]) for x in a.error["code_actions"]]
    assert commands == [(["npm", "install", "react@^18.2.0"], "maybe_incorrect"),
                        (["npm", "install", "--legacy-peer-deps"], "maybe_incorrect")]
    assert not (proj / "node_modules").exists()


def test_missing_script_lists_the_scripts_that_exist(tmp_path):
    proj = _package(tmp_path / "s", scripts={"build": "echo b", "lint": "echo l", "test": "echo t"})
    a = aw("--cwd", str(proj), "npm", "run", "nosuch")
    assert a.error["code"] == "NPM_MISSING_SCRIPT"
    assert a.error["available_scripts"] == ["build", "lint", "test"]
    assert "available scripts: build, lint, test" in a.error["detail"]
    assert {"command": ["npm", "run"], "applicability": "machine_applicable"}.items() <= \
        a.error["code_actions"][-1].items()
    b = aw("--cwd", str(proj), "npm", "run", "buil")
    assert b.error["code_actions"][0]["command"] == ["npm", "run", "build"]


@pytest.mark.parametrize(("asked", "builtin", "nearest"),
                         [("publsh", "publish", None), ("lint", "link", None), ("tset", "set", "test")])
def test_missing_script_never_offers_an_npm_builtin(tmp_path, asked, builtin, nearest):
    """npm answers `Did you mean this? npm publish`: running that publishes the package. A built-in command is
    no replacement for a script; only scripts that exist are offered, nearest by name first."""
    proj = _package(tmp_path / "p", scripts={"test": "node --test", "build": "exit 3"})
    a = aw("--cwd", str(proj), "npm", "run", asked)
    commands = [x["command"] for x in a.error["code_actions"]]
    assert all(c[:2] == ["npm", "run"] for c in commands), commands
    preferred = [x["command"] for x in a.error["code_actions"] if x.get("is_preferred")]
    assert preferred == [["npm", "run", nearest] if nearest else ["npm", "run"]]
    assert f"`npm {builtin}` is a built-in command" in a.error["detail"]


def test_missing_script_concise_text_does_not_repeat_the_problem(tmp_path):
    proj = _package(tmp_path / "p", scripts={"test": "node --test"})
    c = aw("--cwd", str(proj), "npm", "run", "lint", detail="concise").env
    stderr = c.get("output", {}).get("stderr", {}).get("text", "")
    assert "Missing script" not in stderr and "Did you mean" not in stderr, stderr


def test_a_failed_scripts_own_line_stays_though_its_command_quotes_it(tmp_path):
    """`npm init -y`'s test script echoes `Error: no test specified`: that line is the script's output, not a
    restatement of the detail, which quotes the command only; the fix names the placeholder, and a script's
    fix never points at "output above" (an envelope has no above)."""
    proj = tmp_path / "p"
    proj.mkdir()
    subprocess.run(["npm", "init", "-y"], cwd=proj, check=True, capture_output=True)
    answer = aw("--cwd", str(proj), "npm", "test", detail="concise")
    assert answer.error["code"] == "NPM_SCRIPT_FAILED"
    assert answer.env["output"]["stdout"]["text"] == "Error: no test specified\n"
    assert "placeholder" in answer.error["suggested_fix"] and "above" not in answer.error["suggested_fix"]
    _package(proj, scripts={"check": 'echo "config.yml is missing" && exit 2', "quiet": "exit 4"})
    check = aw("--cwd", str(proj), "npm", "run", "check", detail="concise")
    assert check.env["output"]["stdout"]["text"] == "config.yml is missing\n"
    assert "above" not in check.error["suggested_fix"]
    quiet = aw("--cwd", str(proj), "npm", "run", "quiet", detail="concise")
    assert quiet.error["suggested_fix"].startswith("The script printed nothing")


def test_offline_and_not_cached_says_the_run_is_cache_only(tmp_path):
    proj = _package(tmp_path / "off")
    a = aw("--cwd", str(proj), "npm", "install", "--offline", NO_SUCH)
    assert a.error["code"] == "NPM_NOT_CACHED" and a.error["category"] == "precondition"
    assert NO_SUCH in a.error["detail"] and "--offline" in a.error["suggested_fix"]
    assert a.env["summary"] == "npm install: Not in the cache of a cache-only run (ENOTCACHED)"


def test_a_registry_given_on_the_command_line_is_the_one_to_check(tmp_path):
    proj = _package(tmp_path / "net")
    c = aw("--cwd", str(proj), "--timeout", "120", "npm", "install", "--registry", "http://127.0.0.1:9",
           "--fetch-retries=0", NO_SUCH, detail="concise").env
    assert c["error"]["code"] == "NPM_NETWORK_ERROR"
    assert c["error"]["detail"].startswith(f"npm could not reach http://127.0.0.1:9/{NO_SUCH}: ")
    assert "--registry (http://127.0.0.1:9)" in c["error"]["suggested_fix"]
    assert not any("config" in x["command"] for x in c["error"].get("code_actions", []))
    stderr = c.get("output", {}).get("stderr", {}).get("text", "")
    assert "minipass-fetch" not in stderr and "_http_client" not in stderr, stderr


def test_ci_without_a_lockfile_says_it_once_without_npms_usage_dump(tmp_path):
    """npm ci with no lockfile prints its message wrapped over three lines, then its whole option help: the
    problem says the message (the sentence goes whole, not its first line only), the help is noise, and the
    summary names `npm ci` once."""
    proj = _package(tmp_path / "nolock")
    c = aw("--cwd", str(proj), "npm", "ci", detail="concise").env
    assert c["error"]["code"] == "NPM_CI_NO_LOCKFILE"
    assert c["summary"] == "npm ci: needs a package-lock.json"
    stderr = c.get("output", {}).get("stderr", {}).get("text", "")
    for dumped in ("--install-strategy", "Usage:", "Options:", "aliases:", "npm help ci", "Clean install"):
        assert dumped not in stderr, stderr
    for half_said in ("lockfileVersion", "try again"):  # the continuation of the sentence the problem says
        assert half_said not in stderr, stderr
    detailed = aw("--cwd", str(proj), "npm", "ci", detail="detailed").env
    assert detailed["output"]["stderr"]["noise_lines"] >= 50


def test_npx_refuses_to_install_and_says_how_to_consent(tmp_path):
    a = aw("--cwd", str(tmp_path), "npx", "cowsay", "hi", detail="detailed")
    assert a.env["context"]["env_set"]["npm_config_yes"] == "false"
    assert a.error["code"] == "NPM_NPX_NOT_CONFIRMED" and a.error["category"] == "input_required"
    assert a.error["code_actions"][0]["command"] == ["npx", "--yes", "cowsay", "hi"]
    assert a.error["code_actions"][0]["applicability"] == "maybe_incorrect"


def test_npx_prompt_when_nothing_refuses_is_input_required(tmp_path):
    """With npm_config_yes unset (null) npx asks `Ok to proceed? (y)`: agentwrap stops it and offers --yes."""
    a = aw("--cwd", str(tmp_path), "--timeout", "60", "--env", "npm_config_yes=null", "--env", "CI=",
           "npx", "cowsay", "hi")
    assert a.error["code"] == "INPUT_REQUIRED" and a.error["input_kind"] == "confirmation"
    assert "Ok to proceed" in a.error["prompt"]
    first = a.error["code_actions"][0]
    assert first["command"] == ["npx", "--yes", "cowsay", "hi"]
    assert first["applicability"] == "maybe_incorrect"


@pytest.mark.slow
def test_engine_strict_mismatch_is_a_precondition(tmp_path):
    dep = _package(tmp_path / "future", engines={"node": ">=99"})
    proj = _package(tmp_path / "app", dependencies={"future": f"file:{dep}"})
    a = aw("--cwd", str(proj), "npm", "install", "--engine-strict", "--no-audit")
    assert a.error["code"] == "NPM_ENGINE_MISMATCH" and a.error["status"] == 412
    assert a.error["detail"].startswith('future@1.0.0 requires {"node":">=99"}; this is {"node":"v')
    ok = aw("--cwd", str(proj), "npm", "install", "--no-audit")
    assert ok.code == 0
    assert any(p["code"] == "NPM_ENGINE_WARNING" and p["severity"] == "warning" for p in ok.env["problems"])
    assert ok.env["data"]["added"] == 1


def test_no_package_json_and_refused_registry(tmp_path):
    a = aw("--cwd", str(tmp_path), "npm", "run", "build")
    assert a.error["code"] == "NPM_NO_PACKAGE_JSON"
    assert a.error["code_actions"][0]["command"] == ["npm", "init", "-y"]
    b = aw("--cwd", str(tmp_path), "npm", "view", "left-pad", "--registry", "http://127.0.0.1:9/", "--fetch-retries=0")
    assert b.error["code"] == "NPM_NETWORK_ERROR"
    assert (b.error["category"], b.error["retryable"], b.error["safe_to_retry"]) == ("network", True, True)


@pytest.mark.slow
def test_ls_parses_the_tree_and_reports_missing(tmp_path):
    dep = _package(tmp_path / "localdep")
    proj = _package(tmp_path / "app", dependencies={"localdep": f"file:{dep}"})
    assert aw("--cwd", str(proj), "npm", "install", "--no-audit").code == 0
    a = aw("--cwd", str(proj), "npm", "ls")
    assert a.code == 0 and a.env["summary"] == "app@1.0.0: 1 direct dependencies"
    assert a.env["data"]["dependencies"][0]["name"] == "localdep"
    shutil.rmtree(proj / "node_modules")
    b = aw("--cwd", str(proj), "npm", "ls")
    assert b.error["code"] == "NPM_LS_PROBLEMS"
    assert b.env["data"]["dependencies"][0].get("missing") is True


@pytest.mark.slow
def test_ls_json_data_holds_what_npm_printed_of_each_dependency(tmp_path):
    """`npm ls --json --all` is parsed whole: the concise envelope gives its text or its data, so the data
    keeps what npm said of each dependency (version, where it resolved from, a missing one's range)."""
    dep = _package(tmp_path / "localdep")
    proj = _package(tmp_path / "app", dependencies={"localdep": f"file:{dep}"})
    assert aw("--cwd", str(proj), "npm", "install", "--no-audit", "--offline").code == 0
    _package(proj, dependencies={"localdep": f"file:{dep}", "left-pad": "^1.3.0"})
    a = aw("--cwd", str(proj), "npm", "ls", "--json", "--all", detail="concise")
    assert a.error["code"] == "NPM_LS_PROBLEMS"
    raw = subprocess.run(["npm", "ls", "--json", "--all"], cwd=proj, capture_output=True, timeout=60).stdout
    printed = {name: {k: v for k, v in dep.items() if k != "problems" and v is not False}
               for name, dep in json.loads(raw)["dependencies"].items()}
    assert printed["left-pad"] == {"required": "^1.3.0", "missing": True}
    text = (a.env.get("output") or {}).get("stdout", {}).get("text")
    if text:  # the document, whole, and no data beside it
        assert "data" not in a.env and json.loads(text)["dependencies"].keys() == printed.keys()
    else:
        assert {d.pop("name"): d for d in a.env["data"]["dependencies"]} == printed


def test_script_failure_reports_the_node_error_inside(tmp_path):
    proj = _package(tmp_path / "s", scripts={"start": "node main.js"})
    (proj / "main.js").write_text("require('left-pad-agentwrap-missing');\n")
    a = aw("--cwd", str(proj), "npm", "start")
    assert a.error["code"] == "NODE_PACKAGE_NOT_FOUND"
    assert a.error["location"] == {"file": "main.js", "line": 1, "column": 1}  # relative to --cwd
    codes = [p["code"] for p in a.env["problems"]]
    assert codes == ["NODE_PACKAGE_NOT_FOUND", "NPM_SCRIPT_FAILED"]


def test_effects_and_aliases():
    from agentwrap.adapters.npm import ADAPTER

    assert ADAPTER.subcommand(["npm", "i", "x"]) == "install"
    assert ADAPTER.subcommand(["npm", "--prefix", "d", "rm", "x"]) == "uninstall"
    assert ADAPTER.subcommand(["npm", "config", "get", "registry"]) == "config get"
    assert ADAPTER.effects(["npm", "ls"]).read_only is True
    assert ADAPTER.effects(["npm", "install"]).open_world is True
    assert ADAPTER.effects(["npm", "publish"]).idempotent is False
    assert ADAPTER.effects(["npm", "run", "x"]).read_only is None
    assert ADAPTER.effects(["npx", "cowsay"]).read_only is None
    env = ADAPTER.environment(["npm", "install"])
    assert env["npm_config_yes"] == "false" and "true" not in env.values()
