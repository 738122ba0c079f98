"""tar's failures, from real runs: a missing archive is TAR_NO_SUCH_FILE whether tar opens it itself or its
compression child does (`tar (child): missing.tgz: Cannot open: ...` for -z), never a bare COMMAND_FAILED."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("tar") or not shutil.which("gzip"), reason="needs GNU tar, gzip")


@pytest.mark.parametrize("args", [("xf",), ("xzf",), ("tzf",), ("-xzvf",)])
def test_a_missing_archive_is_named_with_or_without_a_compression_child(tmp_path: Path, args: tuple[str, ...]):
    a = aw("--", "tar", *args, "missing.tgz", cwd=tmp_path)
    error = a.env["error"]
    assert error["code"] == "TAR_NO_SUCH_FILE", error
    assert error["safe_to_retry"] is True and error["detail"] == "missing.tgz does not exist"
    assert error["location"] == {"file": "missing.tgz"}
