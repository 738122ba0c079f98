"""What start-up does (never how long it takes: that is bench/run.py's job): the plugin index without
importlib.metadata, and the runner's own spawn and hand-over doing what subprocess and queue did."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentwrap import plugin_index
from agentwrap.runner.relay import ThreadedSink

ROOT = Path(__file__).resolve().parent.parent
AN_HOUR_AGO = time.time_ns() - 3600 * 10**9


def _dist(folder: Path, name: str, entry_points: str | None) -> Path:
    info = folder / name
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.split('-')[0]}\nVersion: 1\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    return info


def _age(*paths: Path) -> None:
    """Old timestamps: a folder changed within the last two seconds is never trusted (and always rescanned)."""
    for i, path in enumerate(paths):
        os.utime(path, ns=(AN_HOUR_AGO + i, AN_HOUR_AGO + i))


def _ep(*pairs: str, other: str = "") -> str:
    return "[console_scripts]\nx = y:z\n" + other + "\n[agentwrap.adapters]\n" + "\n".join(pairs) + "\n"


@pytest.fixture
def site(tmp_path, monkeypatch):
    """sys.path = [a working directory, two site folders]; the index cached under tmp_path/cache."""
    work, first, second = tmp_path / "work", tmp_path / "site1", tmp_path / "site2"
    for folder in (work, first, second):
        folder.mkdir()
    monkeypatch.setenv("AGENTWRAP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AGENTWRAP_ADAPTERS", raising=False)
    monkeypatch.setattr(sys, "path", ["", str(first), str(second)])
    monkeypatch.chdir(work)
    return work, first, second


def test_the_index_is_what_importlib_metadata_finds(site):
    work, first, second = site
    _dist(first, "Foo_Bar-1.0.dist-info", _ep("foo = foo:A", "shared = foo:S", other="# a comment"))
    _dist(first, "zed-2.dist-info", _ep("  zed=zed:Z  "))
    _dist(first, "nothing-1.dist-info", None)
    (first / "old-1.0.egg-info").write_text("Metadata-Version: 1.0\nName: old\n")  # distutils: a file
    _dist(second, "foo.bar-2.0.dist-info", _ep("foo = hidden:A"))  # same distribution: the first one wins
    _dist(second, "other-1.egg-info", _ep("shared = other:S", "bare = x:y"))
    from importlib.metadata import entry_points

    expected = {ep.name: ep.value for ep in entry_points(group=plugin_index.GROUP)}
    assert expected == {"foo": "foo:A", "shared": "other:S", "zed": "zed:Z", "bare": "x:y"}
    assert plugin_index.read_entry_points() == expected
    assert plugin_index.read_entry_points() == expected  # again, from the cache


def test_installing_removing_and_rewriting_a_plugin_are_seen(site, tmp_path):
    work, first, second = site
    info = _dist(first, "plug-1.dist-info", _ep("echo = plug:A"))
    _age(info / "entry_points.txt", info, first)
    assert plugin_index.read_entry_points() == {"echo": "plug:A"}
    cache = tmp_path / "cache" / "entry-points.json"
    assert json.loads(cache.read_text())["folders"][str(first)]["dists"][0][0] == "plug-1.dist-info"

    (info / "entry_points.txt").write_text(_ep("echo = plug:B", "cat = plug:C"))  # in place, as egg_info does
    _age(info / "entry_points.txt", info, first)
    assert plugin_index.read_entry_points() == {"echo": "plug:B", "cat": "plug:C"}

    other = _dist(second, "more-1.dist-info", _ep("grep = more:G"))
    _age(other / "entry_points.txt", other, second)
    assert plugin_index.read_entry_points() == {"echo": "plug:B", "cat": "plug:C", "grep": "more:G"}

    shutil.rmtree(info)  # uninstalled
    os.utime(first, ns=(AN_HOUR_AGO + 100, AN_HOUR_AGO + 100))
    assert plugin_index.read_entry_points() == {"grep": "more:G"}


def test_a_busy_working_directory_does_not_rewrite_the_cache(site, tmp_path):
    work, first, _ = site
    info = _dist(first, "plug-1.dist-info", _ep("echo = plug:A"))
    _age(info / "entry_points.txt", info, first, work)
    assert plugin_index.read_entry_points() == {"echo": "plug:A"}
    cache = tmp_path / "cache" / "entry-points.json"
    written = cache.stat().st_mtime_ns, cache.read_bytes()
    for i in range(3):
        (work / f"edited-{i}.txt").write_text("x")
        os.utime(work, ns=(AN_HOUR_AGO + 10 + i, AN_HOUR_AGO + 10 + i))
        assert plugin_index.read_entry_points() == {"echo": "plug:A"}
    assert (cache.stat().st_mtime_ns, cache.read_bytes()) == written
    # ...unless it holds a distribution of its own (a source checkout with an egg-info beside setup.py)
    _dist(work, "mine-1.egg-info", _ep("make = mine:M"))
    assert plugin_index.read_entry_points() == {"make": "mine:M", "echo": "plug:A"}


def test_a_damaged_or_old_cache_is_rebuilt(site, tmp_path):
    _, first, _ = site
    _age(_dist(first, "plug-1.dist-info", _ep("echo = plug:A")), first)
    cache = tmp_path / "cache" / "entry-points.json"
    cache.parent.mkdir()
    for content in ('{"stamp": [1, 2], "index": {"echo": "stale:X"}}',
                    json.dumps({"version": 2, "folders": {str(first): {"mtime": 1, "dists": [[1]]}}}),
                    '{"version": 2, "folders": []}', "not json"):
        cache.write_text(content)
        assert plugin_index.read_entry_points() == {"echo": "plug:A"}


def _imports(env: dict[str, str], cwd: Path, *argv: str) -> str:
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=60, stdin=subprocess.DEVNULL)
    return proc.stderr


def test_a_plain_run_imports_no_importlib_metadata(tmp_path):
    """Reading it costs ~10-25 ms; it is imported only where sys.path holds zip files or custom finders."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("AGENTWRAP_ADAPTERS", None)
    if "importlib.metadata" in _imports(env, tmp_path, "-c", "pass"):
        pytest.skip("this interpreter imports importlib.metadata at start-up (a .pth file)")
    first = _imports(env, tmp_path, "-m", "agentwrap", "--agent", "true")
    (tmp_path / "a-new-file").write_text("the working directory changed")
    second = _imports(env, tmp_path, "-m", "agentwrap", "--agent", "true")
    assert "agentwrap.commands.run" in first and "agentwrap.commands.run" in second
    assert "importlib.metadata" not in first
    assert "importlib.metadata" not in second


def _wrapped(tmp_path: Path, script: str, **kw: object) -> str:
    """Run `sh -c SCRIPT` under agentwrap; SCRIPT writes what it found to a file (the envelope is not read)."""
    out = tmp_path / "out.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENTWRAP_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-m", "agentwrap", "--agent", "--", "sh", "-c", f"{{ {script}; }} > {out}"],
                   capture_output=True, env=env, timeout=60, stdin=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    return out.read_text()


def test_the_program_gets_default_sigpipe_and_no_inherited_descriptor(tmp_path):
    r, w = os.pipe()
    leaked = os.dup2(w, 60, inheritable=True)  # inherited by agentwrap, as a build tool's descriptors are
    try:
        status = _wrapped(tmp_path, "grep -E '^SigIgn' /proc/self/status; ls /proc/self/fd", pass_fds=(leaked,))
    finally:
        for fd in (r, w, leaked):
            os.close(fd)
    ignored = int(status.split()[1], 16)
    assert not ignored & 1 << (13 - 1)  # SIGPIPE: Python ignores it, the program must not
    fds = {int(x) for x in status.split()[2:]}
    assert {0, 1, 2} <= fds and leaked not in fds, fds


def test_the_program_runs_in_its_own_session_with_the_terminal_as_controlling_tty(tmp_path):
    found = _wrapped(tmp_path, "echo $$; cat /proc/self/stat; echo; tty")
    shell_pid, stat = found.split("\n")[0], found.split("\n")[1]
    _state, _ppid, _pgrp, session, tty_nr = stat.rsplit(")", 1)[1].split()[:5]
    assert session == shell_pid  # the shell leads a session of its own
    assert tty_nr != "0"  # ... whose controlling terminal is the one agentwrap gave it
    assert "/dev/pts/" in found


class _Recorder:
    def __init__(self, fail_on: bytes | None = None) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.fail_on = fail_on
        self.threads: set[int] = set()

    def output(self, stream: str, data: bytes) -> None:
        self.threads.add(threading.get_ident())
        if data == self.fail_on:
            raise ValueError("sink failed")
        time.sleep(0.001)
        self.got.append((stream, data))

    def prompt_text(self) -> str:
        return f"{len(self.got)} batches"

    def event(self, kind: str, payload: dict[str, object]) -> None:
        self.got.append((kind, b""))


def test_the_hand_over_keeps_order_flushes_and_reraises():
    sink = _Recorder()
    relay = ThreadedSink(sink)
    relay.close()  # nothing handed over: no worker was started
    assert sink.threads == set()

    relay = ThreadedSink(sink)
    batches = [("stdout" if i % 3 else "stderr", str(i).encode()) for i in range(50)]
    for stream, data in batches:
        relay.output(stream, data)
    assert relay.prompt_text() == "50 batches"  # waits for every batch before
    relay.event("prompt_detected", {})
    relay.close()
    assert sink.got == [*batches, ("prompt_detected", b"")]
    assert sink.threads and threading.get_ident() not in sink.threads

    failing = ThreadedSink(_Recorder(fail_on=b"bad"))
    failing.output("stdout", b"bad")
    failing.output("stdout", b"ignored after a failure")
    with pytest.raises(ValueError, match="sink failed"):
        failing.flush()
    failing.close()
