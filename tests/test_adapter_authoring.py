"""What a plugin author relies on from `agentwrap adapter test`, `adapter list` and `--adapter`: a fixture
that cannot check anything fails instead of passing, a broken file is a failure naming it, two adapters
claiming one program are reported, and a misspelt name suggests the author's own adapters. The cases are
captured from a real `greet` with `agentwrap capture`, as docs/adapters.md has authors do."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from tests.conftest import aw

GREET = """\
#!/bin/sh
case "$1" in
  ada|grace) echo "hello, $1"; echo "warning: the guest list is old" >&2 ;;
  *) echo "error: guest $1 not found in guests.txt" >&2; exit 2 ;;
esac
"""

GREET_TOML = """\
name = "greet"
matches = ["greet"]
has_subcommands = false

[[rules]]
code = "GREET_GUEST_NOT_FOUND"
pattern = "^error: guest (?P<guest>\\\\S+) not found in (?P<file>\\\\S+)"
title = "greet: the guest is not on the list"
category = "not_found"
status = 404
retryable = false
safe_to_retry = true

[[rules]]
code = "GREET_OLD_LIST"
pattern = "^warning: the guest list is old"
title = "greet: the guest list is old"
category = "precondition"
status = 412
retryable = false
safe_to_retry = true
severity = "warning"
"""

# The tutorial's Python adapter (docs/adapters.md step 6) with the one mistake: its code is not in `codes`.
GREET_PY = '''\
import re

from agentwrap import sdk

GUEST_NOT_FOUND = sdk.ProblemCode(code="GREET_GUEST_NOT_FOUND", title="greet: the guest is not on the list",
                                  category="not_found", status=404)
_NOT_FOUND = re.compile(r"^error: guest (?P<guest>\\S+) not found in (?P<file>\\S+)", re.M)


class GreetAdapter(sdk.BaseAdapter):
    spec = sdk.Spec.from_dict({"name": "greet", "has_subcommands": False}, __file__)
    codes = ()

    def diagnostics(self, run):
        return [sdk.problem("greet", GUEST_NOT_FOUND, f"{m['guest']} is not in {m['file']}",
                            exit_code=run.exit_code) for m in _NOT_FOUND.finditer(run.stderr_text)]


ADAPTER = GreetAdapter()
'''


def _env(root: Path) -> dict[str, str]:
    return {"AGENTWRAP_ADAPTER_DIR": str(root / "adapters"), "PATH": f"{root / 'bin'}:{os.environ['PATH']}"}


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user folder with greet.toml and three cases captured from the real greet, beside it."""
    root = tmp_path_factory.mktemp("author")
    (root / "bin").mkdir()
    (root / "bin" / "greet").write_text(GREET)
    (root / "bin" / "greet").chmod(0o755)
    (root / "adapters").mkdir()
    (root / "adapters" / "greet.toml").write_text(GREET_TOML)
    for name, guest in (("unknown-guest", "bob"), ("known-guest", "ada"), ("other-guest", "eve")):
        ans = aw("capture", "--dir", str(root / "adapters" / "fixtures"), "--name", name, "--", "greet", guest,
                 env=_env(root))
        assert ans.env["data"]["adapter"] == "greet", ans.env
    return root


@pytest.fixture
def author(captured: Path, tmp_path: Path) -> Path:
    root = tmp_path / "author"
    shutil.copytree(captured, root)
    return root


def _test(root: Path, *target: str, cwd: Path | None = None) -> tuple[dict[str, object], dict[str, list[str]]]:
    ans = aw("adapter", "test", *target, env=_env(root), cwd=cwd or root / "adapters")
    env = ans.env
    assert ans.code == (0 if env["status"] == "success" else 1 if env["data"] else 125), env
    by_case = {str(c["case"]): list(c["mismatches"]) for c in (env["data"] or {}).get("cases", [])}
    return env, by_case


def test_the_captured_cases_pass(author: Path) -> None:
    env, cases = _test(author, "greet")
    assert env["summary"] == "3 passed, 0 failed"
    assert cases == {"known-guest": [], "other-guest": [], "unknown-guest": []}


def test_a_case_without_its_meta_json_fails_instead_of_being_skipped(author: Path) -> None:
    meta = Path("fixtures", "greet", "other-guest.meta.json")  # as found from the adapter's folder
    (author / "adapters" / meta).unlink()
    env, cases = _test(author, "greet")
    assert env["summary"] == "2 passed, 1 failed"
    assert cases["other-guest"] == [f"{meta}: missing; a case is recorded with `agentwrap capture`"]


@pytest.mark.parametrize(("text", "said"), [
    ('{"status": ', "not valid JSON: Expecting value: line 1 column 12"),
    ("[]", "must be a JSON object, not `[]`"),
    ("null", "must be a JSON object, not `null`"),
    ('"x"', 'must be a JSON object, not `"x"`'),
    ("{}", "{} checks nothing"),
])
def test_an_expectation_that_cannot_check_fails_that_case_naming_its_file(author: Path, text: str,
                                                                        said: str) -> None:
    expected = Path("fixtures", "greet", "other-guest.expected.json")
    (author / "adapters" / expected).write_text(text)
    env, cases = _test(author, "greet.toml")
    assert env["summary"] == "2 passed, 1 failed"  # the other cases still ran
    error = env["error"]
    assert isinstance(error, dict) and error["code"] == "ADAPTER_TEST_FAILED" and error["category"] == "validation"
    assert not error["retryable"]
    [mismatch] = cases["other-guest"]
    assert mismatch.startswith(f"{expected}: ") and said in mismatch


def test_the_proposed_expectation_pins_each_problems_severity(author: Path) -> None:
    expected = json.loads((author / "adapters" / "fixtures" / "greet" / "known-guest.expected.json").read_text())
    assert [(p["code"], p["severity"]) for p in expected["problems"]] == [("GREET_OLD_LIST", "warning")]
    toml = author / "adapters" / "greet.toml"
    toml.write_text(toml.read_text().replace('severity = "warning"', 'severity = "note"'))
    env, cases = _test(author, "greet")
    assert cases["known-guest"] == ['problems[0].severity: expected "warning", got "note"']


def test_a_python_adapter_emitting_a_code_it_does_not_declare_fails(author: Path) -> None:
    folder = author / "adapters"
    (folder / "greet.toml").unlink()
    (folder / "greet.py").write_text(GREET_PY)
    for case in ("known-guest", "other-guest"):  # keep the case the undeclared code decides
        for path in (folder / "fixtures" / "greet").glob(f"{case}.*"):
            path.unlink()
    expected = folder / "fixtures" / "greet" / "unknown-guest.expected.json"
    expected.write_text(json.dumps({"status": "error", "error": {"code": "GREET_GUEST_NOT_FOUND"}}))
    env, cases = _test(author, "greet.py")
    assert env["summary"] == "0 passed, 1 failed"
    assert cases["unknown-guest"] == ["error.code: GREET_GUEST_NOT_FOUND is not declared by the greet adapter; "
                                      "list it in `codes` (a Python adapter's ProblemCode) or as a [[rules]] code"]
    (folder / "greet.py").write_text(GREET_PY.replace("codes = ()", "codes = (GUEST_NOT_FOUND,)"))
    assert _test(author, "greet.py")[0]["summary"] == "1 passed, 0 failed"


def test_adapter_test_by_name_finds_the_fixtures_beside_the_adapter(author: Path) -> None:
    """`adapter new` puts fixtures/ beside the adapter file: a name finds them from any folder."""
    elsewhere = author / "elsewhere"
    elsewhere.mkdir()
    env, _ = _test(author, "greet", cwd=elsewhere)
    assert env["summary"] == "3 passed, 0 failed"


def test_an_unknown_name_in_adapter_test_suggests_the_users_adapter(author: Path) -> None:
    env, _ = _test(author, "gret", cwd=author)
    error = env["error"]
    assert isinstance(error, dict) and error["code"] == "USAGE"
    assert error["detail"] == "adapter test gret: no adapter is named 'gret'; did you mean greet, grep, fgrep?"


@pytest.mark.parametrize(("name", "near"), [("gret", "greet"), ("greett", "greet"), ("flake9", "flake8")])
def test_adapter_name_suggestions_include_user_adapters_and_formats(author: Path, name: str, near: str) -> None:
    log = author / "build.log"
    log.write_text("nothing\n")
    ans = aw("normalize", "--adapter", name, str(log), env=_env(author))
    detail = str((ans.error or {})["detail"])
    assert detail.startswith(f"--adapter {name!r}: no such adapter; did you mean {near}"), detail


def test_a_format_is_forced_by_a_program_it_reads(author: Path) -> None:
    log = author / "lint.log"
    log.write_text("a.py:3:1: E302 expected 2 blank lines, found 1\n")
    ans = aw("normalize", "--adapter", "flake8", str(log), env=_env(author))
    assert [p["location"]["file"] for p in ans.env["problems"]] == ["a.py"], ans.env


TIDY = textwrap.dedent("""\
    name = "{name}"
    matches = ["tidy"]
    [[rules]]
    code = "{code}"
    pattern = "^error"
    title = "tidy: failed"
    category = "validation"
    status = 422
    retryable = false
    safe_to_retry = true
    """)


def test_adapters_claiming_one_program_are_reported_with_the_one_that_serves_it(author: Path) -> None:
    folder = author / "adapters"
    (folder / "other.toml").write_text(TIDY.format(name="other", code="OTHER_FAILED"))  # only `matches` tidy
    (folder / "tidy.toml").write_text(TIDY.format(name="tidy", code="TIDY_FAILED"))
    (folder / "tidy2.toml").write_text(TIDY.format(name="tidy", code="TIDY2_FAILED"))
    listed = aw("adapter", "list", env=_env(author)).env
    [conflict] = [w for w in listed["warnings"] if w["code"] == "ADAPTER_CONFLICT"]
    assert conflict["message"].startswith(f"'tidy' is claimed by tidy.toml, tidy2.toml, other.toml in {folder}: "
                                          "tidy.toml serves it")
    rows = {Path(r["source"]).name: r for r in listed["data"]["adapters"] if r["source"] != "builtin"}
    assert "shadowed" not in rows["tidy.toml"]
    assert rows["other.toml"]["shadowed"] == [{"claim": "tidy", "by": str(folder / "tidy.toml")}]
    assert rows["tidy2.toml"]["shadowed"] == [{"claim": "tidy", "by": str(folder / "tidy.toml")}]
    tool = author / "bin" / "tidy"
    tool.write_text("#!/bin/sh\necho error >&2\nexit 1\n")
    tool.chmod(0o755)
    ran = aw("tidy", env=_env(author)).env
    assert ran["error"]["code"] == "TIDY_FAILED"  # the adapter named tidy, not the first file listing it
    assert not [w for w in ran["warnings"] if w["code"] == "ADAPTER_CONFLICT"]  # said by list and test only
    tested, _ = _test(author, "greet")
    assert [w["message"] for w in tested["warnings"]] == [conflict["message"]]


def test_a_broken_adapter_file_is_named_once(author: Path) -> None:
    broken = author / "adapters" / "broken.toml"
    broken.write_text(TIDY.format(name="broken", code="BROKEN_X").replace('"validation"', '"lint"'))
    listed = aw("adapter", "list", env=_env(author)).env
    [failed] = [w["message"] for w in listed["warnings"] if w["code"] == "ADAPTER_LOAD_FAILED"]
    assert failed.startswith(f"{broken}: rules[1]") and failed.count(str(broken)) == 1
