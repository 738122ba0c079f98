"""Problem-matcher files read as the GitHub Actions runner reads them: severities, fromPath, several
owners in one file, the first matching matcher owning a line, and a matcher without a message refused."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agentwrap.logs import formats
from agentwrap.logs.engine import Normalizer
from agentwrap.logs.matchers import MatcherError


def _file(tmp_path: Path, *matchers: dict) -> Path:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"problemMatcher": list(matchers)}))
    return path


def _read(text: str, extra: list[formats.Format]) -> list[tuple]:
    result = Normalizer(forced=None, max_problems=50, extra_formats=extra).run(io.BytesIO(text.encode()))
    return [(p.code, p.severity, (p.location or {}).get("file")) for p in result.problems]


ACME = {"owner": "acme", "pattern": [{"regexp": r"^ACME (.+?)@(\d+) (error|warning|notice|info): (.*) \{(.+)\}$",
                                      "file": 1, "line": 2, "severity": 3, "message": 4, "fromPath": 5}]}
LOG = ("ACME lib/x.acme@4 error: bad thing {/w/repo/pkg/one/acme.toml}\n"
       "ACME lib/y.acme@5 notice: just so you know {/w/repo/pkg/one/acme.toml}\n")


def test_a_notice_is_a_note_and_a_relative_file_is_read_from_the_folder_of_from_path(tmp_path):
    found = _read(LOG, formats.load_matcher_file(_file(tmp_path, ACME)))
    assert found == [("ACME_DIAGNOSTIC", "error", "/w/repo/pkg/one/lib/x.acme"),
                     ("ACME_DIAGNOSTIC", "note", "/w/repo/pkg/one/lib/y.acme")]


def test_the_builtin_dotnet_format_reads_the_project_in_brackets_as_from_path():
    line = ("Program.cs(10,5): error CS1002: ; expected [/home/runner/work/repo/repo/src/App/App.csproj]\n"
            "Util\\Strings.cs(3,1): warning CS0168: The variable 'e' is declared but never used "
            "[D:\\a\\repo\\repo\\src\\App\\App.csproj]\n")
    found = _read(line, [])
    assert [f for _, _, f in found] == ["/home/runner/work/repo/repo/src/App/Program.cs",
                                        "D:\\a\\repo\\repo\\src\\App\\Util\\Strings.cs"]


def test_each_owner_of_a_file_has_its_own_code_and_its_matcher_severity(tmp_path):
    def simple(owner: str, **more: str) -> dict:
        return {"owner": owner, **more, "pattern": [{"regexp": f"^{owner} (\\S+)@(\\d+): (.*)$", "file": 1,
                                                     "line": 2, "message": 3}]}

    path = _file(tmp_path, simple("acme2", severity="notice"), simple("acme3", severity="warning"), simple("acme4"))
    found = _read("acme2 a.c@1: x\nacme3 b.c@2: y\nacme4 c.c@3: z\n", formats.load_matcher_file(path))
    assert found == [("ACME2_DIAGNOSTIC", "note", "a.c"), ("ACME3_DIAGNOSTIC", "warning", "b.c"),
                     ("ACME4_DIAGNOSTIC", "error", "c.c")]


def test_a_line_two_matchers_match_is_the_first_ones(tmp_path):
    pattern = [{"regexp": r"^QQ (\S+):(\d+): (.*)$", "file": 1, "line": 2, "message": 3}]
    path = _file(tmp_path, {"owner": "qq-a", "pattern": pattern}, {"owner": "qq-b", "pattern": pattern})
    assert _read("QQ a.q:3: one thing\n", formats.load_matcher_file(path)) == [("QQ_A_DIAGNOSTIC", "error", "a.q")]


@pytest.mark.parametrize(("matcher", "says"), [
    ({"owner": "x", "severity": "bogus", "pattern": [{"regexp": "(a)", "message": 1}]}, "'bogus' is not one of"),
    ({"owner": "x", "pattern": [{"regexp": "^X (.+)@(\\d+)$", "file": 1, "line": 2}]}, "must set 'message'"),
])
def test_a_matcher_the_runner_refuses_is_refused(tmp_path, matcher, says):
    with pytest.raises(MatcherError, match=says):
        formats.load_matcher_file(_file(tmp_path, matcher))
