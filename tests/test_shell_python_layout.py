"""Shell lines where pytest ran but another command decided (`pytest -q; echo $?`): pytest drew its report for
a 250-column terminal, and what the envelope shows of it is laid out as pytest's own run is, never padded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

FAILING = "def test_ok():\n    assert 1\n\n\ndef test_bad():\n    x = 3\n    assert x == 4\n"


def test_pytest_before_the_deciding_command_keeps_its_facts_without_its_terminal_layout(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(FAILING)
    line = "python3 -m pytest -q -p no:cacheprovider; echo \"exit: $?\""
    answer = aw("--cwd", str(tmp_path), "--shell", line, detail="concise")
    assert answer.env["summary"] == "echo succeeded"
    text = answer.env["output"]["stdout"]["text"]
    assert "=" * 8 not in text and "        [100%]" not in text  # no terminal-wide rule nor padded `[100%]`
    for fact in ("test_bad", "assert 3 == 4", "test_a.py:7: AssertionError", "FAILED test_a.py::test_bad",
                 "1 failed, 1 passed", "exit: 1"):
        assert fact in text
    assert "=== FAILURES ===" in text  # a rule is shortened, not dropped: it still says what follows


def test_a_file_printed_beside_pytest_keeps_its_own_rules(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(FAILING)
    (tmp_path / "notes.md").write_text("Title\n" + "=" * 40 + "\n")
    line = "python3 -m pytest -q -p no:cacheprovider; cat notes.md"
    text = aw("--cwd", str(tmp_path), "--shell", line, detail="concise").env["output"]["stdout"]["text"]
    assert text.endswith("Title\n" + "=" * 40 + "\n")  # only pytest's text is laid out anew
