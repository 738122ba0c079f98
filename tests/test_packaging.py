"""An installed copy holds every data file the package reads: the tests run from the checkout, where a
file missing from pyproject's package-data is still found, so only this test sees it (a `pip install .`
once lacked safety/dry_runs.toml and every --timeout run ended INTERNAL)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agentwrap"


def test_every_data_file_of_the_package_is_in_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["agentwrap"]
    shipped = {path for pattern in patterns for path in PACKAGE.glob(pattern)}
    data = {path for path in PACKAGE.rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts}
    assert sorted(str(p.relative_to(PACKAGE)) for p in data - shipped) == []
