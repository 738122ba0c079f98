"""The built-in diagnostic formats (agentwrap/formats/*.toml) load, and each matcher is well formed."""

from __future__ import annotations

import pytest

from agentwrap.logs import formats

FORMATS = formats.builtin()


@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name for f in FORMATS])
def test_each_format_loads_with_a_purpose_and_programs(fmt):
    data = formats.load_toml(formats.BUILTIN_DIR / f"{fmt.name}.toml")
    assert data.matches and data.matchers
    import tomllib

    raw = tomllib.loads((formats.BUILTIN_DIR / f"{fmt.name}.toml").read_text())
    assert raw.get("purpose"), f"{fmt.name}: purpose is empty"
    for m in fmt.matchers:
        assert "file" in m.patterns[0].groups or any("file" in p.groups for p in m.patterns), m.owner


def test_format_names_are_unique_and_match_their_file():
    names = [f.name for f in FORMATS]
    assert len(names) == len(set(names))
    assert all(f.source.endswith(f"/{f.name}.toml") for f in FORMATS)


def test_the_program_index_agrees_with_each_file():
    expected = {}
    for fmt in FORMATS:
        for name in (fmt.name, *fmt.matches):
            expected.setdefault(name, fmt.name)
    assert formats.PROGRAMS == expected
