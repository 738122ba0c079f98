"""The declarative adapter engine, the registry and the plugin author's workflow, end to end."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest
from conftest import aw

from agentwrap import registry
from agentwrap.adapter import BaseAdapter, CapturedRun
from agentwrap.capture import StreamResult
from agentwrap.spec import Spec, SpecError

PY = sys.executable
GOOD = {"name": "tool", "matches": ["tool"], "global_options_with_value": ["-C"], "nested_subcommands": ["compose"],
        "rules": [{"code": "TOOL_SLOW_DOWN", "pattern": r"^error: slow down(?:, wait (?P<wait>\d+)s)?",
                   "title": "Too fast", "category": "rate_limit", "status": 429, "retryable": True,
                   "safe_to_retry": True, "retry_after": "wait"},
                  {"code": "TOOL_BAD_LINE", "pattern": r"^(?P<file>\S+):(?P<line>\d+):(?P<column>\d+): (?P<msg>.+)",
                   "title": "Bad line", "category": "validation", "status": 422, "retryable": False,
                   "safe_to_retry": True, "detail": "{msg}",
                   "code_actions": [{"title": "open {file}", "command": ["edit", "{file}"],
                                     "applicability": "has_placeholders"}]},
                  {"code": "TOOL_FATAL", "pattern": r"^FATAL", "title": "Fatal", "category": "internal",
                   "status": 500, "retryable": False, "safe_to_retry": False, "on_success": True}]}


def _run(stderr: str, exit_code: int = 1, argv: tuple[str, ...] = ("tool", "build")) -> CapturedRun:
    empty = StreamResult("", 0, 0, False, 0, None)
    adapter = BaseAdapter(Spec.from_dict(GOOD, "test"))
    return CapturedRun(argv=argv, program="/bin/tool", exit_code=exit_code, signal=None, stdout=empty, stderr=empty,
                       duration_ms=0, stdout_text="", stderr_text=stderr, complete=True,
                       subcommand=adapter.subcommand(list(argv)))


@pytest.mark.parametrize(("change", "message"), [
    ({"patern": "x"}, "unknown key 'patern' (did you mean 'pattern'?)"),
    ({"pattern": "(unclosed"}, "invalid regular expression"),
    ({"category": "oops"}, "category 'oops' is not one of"),
    ({"status": 200}, "status must be an HTTP-like"),
    ({"retry_after": "nope"}, "names group 'nope'"),
    ({"code": "lower"}, "UPPER_SNAKE_CASE"),
    ({"code_actions": [{"title": "x", "applicability": "maybe"}]}, "applicability must be one of"),
])
def test_spec_errors_name_the_rule_and_the_key(change, message):
    rule = {**GOOD["rules"][0], **change}
    with pytest.raises(SpecError) as info:
        Spec.from_dict({**GOOD, "rules": [rule]}, "my.toml")
    assert str(info.value).startswith("my.toml: rules[1]")
    assert message in str(info.value)


def test_spec_requires_a_name_and_known_top_level_keys():
    with pytest.raises(SpecError, match="missing required key 'name'"):
        Spec.from_dict({"matches": []}, "x.toml")
    with pytest.raises(SpecError, match="unknown key 'rulez'"):
        Spec.from_dict({"name": "x", "rulez": []}, "x.toml")


@pytest.mark.parametrize(("argv", "sub"), [
    (["tool", "-C", "dir", "--no-pager", "push", "origin"], "push"),
    (["tool", "-C", "d", "compose", "--quiet", "up", "-d"], "compose up"),
    (["tool", "--", "build"], None),
    (["tool"], None),
])
def test_subcommand_skips_global_options(argv, sub):
    assert Spec.from_dict(GOOD, "t").subcommand_of(argv) == sub


def test_rules_make_located_problems_with_templated_actions():
    run = _run("src/a.c:3:5: expected ';'\nerror: slow down, wait 42s\n")
    interp = BaseAdapter(Spec.from_dict(GOOD, "t")).interpret(run)
    codes = [p.code for p in interp.problems]
    assert codes == ["TOOL_SLOW_DOWN", "TOOL_BAD_LINE"]
    slow, bad = interp.problems
    assert slow.retry_after == 42.0
    assert bad.location == {"file": "src/a.c", "line": 3, "column": 5}
    assert bad.detail == "expected ';'"
    assert bad.code_actions[0].command == ("edit", "src/a.c")
    assert interp.error is slow  # the first rule listed decides


def test_a_fatal_line_makes_an_exit_zero_run_an_error():
    interp = BaseAdapter(Spec.from_dict(GOOD, "t")).interpret(_run("FATAL: it broke\n", exit_code=0))
    assert interp.error is not None and interp.error.code == "TOOL_FATAL"
    assert interp.success is False


def test_error_rules_do_not_fire_on_success():
    interp = BaseAdapter(Spec.from_dict(GOOD, "t")).interpret(_run("error: slow down\n", exit_code=0))
    assert interp.error is None


@pytest.mark.parametrize(("argv0", "key"), [
    ("/usr/bin/g++-12", "g++"), ("python3.11", "python"), ("x86_64-linux-gnu-gcc-12", "gcc"), ("make", "make"),
])
def test_family_keys(argv0, key):
    assert key in registry.family_keys(argv0)


def _write(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_user_toml_adapter_overrides_a_builtin(tmp_path):
    _write(tmp_path, "mymake.toml", """
        name = "mymake"
        matches = ["make"]
        has_subcommands = false
        [descriptor]
        purpose = "mine"
        [[rules]]
        code = "MY_MAKE_ERROR"
        pattern = "No rule to make target"
        title = "mine"
        category = "not_found"
        status = 404
        retryable = false
        safe_to_retry = true
    """)
    a = aw("--cwd", str(tmp_path), "make", "nothing-here", env={"AGENTWRAP_ADAPTER_DIR": str(tmp_path)})
    assert a.env["command"]["adapter"] == "mymake"
    assert a.error["code"] == "MY_MAKE_ERROR"
    only = aw("--cwd", str(tmp_path), "make", "nothing-here",
              env={"AGENTWRAP_ADAPTER_DIR": str(tmp_path), "AGENTWRAP_ADAPTERS": "builtin"})
    assert only.env["command"]["adapter"] == "make"


def test_a_broken_user_adapter_is_a_warning_not_a_crash(tmp_path):
    _write(tmp_path, "broken.toml", 'name = "broken"\n[[rules]]\ncode = "X"\n')
    _write(tmp_path, "crash.py", "raise RuntimeError('boom')\n")
    a = aw("echo", "hi", env={"AGENTWRAP_ADAPTER_DIR": str(tmp_path)})
    assert a.code == 0
    messages = [w["message"] for w in a.env["warnings"] if w["code"] == "ADAPTER_LOAD_FAILED"]
    assert any("broken.toml" in m and "missing required key" in m for m in messages)
    assert any("crash.py" in m and "boom" in m for m in messages)


def test_entry_point_plugins_are_found(tmp_path):
    pkg = tmp_path / "site"
    _write(pkg, "myplugin.py", """
        from agentwrap.adapter import BaseAdapter
        from agentwrap.spec import Spec
        ADAPTER = BaseAdapter(Spec.from_dict({"name": "plug", "matches": ["echo"],
                                              "descriptor": {"purpose": "plugged"}}, __file__))
    """)
    _write(pkg / "myplugin-1.0.dist-info", "METADATA", "Metadata-Version: 2.1\nName: myplugin\nVersion: 1.0\n")
    _write(pkg / "myplugin-1.0.dist-info", "entry_points.txt", "[agentwrap.adapters]\necho = myplugin:ADAPTER\n")
    env = {"PYTHONPATH": f"{os.environ.get('PYTHONPATH', '')}:{pkg}", "AGENTWRAP_CACHE_DIR": str(tmp_path / "c")}
    from conftest import ROOT

    env["PYTHONPATH"] = f"{ROOT}:{pkg}"
    a = aw("echo", "hi", env=env)
    assert a.env["command"]["adapter"] == "plug"


def test_the_plugin_authors_workflow(tmp_path):
    """adapter new --toml, capture a real run, adapter test: the tutorial in docs/adapters.md, end to end."""
    folder = tmp_path / "adapters"
    tool = _write(tmp_path / "bin", "greet", "#!/bin/sh\necho 'error: world not found' >&2\nexit 2\n")
    tool.chmod(0o755)
    env = {"AGENTWRAP_ADAPTER_DIR": str(folder), "PATH": f"{tool.parent}:{os.environ['PATH']}"}
    assert aw("adapter", "new", "greet", "--toml", env=env).code == 0
    captured = aw("capture", "--dir", str(folder / "fixtures"), "--name", "missing", "--", "greet", env=env)
    assert captured.env["data"]["adapter"] == "greet"
    assert captured.env["data"]["run"]["error"]["code"] == "GREET_NOT_FOUND"
    result = aw("adapter", "test", str(folder / "greet.toml"), env=env)
    assert result.code == 0 and result.env["summary"] == "1 passed, 0 failed"
    expected = folder / "fixtures" / "greet" / "missing.expected.json"
    expected.write_text(expected.read_text().replace("GREET_NOT_FOUND", "SOMETHING_ELSE"))
    failing = aw("adapter", "test", str(folder / "greet.toml"), env=env)
    assert failing.code == 1
    assert "SOMETHING_ELSE" in failing.env["data"]["cases"][0]["mismatches"][0]


def test_adapter_prompt_help_comes_first(tmp_path):
    folder = tmp_path / "adapters"
    _write(folder, "asker.toml", """
        name = "asker"
        has_subcommands = false
        [[prompts]]
        pattern = "continue\\\\?"
        input_kind = "confirmation"
        suggested_fix = "Pass --yes."
        [[prompts.code_actions]]
        title = "Re-run with --yes"
        command = ["asker", "--yes", "{args...}"]
        applicability = "maybe_incorrect"
    """)
    tool = _write(tmp_path / "bin", "asker", f"#!{PY}\ninput('Do you want to continue? [y/N] ')\n")
    tool.chmod(0o755)
    a = aw(str(tool), "thing", env={"AGENTWRAP_ADAPTER_DIR": str(folder)})
    assert a.error["code"] == "INPUT_REQUIRED"
    assert a.error["suggested_fix"] == "Pass --yes."
    assert a.error["code_actions"][0]["command"] == ["asker", "--yes", "thing"]


def test_describe_and_capabilities_list_builtins():
    d = aw("describe", "make")
    assert d.env["data"]["name"] == "make" and "MAKE_NO_RULE" in d.env["data"]["problem_codes"]
    caps = aw("capabilities")
    assert "make" in [a["name"] for a in caps.env["data"]["adapters"]]
    assert aw("describe", "nosuch").error["code"] == "USAGE"
    listed = aw("adapter", "list")
    assert {"make", "generic"} <= {a["name"] for a in listed.env["data"]["adapters"]}


def test_no_builtin_rule_backtracks_catastrophically():
    """Every rule of every built-in meets adversarial text (deep tracebacks, long lines, many frames) and
    finishes: a pattern with nested ambiguous repeats would hang a run at its verdict."""
    import subprocess

    script = r'''
import sys
from agentwrap import registry
from agentwrap.adapters import INDEX
from agentwrap.adapter import generic_spec
frames = "".join(f'  File "/usr/lib/python3.11/m{i}.py", line {i}, in f\n    x = f()\n' for i in range(400))
text = ("Traceback (most recent call last):\n" + frames + "MemoryError: Errno 2]\n"
        + "    at f (node:internal/x:1:1)\n" * 400 + "x" * 20000 + "\n" + ("a:" * 3000) + "\n")
specs = [generic_spec()] + [getattr(registry.builtin(s), "spec", None) for s in sorted(set(INDEX.values()))]
for spec in specs:
    for rule in spec.rules if spec else ():
        for _ in rule.pattern.finditer(text):
            pass
print("ok")
'''
    from conftest import ROOT

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


_FROM_ARGV = {"name": "tool", "argv_values": ["target"],
              "rules": [{"code": "TOOL_DOWN", "pattern": r"^error: (?P<why>down)", "title": "Down",
                         "category": "network", "status": 503, "retryable": True, "safe_to_retry": True,
                         "code_actions": [{"title": "probe {target}", "command": ["probe", "{target}"]}]}]}


class _TargetAdapter(BaseAdapter):
    """A Python adapter filling the spec's `argv_values` from its command line (the last word)."""

    def argv_values(self, argv: list[str]) -> dict[str, str]:
        return {"target": argv[-1]} if len(argv) > 1 else {}


def test_argv_values_are_declared_names_a_python_adapter_fills():
    bad = {**_FROM_ARGV, "argv_values": []}
    with pytest.raises(SpecError, match="target"):
        Spec.from_dict(bad, "t.toml")  # undeclared: a literal `{target}` would reach the agent
    spec = Spec.from_dict(_FROM_ARGV, "t")
    filled = _TargetAdapter(spec).find_problems(_run("error: down\n", argv=("tool", "db1")))
    assert filled[0].code_actions[0].command == ("probe", "db1")
    assert filled[0].code_actions[0].title == "probe db1"
    unfilled = BaseAdapter(spec).find_problems(_run("error: down\n", argv=("tool", "db1")))
    assert unfilled[0].code_actions == ()  # nothing read it: no honest command to offer
