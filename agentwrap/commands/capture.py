"""`agentwrap capture [--name CASE] [--dir DIR] [--force] [RUN OPTIONS] -- PROGRAM ARGS`

Records a fixture through the real runner: the raw bytes as the terminal saw them, the exit, argv,
tool version and date, plus a proposed expectation to review (never overwriting a reviewed one).
A fixture is shared (committed, attached to issues), so it holds what an envelope may show: the run's
secrets are redacted from its bytes, argv and name as from the envelope. The program runs once; only a
built-in adapter's tool, or a `--version-command` the caller gives, is asked for its version.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from agentwrap import __version__, envelope, fixtures, options
from agentwrap.adapter import Adapter
from agentwrap.commands import CommandContext
from agentwrap.errors import HelpRequested, UsageError
from agentwrap.ids import utc_now
from agentwrap.redact import REDACTED, Redactor

_CASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}\Z")
_OPTIONS = ("--name", "--dir", "--force", "--version-command")
# How each built-in adapter's tools say their version, known to change nothing. Any other program is
# never run a second time unasked: `deploy --version` may well deploy (`--version-command` opts in).
_VERSION_ARGS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("apt", "cargo", "curl", "docker", "eslint", "gcc", "git", "gpg", "grep", "ls", "make",
                     "mypy", "node", "npm", "pip", "pytest", "python", "ruff", "tar", "tsc"), ("--version",)),
    "kubectl": ("version", "--client"), "ssh": ("-V",), "terraform": ("-version",)}
_CHUNK = 1 << 18  # the runner's batch size: fixtures are redacted in line-aligned pieces of about this


def _parse(args: list[str]) -> tuple[dict[str, Any], list[str]]:
    mine: dict[str, Any] = {"name": None, "dir": "fixtures", "force": False, "version_command": None}
    i = 0
    while i < len(args) and args[i] in _OPTIONS:
        if args[i] == "--force":
            mine["force"] = True
            i += 1
            continue
        if i + 1 >= len(args):
            raise UsageError(f"capture: {args[i]} needs a value")
        mine[args[i][2:].replace("-", "_")] = args[i + 1]
        i += 2
    return mine, args[i:]


def _version_argv(adapter: Adapter, argv: list[str], opts: options.Options,
                  given: str | None) -> list[str] | None:
    """The command that says the tool's version: the caller's, or a built-in adapter's known one."""
    if given is not None:
        words = shlex.split(given)
        if not words:
            raise UsageError("capture: --version-command is empty")
        return words
    from agentwrap import registry

    if opts.adapter is not None or adapter.name not in _VERSION_ARGS:  # forced: the program may be anything
        return None
    if registry.find(argv[0])[0] is not registry.builtin(adapter.name):  # a user's or a plugin's adapter
        return None
    return [argv[0], *_VERSION_ARGS[adapter.name]]


def _version(command: list[str], opts: options.Options) -> str | None:
    """The first line `command` printed when it succeeded, through the same runner (bounded, never
    prompting); None when it failed (`error: guest --version not found` is no version)."""
    from agentwrap.commands.run import execute

    probe = options.Options(agent=True, timeout=10.0, cwd=opts.cwd, env=dict(opts.env))
    try:
        outcome = execute(command, probe, request_id="req_version")
    except Exception:  # noqa: BLE001 - a tool without a version still gets its fixture
        return None
    if outcome.envelope["exit"]["code"] != 0:
        return None
    output = outcome.envelope["output"]
    text = (output["stdout"]["text"] or output["stderr"]["text"]).strip()
    return text.splitlines()[0][:200] if text else None


def _secrets(opts: options.Options) -> list[str]:
    """The values the run's envelope hides (commands.run.run_secrets), for the fixture to hide too."""
    from agentwrap.commands.run import run_secrets

    return run_secrets({**os.environ, **opts.env}, opts)


def _redact_file(path: Path, secrets: list[str]) -> int:
    """Redact a captured stream in place, line-aligned as the run's pipeline reads it; the count hidden.
    Bytes that are not UTF-8 pass through unchanged (surrogateescape), so the rest stays raw."""
    data, redactor, pieces, start = path.read_bytes(), Redactor(secrets), [], 0
    while start < len(data):
        end = data.find(b"\n", start + _CHUNK)
        end = len(data) if end < 0 else end + 1
        text = data[start:end].decode("utf-8", "surrogateescape")
        pieces.append(redactor.redact(text).encode("utf-8", "surrogateescape"))
        start = end
    if redactor.count:
        path.write_bytes(b"".join(pieces))
    return redactor.count


def _case_name(argv: list[str], shown: list[str]) -> str:
    """A name from the first arguments the redaction left alone: never from a secret (`--token=ghp_...`,
    the value after `--password`)."""
    words = [word for word, kept in zip(argv[1:], shown[1:], strict=True) if word == kept][:3]
    return "-".join(re.sub(r"[^A-Za-z0-9]+", "_", word).strip("_") for word in words).strip("-") or "run"


USAGE = """usage: agentwrap capture [--name CASE] [--dir DIR] [--force] [--version-command CMD] [RUN OPTIONS]
                         -- PROGRAM ARGS...

Run PROGRAM through agentwrap and record the run as an adapter fixture: DIR/ADAPTER/CASE.out and .err
(the raw bytes the terminal saw, with the secrets an envelope hides redacted), .meta.json (argv, exit,
tool version, date) and a proposed .expected.json to review (a reviewed one is never overwritten).
PROGRAM runs once: the tool version is asked only of a built-in adapter's tool (`git --version`), or
with --version-command.

options:
  --name CASE              the fixture's name (default: from the first arguments that are no secret)
  --dir DIR                the fixtures folder (default: fixtures)
  --force                  overwrite an existing capture of CASE
  --version-command CMD    run CMD (shell words, e.g. 'mytool version') for the tool version
  RUN OPTIONS              any `agentwrap` run option (--timeout, --env, --cwd, --stdin, --answer, ...)
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
    version_argv = _version_argv(adapter, argv, opts, mine["version_command"])
    secrets = _secrets(opts)
    shown_argv = Redactor(secrets).redact_obj(argv)
    name = mine["name"] or _case_name(argv, shown_argv)
    if not _CASE.match(name):
        raise UsageError(f"capture: --name {name!r}: use letters, digits, '.', '_' and '-'")
    folder = Path(mine["dir"]) / adapter.name
    case = fixtures.Case(adapter.name, name, folder / name)
    if Redactor(secrets).redact(str(case.base)) != str(case.base):  # the envelope would name another path
        raise UsageError(f"capture: the fixture path {case.base} looks like it holds a secret; "
                         "choose another --name or --dir")
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
    redacted = sum(_redact_file(case.path(suffix), secrets) for suffix in (".out", ".err"))
    redacted += sum(shown != word for shown, word in zip(shown_argv, argv, strict=True))
    version = _version(version_argv, opts) if version_argv else None
    meta = {"argv": shown_argv, "exit_code": env["exit"]["code"], "signal": env["exit"]["signal"],
            "duration_ms": env["exit"]["duration_ms"], "program": env["command"]["program"],
            "tool_version": version, "version_command": version_argv, "captured_at": utc_now(),
            "agentwrap_version": __version__, "pty": not opts.no_pty, "adapter": adapter.name,
            "cwd": os.path.basename(env["context"]["cwd"])}
    if env["error"] and env["error"]["code"] == "INPUT_REQUIRED":  # replays must see the prompt too
        meta["prompt"] = {k: env["error"].get(k) for k in ("prompt", "input_kind", "detection", "source")}
    meta = Redactor(secrets).redact_obj(meta)  # the version line and the prompt, as the envelope shows them
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
    warnings = []
    if redacted:
        warnings.append({"code": "REDACTED", "message": f"{redacted} secrets were redacted from the fixture "
                         f"(its output and argv show {REDACTED} where the envelope does)"})
    return envelope.Outcome(envelope.build(request_id=ctx.request_id, summary=summary, data=data,
                                           warnings=warnings), 0)
