"""cargo/rustc through agentwrap: every rustc diagnostic is a problem at the primary span cargo's own JSON
(--message-format=json) reports, suggested edits give the same code as rustc's suggestions, failed tests are named,
cargo's own failures (manifest, registry offline) are precise problems."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(not shutil.which("cargo") or not shutil.which("rustc"),
                                reason="cargo/rustc not installed (apt-get install -y cargo)")

TYPE_ERRORS = """fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn takes(s: &str) -> usize { s.len() }

fn main() {
    let total: i32 = add(1, "two");
    let s: String = "hello";
    let owned = String::from("x");
    let n = takes(owned);
    let count: i64 = n;
    let y = 5
    println!("{} {} {} {}", total, s, count, y);
}
"""
WARNINGS = """use std::collections::HashMap;

fn helper() -> i32 { 42 }

fn main() {
    let mut counter = 1;
    let unused_var = 2;
    if (counter > 0) {
        println!("hi");
    }
    let Odd_Name = 3;
    println!("{}", Odd_Name);
}
"""
TESTS = """pub fn add(a: u64, b: u64) -> u64 { a + b }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn adds_small() { assert_eq!(add(2, 2), 4); }
    #[test]
    fn adds_wrong() { assert_eq!(add(2, 2), 5, "math is hard"); }
    #[test]
    fn indexes_empty() { let v: Vec<u8> = Vec::new(); let _ = v[3]; }
    #[test]
    #[ignore]
    fn slow_one() {}
}
"""


def _crate(tmp_path: Path, name: str, source: str, *, lib: bool = False) -> Path:
    subprocess.run(["cargo", "new", "--offline", "--vcs", "none", *(["--lib"] if lib else []), name], cwd=tmp_path,
                   check=True, capture_output=True)
    crate = tmp_path / name
    (crate / "src" / ("lib.rs" if lib else "main.rs")).write_text(source)
    return crate


def _json_messages(crate: Path) -> list[dict]:
    out = subprocess.run(["cargo", "build", "--message-format=json"], cwd=crate, capture_output=True, text=True).stdout
    msgs = [json.loads(line) for line in out.splitlines()]
    return [m["message"] for m in msgs if m.get("reason") == "compiler-message" and m["message"]["spans"]]


def _apply(text: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    lines = text.split("\n")

    def offset(line: int, col: int) -> int:
        return sum(len(x) + 1 for x in lines[:line - 1]) + col - 1

    for line, col, end_line, end_col, new in sorted(edits, key=lambda e: -offset(e[0], e[1])):
        a, b = offset(line, col), offset(end_line, end_col)
        text = text[:a] + new + text[b:]
    return text


def _check_against_json(crate: Path, expect_status: str) -> list[dict]:
    messages = _json_messages(crate)
    a = aw("--cwd", str(crate), "cargo", "build")
    assert a.env["status"] == expect_status
    located = [p for p in a.env["problems"] if (p.get("location") or {}).get("line")]
    assert len(located) == len(messages) > 0
    source = (crate / "src" / "main.rs").read_text()
    for problem, msg in zip(located, messages, strict=True):
        span = next(s for s in msg["spans"] if s["is_primary"])
        loc = problem["location"]
        # the location is the first primary span of cargo's JSON; the end when we could read it from the carets
        assert (loc["file"], loc["line"], loc["column"]) == (span["file_name"], span["line_start"],
                                                             span["column_start"])
        if "end_column" in loc:
            assert (loc["end_line"], loc["end_column"]) == (span["line_end"], span["column_end"])
        assert problem["severity"] == msg["level"]
        assert problem.get("rustc_code") == ((msg.get("code") or {}).get("code") if msg["level"] == "error" else None)
        for action in (x for x in problem["code_actions"] if x["kind"] == "edit"):
            child = next(c for c in msg["children"] if c["message"].rstrip(":") == action["title"])
            theirs = [(s["line_start"], s["column_start"], s["line_end"], s["column_end"], s["suggested_replacement"])
                      for s in child["spans"] if s.get("suggested_replacement") is not None]
            e = action["edit"]
            mine = [(e["line"], e["column"], e.get("end_line", e["line"]), e.get("end_column", e["column"]),
                     e.get("insert", e.get("replace")))]
            assert _apply(source, mine) == _apply(source, theirs), action
            applicability = {s["suggestion_applicability"] for s in child["spans"] if s.get("suggested_replacement")
                             is not None}
            if action["applicability"] == "machine_applicable":
                assert applicability == {"MachineApplicable"}
    return located


def test_type_errors_are_located_exactly_where_cargo_json_says(tmp_path):
    located = _check_against_json(_crate(tmp_path, "typeerr", TYPE_ERRORS), "error")
    codes = [p["code"] for p in located]
    assert codes.count("E0308") == 4 and "RUSTC_ERROR" in codes  # E0308 x4 and the missing `;`
    first = next(p for p in located if p["code"] == "E0308")
    assert first["detail"] == "mismatched types: expected `i32`, found `&str`"
    assert first["docs_url"] == "https://doc.rust-lang.org/error_codes/E0308.html"
    edits = [a for p in located for a in p["code_actions"] if a["kind"] == "edit"]
    assert any(a["applicability"] == "machine_applicable" and a["edit"].get("insert") == "&" for a in edits)


def test_warnings_are_warning_problems_with_applicable_edits(tmp_path):
    located = _check_against_json(_crate(tmp_path, "warns", WARNINGS), "success")
    assert {p["severity"] for p in located} == {"warning"}
    unused = next(p for p in located if "unused variable" in p["detail"])
    action = unused["code_actions"][0]
    assert action["applicability"] == "machine_applicable"
    assert action["edit"] == {"file": "src/main.rs", "line": 7, "column": 9, "end_line": 7, "end_column": 19,
                              "replace": "_unused_var"}


BORROWS = """fn take(v: Vec<i32>) -> usize { v.len() }

fn main() {
    let v = vec![1, 2, 3];
    take(v);
    println!("{:?}", v);
    let mut x = 1;
    println!("{}", x);
    let mut s = vec![1];
    let first = &s[0];
    s.push(2);
    println!("{}", first);
}
"""


def test_every_labelled_line_and_every_suggestion_of_cargos_json_is_kept(tmp_path):
    # rustc's own machine output is the reference: each labelled span of the primary file is a line of the
    # evidence, each suggestion rustc is sure of (or thinks may be wrong) an edit, a note's span its place
    crate = _crate(tmp_path, "borrows", BORROWS)
    located = _check_against_json(crate, "error")
    source = (crate / "src" / "main.rs").read_text()
    lines = source.split("\n")
    for problem, msg in zip(located, _json_messages(crate), strict=True):
        primary = next(s for s in msg["spans"] if s["is_primary"])["file_name"]
        evidence = problem.get("evidence", [])
        for span in msg["spans"]:
            if span["file_name"] != primary:
                continue
            assert f"{span['line_start']} | {lines[span['line_start'] - 1]}".rstrip() in [e.strip() for e in evidence]
            if span["label"]:
                assert any(e.endswith(span["label"]) for e in evidence), (span["label"], evidence)
        suggested = [c for c in msg["children"] if any(
            s.get("suggested_replacement") is not None and s["suggestion_applicability"] in (
                "MachineApplicable", "MaybeIncorrect") for s in c["spans"])]
        titles = [a["title"] for a in problem["code_actions"] if a["kind"] == "edit"]
        assert sorted(c["message"] for c in suggested) == sorted(titles)
        for child in msg["children"]:
            if child["spans"] and child["level"] == "note":
                span = child["spans"][0]
                place = f"(at {span['file_name']}:{span['line_start']}:{span['column_start']})"
                assert any(n.startswith(f"note: {child['message']}") and n.endswith(place) for n in problem["notes"])
    unused = next(p for p in located if p.get("lint") == "unused_mut")
    assert unused["code_actions"][0]["applicability"] == "machine_applicable"
    assert "suggested_fix" not in unused or unused["suggested_fix"] is None  # the edit is the fix
    # concise: rustc's code is the problem's code, said once
    concise = aw("--cwd", str(crate), "cargo", "build", detail="concise").env
    assert [p["code"] for p in concise["problems"]] == ["RUSTC_WARNING", "E0502"]
    assert not any("rustc_code" in p for p in [concise["error"], *concise["problems"]])


def test_failed_tests_are_named_problems_with_counts(tmp_path):
    crate = _crate(tmp_path, "tests1", TESTS, lib=True)
    a = aw("--cwd", str(crate), "cargo", "test", env={"RUST_BACKTRACE": "0"})
    assert a.code == 101
    failed = {p["test"]: p for p in a.env["problems"] if p["code"] == "CARGO_TEST_FAILED"}
    assert set(failed) == {"tests::adds_wrong", "tests::indexes_empty"}
    assert failed["tests::adds_wrong"]["location"] == {"file": "src/lib.rs", "line": 9, "column": 23}
    assert "math is hard" in failed["tests::adds_wrong"]["detail"]
    assert failed["tests::adds_wrong"]["code_actions"][0]["command"] == [
        "cargo", "test", "--lib", "tests::adds_wrong", "--", "--exact"]
    tests = a.env["data"]["tests"]
    assert (tests["passed"], tests["failed"], tests["ignored"]) == (1, 2, 1)
    assert sorted(tests["failed_tests"]) == ["tests::adds_wrong", "tests::indexes_empty"]


ASSERTS = """pub fn add(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn adds() { assert_eq!(add(2, 2), 5); }
    #[test]
    #[should_panic]
    fn should_but_doesnt() { }
}
"""


def test_a_failed_assertion_says_both_values_and_a_test_that_did_not_panic_says_where(tmp_path):
    crate = _crate(tmp_path, "asserts", ASSERTS, lib=True)
    a = aw("--cwd", str(crate), "cargo", "test", env={"RUST_BACKTRACE": "0"})
    failed = {p["test"]: p for p in a.env["problems"] if p["code"] == "CARGO_TEST_FAILED"}
    adds = failed["tests::adds"]
    assert adds["detail"] == "test tests::adds failed: assertion `left == right` failed, left: 4, right: 5"
    assert (adds["left"], adds["right"]) == ("4", "5")
    unpanicked = failed["tests::should_but_doesnt"]
    assert "did not panic as expected" in unpanicked["detail"]
    assert unpanicked["location"] == {"file": "src/lib.rs", "line": 10, "column": 8}


OUTLINED = """pub fn check(v: i32) -> i32 { if v > 2 { panic!("too big: {}", v) } v }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn fails() { assert_eq!(check(2), 3); }
    #[test]
    #[should_panic]
    fn should_but_doesnt() { check(1); }
    #[test]
    fn prints_then_fails() { println!("computing the value"); check(5); }
    #[test]
    #[should_panic(expected = "small")]
    fn wrong_message() { check(7); }
}
"""


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_the_concise_text_leaves_out_libtests_outline_of_the_failures_the_problems_carry(tmp_path, backtrace):
    # `failures:`, `---- NAME stdout ----`, `thread 'x' (N) panicked at`, the frames: with every failed test a
    # problem they only repeat its place; what a test printed itself stays, under its block's header
    crate = _crate(tmp_path, "outlined", OUTLINED, lib=True)
    a = aw("--cwd", str(crate), "cargo", "test", "--offline", env={"RUST_BACKTRACE": backtrace}, detail="concise")
    assert a.env["output"] == {"stdout": {"text": "---- tests::prints_then_fails stdout ----\ncomputing the value\n"}}
    tests = a.env["data"]["tests"]
    assert sorted(tests["failed_tests"]) == ["tests::fails", "tests::prints_then_fails", "tests::should_but_doesnt",
                                             "tests::wrong_message"]
    whole = aw("--cwd", str(crate), "cargo", "test", "--offline", env={"RUST_BACKTRACE": backtrace})
    assert "failures:" in whole.env["output"]["stdout"]["text"]  # the standard record keeps the outline
    problems = {p["test"]: p for p in whole.env["problems"]}
    assert set(problems) == set(tests["failed_tests"])
    assert problems["tests::wrong_message"]["detail"] == (
        'test tests::wrong_message failed: its panic message "too big: 7" does not contain the expected "small" '
        "(#[should_panic(expected)])")
    # RUST_BACKTRACE=1: the frames of the project's own code, the panic's own place said once (its location)
    stacks = {name: p.get("stack") for name, p in problems.items()}
    if backtrace == "0":
        assert set(map(str, stacks.values())) == {"None"}
    else:
        assert stacks["tests::prints_then_fails"] == [{"file": "src/lib.rs", "line": 12, "column": 63,
                                                       "function": "outlined::tests::prints_then_fails"}]
        assert stacks["tests::fails"] is None  # the assertion is the test's own line


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_a_panics_fix_names_rust_backtrace_only_when_the_frames_were_not_printed(tmp_path, backtrace):
    crate = _crate(tmp_path, "deep", 'fn pick(v: &[i32]) -> i32 { v[3] }\nfn main() { println!("{}", pick(&[1])); }\n')
    a = aw("--cwd", str(crate), "cargo", "run", "--offline", env={"RUST_BACKTRACE": backtrace}, detail="concise")
    assert a.error["code"] == "RUST_PANIC" and a.error["location"] == {"file": "src/main.rs", "line": 1, "column": 29}
    if backtrace == "0":
        assert a.error["suggested_fix"] == ("Fix the panic at the location shown; RUST_BACKTRACE=1 prints the calling "
                                            "frames.")
        assert "stack" not in a.error
    else:
        assert "RUST_BACKTRACE" not in a.error["suggested_fix"]
        assert a.error["stack"] == [{"file": "src/main.rs", "line": 2, "column": 28, "function": "deep::main"}]
    assert "output" not in a.env or "panicked" not in json.dumps(a.env["output"])


def test_no_manifest_is_a_precondition(tmp_path):
    a = aw("--cwd", str(tmp_path), "cargo", "build")
    assert a.error["code"] == "CARGO_MANIFEST_NOT_FOUND"
    assert a.error["category"] == "precondition" and a.error["safe_to_retry"] is True


def test_missing_crate_offline_is_not_found_with_an_offline_note(tmp_path):
    crate = _crate(tmp_path, "withdep", 'fn main() {}\n')
    with open(crate / "Cargo.toml", "a") as fh:
        fh.write('agentwrap_no_such_crate_xyz = "1.0"\n')
    a = aw("--cwd", str(crate), "cargo", "build", "--offline")
    assert a.error["code"] == "CARGO_PACKAGE_NOT_FOUND"
    assert "agentwrap_no_such_crate_xyz" in a.error["detail"]
    assert any(p["code"] == "CARGO_OFFLINE" and p["severity"] == "note" for p in a.env["problems"])


@pytest.mark.parametrize(("typed", "similar"), [("publsh", "publish"), ("yank2", "yank"), ("ownr", "owner"),
                                                ("logn", "login"), ("instal", "install")])
def test_a_mistyped_command_never_offers_one_that_publishes_or_installs(tmp_path, typed, similar):
    """cargo's `a command with a similar name exists: publish` is named, never offered to run."""
    a = aw("--cwd", str(tmp_path), "cargo", typed)
    assert a.error["code"] == "CARGO_NO_SUCH_COMMAND" and f"`cargo {similar}`" in a.error["detail"]
    assert [x["command"] for x in a.error["code_actions"]] == [["cargo", "--list"]]


def test_unreachable_registry_is_a_retryable_network_problem(tmp_path):
    crate = _crate(tmp_path, "netdep", 'fn main() {}\n')
    with open(crate / "Cargo.toml", "a") as fh:
        fh.write('cfg-if = "1"\n')
    (crate / ".cargo").mkdir()
    (crate / ".cargo" / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "dead"\n[source.dead]\nregistry = "sparse+http://127.0.0.1:9/index/"\n'
        "[net]\nretry = 0\n")
    a = aw("--cwd", str(crate), "cargo", "build")
    assert a.error["code"] == "CARGO_NETWORK_ERROR"
    assert (a.error["category"], a.error["retryable"], a.error["safe_to_retry"]) == ("network", True, True)
    assert a.error["code_actions"][0]["command"] == ["cargo", "build", "--offline"]


def test_rustc_directly_and_a_panicking_run(tmp_path):
    crate = _crate(tmp_path, "panics", 'fn main() {\n    let v: Vec<i32> = vec![];\n    println!("{}", v[0]);\n}\n')
    a = aw("--cwd", str(crate), "cargo", "run", env={"RUST_BACKTRACE": "0"})
    assert a.error["code"] == "RUST_PANIC"
    assert a.error["location"] == {"file": "src/main.rs", "line": 3, "column": 21}
    (tmp_path / "bad.rs").write_text('fn main() { let x: u8 = "a"; }\n')
    r = aw("--cwd", str(tmp_path), "rustc", "bad.rs")
    assert r.env["command"]["adapter"] == "cargo" and r.env["command"]["subcommand"] is None
    assert r.error["code"] == "E0308" and r.error["location"]["file"] == "bad.rs"


def test_effects_and_prevention(tmp_path):
    described = aw("describe", "cargo").env["data"]
    assert described["effects"]["clean"]["destructive"] is True
    assert described["effects"]["build"] == {"read_only": False, "destructive": False, "idempotent": True,
                                             "open_world": None}
    assert described["effects"]["publish"]["open_world"] is True
    assert described["effects"]["metadata"]["read_only"] is True
    a = aw("--cwd", str(tmp_path), "cargo", "version", detail="detailed")
    assert a.code == 0 and a.env["command"]["subcommand"] == "version"
    assert a.env["context"]["env_set"]["CARGO_TERM_PROGRESS_WHEN"] == "never"


def test_a_note_over_two_lines_is_kept_whole_as_cargo_json_gives_it(tmp_path):
    crate = _crate(tmp_path, "optnote", "pub fn best(v: &[i64]) -> i64 {\n    let b: i64 = v.iter().max();\n    b\n}\n",
                   lib=True)
    problem = next(p for p in aw("--cwd", str(crate), "cargo", "build").env["problems"] if p["code"] == "E0308")
    (message,) = _json_messages(crate)
    theirs = [f"{c['level']}: " + "\n".join(line.strip() for line in c["message"].splitlines())
              for c in message["children"] if not c["spans"]]
    assert problem["notes"] == theirs == ["note: expected type `i64`\nfound enum `Option<&i64>`"]
