"""What the concise (`--agent`) envelope of a git read says, replayed from captured fixtures: each fact
once, nothing the user asked for lost (a log's graph, its patches and stats, a diff's totals), no line
kept that only repeats a problem, and no ref claimed that git's text does not say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.artifacts import ArtifactStore
from agentwrap.render import views

CASES = {c.name: c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "git"}


def replay(name: str, tmp_path: Path):
    """(the concise view, the full record) of fixture `name`, as `agentwrap --agent` would give them."""
    record = fixtures.replay_record(registry.builtin("git"), CASES[name], store=ArtifactStore(tmp_path))
    return views.concise(record), record


def text_of(view: dict) -> str:
    return view.get("output", {}).get("stdout", {}).get("text", "")


def headers(view: dict, sha: str) -> int:
    """How many times the view names commit `sha` as a commit (a `Merge:` line names it as a parent)."""
    graph = "*|\\/_. "
    lines = [line.lstrip(graph) for line in text_of(view).splitlines()]
    in_text = sum(line.startswith((sha[:7], f"commit {sha[:7]}")) for line in lines)
    return in_text + json.dumps(view.get("data", {})).count(sha[:7])


@pytest.mark.parametrize("name", ["log-oneline-graph", "log-graph"])
def test_a_graph_log_keeps_its_topology_and_names_each_commit_once(name, tmp_path):
    view, record = replay(name, tmp_path)
    text = text_of(view)
    assert text == record.output["stdout"].text, "the graph is the answer: its text goes whole"
    assert "|/" in text and "*" in text, "where the branch forks and merges is still drawn"
    assert "commits" not in view.get("data", {}), "the text names the commits: the data does not again"
    for commit in record.data["commits"]:
        assert headers(view, commit["sha"]) == 1, commit


@pytest.mark.parametrize(("name", "kept"), [
    ("log-patch", ["@@ -1,3 +1,4 @@", "+four", "-two", "+2"]),
    ("log-stat", [" a.txt | 2 +-", " 1 file changed, 1 insertion(+), 1 deletion(-)",
                  "Merge: c27ad3a 28af10f"]),
])
def test_a_log_with_patches_or_stats_says_each_commit_once_beside_its_changes(name, kept, tmp_path):
    view, record = replay(name, tmp_path)
    text = text_of(view)
    lines = text.splitlines()
    for line in kept:
        assert line in lines, line
    assert "commits" not in view.get("data", {}), "each commit's header is in the text, under it its changes"
    for commit in record.data["commits"]:
        assert headers(view, commit["sha"]) == 1, commit
        assert f"    {commit['subject']}" in lines, "no commit loses its message to the data it left"
    assert view["summary"] == f"{len(record.data['commits'])} commits"


def test_a_oneline_log_with_stats_counts_its_commits(tmp_path):
    view, record = replay("log-oneline-stat", tmp_path)
    assert view["summary"] == "3 commits"
    assert [c["subject"] for c in record.data["commits"]] == [
        "Add a fourth line", "Reword the second line", "Merge branch 'feature'"]
    assert " 1 file changed, 1 insertion(+), 1 deletion(-)" in text_of(view).splitlines()


def test_a_bracket_that_may_be_a_subject_is_not_claimed_as_a_ref(tmp_path):
    """`ae5708b (docs) Reword the second line`: git's text reads the same for a branch `docs` and for a
    subject starting `(docs)`; HEAD's and a tag's decoration are git's beyond doubt."""
    _, record = replay("log-oneline-bracketed-subject", tmp_path)
    by_sha = {c["sha"]: c for c in record.data["commits"]}
    assert by_sha["8e0dc03"]["refs"] == ["HEAD -> main"] and "refs_unsure" not in by_sha["8e0dc03"]
    assert by_sha["8265ef7"]["refs"] == ["tag: v1"] and "refs_unsure" not in by_sha["8265ef7"]
    assert by_sha["ae5708b"]["refs_unsure"] is True
    _, plain = replay("log-oneline-no-decorate", tmp_path)
    second = plain.data["commits"][1]
    assert (second["refs"], second["subject"]) == ([], "(docs) Reword the second line")


def test_a_merge_conflict_drops_the_auto_merging_lines_as_counted_noise(tmp_path):
    view, record = replay("merge-conflict", tmp_path)
    assert "Auto-merging" not in text_of(view)
    assert {p["location"]["file"] for p in [view["error"], *view["problems"]]} == {"a.txt", "b.txt"}
    stdout = record.output["stdout"]
    assert stdout.noise_lines == 2 and "Auto-merging a.txt" in stdout.text, "counted, and kept in the record"


def test_a_diff_stat_says_its_totals_once(tmp_path):
    view, record = replay("diff-stat", tmp_path)
    assert view["summary"] == "3 files changed, 2 insertions"
    blob = json.dumps(view)
    assert blob.count("changed") == 1, "the summary says the totals; neither the text nor the data again"
    assert "renamed.txt" in blob, "each file is still named"
    assert " 3 files changed, 2 insertions(+)" in record.output["stdout"].text.splitlines()


def test_a_log_in_a_format_its_parser_reads_whole_is_sent_once_as_data(tmp_path):
    """`--pretty=fuller` is read as whole as the default format: its commits are the data, not the text."""
    view, record = replay("log-pretty-fuller", tmp_path)
    assert "output" not in view, "the data says every line of the text"
    assert view["data"]["committer"] == "Ada" and view["data"]["commit_date"] == "2024-05-01T10:00:00Z"
    assert [c["abbrev"] for c in view["data"]["commits"]] == [c["sha"][:12] for c in record.data["commits"]]
