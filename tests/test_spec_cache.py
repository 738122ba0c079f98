"""A spec is parsed and checked once: later runs read the checked data back, until the file, agentwrap or
the checker changes; a cache that cannot be used never changes what a spec says, nor fails a run."""

from __future__ import annotations

import os
import time
import tomllib
from pathlib import Path

import pytest

import agentwrap
from agentwrap import spec_cache
from agentwrap.spec import Spec, SpecError

ADAPTERS = Path(agentwrap.__file__).parent / "adapters"
BUILT_IN = sorted([*ADAPTERS.glob("*.toml"), *ADAPTERS.glob("*/*.toml")])
SPEC = """name = "tiny"
matches = ["tiny"]

[[rules]]
code = "TINY_BROKE"
pattern = '^tiny: broke'
title = "tiny broke"
category = "validation"
status = 422
retryable = false
safe_to_retry = true
suggested_fix = "Mend tiny."
"""


def _aged(path: Path, seconds: float = 60) -> None:
    """A file last changed a while ago: one changed in the last two seconds is never kept."""
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("path", BUILT_IN, ids=lambda p: str(p.relative_to(ADAPTERS)))
def test_a_kept_built_in_spec_is_the_spec_its_toml_says(path: Path, cache: Path) -> None:
    parsed = tomllib.loads(path.read_text(encoding="utf-8"))
    try:
        first = Spec.from_toml(path)
    except SpecError:  # a fragment (terraform's blocks) is read by its adapter through other means
        pytest.skip(f"{path.name} is not a spec of its own")
    kept = spec_cache.load(str(path))
    assert kept == parsed  # JSON holds every value a spec has, unchanged
    assert vars(Spec(kept, str(path))).keys() == vars(first).keys()


def test_the_second_load_reads_the_kept_data_and_parses_nothing(tmp_path: Path, cache: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    _aged(path)
    first = Spec.from_toml(path)
    monkeypatch.setattr(tomllib, "load", lambda f: pytest.fail("parsed again"))
    again = Spec.from_toml(path)
    assert [r.code for r in again.rules] == [r.code for r in first.rules] == ["TINY_BROKE"]
    assert again.rules[0].pattern.search("tiny: broke")


def test_an_edited_spec_is_parsed_and_checked_again(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    _aged(path, 120)
    Spec.from_toml(path)
    path.write_text(SPEC.replace("TINY_BROKE", "TINY_FAILED"))
    _aged(path, 60)
    assert [r.code for r in Spec.from_toml(path).rules] == ["TINY_FAILED"]
    path.write_text(SPEC.replace("status = 422", "status = 'bad'"))
    _aged(path, 30)
    with pytest.raises(SpecError):  # the checker runs on the edited file: nothing kept stands for it
        Spec.from_toml(path)


def test_a_spec_changed_just_now_is_not_kept(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    Spec.from_toml(path)
    assert spec_cache.load(str(path)) is None


def test_a_spec_that_fails_its_check_is_never_kept(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC.replace("pattern = '^tiny: broke'", "pattern = '(unclosed'"))
    _aged(path)
    for _ in range(2):
        with pytest.raises(SpecError, match="invalid regular expression"):
            Spec.from_toml(path)
    assert not (cache / "specs").exists() or not any((cache / "specs").iterdir())


def test_a_cache_that_cannot_be_written_or_read_only_costs_the_parse(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(blocker))
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    _aged(path)
    assert [r.code for r in Spec.from_toml(path).rules] == ["TINY_BROKE"]
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path / "cache"))
    Spec.from_toml(path)
    (kept,) = (tmp_path / "cache" / "specs").iterdir()
    kept.write_text("{not json")
    assert [r.code for r in Spec.from_toml(path).rules] == ["TINY_BROKE"]


def test_a_kept_spec_that_others_could_have_written_is_not_read(tmp_path: Path, cache: Path) -> None:
    """A spec's rules carry fixes and commands an agent may run: a cache file another user could write (a
    shared cache folder) never stands for them."""
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    _aged(path)
    Spec.from_toml(path)
    (kept,) = (cache / "specs").iterdir()
    assert spec_cache.load(str(path)) is not None
    assert kept.stat().st_mode & 0o077 == 0  # written private, whatever the umask
    os.chmod(kept, 0o666)
    assert spec_cache.load(str(path)) is None
    os.chmod(kept, 0o600)
    os.chmod(cache / "specs", 0o777)
    assert spec_cache.load(str(path)) is None
    assert [r.code for r in Spec.from_toml(path).rules] == ["TINY_BROKE"]  # parsed instead


def test_the_kept_specs_stay_bounded_and_the_newest_stay(tmp_path: Path, cache: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec_cache, "MAX_KEPT", 3)
    paths = []
    for i in range(5):
        path = tmp_path / f"tiny{i}.toml"
        path.write_text(SPEC)
        _aged(path)
        Spec.from_toml(path)
        paths.append(path)
        time.sleep(0.01)  # distinct modification times for the kept files
    assert len(list((cache / "specs").iterdir())) == 3
    assert [spec_cache.load(str(p)) is not None for p in paths] == [False, False, True, True, True]
