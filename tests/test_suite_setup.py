"""The suite's own set-up (conftest.py): what it promises the tests and the children they start."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

from conftest import ROOT


def test_every_module_of_the_package_has_a_current_pyc_for_the_children():
    """conftest compiles the package before the workers start, so a `python -m agentwrap` child reads
    .pyc files even under PYTHONDONTWRITEBYTECODE (else each child compiled the package again)."""
    stale = []
    for source in sorted((ROOT / "agentwrap").rglob("*.py")):
        try:
            header = Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
        except FileNotFoundError:
            stale.append(str(source.relative_to(ROOT)))
            continue
        flags, mtime = struct.unpack("<4xII", header[:12])
        if flags == 0 and mtime != int(source.stat().st_mtime) & 0xFFFFFFFF:  # timestamp-checked .pyc
            stale.append(str(source.relative_to(ROOT)))
    assert stale == []
