"""Read commands under `--agent` (issue 7): each fact once, in the form that costs fewer tokens, and no
line of a change, a commit or a package lost. Real git and pip runs; the standard envelope keeps all."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, aw

from agentwrap import fixtures, registry
from agentwrap.artifacts import ArtifactStore
from agentwrap.outcome import bound, lean, patch
from agentwrap.render import views

pytestmark = pytest.mark.skipif(not os.path.exists("/usr/bin/git"), reason="git not installed")
GENV = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com", "GIT_AUTHOR_DATE": "2024-09-01T12:00:00+00:00",
        "GIT_COMMITTER_DATE": "2024-09-01T12:00:00+00:00"}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=GENV, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Three files committed, then changed: one line that reads like a diff header (`-- a/x`, an SQL
    comment) is removed, one file is new and staged."""
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "q.sql").write_text("select 1;\n-- a/x\nselect 2;\n")
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("".join(f"line_{i} = {i}  # a line of {name}\n" for i in range(40)))
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "Import the files")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "Second commit", "-m", "Its body.")
    (tmp_path / "q.sql").write_text("select 1;\nselect 2;\n")
    for name in ("a.py", "b.py"):
        text = (tmp_path / name).read_text().replace("line_5 = 5", "line_5 = 50").replace("line_30", "line_thirty")
        (tmp_path / name).write_text(text)
    (tmp_path / "new.txt").write_text("new\n")
    git(tmp_path, "add", "new.txt")
    return tmp_path


def concise(repo: Path, *argv: str) -> dict:
    return aw("--cwd", str(repo), "--", *argv, detail="concise").env


def test_a_diff_shows_every_changed_line_once_without_its_repeated_headers(repo):
    raw = subprocess.run(["git", "-C", str(repo), "diff", "HEAD"], capture_output=True, text=True, env=GENV).stdout
    env = concise(repo, "git", "diff", "HEAD")
    text = env["output"]["stdout"]["text"]
    assert "truncated" not in env["output"]["stdout"], "a diff of 2 KB is not cut to a quarter of the budget"
    changed = [line for line in raw.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed and all(line in text.splitlines() for line in changed)
    assert "--- a/x" in text.splitlines(), "a hunk's removed line `-- a/x` is content, not a header"
    assert "data" not in env, "the patch shows the files and counts the data holds"
    assert "index " not in text and "--- a/a.py" not in text and "+++ b/a.py" not in text
    assert "diff --git a/a.py b/a.py" in text and "--- /dev/null\n+++ b/new.txt" in text, "a new file says so"
    standard = aw("--cwd", str(repo), "--", "git", "diff", "HEAD").env
    assert standard["data"]["files_changed"] == 4 and "--- a/a.py" in standard["output"]["stdout"]["text"]


def test_patch_kinds_follow_the_hunk_header_counts():
    lines = ["diff --git a/q b/q", "index 1234567..89abcde 100644", "--- a/q", "+++ b/q", "@@ -1,3 +1,2 @@",
             " one", "--- a/x", " two", "diff --git a/r b/r", "old mode 100644", "new mode 100755"]
    kinds = patch.kinds(lines)
    assert kinds == [patch.OTHER, patch.DROP, patch.DROP, patch.DROP, *[patch.HUNK] * 4, *[patch.OTHER] * 3]
    merge = ["diff --cc f", "index 1234567,89abcde..0123456", "@@@ -1,1 -1,1 +1,1 @@@", "- one", " -two", "++both",
             "diff --cc g"]
    assert patch.kinds(merge) == [patch.OTHER, patch.DROP, *[patch.HUNK] * 4, patch.OTHER]


def test_a_log_says_the_shared_author_once_and_keeps_every_commit(repo):
    env = concise(repo, "git", "log", "-n", "20")
    assert env["summary"] == "2 commits"
    data = env["data"]
    assert (data["author"], data["author_email"], data["date"]) == ("Ada", "ada@example.com", "2024-09-01T12:00:00Z")
    assert [c["subject"] for c in data["commits"]] == ["Second commit", "Import the files"]
    assert all("author" not in c and "date" not in c for c in data["commits"])
    assert data["commits"][0]["body"] == "Its body." and "count" not in data, "the summary counts them"
    standard = aw("--cwd", str(repo), "--", "git", "log", "-n", "20").env["data"]
    assert all(c["author"] == "Ada" and c["date"] for c in standard["commits"]), "the record keeps each one's"
    # Each commit is named by its 12-digit prefix, which git resolves to the full sha the record keeps.
    assert all("sha" not in c and len(c["abbrev"]) == 12 for c in data["commits"])
    for short, full in zip(data["commits"], standard["commits"], strict=True):
        named = subprocess.run(["git", "-C", str(repo), "rev-parse", short["abbrev"]], capture_output=True,
                               text=True, env=GENV, check=True).stdout.strip()
        assert named == full["sha"] and len(full["sha"]) == 40


def test_a_clean_status_is_its_summary(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty")
    env = concise(tmp_path, "git", "status")
    assert env == {"schema_version": "1.0", "status": "success", "summary": "on main: working tree clean"}


def test_a_status_in_step_with_its_upstream_says_so_without_zero_counts(tmp_path):
    origin, work = tmp_path / "origin", tmp_path / "work"
    git(tmp_path, "init", "-q", "-b", "main", str(origin))
    git(origin, "commit", "-q", "--allow-empty", "-m", "first")
    git(tmp_path, "clone", "-q", str(origin), str(work))
    assert concise(work, "git", "status")["summary"] == "on main (up to date with origin/main): working tree clean"
    git(work, "commit", "-q", "--allow-empty", "-m", "second")
    assert concise(work, "git", "status")["summary"] == "on main (origin/main: ahead 1): working tree clean"


def test_pip_list_is_sent_as_text_or_data_whichever_costs_fewer_tokens():
    env = aw("--", "pip", "list", detail="concise").env
    standard = aw("--", "pip", "list").env
    names = [p["name"] for p in standard["data"]["packages"]]
    text = env.get("output", {}).get("stdout", {}).get("text")
    assert ("data" in env) != (text is not None), "text or data, not both"
    sent = text if text is not None else json.dumps(env["data"])
    assert all(name in sent for name in names)
    as_data = json.dumps(bound.lean_data(standard["data"], ()), separators=(",", ":"))
    assert bound.token_estimate(json.dumps(sent)) <= bound.token_estimate(as_data)
    if text is not None:  # the table's cells one space apart, without the rule under the header
        assert text.startswith("Package Version") and "---" not in text.splitlines()[1]
        rows = [line for line in text.splitlines()[1:] if not line.startswith("…")]
        assert rows and not any("  " in row for row in rows)


def test_pip_show_leaves_out_empty_fields_only():
    env = aw("--", "pip", "show", "pytest", detail="concise").env
    assert env["summary"] == "1 package"
    blob = json.dumps(env)
    assert '"name":"pytest"' in blob.replace(" ", "") and "Home-page: \\n" not in blob


def test_the_token_estimate_ranks_padding_as_cheap():
    table = "".join(f"{name:<40} 1.0.{i}\n" for i, name in enumerate(("alpha", "beta", "gamma")))
    as_data = {"packages": [{"name": n, "version": f"1.0.{i}"} for i, n in enumerate(("alpha", "beta", "gamma"))]}
    assert len(json.dumps(table)) > len(json.dumps(as_data)), "in bytes the table looks dearer"
    assert bound.cheaper_as_text(table, as_data), "in tokens it is cheaper"


def replayed(adapter: str, name: str, tmp_path: Path) -> dict:
    case = fixtures.Case(adapter, name, ROOT / "fixtures" / adapter / name)
    record = fixtures.replay_record(registry.builtin(adapter), case, store=ArtifactStore(tmp_path))
    return views.concise(record)


def test_ls_sends_its_columns_one_space_apart_and_never_changes_a_name(tmp_path):
    text = replayed("ls", "long-listing", tmp_path)["output"]["stdout"]["text"]
    # every entry has owner root and group root: said once, before the rows (lean.said_once)
    assert "-rwxr-xr-x 1 10 Sep 1 2024  run.sh" in text.splitlines()
    assert "'two  spaces.txt'" in text, "a quoted name keeps its blanks"
    assert len(text.splitlines()) == 8, "every entry, the total, and the fields said once are there"
    columns = replayed("ls", "columns", tmp_path)["output"]["stdout"]["text"]
    assert columns == " README.md docs run.sh 'two  spaces.txt'\n"


def test_ls_off_a_terminal_keeps_blanks_that_may_be_a_names(tmp_path):
    (tmp_path / "a  b").write_text("")
    (tmp_path / "c").write_text("")
    env = aw("--no-pty", "--cwd", str(tmp_path), "--", "ls", detail="concise").env
    assert env["output"]["stdout"]["text"] == "a  b\nc\n"
    env = aw("--no-pty", "--cwd", str(tmp_path), "--", "ls", "-l", detail="concise").env
    assert env["output"]["stdout"]["text"].splitlines()[1].endswith(" a  b")


def test_data_said_by_the_summary_in_words_is_left_out_and_nothing_else():
    data = {"clean": True, "detached": True, "files_changed": 1, "insertions": 2, "count": 3}
    lean = bound.lean_data(data, (), "3 commits: not detached, 1 file changed, 2 insertions; working tree clean")
    assert lean == {"detached": True}, "a flag the summary denies, or does not name, stays"


def test_a_long_listing_says_the_fields_alike_on_every_entry_once(tmp_path):
    text = replayed("ls", "long-listing", tmp_path)["output"]["stdout"]["text"]
    lines = text.splitlines()
    assert lines[:2] == ["total 20", "[agentwrap: every entry has owner root, group root]"]
    assert "drwxr-xr-x 7 4096 Dec 1 18:45  .." in lines, "links, size and date differ: each row keeps them"
    assert not any(" root " in line for line in lines[2:])


def test_fields_are_said_once_only_when_alike_on_every_entry_and_when_it_is_shorter():
    rows = [f"-rw-r--r-- 1 alice staff {size} Sep 1 2024 f{size}.txt" for size in (10, 20, 30)]
    assert lean.said_once(rows) == ["[agentwrap: every entry has mode -rw-r--r--, links 1, owner alice, group staff, "
                                    "date Sep 1 2024]", "10 f10.txt", "20 f20.txt", "30 f30.txt"]
    mixed = [*rows, "-rw-r--r-- 1 bob staff 40 Sep 2 2024 g.txt"]
    assert lean.said_once(mixed)[0] == "[agentwrap: every entry has mode -rw-r--r--, links 1, group staff]"
    assert lean.said_once(rows[:1]) == rows[:1], "one entry: nothing is said once"
    two = ["-rw-r--r-- 1 a b 1 Sep 1 2024 x", "-rw-r--r-- 2 a b 1 Sep 1 2023 y"]
    assert lean.said_once(two) == two, "the header would cost more than it saves"
    devices = [f"crw-rw-rw- 1 root root 1, 3 Dec 1 10:00 null{i}" for i in range(4)]
    assert all(", 3" in row for row in lean.said_once(devices)[1:]), "a device's major, minor stays in its row"
    names = ["-rw-r--r-- 1 alice staff 5 Sep 1 2024  name with root  spaces" for _ in range(4)]
    assert lean.said_once(names)[1:] == [" name with root  spaces"] * 4, "the name field as ls wrote it"


def test_the_fields_alike_on_every_entry_of_one_kind_are_said_once_for_that_kind():
    dirs = [f"drwxr-xr-x {n} alice staff 4096 Dec 2 00:3{n} dir{n}" for n in range(2, 6)]
    files = [f"-rw-r--r-- 1 alice staff {size} Nov 4 2021 f{size}.txt" for size in (81, 454, 1053, 36325)]
    link = "lrwxrwxrwx 1 alice staff 7 Dec 2 00:31 latest -> dir5"
    said = lean.said_once([*dirs, *files, link])
    assert said[0] == ("[agentwrap: every entry has owner alice, group staff; every directory (d) has mode "
                       "drwxr-xr-x, size 4096; every file (-) has mode -rw-r--r--, links 1]")
    assert said[1:] == [*(f"d {n} Dec 2 00:3{n} dir{n}" for n in range(2, 6)),
                        *(f"- {size} Nov 4 2021 f{size}.txt" for size in (81, 454, 1053, 36325)),
                        "lrwxrwxrwx 1 7 Dec 2 00:31 latest -> dir5"], "a lone symlink keeps its mode; names stay"
    mixed = [*dirs[:3], "drwxrwxrwt 9 alice staff 4096 Dec 2 00:30 tmp"]
    assert all(row.startswith("drwx") for row in lean.said_once(mixed)[1:]), "modes that differ stay in the rows"
