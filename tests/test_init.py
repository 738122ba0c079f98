"""`agentwrap init HOST`: a plan and an apply on the host's real config file, undone byte for byte."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import aw

SETTINGS = (b'{\n    "model": "opus",\n    "permissions": {"allow": ["Bash(ls:*)"]},\n'
            b'    "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}]},\n'
            b'    "env": {"A": "\\u00e9"}\n}\n')


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home"), "AGENTWRAP_STATE_DIR": str(tmp_path / "state")}


def _init(project: Path, env: dict[str, str], *args: str, code: int = 0) -> dict[str, object]:
    answer = aw("init", *args, cwd=project, env=env)
    assert answer.code == code, answer.env
    return answer.env


def test_claude_code_project_dry_run_apply_idempotent_uninstall(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_bytes(SETTINGS)

    dry = _init(project, home, "claude-code", "--project", "--dry-run")
    assert settings.read_bytes() == SETTINGS  # a dry run changes nothing
    assert dry["data"]["action"] == "update" and dry["data"]["dry_run"] is True
    assert '+    "hooks": {"PostToolUse"' in dry["data"]["diff"]
    assert not (Path(home["AGENTWRAP_STATE_DIR"]) / "init").exists()

    applied = _init(project, home, "claude-code", "--project")
    assert applied["data"]["diff"] == dry["data"]["diff"]  # the plan shown is the change made
    doc = json.loads(settings.read_bytes())
    assert doc["model"] == "opus" and doc["env"] == {"A": "é"}
    assert doc["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert doc["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "fmt"
    assert doc["hooks"]["PreToolUse"] == [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "agentwrap hook claude-code"}]}]
    changed = [line for line in applied["data"]["diff"].splitlines()
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert len(changed) == 2  # only the line holding `hooks` changed: the user's layout is kept
    backup = Path(applied["data"]["backup"])
    assert backup.read_bytes() == SETTINGS and oct(backup.stat().st_mode & 0o777) == "0o600"
    installed = settings.read_bytes()

    again = _init(project, home, "claude-code")
    assert again["data"]["action"] == "unchanged" and again["data"]["changed"] is False
    assert settings.read_bytes() == installed and again["data"]["backup"] is None

    removed = _init(project, home, "claude-code", "--uninstall")
    assert removed["data"]["action"] == "restore"
    assert settings.read_bytes() == SETTINGS  # byte for byte
    assert _init(project, home, "claude-code", "--uninstall")["data"]["action"] == "unchanged"


def test_a_new_file_is_created_and_uninstall_removes_it_and_its_folders(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "fresh"
    project.mkdir()
    out = _init(project, home, "gemini")
    path = project / ".gemini" / "settings.json"
    assert out["data"]["action"] == "create" and out["data"]["backup"] is None
    doc = json.loads(path.read_text())
    (group,) = doc["hooks"]["BeforeTool"]
    assert group["matcher"] == "run_shell_command" and group["hooks"][0]["command"] == "agentwrap hook gemini"
    _init(project, home, "gemini", "--uninstall")
    assert not path.exists() and not (project / ".gemini").exists()
    assert sorted(os.listdir(project)) == []


@pytest.mark.parametrize(("host", "path", "needle"), [
    ("codex", ".codex/hooks.json", '"matcher": "Bash"'),
    ("cursor", ".cursor/rules/agentwrap.mdc", "alwaysApply: true"),
    ("copilot", ".github/hooks/agentwrap.json", '"bash": "agentwrap hook copilot"'),
    ("opencode", ".opencode/plugins/agentwrap.js", '["agentwrap", "hook", "opencode"]'),
])
def test_every_host_installs_and_removes_cleanly(tmp_path: Path, home: dict[str, str], host: str, path: str,
                                                 needle: str) -> None:
    project = tmp_path / host
    project.mkdir()
    _init(project, home, host)
    text = (project / path).read_text()
    assert needle in text
    assert f"hook {host}" in text.replace('", "', " ") or "agentwrap --agent -- <command>" in text
    if path.endswith(".json"):
        doc = json.loads(text)
        assert doc.get("version", 1) == 1
    assert _init(project, home, host)["data"]["action"] == "unchanged"
    _init(project, home, host, "--uninstall")
    assert os.listdir(project) == []


def test_user_scope_writes_under_home(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "p"
    project.mkdir()
    out = _init(project, home, "claude-code", "--user")
    assert out["data"]["path"] == str(Path(home["HOME"]) / ".claude" / "settings.json")
    assert not (project / ".claude").exists()
    _init(project, home, "claude-code", "--user", "--uninstall")
    assert not (Path(home["HOME"]) / ".claude").exists()


def test_refuses_to_overwrite_what_it_did_not_write(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    edited = {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
                                        "hooks": [{"type": "command", "command": "agentwrap hook claude-code"}]}]}}
    settings.write_text(json.dumps(edited))
    before = settings.read_bytes()
    out = _init(project, home, "claude-code", code=125)
    assert out["error"]["code"] == "CONFIG_CONFLICT" and settings.read_bytes() == before
    settings.write_text('{"hooks": [1, 2]}')
    assert _init(project, home, "claude-code", code=125)["error"]["code"] == "CONFIG_CONFLICT"
    settings.write_text('{"hooks": {}, // a comment\n}')
    assert _init(project, home, "claude-code", code=125)["error"]["code"] == "CONFIG_CONFLICT"
    (project / ".github" / "hooks").mkdir(parents=True)
    mine = project / ".github" / "hooks" / "agentwrap.json"
    mine.write_text('{"version": 1, "hooks": {}}')
    assert _init(project, home, "copilot", code=125)["error"]["code"] == "CONFIG_CONFLICT"
    assert _init(project, home, "copilot", "--uninstall", code=125)["error"]["code"] == "CONFIG_CONFLICT"
    assert mine.read_text() == '{"version": 1, "hooks": {}}'


def test_uninstall_after_the_user_edited_keeps_their_edit(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_bytes(SETTINGS)
    _init(project, home, "claude-code")
    doc = json.loads(settings.read_text())
    doc["hooks"]["PreToolUse"].insert(0, {"matcher": "Write", "hooks": []})
    doc["later"] = True
    settings.write_text(json.dumps(doc, indent=4) + "\n")
    out = _init(project, home, "claude-code", "--uninstall")
    assert out["data"]["action"] == "remove" and out["data"]["notes"]
    after = json.loads(settings.read_text())
    assert after["later"] is True and after["hooks"]["PreToolUse"] == [{"matcher": "Write", "hooks": []}]


def test_a_symlinked_settings_file_is_written_through(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    real = tmp_path / "dotfiles-settings.json"
    real.write_bytes(SETTINGS)
    (project / ".claude" / "settings.json").symlink_to(real)
    _init(project, home, "claude-code")
    assert (project / ".claude" / "settings.json").is_symlink()
    assert "agentwrap hook claude-code" in real.read_text()
    _init(project, home, "claude-code", "--uninstall")
    assert real.read_bytes() == SETTINGS and (project / ".claude" / "settings.json").is_symlink()


def test_instructions_block_for_agents_md(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "p"
    project.mkdir()
    agents = project / "AGENTS.md"
    original = b"# Project\n\nUse tabs."  # no final newline: the restore must keep that too
    agents.write_bytes(original)
    out = _init(project, home, "agents-md")
    text = agents.read_text()
    assert text.startswith("# Project\n\nUse tabs.\n\n<!-- agentwrap:begin")
    assert "agentwrap --agent -- <command>" in text and out["data"]["instructions"] in text
    assert _init(project, home, "agents-md")["data"]["action"] == "unchanged"
    _init(project, home, "agents-md", "--uninstall")
    assert agents.read_bytes() == original
    claude = _init(project, home, "claude-md", "--dry-run")
    assert claude["data"]["path"].endswith("CLAUDE.md") and not (project / "CLAUDE.md").exists()


def test_bad_host_and_pretty_plan(tmp_path: Path, home: dict[str, str]) -> None:
    out = _init(tmp_path, home, "claud-code", code=125)
    assert out["error"]["code"] == "USAGE" and "did you mean claude-code" in out["error"]["detail"]
    assert _init(tmp_path, home, code=125)["error"]["code"] == "USAGE"
    assert "Cursor keeps user rules" in _init(tmp_path, home, "cursor", "--user", code=125)["error"]["detail"]
    # a concise answer of a command other than a run is schema-valid too (aw checks every envelope)
    assert aw("init", "nohost", cwd=tmp_path, env=home, detail="concise").env["error"]["code"] == "USAGE"
    assert aw("artifact", "show", "art_x", detail="concise").code == 125
    pretty = aw("--format", "pretty", "init", "codex", "--dry-run", cwd=tmp_path, env=home, agent=False,
                check=False)
    assert pretty.code == 0 and b"would create" in pretty.stdout and b"+++ " in pretty.stdout


def test_a_read_only_file_is_refused_with_a_problem_and_left_as_it_was(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_bytes(SETTINGS)
    settings.chmod(0o444)
    assert _init(project, home, "claude-code", "--dry-run")["data"]["action"] == "update"  # the plan is shown
    refused = _init(project, home, "claude-code", code=125)
    assert refused["error"]["code"] == "CONFIG_CONFLICT" and "read-only" in refused["error"]["detail"]
    assert settings.read_bytes() == SETTINGS and settings.stat().st_mode & 0o777 == 0o444
    assert not (Path(home["AGENTWRAP_STATE_DIR"]) / "init").exists()  # no record, no backup
    settings.chmod(0o644)
    _init(project, home, "claude-code")
    settings.chmod(0o444)
    assert _init(project, home, "claude-code", "--uninstall", code=125)["error"]["code"] == "CONFIG_CONFLICT"
    settings.chmod(0o644)
    assert _init(project, home, "claude-code", "--uninstall")["data"]["action"] == "restore"
    assert settings.read_bytes() == SETTINGS


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_a_folder_that_cannot_be_made_is_a_problem_not_an_internal_error(tmp_path: Path,
                                                                         home: dict[str, str]) -> None:
    # /proc/self is a folder nobody (root included) can make `.codex` in: the write fails after the plan
    refused = _init(tmp_path, home, "codex", "--dir", "/proc/self", code=125)
    assert refused["error"]["code"] == "CONFIG_CONFLICT" and "cannot write" in refused["error"]["detail"]
    assert not (Path(home["AGENTWRAP_STATE_DIR"]) / "init").exists()


@pytest.mark.parametrize(("text", "said"), [("null", "holds null, not an object"),
                                            ('{"hooks": null}', "`hooks` holds null, not an object"),
                                            ('{"hooks": {"PreToolUse": null}}', "holds null, not a list"),
                                            ('{"hooks": "x"}', "`hooks` holds a string, not an object")])
def test_a_conflict_names_the_value_in_json_words(tmp_path: Path, home: dict[str, str], text: str,
                                                  said: str) -> None:
    # A person reads their own file: JSON's `null`, not Python's `NoneType`.
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(text)
    detail = _init(project, home, "claude-code", code=125)["error"]["detail"]
    assert said in detail and "NoneType" not in detail and " str," not in detail


@pytest.mark.parametrize("host", ["claude-code", "agents-md"])
def test_user_scope_with_a_dir_is_refused_not_ignored(tmp_path: Path, home: dict[str, str], host: str) -> None:
    project = tmp_path / "p"
    project.mkdir()
    refused = _init(tmp_path, home, host, "--user", "--dir", str(project), code=125)
    assert refused["error"]["code"] == "USAGE" and "--dir" in refused["error"]["detail"]
    assert list(Path(home["HOME"]).iterdir()) == [] and list(project.iterdir()) == []  # nothing written anywhere


@pytest.mark.slow  # two real hook runs (~2 s)
def test_a_command_path_with_a_space_stays_one_word(tmp_path: Path, home: dict[str, str]) -> None:
    import re
    import subprocess
    import sys

    # a real launcher in a folder with a space, run as the generated hooks run it
    launcher = tmp_path / "my tools" / "agentwrap"
    launcher.parent.mkdir()
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -m agentwrap "$@"\n')
    launcher.chmod(0o755)
    project = tmp_path / "p"
    project.mkdir()
    env = {**os.environ, **home, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    call = json.dumps({"tool": "bash", "sessionID": "s", "callID": "c", "args": {"command": "ls"}})
    _init(project, home, "opencode", "--command", str(launcher))
    plugin = (project / ".opencode" / "plugins" / "agentwrap.js").read_text()
    match = re.search(r"Bun\.spawnSync\((\[.*?\]),", plugin)
    assert match is not None
    argv = json.loads(match.group(1))
    assert argv == [str(launcher), "hook", "opencode"]
    answer = subprocess.run(argv, input=call, capture_output=True, text=True, env=env, timeout=60)
    assert answer.returncode == 0 and "agentwrap" in json.loads(answer.stdout)["args"]["command"]
    _init(project, home, "claude-code", "--command", str(launcher))
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    line = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    hook = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}, "hook_event_name": "PreToolUse"})
    ran = subprocess.run(["sh", "-c", line], input=hook, capture_output=True, text=True, env=env, timeout=60)
    assert ran.returncode == 0 and "agentwrap" in ran.stdout, ran.stderr
