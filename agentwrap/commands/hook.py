"""`agentwrap hook HOST`: an agent host's command hook. Reads the host's hook JSON on stdin and answers in
the host's own format, routing the command through `agentwrap --agent` (CONTRACT section 10).

It fails open: on input it does not understand, on a command it leaves alone, and on its own failure it
exits 0 with nothing on stdout, so the host runs the command as written. A failure is said on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

MAX_INPUT = 8 << 20  # a hook input larger than this is not a tool call


def run(args: list[str], stdin: IO[bytes] | None = None, stdout: IO[str] | None = None,
        stderr: IO[str] | None = None) -> int:
    stdin = stdin or sys.stdin.buffer
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    try:
        from agentwrap.hooks.hosts import BY_NAME, HOSTS

        if len(args) != 1 or args[0] not in BY_NAME:
            given = " ".join(args) or "nothing"
            stderr.write(f"agentwrap hook: expected one host ({', '.join(HOSTS)}), got {given}; "
                         "the command runs unchanged\n")
            return 0
        answer = _answer(args[0], stdin.read(MAX_INPUT + 1))
        if answer is not None:
            stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    except Exception as exc:  # noqa: BLE001 - a hook that fails must let the command run (fail open)
        stderr.write(f"agentwrap hook: {type(exc).__name__}: {exc}; the command runs unchanged\n")
    return 0


def _answer(host: str, raw: bytes) -> dict[str, Any] | None:
    from agentwrap.hooks.hosts import BY_NAME
    from agentwrap.hooks.rewrite import rewrite, wrapper_program

    if len(raw) > MAX_INPUT:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    codec = BY_NAME[host]
    call = codec.read(data)
    if call is None or call.background:
        return None  # not a shell command, or one that runs in the background: nobody would read its envelope
    cwd: str | None = data["cwd"] if isinstance(data.get("cwd"), str) else os.getcwd()  # where the line runs
    if os.environ.get("AGENTWRAP_HOOK_READS") == "wrap":
        cwd = None  # the user wants every read through agentwrap, small ones too
    rw = rewrite(call.command, wrapper_program(), cwd)
    if rw.command is None:
        return None
    verdict = codec.policy(data, rw)
    if verdict == "skip":
        return None
    return codec.answer(call, rw.command, verdict)
