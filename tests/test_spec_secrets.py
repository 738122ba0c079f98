"""A TOML adapter names secrets with `[[secrets]]` (group 1 of a pattern is the value): checked when the spec
loads (a bad pattern is a structured error naming the entry), hidden in every field and artifact of a real
run of a real program, and withheld from live output events."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import aw

from agentwrap.spec import Spec, SpecError

VALUE = "q7Zr91kd-Pa1r"  # the generic redactor does not take it for a secret: only the spec says so
TOOL = (f'#!/bin/sh\necho "logging in as ada"\necho "pairing code: {VALUE}"\n'
        f'for i in $(seq 60); do echo "step $i of the pairing"; done\necho "done, {VALUE} is valid for 5 minutes"\n')
SPEC = "name = \"pairtool\"\n\n[[secrets]]\npattern = '^pairing code: (\\S+)'\nstream = \"stdout\"\n"


@pytest.mark.parametrize(("entry", "says"), [
    ({"pattern": "code: ("}, "secrets[1]: invalid regular expression"),
    ({"pattern": r"code: \S+"}, "has no group: group 1 is the secret's value"),
    ({"pattern": "code: (x)", "stream": "both"}, "secrets[1]: stream must be any, stdout or stderr"),
    ({"pattern": "code: (x)", "regex": "x"}, "secrets[1]"),
    ({"pattern": "code: (x)", "subcommands": "login"}, "secrets[1]: subcommands must be a list of strings"),
])
def test_a_bad_secrets_entry_is_refused_naming_it(entry, says):
    with pytest.raises(SpecError, match=says.replace("[", r"\[").replace("]", r"\]")):
        Spec.from_dict({"name": "pairtool", "secrets": [entry]}, "pairtool.toml")


def test_secrets_apply_to_their_subcommands_only():
    spec = Spec.from_dict({"name": "t", "secrets": [{"pattern": "(x)", "subcommands": ["login"]}]}, "t.toml")
    assert spec.presentation("login").names_secrets and not spec.presentation("status").names_secrets


@pytest.fixture
def tool(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    (tmp_path / "adapters").mkdir()
    (tmp_path / "adapters" / "pairtool.toml").write_text(SPEC)
    script = tmp_path / "pairtool"
    script.write_text(TOOL)
    script.chmod(0o755)
    return script, {"AGENTWRAP_ADAPTER_DIR": str(tmp_path / "adapters")}


def test_adapter_test_answers_a_bad_pattern_with_a_structured_error(tool, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \"bad\"\n[[secrets]]\npattern = 'code: ('\n")
    answer = aw("adapter", "test", str(bad), check=False)
    error = json.loads(answer.stdout)["error"]
    assert "secrets[1]" in error["detail"] and "invalid regular expression" in error["detail"]


@pytest.mark.slow
def test_a_toml_adapters_secret_is_in_no_field_artifact_or_event(tool):
    script, env = tool
    bare = aw("--", str(script))  # no adapter of this name: the value is shown as printed
    assert VALUE.encode() in bare.stdout
    spilled = []
    for detail in ("concise", "standard", "detailed"):
        for budget in ("4096", "256"):  # inline, and spilled to an artifact
            answer = aw("--detail", detail, "--max-inline-bytes", budget, "--", str(script), env=env)
            assert answer.env["status"] == "success"
            spilled += answer.env.get("artifacts", [])
            assert VALUE.encode() not in answer.stdout
            assert "[REDACTED]" in answer.stdout.decode() or answer.env.get("artifacts")
            for ref in answer.env.get("artifacts", []):
                assert VALUE.encode() not in Path(ref["uri"].removeprefix("file://")).read_bytes()
                shown = aw("artifact", "show", ref["id"], env=env)
                assert VALUE.encode() not in shown.stdout and b"REDACTED" in shown.stdout
    assert spilled and answer.env["command"]["adapter"] == "pairtool"
    events = aw("--format", "jsonl", "--", str(script), env=env, check=False)
    assert VALUE.encode() not in events.stdout
    kinds = [json.loads(line)["type"] for line in events.stdout.decode().splitlines()]
    assert "output" not in kinds and b"OUTPUT_EVENTS_WITHHELD" in events.stdout
    line = aw("--shell", f"{script} | cat", env={**env, "PATH": f"{script.parent}:{os.environ['PATH']}"})
    assert VALUE.encode() not in line.stdout  # decided by cat: the spec's command still names its value
