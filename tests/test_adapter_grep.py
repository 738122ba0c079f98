"""grep (grep.spec.toml and one parser): no match is a successful empty result, as the contract says;
`grep -rn` lines come grouped by file, each path said once."""

from __future__ import annotations

import json
import re

from conftest import aw

from agentwrap.adapters.grep import parse_lines


def test_no_match_is_an_empty_success(tmp_path):
    (tmp_path / "f.txt").write_text("alpha\n")
    a = aw("--cwd", str(tmp_path), "grep", "omega", "f.txt")
    assert a.code == 0 and a.env["status"] == "success"
    assert a.env["exit"]["code"] == 1 and a.text() == ""
    # "succeeded" beside exit 0 would read as "found": the summary says which success it was
    assert a.env["summary"] == "no match"
    assert aw("--cwd", str(tmp_path), "--shell", "grep -q omega f.txt && echo found").env["summary"] == "no match"
    assert aw("--cwd", str(tmp_path), "grep", "-q", "alpha", "f.txt").env["summary"] == "matched"


def test_a_missing_file_is_not_found_and_a_directory_suggests_recursion(tmp_path):
    (tmp_path / "d").mkdir()
    missing = aw("--cwd", str(tmp_path), "grep", "x", "nope.txt")
    assert missing.code == 2 and missing.error["code"] == "GREP_NO_SUCH_FILE"
    directory = aw("--cwd", str(tmp_path), "grep", "x", "d")
    assert directory.error["code_actions"][0]["command"] == ["grep", "-r", "x", "d"]
    applied = aw("--cwd", str(tmp_path), *directory.error["code_actions"][0]["command"])
    assert applied.code == 0  # the fix runs: a recursive search with no match is a success


def test_a_recursive_search_says_each_path_once_and_every_line_as_grep_numbered_it():
    text = "a/x.py:3:def f():\na/x.py-4-    pass\n--\na/x.py:9:def g():\nb-2-c.py-1-ctx\nb-2-c.py:2:def h():\n"
    data = parse_lines(text)
    assert data == {"files": [{"path": "a/x.py", "lines": ["3:def f():", "4-    pass", "9:def g():"]},
                              {"path": "b-2-c.py", "lines": ["1-ctx", "2:def h():"]}], "matching_lines": 3}
    rebuilt = [f["path"] + re.match(r"\d+([:-])", item).group(1) + item for f in data["files"] for item in f["lines"]]
    assert rebuilt == [line for line in text.splitlines() if line != "--"], "path + sep + item is grep's line"


def test_output_that_names_no_file_or_numbers_no_line_stays_text():
    assert parse_lines("12:x = a[1:2:3]\n13:y\n") is None, "one file searched: `12` is a line number"
    assert parse_lines("a/x.py:def f():\n") is None, "no line numbers: a path cannot be told from the text"
    assert parse_lines("a/x.py\nb/y.py\n") is None, "grep -l"
    assert parse_lines("a/x.py:3:m\nsomething else\n") is None, "every line must be grep's, or none is data"


def test_grep_rn_over_a_folder_sends_data_not_the_repeated_paths(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "long_module_name.py").write_text("".join(f"def f{i}():\n    pass\n" for i in range(6)))
    a = aw("--cwd", str(tmp_path), "grep", "-rn", "def ", "src", detail="concise")
    assert a.env["summary"] == "6 matching lines in 1 file"
    assert a.env["data"] == {"files": [{"path": "src/long_module_name.py",
                                        "lines": [f"{2 * i + 1}:def f{i}():" for i in range(6)]}]}
    assert "output" not in a.env, "the text says the same facts: it stays in the artifact"


def _many_matches(tmp_path, files: int, per_file: int) -> None:
    (tmp_path / "src").mkdir()
    for i in range(files):
        lines = "".join(f"def function_{j}(): pass\n" for j in range(per_file))
        (tmp_path / "src" / f"module_{i}.py").write_text(lines)


def test_a_search_longer_than_the_inline_budget_stays_text_with_its_head_and_tail(tmp_path):
    _many_matches(tmp_path, 20, 10)  # ~7 KB: grouped data would be cut to the paths alone
    a = aw("--cwd", str(tmp_path), "grep", "-rn", "def ", "src", detail="concise")
    assert "data" not in a.env
    text = a.env["output"]["stdout"]["text"]
    assert ":1:def function_0(): pass" in text.splitlines()[0] and a.env["output"]["stdout"]["artifact"]


def test_data_the_bound_cut_to_its_paths_says_so_and_where_the_lines_are(tmp_path):
    """Text or data, not both: the text is over its bound too, so the data goes, cut to each file's path, and
    a note says what it left out and names the artifact that holds every line."""
    _many_matches(tmp_path, 4, 8)  # ~1.3 KB: parsed, but over a 256-byte budget's data bound
    a = aw("--cwd", str(tmp_path), "--max-inline-bytes", "256", "grep", "-rn", "def ", "src", detail="concise")
    assert all("lines" not in f for f in a.env["data"]["files"]), "the bound kept each file's path only"
    assert "output" not in a.env, "no cut copy of the text beside the data"
    note = next(w["message"] for w in a.env["warnings"] if w["code"] == "DATA_TRUNCATED")
    assert "files left out their lines" in note
    artifact = next(word for word in note.split() if word.startswith("art_"))
    shown = aw("artifact", "show", artifact, "--grep", "function_7").env
    assert "module_3.py:8:def function_7(): pass" in json.dumps(shown)


def test_the_token_estimate_finds_a_recursive_searchs_paths_dearer_than_its_data():
    from agentwrap.outcome import bound

    text = ("more_itertools/more.pyi:59:def chunked(\n"
            "more_itertools/more.pyi:664:def chunked_even(iterable: Iterable[_T], n: int) -> Iterator[list[_T]]: ...\n"
            "more_itertools/more.py:163:def chunked(iterable, n, strict=False):\n"
            "more_itertools/more.py:4378:def chunked_even(iterable, n):\n")
    data = parse_lines(text)
    del data["matching_lines"]  # the summary says it
    assert not bound.cheaper_as_text(text, data), "o200k: 99 tokens as text, 88 as data"


def test_a_search_past_the_inline_budget_is_a_window_of_whole_lines_with_an_honest_count(tmp_path):
    """`grep -n` with 118 KiB of matches: the summary counts every match (not only the window's), the
    window holds whole lines, and the lines it leaves out are in the artifact and in omitted_lines."""
    rows = [f"row {i} {'needle' if i % 2 else 'hay'} " + "x" * (30 + i % 17) for i in range(1, 4001)]
    (tmp_path / "big.txt").write_text("\n".join(rows) + "\n")
    matches = [f"{i}:{row}" for i, row in enumerate(rows, 1) if "needle" in row]
    a = aw("--cwd", str(tmp_path), "grep", "-n", "needle", "big.txt", detail="concise")
    assert a.env["summary"] == "2000 matching lines"
    stdout = a.env["output"]["stdout"]
    shown = [line for line in stdout["text"].splitlines() if not line.startswith("… ")]
    assert [line for line in shown if line not in matches] == [], "no line is cut"
    assert len(shown) + stdout["omitted_lines"] == len(matches)
    kept = aw("artifact", "show", stdout["artifact"], "--lines", "1000:1001").env["data"]["text"]
    assert kept.splitlines() == matches[999:1001]
