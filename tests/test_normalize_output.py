"""SARIF and GitHub output of agentwrap normalize: a Windows runner's --root, and rules that are the tools'
own (each rule's help only what holds for all its results)."""

from __future__ import annotations

from pathlib import PureWindowsPath

from agentwrap.logs import render

GCC = {"code": "GCC_ERROR", "title": "Compiler error", "severity": "error", "tool": "gcc",
       "detail": "D:\\a\\repo\\repo\\csrc\\m.c:4:15: error: expected expression before x token",
       "location": {"file": "D:\\a\\repo\\repo\\csrc\\m.c", "line": 4, "column": 15}}


def test_a_windows_root_makes_a_windows_runners_paths_relative():
    for given in ("D:\\a\\repo\\repo", "D:/a/repo/repo", "d:\\A\\repo\\repo\\"):
        root = render.root_of(given)
        assert isinstance(root, PureWindowsPath)
        sarif = render.sarif([GCC], root)["runs"][0]
        assert sarif["originalUriBaseIds"]["%SRCROOT%"]["uri"].lower() == "file:///d:/a/repo/repo/"
        physical = sarif["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        assert physical == {"uri": "csrc/m.c", "uriBaseId": "%SRCROOT%"}
        assert render.github([GCC], root).startswith("::error file=csrc/m.c,line=4,col=15,")


def _ruff(rule: str, fix: str) -> dict:
    return {"code": "RUFF_VIOLATION", "title": "ruff: violation", "severity": "error", "tool": "ruff",
            "rule": rule, "detail": f"{rule} something", "suggested_fix": fix,
            "location": {"file": "src/a.py", "line": 1, "column": 8}}


def test_sarif_rules_are_the_tools_own_and_a_results_fix_stays_its_own():
    problems = [_ruff("F401", "Remove unused import: `os`"), _ruff("F401", "Remove unused import: `sys`"),
                _ruff("I001", "Organize imports")]
    run = render.sarif(problems, None)["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert [r["ruleId"] for r in run["results"]] == ["ruff/F401", "ruff/F401", "ruff/I001"]
    assert "help" not in rules["ruff/F401"] and rules["ruff/I001"]["help"] == {"text": "Organize imports"}
    assert [r["properties"].get("suggested_fix") for r in run["results"]] == [
        "Remove unused import: `os`", "Remove unused import: `sys`", None]
    assert all(r["properties"]["code"] == "RUFF_VIOLATION" for r in run["results"])
