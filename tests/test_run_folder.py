"""The per-run folder (shims, answers, `| tail` copies) does not outlive its run, even one ended by SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import aw


def _runs(tmp: Path) -> list[Path]:
    base = tmp / f"agentwrap-{os.getuid()}"
    return sorted(base.iterdir()) if base.exists() else []


def _start_sleeper(tmp: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "agentwrap", "--agent", "--", "sleep", "30"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 20
    while not _runs(tmp) and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc


def test_a_killed_runs_folder_is_removed_by_the_next_run(tmp_path: Path) -> None:
    proc = _start_sleeper(tmp_path)
    [left] = _runs(tmp_path)
    os.killpg(proc.pid, signal.SIGKILL)  # agentwrap and its sleep: nothing could clean up
    proc.wait()
    assert left.exists()
    assert aw("--", "true", env={"TMPDIR": str(tmp_path)}).code == 0
    assert _runs(tmp_path) == []  # the dead run's and this run's both gone


def test_a_running_runs_folder_is_kept(tmp_path: Path) -> None:
    proc = _start_sleeper(tmp_path)
    try:
        [running] = _runs(tmp_path)
        assert aw("--", "true", env={"TMPDIR": str(tmp_path)}).code == 0
        assert _runs(tmp_path) == [running]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_a_folder_others_can_open_is_not_used(tmp_path: Path) -> None:
    planted = tmp_path / f"agentwrap-{os.getuid()}"
    planted.mkdir(mode=0o755)
    planted.chmod(0o755)
    (planted / "0-1-keep").mkdir()
    answer = aw("--", "true", env={"TMPDIR": str(tmp_path)})
    assert answer.code == 0
    assert [p.name for p in planted.iterdir()] == ["0-1-keep"]  # neither used nor swept
    assert [p.name for p in tmp_path.iterdir()] == [planted.name]  # the run's own folder was removed
