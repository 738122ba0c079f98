"""`agentwrap capture [--name CASE] [--dir DIR] [--force] [RUN OPTIONS] -- PROGRAM ARGS`

Records a fixture through the real runner: the raw bytes as the terminal saw them, the exit, argv,
tool version and date, plus a proposed expectation to review (never overwriting a reviewed one).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from agentwrap import __version__, envelope, fixtures, options
from agentwrap.commands import CommandContext
from agentwrap.errors import HelpRequested, UsageError
from agentwrap.ids import utc_now

_CASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}\Z")


def _parse(args: list[str]) -> tuple[dict[str, Any], list[str]]:
    mine: dict[str, Any] = {"name": None, "dir": "fixtures", "force": False}
    i = 0
    while i < len(args) and args[i] in ("--name", "--dir", "--force"):
        if args[i] == "--force":
            mine["force"] = True
            i += 1
            continue
        if i + 1 >= len(args):
            raise UsageError(f"capture: {args[i]} needs a value")
        mine[args[i][2:]] = args[i + 1]
        i += 2
    return mine, args[i:]


def _version(program: str, opts: options.Options) -> str | None:
    """The tool's own `--version` line, run through the same runner (bounded, never prompting)."""
    from agentwrap.commands.run import execute

    probe = options.Options(agent=True, timeout=10.0, cwd=opts.cwd)
    try:
        outcome = execute([program, "--version"], probe, request_id="req_version")
    except Exception:  # noqa: BLE001 - a tool without --version still gets its fixture
        return None
    text = (outcome.envelope["output"]["stdout"]["text"] or outcome.envelope["output"]["stderr"]["text"]).strip()
    return text.splitlines()[0][:200] if text else None


USAGE = """usage: agentwrap capture [--name CASE] [--dir DIR] [--force] [RUN OPTIONS] -- PROGRAM ARGS...

Run PROGRAM through agentwrap and record the run as an adapter fixture: DIR/ADAPTER/CASE.out and .err
(the raw bytes the terminal saw), .meta.json (argv, exit, tool version, date) and a proposed
.expected.json to review (a reviewed one is never overwritten).

options:
  --name CASE  the fixture's name (default: from the first arguments)
  --dir DIR    the fixtures folder (default: fixtures)
  --force      overwrite an existing capture of CASE
  RUN OPTIONS  any `agentwrap` run option (--timeout, --env, --cwd, --stdin, --answer, ...)
"""


def main(args: Sequence[str], ctx: CommandContext) -> envelope.Outcome:
    mine, rest = _parse(list(args))
    opts, argv = options.parse(rest, options.Options(agent=True))
    if opts.help and not opts.explicit_program:
        raise HelpRequested(USAGE)
    options.validate(opts)
    if not argv:
        raise UsageError("capture: no program given: agentwrap capture [--name CASE] -- PROGRAM ARGS...")
    from agentwrap import registry
    from agentwrap.commands.run import execute

    adapter, _ = registry.find(argv[0], forced=opts.adapter, disabled=opts.no_adapter)
    name = mine["name"] or "-".join(re.sub(r"[^A-Za-z0-9]+", "_", a).strip("_") for a in argv[1:4]) or "run"
    if not _CASE.match(name):
        raise UsageError(f"capture: --name {name!r}: use letters, digits, '.', '_' and '-'")
    folder = Path(mine["dir"]) / adapter.name
    case = fixtures.Case(adapter.name, name, folder / name)
    if case.path(".meta.json").exists() and not mine["force"]:
        raise UsageError(f"capture: {case.path('.meta.json')} exists; choose another --name or pass --force")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(case.path(".out"), "wb") as out, open(case.path(".err"), "wb") as err:
            files: dict[str, IO[bytes]] = {"stdout": out, "stderr": err}

            def tee(stream: str, data: bytes) -> None:
                files[stream].write(data)

            outcome = execute(argv, opts, request_id=ctx.request_id, tee=tee)
    except OSError as exc:
        raise UsageError(f"capture: cannot write fixtures in {folder}: {exc.strerror}") from None
    env = outcome.envelope
    meta = {"argv": argv, "exit_code": env["exit"]["code"], "signal": env["exit"]["signal"],
            "duration_ms": env["exit"]["duration_ms"], "program": env["command"]["program"],
            "tool_version": _version(env["command"]["program"], opts), "captured_at": utc_now(),
            "agentwrap_version": __version__, "pty": not opts.no_pty, "adapter": adapter.name,
            "cwd": os.path.basename(env["context"]["cwd"])}
    if env["error"] and env["error"]["code"] == "INPUT_REQUIRED":  # replays must see the prompt too
        meta["prompt"] = {k: env["error"].get(k) for k in ("prompt", "input_kind", "detection", "source")}
    case.path(".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    replayed, _ = fixtures.replay(adapter, case)
    wrote = not case.path(".expected.json").exists()
    if wrote:
        case.path(".expected.json").write_text(json.dumps(fixtures.expectation(replayed), indent=2) + "\n")
    expected = case.expected() or {}
    diff = fixtures.mismatches(expected, replayed)
    data = {"case": str(case.base), "adapter": adapter.name, "files": [str(case.path(s)) for s in fixtures.SUFFIXES],
            "expected_written": wrote, "mismatches": diff, "run": {"status": env["status"],
                                                                  "exit": env["exit"], "error": env["error"]}}
    summary = (f"captured {case.base}; review {case.path('.expected.json')}" if wrote
               else f"captured {case.base}; {len(diff)} mismatches with the existing expectation")
    return envelope.Outcome(envelope.build(request_id=ctx.request_id, summary=summary, data=data), 0)
