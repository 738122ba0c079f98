"""A long `git log` read through `agentwrap --agent`: its commits are sent once, as data or as text, never
both, and the envelope is not larger than git's own output. Real git in scratch repositories, as many
commits as a tester's history (~90) with long and short subjects; raw and concise sizes are compared."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ENV = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@t",
       "GIT_CONFIG_NOSYSTEM": "1"}
FRAME = 300  # the envelope's own members: schema_version, status, summary, a note of what was cut
LONG = "update the docs for release {i} and mention the new flags, the config file and its options"


def _history(path: Path, commits: int, long: bool) -> Path:
    """A repository of `commits` empty commits, one a minute, whose subjects are long (or short) and varied."""
    path.mkdir()
    env = {**os.environ, **ENV, "GIT_CONFIG_GLOBAL": str(path / "gitconfig")}
    (path / "gitconfig").write_text("")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, env=env, check=True)
    for i in range(commits):
        subject = LONG.format(i=i) if long and i % 2 else (f"fix {i}" if i % 3 else f"refactor the module {i}")
        stamp = f"2024-01-01T{i // 60:02d}:{i % 60:02d}:00Z"
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", subject], cwd=path, check=True,
                       env={**env, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return path


def _raw(path: Path, *args: str) -> str:
    env = {**os.environ, **ENV, "GIT_CONFIG_GLOBAL": str(path / "gitconfig")}
    return subprocess.run(["git", *args], cwd=path, env=env, capture_output=True, text=True, check=True).stdout


def _concise(path: Path, *args: str):
    """`agentwrap --agent [OPTIONS] -- git ARGS` in `path`: options come before `log`."""
    env = {**ENV, "GIT_CONFIG_GLOBAL": str(path / "gitconfig")}
    cut = args.index("log")
    return aw("--cwd", str(path), *args[:cut], "git", *args[cut:], env=env, detail="concise")


def _says_each_commit_once(env: dict, raw: str, oneline: bool) -> None:
    """Data or text, never both; every commit named (or the cut counted, the whole log in an artifact)."""
    subjects = [line.split(" ", 1)[1] for line in _raw_oneline(raw, oneline)]
    text = env.get("output", {}).get("stdout", {}).get("text", "")
    data = env.get("data") or {}
    assert not (text and data.get("commits")), "the text and the data say the same commits: one of them goes"
    if data.get("commits"):
        commits = data["commits"]
        omitted = data.get("commits_omitted", 0)
        assert len(commits) + omitted == len(subjects)
        assert [c["subject"] for c in commits] == subjects[:len(commits)], "each kept commit keeps its subject"
        assert all(len(c["abbrev"]) >= 7 for c in commits), "and its abbreviated sha"
        if omitted or (any("date" not in c for c in commits) and "date" not in data):
            warning = next(w for w in env.get("warnings", []) if w["code"] == "DATA_TRUNCATED")
            assert "art_" in warning["message"], "what the data left out is said, and where the whole log is"
    else:
        stream = env["output"]["stdout"]
        assert text.count("\n") > 1
        if stream.get("truncated"):
            assert stream["artifact"]
        else:
            assert all(s in text for s in subjects)


def _raw_oneline(raw: str, oneline: bool) -> list[str]:
    """`SHA SUBJECT` for each commit of `raw` (git's --oneline text, or its default format)."""
    if oneline:
        return [line.split(" ", 1)[0] + " " + _subject_of(line) for line in raw.splitlines()]
    out, sha = [], ""
    for line in raw.splitlines():
        if line.startswith("commit "):
            sha = line.split()[1]
        elif line.startswith("    ") and sha:
            out.append(f"{sha} {line[4:]}")
            sha = ""
    return out


def _subject_of(line: str) -> str:
    rest = line.split(" ", 1)[1]
    return rest.split(") ", 1)[1] if rest.startswith("(") else rest


@pytest.fixture(scope="module")
def histories(tmp_path_factory) -> dict[bool, Path]:
    return {long: _history(tmp_path_factory.mktemp("git") / "repo", 90, long) for long in (True, False)}


@pytest.mark.parametrize("long", [True, False], ids=["long-subjects", "short-subjects"])
@pytest.mark.parametrize("count", [20, 40, 90])
def test_a_logs_concise_envelope_says_each_commit_once_and_is_no_larger_than_the_log(histories, long, count):
    path = histories[long]
    raw = _raw(path, "log", f"-{count}")
    a = _concise(path, "log", f"-{count}")
    _says_each_commit_once(a.env, raw, oneline=False)
    assert len(a.stdout) <= len(raw.encode()) + FRAME, (len(a.stdout), len(raw.encode()))


@pytest.mark.parametrize("long", [True, False], ids=["long-subjects", "short-subjects"])
@pytest.mark.parametrize("count", [20, 40, 90])
def test_a_oneline_logs_concise_envelope_is_no_larger_than_its_text(histories, long, count):
    """--oneline is already the cheapest faithful form of a log: its data would add a key per commit."""
    path = histories[long]
    raw = _raw(path, "log", "--oneline", f"-{count}")
    a = _concise(path, "log", "--oneline", f"-{count}")
    _says_each_commit_once(a.env, raw, oneline=True)
    assert len(a.stdout) <= len(raw.encode()) + FRAME, (len(a.stdout), len(raw.encode()))


def test_a_log_over_the_data_bound_keeps_every_commits_identity_and_says_what_it_left_out(histories):
    """Over the bound each commit loses its date before any commit is left out; the note names the artifact,
    which holds git's whole log."""
    path = histories[True]
    first = _raw(path, "log", "--reverse", "--format=%H").split()[0]
    env = _concise(path, "--max-inline-bytes", "2048", "log").env
    assert "output" not in env, "the data names the commits: no cut copy of the text beside it"
    data = env["data"]
    assert data["commits_omitted"] and len(data["commits"]) + data["commits_omitted"] == 90
    assert set(data["commits"][0]) <= {"abbrev", "subject"}
    warning = next(w for w in env["warnings"] if w["code"] == "DATA_TRUNCATED")
    assert "date" in warning["message"] and str(data["commits_omitted"]) in warning["message"]
    artifact = next(word.rstrip(".;,") for word in warning["message"].split() if word.startswith("art_"))
    shown = aw("artifact", "show", artifact, "--grep", first).env
    assert f"commit {first}" in json.dumps(shown), "the oldest commit, which the data left out, is in the artifact"
