"""The operation store's writes are whole to any reader: a writer process rewrites state.json as fast as it
can while this process reads it; every read parses. (A plain open-write-close fails this at once.)"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from agentwrap.operations import store
from tests.conftest import ROOT

_WRITER = """
import sys
from pathlib import Path
from agentwrap.operations import store
path = Path(sys.argv[1])
blob = "x" * 200_000
for i in range(int(sys.argv[2])):
    store.write_json(path, {"state": "running", "i": i, "blob": blob})
"""


def test_readers_never_see_half_a_state(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    store.write_json(target, {"state": "starting"})
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(target), "300"], cwd=ROOT)
    reads = 0
    deadline = time.monotonic() + 60
    while writer.poll() is None and time.monotonic() < deadline:
        value = json.loads(target.read_bytes())  # raises on a torn read
        assert value["state"] in ("starting", "running")
        reads += 1
    assert writer.wait(timeout=60) == 0
    assert reads > 10
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_events_are_read_whole_lines_only(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text('{"sequence": 1}\n{"sequence": 2}\n{"sequen')  # the third is still being written
    assert [e["sequence"] for e in store.read_events(tmp_path)] == [1, 2]
    assert store.read_events(tmp_path, after=2) == []
