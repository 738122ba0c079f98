"""`--detach`: start the run as a durable operation and answer with its handle at once.

The supervisor is detached the classic way (fork, setsid, fork again): it is not our child, it has no
controlling terminal and cannot acquire one, and the launcher (an agent's tool call, a CI step) may
exit or be killed without taking it along. The supervisor is `python -m agentwrap.operations.supervisor`,
which runs the normal run path with the options given here.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from agentwrap import envelope
from agentwrap.ids import utc_now
from agentwrap.operations import liveness, store
from agentwrap.operations.recorded import options_to_json
from agentwrap.options import Options, working_dir

DETACHED_TIMEOUT = 24 * 3600.0
_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent.parent)


def operation_id_for(request_id: str) -> str:
    """The operation shares the request's ULID: its jsonl events carry the same id either way."""
    return "op_" + request_id.split("_", 1)[1]


def start(opts: Options, argv: list[str], request_id: str, *, idempotency: dict[str, Any] | None = None) -> str:
    """Record the request, start its supervisor, return the operation id once the supervisor is recorded."""
    op_id = operation_id_for(request_id)
    store.prune_now_and_then()
    path = store.create(op_id)
    recorded = options_to_json(opts)
    recorded.pop("detach", None)
    recorded.pop("idempotency_key", None)  # decided by the launcher, under the key's lock
    recorded.pop("input", None)  # already read into these options
    if not opts.timeout_given:  # --agent's 10 minutes are for a caller that waits; a detached run has a day
        recorded["timeout"] = DETACHED_TIMEOUT
    if opts.cwd:
        recorded["cwd"] = os.path.abspath(opts.cwd)
    if opts.stdin == "-":  # the launcher's stdin is gone once it answers: keep what it held
        with open(path / "stdin", "wb") as f:
            f.write(sys.stdin.buffer.read())
        recorded["stdin"] = str(path / "stdin")
    elif opts.stdin:  # a snapshot: the file may be gone (or changed) by the time the supervisor reads it
        import shutil

        shutil.copyfile(opts.stdin, path / "stdin")
        os.chmod(path / "stdin", 0o600)
        recorded["stdin"] = str(path / "stdin")
    store.write_json(path / "request.json", {"options": recorded, "argv": argv, "cwd": os.getcwd(),
                                             "created_at": utc_now(), "idempotency": idempotency})
    store.write_json(path / "state.json", {"operation_id": op_id, "state": "starting", "argv": argv,
                                           "created_at": utc_now(), "created_epoch": time.time()})
    _record_started(path, opts, argv)
    _spawn_supervisor(path)
    return op_id


def launch_facts(argv: list[str], opts: Options) -> tuple[str, str]:
    """The folder and the program, checked as the attached run checks them before it starts (USAGE,
    PROGRAM_NOT_FOUND, NOT_EXECUTABLE): a run that cannot start is answered now, not as a started operation
    whose failure only `op wait` would tell."""
    from agentwrap.runner.spawn import resolve_program

    cwd = working_dir(opts)
    path_env = opts.env.get("PATH", os.environ.get("PATH", os.defpath))
    return cwd, resolve_program(argv[0], path_env, cwd)


def _record_started(path: Path, opts: Options, argv: list[str]) -> None:
    """The operation's first event, written by the launcher: what is true at launch, the same line the
    launcher prints for `--format jsonl` and `op events` returns as sequence 1 (the supervisor leaves out
    its run's own operation_started and numbers on from it)."""
    from agentwrap.events import EventStream
    from agentwrap.render.output import Writer

    cwd, program = launch_facts(argv, opts)
    fd = os.open(path / "events.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with open(fd, "a", encoding="utf-8") as events:
        writer = Writer(events)
        writer.configure("jsonl", opts)  # redacted as the supervisor's own events are
        EventStream(writer.event, path.name, 0).emit("operation_started", argv=argv, cwd=cwd, program=program,
                                                     detached=True, next=_next(path.name))


def launch_event(path: Path) -> dict[str, Any] | None:
    """The first event of events.jsonl when the launcher wrote it (None for an operation it did not)."""
    import json

    first = _first_line(path)
    event = json.loads(first) if first else None
    return event if isinstance(event, dict) and event.get("type") == "operation_started" else None


def _first_line(path: Path) -> str:
    """events.jsonl's first whole line ('' if there is none yet)."""
    try:
        with open(path / "events.jsonl", encoding="utf-8") as f:
            first = f.readline()
    except FileNotFoundError:
        return ""
    return first if first.endswith("\n") else ""


def _next(op_id: str) -> list[str]:
    return [f"agentwrap op wait {op_id} --timeout 60", f"agentwrap op status {op_id}",
            f"agentwrap op events {op_id} --after 0", f"agentwrap op cancel {op_id}"]


def _spawn_supervisor(path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH", "")) if p)
    argv = [sys.executable, "-m", "agentwrap.operations.supervisor", str(path)]
    ready_r, ready_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    middle = os.fork()
    if middle == 0:
        try:
            os.setsid()
            supervisor = os.fork()
            if supervisor == 0:
                os.close(ready_w)
                os.read(ready_r, 1)  # wait until the middle process has recorded our pid
                os.close(ready_r)
                _redirect(path)
                os.execve(sys.executable, argv, env)
            os.close(ready_r)
            store.update_state(path, state="running",
                               supervisor={"pid": supervisor, "started": liveness.start_time(supervisor)})
            os.close(ready_w)
        finally:
            os._exit(0)
    os.close(ready_r)
    os.close(ready_w)
    os.waitpid(middle, 0)


def _redirect(path: Path) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    log = os.open(path / "supervisor.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)


def handle(op_id: str, argv: list[str], request_id: str, *, stream: bool = False) -> envelope.Outcome:
    """The launcher's answer: an envelope whose top-level `operation_id` is the handle. As a jsonl `stream`
    it is the operation's first event only: the run has neither completed nor succeeded yet, and the rest of
    its stream is `op events`'."""
    import shlex

    env = envelope.build(
        request_id=request_id, summary=f"started operation {op_id}: {shlex.join(argv)}"[:300],
        command={"argv": argv, "program": None, "adapter": None, "subcommand": None},
        data={"operation_id": op_id, "state": "running", "next": _next(op_id)})
    env["operation_id"] = op_id
    first = _first_line(store.root() / op_id) if stream else ""
    return envelope.Outcome(env, 0, raw_output=first or None)  # the very line `op events` returns first
