"""A launcher's run is read by the adapter of the tool it launched (docs/adapters.md, "Launchers").

`npx tsc`, `npm run build` whose script runs tsc, `uv run pytest`: the output is the tool's, so its adapter
reads it and its reading is the run's when it found something the launcher's did not; the launcher's
stands otherwise. A TOML adapter declares it is a launcher with a `[launcher]` table, and a launcher whose
argv names the tool lends it the tool's environment and effects at run time (`registry.launch`).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from agentwrap import fixtures, registry
from agentwrap.sdk import Effects, Spec, SpecError

ROOT = Path(__file__).resolve().parent.parent
UV = """name = "uv"
[launcher]
subcommands = ["run"]
options_with_value = ["--with", "--python", "-p", "--directory", "--project"]
"""


@pytest.fixture
def uv_adapter(tmp_path, monkeypatch):
    """A user's `uv` adapter: data only, a launcher (agentwrap has no built-in one)."""
    folder = tmp_path / "adapters"
    folder.mkdir()
    (folder / "uv.toml").write_text(UV)
    monkeypatch.setenv("AGENTWRAP_ADAPTER_DIR", str(folder))
    monkeypatch.delenv("AGENTWRAP_ADAPTERS", raising=False)
    return folder


def _launched_case(tmp_path: Path, source: str, argv: list[str]) -> fixtures.Case:
    """A captured case's real output, as a launcher's run of the same command would have printed it."""
    case = next(c for c in fixtures.cases(ROOT / "fixtures") if f"{c.adapter}/{c.name}" == source)
    base = tmp_path / "cases" / argv[0] / case.name
    base.parent.mkdir(parents=True)
    for suffix in (".out", ".err"):
        if case.path(suffix).exists():
            shutil.copy(case.path(suffix), base.with_name(base.name + suffix))
    meta = {**case.meta(), "argv": argv, "program": argv[0]}
    base.with_name(base.name + ".meta.json").write_text(json.dumps(meta))
    return fixtures.Case(argv[0], case.name, base)


def test_a_toml_launcher_hands_its_run_to_the_tool_it_names(uv_adapter, tmp_path):
    """`uv run pytest`: pytest's reading, in uv's words, and a rerun that goes through uv as the run did."""
    argv = ["uv", "run", "--with", "pytest-x", "pytest", "-q", "--tb=short"]
    case = _launched_case(tmp_path, "pytest/failures-short-tb-quiet", argv)
    adapter, _ = registry.find("uv")
    env = fixtures.replay_record(adapter, case).standard()
    assert env["command"]["adapter"] == "uv"
    assert env["summary"].startswith("uv run --with pytest-x pytest: 3 failed, 2 passed")
    assert env["error"]["code"] == "PYTEST_TEST_FAILED"
    rerun = env["error"]["code_actions"][0]["command"]
    # through uv as the run went, with the options the caller's pytest ran under (its -p plugins too)
    assert rerun[:5] == ["uv", "run", "--with", "pytest-x", "pytest"]
    assert rerun[-1] == "tests/test_math.py::test_equal" and {"-q", "--tb=short"} <= set(rerun)


def test_the_launchers_own_reading_stands_for_a_tool_nobody_reads(uv_adapter, tmp_path):
    case = _launched_case(tmp_path, "pytest/failures-short-tb-quiet", ["uv", "run", "no-such-tool"])
    adapter, _ = registry.find("uv")
    env = fixtures.replay_record(adapter, case).standard()
    assert env["error"]["code"] == "COMMAND_FAILED"  # uv's (generic) reading: nothing claims to know the text


def test_a_launcher_lends_the_named_tool_its_environment_and_effects(uv_adapter):
    uv, _ = registry.find("uv")
    env, effects = registry.launch(uv, ["uv", "run", "pip", "install", "requests"])
    assert env["PIP_NO_INPUT"] == "1"  # pip's prevention: never wait on a question
    assert effects.read_only is False and effects.open_world is True
    npm, _ = registry.find("npx")
    assert registry.launch(npm, ["npx", "eslint", "."])[1].read_only is True
    assert registry.launch(npm, ["npx", "eslint", ".", "--fix"])[1].read_only is False
    assert registry.launch(npm, ["npx", "cowsay", "hi"])[1] == Effects()  # nobody knows cowsay
    assert registry.launch(uv, ["uv", "sync"]) == ({}, Effects())  # not a launch


def test_a_launcher_that_mutates_stays_mutating_whatever_it_runs():
    npm, _ = registry.find("npm")
    npm_install = npm.effects(["npm", "install"])
    assert npm_install.read_only is False
    assert registry.launch(npm, ["npm", "install"])[1] == npm_install


def test_a_failing_launched_adapter_leaves_the_launchers_reading(tmp_path, monkeypatch):
    folder = tmp_path / "adapters"
    folder.mkdir()
    (folder / "uv.toml").write_text(UV)
    (folder / "broken.py").write_text(
        "from agentwrap import sdk\n\n"
        "class Broken(sdk.BaseAdapter):\n"
        "    spec = sdk.Spec.from_dict({'name': 'broken'}, 'broken.py')\n\n"
        "    def interpret(self, run):\n"
        "        raise RuntimeError('cannot read this')\n\n"
        "ADAPTER = Broken()\n")
    monkeypatch.setenv("AGENTWRAP_ADAPTER_DIR", str(folder))
    case = _launched_case(tmp_path, "pytest/failures-short-tb-quiet", ["uv", "run", "broken"])
    record = fixtures.replay_record(registry.find("uv")[0], case)
    assert record.error is not None and record.error.code == "COMMAND_FAILED"
    assert [(n.code, n.message) for n in record.warnings if n.code == "ADAPTER_FAILED"] == [
        ("ADAPTER_FAILED", "broken: RuntimeError: cannot read this")]


def test_launchers_that_launch_themselves_stop(tmp_path, monkeypatch):
    folder = tmp_path / "adapters"
    folder.mkdir()
    (folder / "again.toml").write_text('name = "again"\n[launcher]\nprograms = ["again"]\n')
    monkeypatch.setenv("AGENTWRAP_ADAPTER_DIR", str(folder))
    argv = ["again"] * 50 + ["pytest", "-q"]
    case = _launched_case(tmp_path, "pytest/failures-short-tb-quiet", argv)
    record = fixtures.replay_record(registry.find("again")[0], case)
    assert record.error is not None and record.error.code == "COMMAND_FAILED"  # pytest is too deep to reach


@pytest.mark.parametrize(("argv", "inner"), [
    (["uv", "run", "pytest", "-q"], ["pytest", "-q"]),
    (["uv", "run", "--python", "3.12", "--", "pytest"], ["pytest"]),
    (["uv", "--directory", "x", "run", "pytest"], ["pytest"]),  # a global option before the word
    (["uv", "pip", "install", "x"], None),
    (["uv", "run"], None),
])
def test_the_launcher_table_names_the_command(argv, inner):
    launcher = {"subcommands": ["run"], "options_with_value": ["--python"]}
    spec = Spec.from_dict({"name": "uv", "global_options_with_value": ["--directory"], "launcher": launcher},
                          "uv.toml")
    assert spec.inner_command(argv) == inner


def test_a_program_that_launches_at_once():
    spec = Spec.from_dict({"name": "bun", "matches": ["bun", "bunx"],
                           "launcher": {"programs": ["bunx"], "subcommands": ["x"]}}, "bun.toml")
    assert spec.inner_command(["bunx", "--bun", "tsc", "-p", "."]) == ["tsc", "-p", "."]
    assert spec.inner_command(["bun", "x", "tsc"]) == ["tsc"]
    assert spec.inner_command(["bun", "install"]) is None


@pytest.mark.parametrize(("launcher", "message"), [
    ({"subcommand": ["run"]}, "launcher: unknown key 'subcommand' (did you mean 'subcommands'?)"),
    ({"programs": "bunx"}, "launcher.programs: programs must be a list of strings"),
])
def test_the_launcher_table_is_validated(launcher, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        Spec.from_dict({"name": "uv", "launcher": launcher}, "uv.toml")


def test_a_launched_tools_run_is_shown_as_that_tool_shows_it(tmp_path):
    """`npm test` running pytest: concise says each failure once (in problems, not again as data) and drops
    pytest's banners and npm's script header, as `pytest` alone and npm's own noise rules would."""
    from agentwrap.artifacts import ArtifactStore
    from agentwrap.render import views

    root = Path(__file__).resolve().parent.parent / "fixtures"
    case = next(c for c in fixtures.cases(root) if (c.adapter, c.name) == ("npm", "test-script-pytest-fails"))
    record = fixtures.replay_record(registry.builtin("npm"), case, store=ArtifactStore(tmp_path))
    env = views.concise(record)
    assert env["summary"].startswith("npm test: pytest: 1 failed")
    assert env["error"]["code"] == "PYTEST_TEST_FAILED"
    assert "data" not in env and "output" not in env, json.dumps(env)[:400]
    assert "> pyproj@1.0.0 test" in case.path(".out").read_text()  # what npm printed, kept in the record
