"""A TOML launcher (`tidy run CMD...`) running a tool a user adapter reads (the tutorial's greet.py): the
summary names both, and the launched tool's adapter reads the tool's output without the launcher's own
lines (its banner, its [[noise]])."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT, aw

_TIDY = '#!/bin/sh\n[ "$1" = run ] || exit 0\nshift\necho "tidy: using config /etc/tidyrc"\n' \
        'echo "tidy: running $*"\nexec "$@"\n'
_GREET = '#!/bin/sh\ncase "$1" in\n  ada|grace) echo "hello, $1" ;;\n' \
         '  *) echo "error: guest $1 not found in guests.txt" >&2; exit 2 ;;\nesac\n'
_TIDY_TOML = """\
name = "tidy"
[launcher]
subcommands = ["run"]
[[noise]]
pattern = "^tidy: using config"
"""


def _greet_py() -> str:
    """docs/adapters.md's Python greet adapter, as written there."""
    doc = (ROOT / "docs" / "adapters.md").read_text()
    found = re.search(r"```python\n# file: ~/.config/agentwrap/adapters/greet.py\n(.*?)```", doc, re.S)
    assert found
    return found[1]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    bin_dir, adapters = tmp_path / "bin", tmp_path / "adapters"
    for folder in (bin_dir, adapters):
        folder.mkdir()
    for name, text in (("tidy", _TIDY), ("greet", _GREET)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (adapters / "tidy.toml").write_text(_TIDY_TOML)
    (adapters / "greet.py").write_text(_greet_py())
    return {"AGENTWRAP_ADAPTER_DIR": str(adapters), "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_a_failure_the_launched_tools_rule_decides_names_the_launcher_and_the_tool(env: dict[str, str]) -> None:
    ans = aw("tidy", "run", "greet", "bob", env=env)
    assert ans.env["error"]["code"] == "GREET_GUEST_NOT_FOUND"
    assert ans.env["summary"] == "tidy run greet: the guest is not on the list"


def test_the_launched_tools_parser_reads_its_output_without_the_launchers_lines(env: dict[str, str]) -> None:
    ans = aw("tidy", "run", "greet", "ada", env=env)
    assert ans.env["data"] == {"greeted": "ada"}  # not "tidy: using config ...\ntidy: running greet ada\n..."
    assert ans.env["summary"] == "tidy run greet succeeded"
    assert "tidy: running greet ada" in ans.text()  # the output itself keeps every line
