"""`agentwrap hook HOST`: an agent host's command hook. Reads the host's hook JSON on stdin and answers in
the host's own format, routing the command through `agentwrap --agent` (CONTRACT section 10).

It fails open: on input it does not understand, on a command it leaves alone, and on its own failure it
exits 0 with nothing on stdout, so the host runs the command as written. Input that is not a hook call
(not JSON, not an object, too large), a line it could not read (too long, no parser) and its own failure
are said in one line on stderr, which every host only logs or shows for an exit 0 (never to the model,
never blocking); a line left alone by design (a heredoc, an editor, a deny rule) is not.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

MAX_INPUT = 8 << 20  # a hook input larger than this is not a tool call
_JSON_KINDS = {list: "a JSON array", str: "a JSON string", int: "a JSON number", float: "a JSON number",
               bool: "JSON true or false", type(None): "JSON null"}


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
        answer, note = _answer(args[0], stdin.read(MAX_INPUT + 1))
        if answer is not None:
            stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        if note:
            stderr.write(f"agentwrap hook: {note}; the command runs unchanged\n")
    except Exception as exc:  # noqa: BLE001 - a hook that fails must let the command run (fail open)
        stderr.write(f"agentwrap hook: {type(exc).__name__}: {exc}; the command runs unchanged\n")
    return 0


def _answer(host: str, raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """The host's answer (None: run the line as written) and a note for stderr, if one is due."""
    from agentwrap.hooks.hosts import BY_NAME, within
    from agentwrap.hooks.rewrite import rewrite, wrapper_program

    if len(raw) > MAX_INPUT:
        return None, f"the hook input is larger than {MAX_INPUT >> 20} MiB"
    try:
        data = json.loads(raw)
    except ValueError:
        return None, "the hook input is not JSON"
    if not isinstance(data, dict):
        return None, f"the hook input is {_JSON_KINDS.get(type(data), 'a JSON value')}, not a JSON object"
    codec = BY_NAME[host]
    call = codec.read(data)
    if call is None or call.background:
        return None, None  # not a shell command, or one that runs in the background: nobody would read its envelope
    cwd: str | None = data["cwd"] if isinstance(data.get("cwd"), str) else os.getcwd()  # where the line runs
    if os.environ.get("AGENTWRAP_HOOK_READS") == "wrap":
        cwd = None  # the user wants every read through agentwrap, small ones too
    rw = rewrite(call.command, wrapper_program(), cwd, within(codec.limit(call)))
    if rw.command is None:
        return None, rw.why if rw.unread else None
    verdict = codec.policy(data, rw)
    if verdict == "skip":
        return None, None
    return codec.answer(call, rw.command, verdict), None
