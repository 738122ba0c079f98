"""--read-only is judged by the program's own adapter, whatever reads its output: `--adapter NAME` forces a
reader that knows another program's effects (grep's "read-only" must not let `rm` run), and `--no-adapter`
reads the output plainly but does not forget that `git status` changes nothing (`timeout 30 git status` runs
under the same flags, and so must `git status`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    (folder / "victim").write_text("keep me\n")
    return folder


@pytest.mark.parametrize("flags", [["--adapter", "grep"], ["--adapter", "ls"], ["--adapter", "curl"],
                                   ["--adapter", "grep", "--detach"],
                                   ["--adapter", "grep", "--idempotency-key", "k1"]])
def test_a_forced_reader_does_not_make_a_mutation_read_only(work: Path, flags: list[str]) -> None:
    got = aw(*flags, "--read-only", "--", "rm", "victim", cwd=work, env={"AGENTWRAP_STATE_DIR": str(work.parent)})
    assert got.code == 125 and got.env["error"]["code"] == "MUTATION_REFUSED", got.env
    assert "`rm`" in got.env["error"]["detail"]
    assert (work / "victim").read_text() == "keep me\n"  # nothing ran


@pytest.mark.parametrize("words", [["git", "status"], ["timeout", "30", "git", "status"]])
def test_no_adapter_keeps_what_the_program_is_known_to_do(work: Path, words: list[str]) -> None:
    got = aw("--no-adapter", "--read-only", "--", *words, cwd=work)
    assert got.code == 0 and got.env["status"] == "success", got.env
    assert "victim" in got.env["output"]["stdout"]["text"]  # read plainly: the generic reader's text
    assert "data" not in got.env or not got.env["data"]


def test_no_adapter_still_refuses_a_mutation_and_offers_its_dry_run(work: Path) -> None:
    got = aw("--no-adapter", "--read-only", "--", "git", "push", "origin", "main", cwd=work)
    assert got.code == 125 and got.env["error"]["code"] == "MUTATION_REFUSED"
    assert got.env["error"]["read_only_alternative"] == ["git", "push", "--dry-run", "origin", "main"]


def test_mcp_run_read_only_judges_the_program_not_the_forced_adapter(work: Path,
                                                                     result_schema: dict[str, Any]) -> None:
    pytest.importorskip("mcp")
    from tests.test_mcp import _connect, _structured

    got: dict[str, Any] = {}

    async def body(client: Any) -> None:
        got["rm"] = await client.call_tool("run_read_only", {"argv": ["rm", "victim"], "adapter": "grep",
                                                             "cwd": str(work)})

    _connect(work, body)
    assert _structured(got["rm"], result_schema)["error"]["code"] == "MUTATION_REFUSED"
    assert (work / "victim").exists()
