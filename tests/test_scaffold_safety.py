"""`agentwrap adapter new`: a fresh scaffold promises nothing it does not know. Its effects start unknown (so
`--read-only` still refuses the tool), it offers no made-up flag, and one named like a built-in says it
replaces that built-in."""

from __future__ import annotations

import pytest
from conftest import aw

from agentwrap import registry


@pytest.mark.parametrize("form", [["--toml"], []])
def test_read_only_still_refuses_a_tool_whose_scaffold_nobody_edited(tmp_path, form):
    folder = tmp_path / "adapters"
    env = {"AGENTWRAP_ADAPTER_DIR": str(folder)}
    assert aw("adapter", "new", "rm", *form, env=env).code == 0
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    refused = aw("--read-only", "--", "rm", str(victim), env=env)
    assert refused.error is not None and refused.error["code"] == "MUTATION_REFUSED"
    assert victim.exists()


@pytest.mark.parametrize("form", [["--toml"], []])
def test_a_scaffold_offers_no_flag_the_tool_may_not_have(tmp_path, form):
    folder = tmp_path / "adapters"
    aw("adapter", "new", "deploy", *form, env={"AGENTWRAP_ADAPTER_DIR": str(folder)})
    (path,) = [p for p in folder.iterdir() if p.is_file()]
    adapter = registry.load_file(path)
    assert adapter.descriptor()["prompts"] == []  # its --yes would be an agent's next command
    live = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
    assert not any("--yes" in line for line in live)


@pytest.mark.parametrize(("name", "builtin"), [("git", "git"), ("clang", "gcc")])
def test_a_scaffold_named_like_a_builtin_is_refused_naming_it(tmp_path, name, builtin):
    answer = aw("adapter", "new", name, "--toml", env={"AGENTWRAP_ADAPTER_DIR": str(tmp_path)})
    assert answer.error is not None and answer.error["code"] == "USAGE"
    assert f"built-in {builtin} adapter" in answer.error["detail"] and "--force" in answer.error["detail"]
    assert not any(p.is_file() for p in tmp_path.iterdir())  # nothing written: git keeps its built-in


@pytest.mark.parametrize("flag", ["--force", "--shadow"])
@pytest.mark.parametrize(("name", "builtin"), [("git", "git"), ("clang", "gcc")])
def test_a_forced_scaffold_named_like_a_builtin_says_it_shadows_it(tmp_path, name, builtin, flag):
    answer = aw("adapter", "new", name, "--toml", flag, env={"AGENTWRAP_ADAPTER_DIR": str(tmp_path)})
    assert answer.code == 0 and (tmp_path / f"{name}.toml").is_file()
    assert answer.env["data"]["shadows"] == builtin
    assert f"shadows the built-in {builtin} adapter" in answer.env["summary"]


def test_a_scaffold_of_a_new_tool_shadows_nothing(tmp_path):
    answer = aw("adapter", "new", "greet", "--toml", env={"AGENTWRAP_ADAPTER_DIR": str(tmp_path)})
    assert "shadows" not in answer.env["data"] and "shadows" not in answer.env["summary"]
