"""A program agentwrap has no adapter for (a script run by its shebang) dies of an uncaught exception: the
fix points at what the concise envelope shows (the problem's location), not at a traceback it leaves out."""

from __future__ import annotations

import shutil

import pytest
from conftest import aw

# each script, and the line (counting the shebang) of the frame that raised
SCRIPTS = {"python3": ('def f(d):\n    return d["k"]\n\nf({})\n', 3),
           "node": ("function f(o) { return o.x.y; }\nf({});\n", 2)}


@pytest.mark.parametrize("interpreter", sorted(SCRIPTS))
def test_the_fix_names_nothing_the_concise_envelope_leaves_out(tmp_path, interpreter):
    if not shutil.which(interpreter):
        pytest.skip(f"{interpreter} not installed")
    script = tmp_path / "boom"
    source, line = SCRIPTS[interpreter]
    script.write_text(f"#!/usr/bin/env {interpreter}\n{source}")
    script.chmod(0o755)
    a = aw("--cwd", str(tmp_path), "--", "./boom", detail="concise")
    error = a.error or {}
    assert error["code"] == "UNCAUGHT_EXCEPTION" and error["location"]["line"] == line
    fix = error["suggested_fix"]
    assert "output.stderr" not in fix  # the concise envelope leaves the traceback out: the problem stands for it
    assert "the location is" in fix  # the place the reader sees is what the fix points at
