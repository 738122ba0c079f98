"""`agentwrap mcp` driven by the official SDK's own client over a real stdio connection, in both
protocol eras (the 2026-07-28 per-request envelope and the older initialize handshake)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import ROOT

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS  # noqa: E402

pytestmark = pytest.mark.slow  # the whole file: -m slow (the default suite's 5-minute budget)

Session = Callable[[Client], Awaitable[None]]


def _connect(tmp_path: Path, body: Session, mode: str = "auto") -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "agentwrap", "mcp"], cwd=str(tmp_path),
                                   env={"PYTHONPATH": str(ROOT), "AGENTWRAP_STATE_DIR": str(tmp_path / "state"),
                                        "AGENTWRAP_CACHE_DIR": os.environ["AGENTWRAP_CACHE_DIR"],
                                        "LC_ALL": "C.UTF-8", "TZ": "UTC"})

    async def main() -> None:
        async with Client(params, mode=mode) as client:
            await body(client)

    anyio.run(main)


def _structured(result: Any, schema: dict[str, Any]) -> dict[str, Any]:
    env = result.structured_content
    jsonschema.validate(env, schema)
    assert result.is_error == (env["status"] == "error")
    assert result.content and result.content[0].text.startswith(env["summary"])
    if env["status"] == "error":  # the summary is ours; the text still says the tool's own words once
        assert f"{env['error']['code']}: {env['error']['detail']}" in result.content[0].text
    return dict(env)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_tools_are_listed_with_their_schemas_and_honest_annotations(tmp_path: Path, mode: str,
                                                                    result_schema: dict[str, Any]) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["version"] = client.protocol_version
        seen["tools"] = (await client.list_tools()).tools

    _connect(tmp_path, body, mode)
    if mode == "legacy":
        assert seen["version"] in HANDSHAKE_PROTOCOL_VERSIONS
    else:
        assert seen["version"] == "2026-07-28"
    tools = {tool.name: tool for tool in seen["tools"]}
    assert set(tools) == {"run", "run_read_only", "artifact_show", "describe", "capabilities", "explain",
                          "normalize"}
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert "oneOf" not in tool.input_schema and "anyOf" not in tool.input_schema
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert set(tool.output_schema["properties"]) <= set(result_schema["properties"])  # no invented member
    run = tools["run"]
    assert {"argv", "shell", "cwd", "timeout", "answers", "detail"} <= set(run.input_schema["properties"])
    assert run.annotations.read_only_hint is False and run.annotations.destructive_hint is True
    assert tools["run_read_only"].annotations.read_only_hint is True
    assert all(tools[name].annotations.read_only_hint for name in ("artifact_show", "describe", "explain"))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_run_a_passing_and_a_failing_command(tmp_path: Path, mode: str, result_schema: dict[str, Any]) -> None:
    got: dict[str, Any] = {}

    async def body(client: Client) -> None:
        got["ok"] = await client.call_tool("run", {"argv": ["echo", "hello from mcp"]})
        got["bad"] = await client.call_tool("run", {"argv": ["ls", str(tmp_path / "missing")], "detail": "standard"})
        got["shell"] = await client.call_tool("run", {"shell": "cd sub && pwd | tr a-z A-Z", "cwd": str(tmp_path)})

    (tmp_path / "sub").mkdir()
    _connect(tmp_path, body, mode)
    ok = _structured(got["ok"], result_schema)
    assert ok["status"] == "success" and got["ok"].is_error is False
    assert ok["output"]["stdout"]["text"] == "hello from mcp\n"
    bad = _structured(got["bad"], result_schema)
    assert bad["status"] == "error" and got["bad"].is_error is True
    assert bad["error"]["code"] == "FILE_NOT_FOUND" and bad["exit"]["code"] == 2
    assert "request_id" in bad  # detail standard was passed through
    assert bad["error"]["code"] in got["bad"].content[0].text
    shell = _structured(got["shell"], result_schema)
    assert shell["status"] == "success" and str(tmp_path / "sub").upper() in shell["output"]["stdout"]["text"]


def test_run_read_only_refuses_what_is_not_classed_read_only(tmp_path: Path, result_schema: dict[str, Any]) -> None:
    got: dict[str, Any] = {}
    (tmp_path / "f.txt").write_text("a\nb\na\n")

    async def body(client: Client) -> None:
        got["grep"] = await client.call_tool("run_read_only", {"argv": ["grep", "-c", "a", "f.txt"],
                                                               "cwd": str(tmp_path)})
        got["push"] = await client.call_tool("run_read_only", {"argv": ["git", "push"], "cwd": str(tmp_path)})
        got["rm"] = await client.call_tool("run_read_only", {"argv": ["rm", "f.txt"], "cwd": str(tmp_path)})
        got["shell"] = await client.call_tool("run_read_only", {"shell": "cat f.txt"})

    _connect(tmp_path, body)
    assert _structured(got["grep"], result_schema)["output"]["stdout"]["text"] == "2\n"
    for key in ("push", "rm", "shell"):
        env = _structured(got[key], result_schema)
        assert env["error"]["code"] == "MUTATION_REFUSED", env
    assert "mutating" in got["push"].structured_content["error"]["detail"]
    assert (tmp_path / "f.txt").exists()  # nothing ran


def test_the_other_tools_and_bad_arguments(tmp_path: Path, result_schema: dict[str, Any]) -> None:
    got: dict[str, Any] = {}
    log = ("src/a.c:3:5: error: expected ';' before '}' token\nsrc/b.c:4:1: error: unknown type name 'foo'\n"
           "make: *** [Makefile:2: a.o] Error 1\n")

    async def body(client: Client) -> None:
        got["explain"] = await client.call_tool("explain", {"code": "TIMEOUT"})
        got["caps"] = await client.call_tool("capabilities", {})
        got["describe"] = await client.call_tool("describe", {"name": "git"})
        got["normalize"] = await client.call_tool("normalize", {"text": log})
        big = await client.call_tool("run", {"argv": [sys.executable, "-c",
                                                      "for i in range(20000): print('line', i)"]})
        got["big"] = big
        art = big.structured_content["output"]["stdout"]["artifact"]
        got["show"] = await client.call_tool("artifact_show", {"id": art, "grep": "^line 1234$"})
        got["both"] = await client.call_tool("run", {"argv": ["true"], "shell": "true"})
        got["type"] = await client.call_tool("run", {"argv": "true"})
        got["unknown"] = await client.call_tool("describe", {"name": "git", "colour": True})

    _connect(tmp_path, body)
    assert _structured(got["explain"], result_schema)["data"]["code"] == "TIMEOUT"
    assert _structured(got["caps"], result_schema)["status"] == "success"
    assert _structured(got["describe"], result_schema)["data"]["name"] == "git"
    normalized = _structured(got["normalize"], result_schema)
    assert normalized["status"] == "error" and normalized["error"]["location"]["file"] == "src/a.c"
    assert normalized["problems"][0]["location"] == {"file": "src/b.c", "line": 4, "column": 1}  # not the error again
    assert _structured(got["big"], result_schema)["output"]["stdout"]["truncated"] is True
    assert "line 1234" in str(_structured(got["show"], result_schema)["data"])
    for key in ("both", "type", "unknown"):
        env = _structured(got[key], result_schema)
        assert env["error"]["code"] == "USAGE", env


def test_a_missing_sdk_is_a_clear_problem() -> None:
    code = "import sys; sys.modules['mcp'] = None; from agentwrap.cli import main; sys.exit(main(['mcp']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)
    import json

    env = json.loads(proc.stdout)
    assert proc.returncode == 125 and env["error"]["code"] == "EXTRA_NOT_INSTALLED"
    assert "agentwrap[mcp]" in env["error"]["suggested_fix"] and b"Traceback" not in proc.stderr


@pytest.mark.slow  # a long real run: the `-m slow` step
def test_prompts_answers_stdin_and_timeouts_pass_through(tmp_path: Path, result_schema: dict[str, Any]) -> None:
    got: dict[str, Any] = {}
    ask = [sys.executable, "-c", "print('hi', input('Name: '))"]

    async def body(client: Client) -> None:
        got["asked"] = await client.call_tool("run", {"argv": ask, "timeout": 20})
        got["answered"] = await client.call_tool("run", {"argv": ask, "timeout": "20s",
                                                         "answers": [{"pattern": "Name:", "reply": "bob"}]})
        got["stdin"] = await client.call_tool("run", {"argv": ["cat"], "stdin": "piped text\n", "no_pty": True})
        got["slow"] = await client.call_tool("run", {"argv": ["sleep", "30"], "timeout": 1})

    _connect(tmp_path, body)
    asked = _structured(got["asked"], result_schema)
    assert asked["error"]["code"] == "INPUT_REQUIRED" and asked["error"]["prompt"] == "Name:"
    answered = _structured(got["answered"], result_schema)
    assert answered["status"] == "success" and "hi bob" in answered["output"]["stdout"]["text"]
    assert _structured(got["stdin"], result_schema)["output"]["stdout"]["text"] == "piped text\n"
    slow = _structured(got["slow"], result_schema)
    assert slow["error"]["code"] == "TIMEOUT" and got["slow"].is_error is True


@pytest.mark.slow  # a long real run: the `-m slow` step
def test_a_cancelled_call_ends_the_program_and_the_server_goes_on(tmp_path: Path) -> None:
    got: dict[str, Any] = {}
    pidfile = tmp_path / "pid"

    async def body(client: Client) -> None:
        with anyio.move_on_after(3):  # the client gives up: the SDK cancels the request
            await client.call_tool("run", {"argv": ["sh", "-c", f"echo $$ > {pidfile}; exec sleep 120"]})
        pid = int(pidfile.read_text())
        for _ in range(150):  # agentwrap got SIGTERM and ends the tree; wait for it, at most 15 s
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                got["ended"] = True
                break
            await anyio.sleep(0.1)
        got["after"] = await client.call_tool("run", {"argv": ["echo", "after"]})

    _connect(tmp_path, body)
    assert got.get("ended") is True
    assert got["after"].structured_content["status"] == "success"


def test_an_env_name_that_is_not_a_variable_name_is_a_usage_problem(tmp_path: Path,
                                                                     result_schema: dict[str, Any]) -> None:
    got: dict[str, Any] = {}

    async def body(client: Client) -> None:
        for tool in ("run", "run_read_only"):  # `A=B` would have set A to `B=v` through --env
            got[tool] = await client.call_tool(tool, {"argv": ["printenv", "A"], "env": {"A=B": "v"}})
        got["newline"] = await client.call_tool("run", {"argv": ["printenv", "A"], "env": {"A\n": "v"}})
        got["good"] = await client.call_tool("run", {"argv": ["printenv", "A_1"], "env": {"A_1": "v"}})

    _connect(tmp_path, body)
    for key in ("run", "run_read_only", "newline"):
        env = _structured(got[key], result_schema)
        assert env["error"]["code"] == "USAGE" and "env" in env["error"]["detail"], env
    assert _structured(got["good"], result_schema)["output"]["stdout"]["text"] == "v\n"


def test_a_timeout_that_is_no_limit_is_refused_in_the_callers_number(tmp_path: Path,
                                                                      result_schema: dict[str, Any]) -> None:
    got: dict[str, Any] = {}

    async def body(client: Client) -> None:
        for value in (-5, -0.5):
            got[value] = await client.call_tool("run", {"argv": ["true"], "timeout": value})
        got["tiny"] = await client.call_tool("run", {"argv": ["sleep", "5"], "timeout": 1e-05})

    _connect(tmp_path, body)
    for value in (-5, -0.5):
        env = _structured(got[value], result_schema)
        assert env["error"]["code"] == "USAGE" and f"timeout: {value}" in env["error"]["detail"], env
        assert f"{value}s" not in env["error"]["detail"]  # our `--timeout` text is not what the caller gave
    # a number in exponent form is still a limit (`1e-05s` is no duration `--timeout` reads)
    assert _structured(got["tiny"], result_schema)["error"]["code"] == "TIMEOUT"


RUN_ENVELOPES = ("run", "run_read_only", "normalize")


def test_the_tool_list_is_lean_and_every_answer_holds_to_its_output_schema(tmp_path: Path,
                                                                            result_schema: dict[str, Any]) -> None:
    """A host puts tools/list in the model's context every session: the result schema (22 KB) on each of 7
    tools was 150 KB. A run's envelope is described by its concise members, typed so that the standard and
    detailed envelopes validate too; the other tools' answers by the envelope's frame."""
    got: dict[str, Any] = {}
    (tmp_path / "f.txt").write_text("a\n")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("run", {"argv": ["ls", "missing"], "cwd": str(tmp_path)}),
        ("run", {"argv": ["echo", "hi"], "detail": "standard"}),
        ("run", {"argv": ["ls", "missing"], "detail": "standard", "cwd": str(tmp_path)}),
        ("run", {"argv": ["echo", "hi"], "detail": "detailed"}),
        ("run", {"shell": "false | cat; grep -c a f.txt", "cwd": str(tmp_path)}),
        ("run", {"shell": "false | cat", "cwd": str(tmp_path), "detail": "standard"}),
        ("run_read_only", {"argv": ["grep", "-c", "a", "f.txt"], "cwd": str(tmp_path)}),
        ("run_read_only", {"argv": ["git", "push"]}),
        ("normalize", {"text": "src/a.c:3:5: error: expected ';'\nmake: *** [Makefile:2: a.o] Error 1\n"}),
        ("normalize", {"text": "all good\n"}),
        ("explain", {"code": "TIMEOUT"}), ("explain", {"code": "NO_SUCH_CODE"}), ("capabilities", {}),
        ("describe", {"name": "git"}), ("artifact_show", {"id": "art_nope"}), ("describe", {"colour": 1})]

    async def body(client: Client) -> None:
        listed = await client.list_tools()
        got["bytes"] = len(listed.model_dump_json(by_alias=True, exclude_none=True).encode())
        got["tools"] = {tool.name: tool for tool in listed.tools}
        got["answers"] = [(name, await client.call_tool(name, args)) for name, args in calls]  # the SDK validates

    _connect(tmp_path, body)
    tools = got["tools"]
    assert got["bytes"] < 30_000, got["bytes"]  # 153,404 with the whole result schema on every tool
    run_schema = tools["run"].output_schema
    assert all(tools[name].output_schema == run_schema for name in RUN_ENVELOPES)
    assert set(run_schema["$defs"]) == {"problem", "stream"} and len(str(run_schema)) < 6_000
    assert set(run_schema["$defs"]["problem"]["properties"]) <= set(result_schema["$defs"]["problem"]["properties"])
    for name in set(tools) - set(RUN_ENVELOPES):
        assert len(str(tools[name].output_schema)) < 400, name
    for name, answer in got["answers"]:
        env = _structured(answer, result_schema)
        jsonschema.Draft202012Validator(tools[name].output_schema).validate(env)
    levels = [("request_id" in env, "env_set" in str(env)) for env in (a.structured_content for _, a in got["answers"])]
    assert levels[1] == (True, False) and levels[3] == (True, True)  # standard and detailed answers held too


def test_normalize_answers_with_the_concise_envelope_as_run_does(tmp_path: Path, result_schema: dict[str, Any]) -> None:
    got: dict[str, Any] = {}
    log = "src/a.c:3:5: error: expected ';' before '}' token\n"

    async def body(client: Client) -> None:
        got["normalize"] = await client.call_tool("normalize", {"text": log})

    _connect(tmp_path, body)
    env = _structured(got["normalize"], result_schema)
    jsonschema.validate(env, {"$ref": "#/$defs/concise", "$defs": result_schema["$defs"]})
    assert not {"request_id", "command", "context", "exit", "output", "metrics", "effects"} & set(env), env
    assert env["error"]["location"] == {"file": "src/a.c", "line": 3, "column": 5}


def test_the_text_content_says_where_the_deciding_problem_is(tmp_path: Path, result_schema: dict[str, Any]) -> None:
    """A host that shows the model only the text still has the place to look, once."""
    got: dict[str, Any] = {}
    (tmp_path / "t.py").write_text('import json\njson.loads("{")\n')
    rustc = ("error[E0308]: mismatched types\n --> src/main.rs:2:18\n  |\n2 |     let x: i32 = \"a\";\n"
             "  |            ---   ^^^ expected `i32`, found `&str`\n\n"
             "error: could not compile `badrs` (bin \"badrs\") due to 1 previous error\n")

    async def body(client: Client) -> None:
        got["python"] = await client.call_tool("run", {"argv": [sys.executable, "t.py"], "cwd": str(tmp_path)})
        got["rustc"] = await client.call_tool("normalize", {"text": rustc})
        got["gcc"] = await client.call_tool("normalize", {"text": "src/a.c:3:5: error: expected ';'\n"})

    _connect(tmp_path, body)
    text = {key: (_structured(answer, result_schema), answer.content[0].text)[1] for key, answer in got.items()}
    assert "JSONDecodeError" in text["python"] and "\nat t.py:2\n" in text["python"], text["python"]
    assert text["rustc"].split("\n")[1:3] == ["E0308: mismatched types: expected `i32`, found `&str`",
                                              "at src/main.rs:2:18"], text["rustc"]
    assert text["gcc"].count("src/a.c:3:5") == 1 and "\nat " not in text["gcc"]  # the detail says it already
