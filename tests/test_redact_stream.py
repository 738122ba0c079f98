"""Redaction of what streams through a real run: the artifact is redacted exactly like the inline text,
whatever the line length (a line leaves the screen a row at a time, and a long one is cut)."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import aw

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2  # a GitHub token shape (not a real one)


def _artifact_text(env: dict) -> str:  # type: ignore[type-arg]
    uri = env["artifacts"][0]["uri"]
    return Path(uri.removeprefix("file://")).read_text()


def test_tokens_straddling_rows_and_the_line_cut_are_redacted_in_the_artifact(tmp_path: Path) -> None:
    # a token across the 250-column row boundaries, across the 1 MiB cut, and one at the very end
    line = ("x" * 240 + " " + TOKEN + " ") * 5000
    cut = (1 << 20) - 20
    line = line[:cut] + " " + TOKEN + " " + "y" * 600_000 + " " + TOKEN
    script = tmp_path / "p.py"
    script.write_text(f"import sys\nline = {line!r}\nfor i in range(0, len(line), 4099):\n"
                      f"    sys.stdout.write(line[i:i + 4099]); sys.stdout.flush()\nprint()\n")
    result = aw("--cwd", str(tmp_path), "--", sys.executable, str(script), timeout=120).env
    assert "ghp_" not in result["output"]["stdout"]["text"]
    stored = _artifact_text(result)
    assert "ghp_" not in stored
    assert stored.count("[REDACTED]") == line.count(TOKEN)


def _through_pipeline(data: bytes, chunk: int, root: Path) -> tuple[str, str]:
    from agentwrap.artifacts import ArtifactStore
    from agentwrap.pipeline import Pipeline

    pipeline = Pipeline(max_inline_bytes=4096, store=ArtifactStore(root), secrets=[])
    for start in range(0, len(data), chunk):
        pipeline.output("stdout", data[start:start + chunk])
    result = pipeline.finish()["stdout"]
    assert result.artifact is not None
    return result.text, Path(result.artifact.path).read_text()


def test_the_pipeline_redacts_whole_lines_however_the_bytes_arrive(tmp_path: Path) -> None:
    # rows of a long line leave the screen one by one: a token across a row and a read boundary
    line = ("x" * 240 + " " + TOKEN + " ") * 300 + "\n"
    cut = (1 << 20) - 20
    huge = "z " * (cut // 2) + TOKEN + " " + "y" * 10_000 + "\n"
    data = (line * 3 + huge + line).encode()
    for chunk in (997, 4096, 1 << 18):
        inline, stored = _through_pipeline(data, chunk, tmp_path / str(chunk))
        assert "ghp_" not in inline
        assert "ghp_" not in stored
        assert stored.count("[REDACTED]") == data.count(TOKEN.encode())
