"""`agentwrap mcp`: the agentwrap contract as a Model Context Protocol server over stdio, built on the
official SDK (`mcp` 2.x, the `mcp` extra). The SDK serves both eras of the protocol on one connection:
the `initialize` handshake of 2024-11-05 to 2025-11-25 for older clients, and the per-request envelope
of 2026-07-28 (`server/discover`) for newer ones; the client's first request decides.

One tool per capability (`agentwrap.mcp_tools`); each call runs `python -m agentwrap --agent ...` in a
child process (the CLI's own code path, isolated: a crash or a runaway program cannot take the server
down) and answers with that envelope as `structuredContent`, a short text, and `isError` when its
status is `error`. Arguments are checked against the tool's `inputSchema` first; a bad call is a USAGE
problem in the result (so the model can correct it), not a protocol error.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from agentwrap import __version__, envelope, mcp_tools
from agentwrap.ids import new_id
from agentwrap.problem import wrapper_problem
from agentwrap.render import views

INSTRUCTIONS = ("Run commands with `run` (or `run_read_only`): the answer is one JSON envelope. Read `status`, "
                "`summary` and `error`; on error follow `error.code_actions` or `error.suggested_fix`; respect "
                "`retry_after` and `safe_to_retry`. Page through spilled output with `artifact_show`.")
_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)


def tools() -> list[types.Tool]:
    return [types.Tool(
        name=spec.name, title=spec.title, description=spec.description, input_schema=spec.input_schema,
        output_schema=mcp_tools.output_schema(spec.name),
        annotations=types.ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                                          destructive_hint=spec.destructive, idempotent_hint=spec.idempotent,
                                          open_world_hint=spec.open_world))
        for spec in mcp_tools.TOOLS]


def build(text_content: str = "summary") -> Server[Any]:
    listed = tools()

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        env = await answer(params.name, dict(params.arguments or {}))
        return result(env, text_content)

    return Server("agentwrap", version=__version__, title="agentwrap",
                  description="Run command-line tools for agents: one bounded JSON envelope, RFC 9457 problems",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


def serve(text_content: str = "summary") -> None:
    async def main() -> None:
        server = build(text_content)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def result(env: dict[str, Any], text_content: str) -> types.CallToolResult:
    """The envelope as structured content; the text is its summary (and the error's detail, place and fix),
    or the whole envelope."""
    failed = env.get("status") == "error"
    if text_content == "envelope":
        text = views.dumps(env).decode()
    else:
        text = str(env.get("summary", ""))
        error = env.get("error") or {}
        if failed and error:  # the summary is ours (what failed); the detail says the tool's words, once
            text += f"\n{error.get('code')}: {error.get('detail', '')}"
            place = _place(error.get("location"))
            if place and place not in text:  # a host that shows only the text still has where to look
                text += f"\nat {place}"
            if error.get("suggested_fix"):
                text += f"\nfix: {error['suggested_fix']}"
        text += "\n(the complete answer is in structuredContent)"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=env,
                                is_error=failed)


def _place(location: Any) -> str:
    """FILE:LINE:COL of a problem's location (as much of it as is known), or empty."""
    if not isinstance(location, dict) or not isinstance(location.get("file"), str) or not location["file"]:
        return ""
    place = location["file"]
    for key in ("line", "column"):
        if not isinstance(location.get(key), int):
            break
        place += f":{location[key]}"
    return str(place)


async def answer(name: str, args: dict[str, Any]) -> dict[str, Any]:
    spec = mcp_tools.BY_NAME.get(name)
    if spec is None:
        return _usage(f"unknown tool {name!r}; tools: {', '.join(mcp_tools.BY_NAME)}")
    problem = _check(spec, args)
    if problem is not None:
        return _usage(problem)
    detail = str(args.get("detail", "concise"))
    if name == "run_read_only":
        refusal = _refusal(args, detail)
        if refusal is not None:
            return refusal
    text = args.get("stdin") if name.startswith("run") else args.get("text")
    with _text_file(text) as path:
        runs = name.startswith("run")
        read_only = name == "run_read_only"
        cli = mcp_tools.run_args(args, path, read_only=read_only) if runs else mcp_tools.other_args(name, args, path)
        code, out, err = await _invoke([sys.executable, "-m", "agentwrap", *cli])
    try:
        env = json.loads(out)
    except ValueError:
        tail = err.decode("utf-8", "replace")[-500:]
        return _problem("INTERNAL", f"agentwrap exited {code} without a JSON answer: {tail}", detail)
    return env if isinstance(env, dict) else _problem("INTERNAL", "agentwrap answered with a non-object", detail)


def _check(spec: mcp_tools.ToolSpec, args: dict[str, Any]) -> str | None:
    import jsonschema  # type: ignore[import-untyped,unused-ignore]  # a dependency of the SDK itself (stubs optional)

    try:
        jsonschema.validate(args, spec.input_schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "arguments"
        return f"{spec.name}: {where}: {exc.message}"
    bad = [name for name in (args.get("env") or {}) if not re.fullmatch(mcp_tools.ENV_NAME, name)]
    if bad:  # run_read_only's schema says which names it refuses, not which are names at all
        return f"{spec.name}: env: {bad[0]!r} is not a variable name (letters, digits and _, not first a digit)"
    timeout = mcp_tools.timeout_problem(args.get("timeout"))
    if timeout is not None:
        return f"{spec.name}: {timeout}"
    pair = ("argv", "shell") if spec.name.startswith("run") else ("text", "path") if spec.name == "normalize" else ()
    if pair and sum(key in args for key in pair) != 1:
        return f"{spec.name}: give exactly one of {pair[0]} and {pair[1]}"
    return None


def _refusal(args: dict[str, Any], detail: str) -> dict[str, Any] | None:
    """run_read_only: what `--read-only` would refuse is refused here with its reason, before a process starts
    (the run itself also gets `--read-only`)."""
    if "shell" in args:
        return _problem("MUTATION_REFUSED", "run_read_only does not run shell lines: what a line changes cannot "
                        "be classed before it runs; use `run`, or give argv", detail)
    from agentwrap import registry
    from agentwrap.safety import readonly, readonly_env

    argv = [str(a) for a in args["argv"]]
    adapter, _ = registry.find(argv[0], forced=args.get("adapter"), disabled=bool(args.get("no_adapter")))
    verdict = readonly.classify(argv)  # the program's own adapter judges, not the one forced to read it
    why = readonly_env.refused({str(k): str(v) for k, v in (args.get("env") or {}).items()})
    if verdict.read_only and why is None:
        return None
    return _problem("MUTATION_REFUSED", f"run_read_only refused `{' '.join(argv)[:200]}`: "
                    f"{why or verdict.reason}; use `run` if the change is intended", detail,
                    command={"argv": argv, "program": None, "adapter": adapter.name,
                             "subcommand": adapter.subcommand(argv)})


def _usage(detail: str) -> dict[str, Any]:
    return _problem("USAGE", detail, "concise")


def _problem(code: str, detail: str, level: str, command: dict[str, Any] | None = None) -> dict[str, Any]:
    env = envelope.build(request_id=new_id("req"), summary=detail[:300], error=wrapper_problem(code, detail),
                         command=command)
    return views.project(env, level)


@contextlib.contextmanager
def _text_file(text: Any) -> Any:
    """Text for the program's stdin (or a log to normalize) as a private temporary file."""
    if text is None:
        yield None
        return
    fd, path = tempfile.mkstemp(prefix="agentwrap-mcp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(str(text).encode())
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


async def _invoke(argv: list[str]) -> tuple[int, bytes, bytes]:
    """Run agentwrap; on cancellation (the client gave up) SIGTERM it, which ends the program's whole tree."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (_PACKAGE_PARENT, os.environ.get("PYTHONPATH"))
                                                      if p)}
    # stdin is not the client's: the MCP messages arrive there
    process = await anyio.open_process(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=env)
    out, err = bytearray(), bytearray()

    async def drain(stream: Any, into: bytearray) -> None:
        async for chunk in stream:
            into.extend(chunk)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(drain, process.stdout, out)
            group.start_soon(drain, process.stderr, err)
        code = await process.wait()
    except BaseException:
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            with anyio.move_on_after(10):
                await process.wait()
            if process.returncode is None:
                process.kill()
        raise
    finally:
        await process.aclose()
    return code, bytes(out), bytes(err)
