"""`--idempotency-key KEY` (CONTRACT section 9): one key, one run.

A key is bound to what it ran: argv (a `--shell LINE` is `bash -c LINE` by then), working directory,
adapter, a digest of `--stdin`, every `--env` name with a digest of its value, the `--answer` rules (each
pattern, a digest of its reply) and whether the program gets a terminal (`--no-pty`). The digests are
HMAC-SHA256 keyed by the key itself: the record (which never holds the key) holds no value in clear, and a
guessable value cannot be checked against it without the key. Options that only bound the wait
(`--timeout`, `--grace`) or shape the answer (`--format`, `--detail`, `--agent`, ...) are not bound: a
retry that waits longer, or reads less, still means the same run. Its record
(state dir `idempotency/<sha256 of the key>.json`) names the operation that ran it; the operation's own
folder says whether it is still going, and holds the envelope a replay returns. Every keyed run is
therefore an operation, attached or detached, and `op status|wait ID` work on both.

  replay        the same key and inputs after the run ended: the recorded envelope, "replayed": true,
                nothing run
  conflict      the same key with other inputs: IDEMPOTENCY_CONFLICT naming what differs
  in progress   the same key while its first run is going: IDEMPOTENCY_IN_PROGRESS with its operation_id
  lost          the first run's supervisor died without a result: OPERATION_LOST (effects unknown; find
                out, then use a new key)

Deciding and recording happen under an exclusive fcntl lock on the key, so parallel first callers run
the program once. Records expire after RETENTION_SECONDS (24 hours, as Stripe keeps its keys); an
expired key is free again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentwrap import envelope
from agentwrap.errors import AgentwrapError
from agentwrap.ids import utc_now
from agentwrap.operations import liveness, store
from agentwrap.options import Options
from agentwrap.problem import CodeAction

RETENTION_SECONDS = 24 * 3600
MAX_KEY = 255


class IdempotencyConflict(AgentwrapError):
    code = "IDEMPOTENCY_CONFLICT"


class IdempotencyInProgress(AgentwrapError):
    code = "IDEMPOTENCY_IN_PROGRESS"


def root() -> Path:
    return store.state_base() / "idempotency"


def _paths(key: str) -> tuple[Path, Path]:
    digest = hashlib.sha256(key.encode()).hexdigest()[:40]
    return root() / f"{digest}.json", root() / f"{digest}.lock"


@contextlib.contextmanager
def _locked(key: str) -> Iterator[Path]:
    record, lock = _paths(key)
    root().mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield record
    finally:
        os.close(fd)  # closing releases the lock


def binding(argv: list[str], opts: Options, stdin_file: str | None, key: str = "") -> dict[str, Any]:
    """What the key is bound to. The adapter is the one the run would use."""
    from agentwrap import registry

    adapter, _ = registry.find(argv[0], forced=opts.adapter, disabled=opts.no_adapter)
    digest = None
    if stdin_file is not None:
        with open(stdin_file, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
    return {"argv": list(argv), "cwd": os.path.abspath(opts.cwd) if opts.cwd else os.getcwd(),
            "adapter": adapter.name, "stdin_sha256": digest,
            "env": {name: _keyed_digest(key, value) for name, value in sorted(opts.env.items())},
            "answers": [[pattern, _keyed_digest(key, reply)] for pattern, reply in opts.answers],
            "pty": not opts.no_pty}


def _keyed_digest(key: str, value: str) -> str:
    """A value the record must not hold in clear (an --env token, an --answer password)."""
    return hmac.new(key.encode(), value.encode(), hashlib.sha256).hexdigest()


def _check_key(key: str) -> None:
    from agentwrap.errors import UsageError

    if not key.strip() or len(key) > MAX_KEY:
        raise UsageError(f"--idempotency-key: give 1 to {MAX_KEY} characters (a UUID is a good key)")


_BOUND = ("argv", "cwd", "adapter", "stdin_sha256", "env", "answers", "pty")


def _differences(recorded: dict[str, Any], now: dict[str, Any]) -> str:
    """What differs, in words; a digest (of --env or --answer values) is never shown."""
    parts = []
    for field in _BOUND:
        was, is_now = recorded.get(field), now.get(field)
        if was == is_now:
            continue
        if field == "env":
            parts.append(_env_differences(was, is_now))
        elif field == "answers":
            parts.append(f"--answer rules were {_patterns(was)}, now {_patterns(is_now)} "
                         "(replies compared too)")
        elif field == "pty":
            parts.append(_pty_difference(bool(was), bool(is_now)))
        else:
            parts.append(f"{field} was {was!r}, now {is_now!r}")
    return "; ".join(parts)


def _pty_difference(was: bool, now: bool) -> str:
    before = "had a terminal" if was else "had no terminal (--no-pty)"
    return f"the program {before}, now {'has one' if now else 'has none (--no-pty)'}"


def _env_differences(was: Any, now: Any) -> str:
    if not isinstance(was, dict):  # a record written before --env was bound
        return "--env was not recorded for this key"
    names = sorted(set(was) | set(now))
    added = [n for n in names if n not in was]
    removed = [n for n in names if n not in now]
    changed = [n for n in names if n in was and n in now and was[n] != now[n]]
    said = [f"{label} {', '.join(group)}" for label, group in
            (("added", added), ("removed", removed), ("other value for", changed)) if group]
    return "--env " + "; ".join(said)


def _patterns(rules: Any) -> str:
    if not isinstance(rules, list):
        return "not recorded"
    return repr([rule[0] for rule in rules])


def _existing(record_path: Path, key: str, bound: dict[str, Any], detail: str) -> envelope.Outcome | None:
    """The answer for a key already used (replay, conflict, in progress, lost), or None: run it."""
    rec = store.read_json(record_path)
    if rec is None or time.time() >= float(rec.get("expires_epoch", 0)):
        return None
    if rec["binding"] != bound:
        # "idempotency key 'K'", not "--idempotency-key 'K'": the redactor reads `--…-key VALUE` as a
        # labelled secret, and a key is a name the caller needs to see (its record holds only its sha256)
        raise IdempotencyConflict(
            f"idempotency key {key!r} was used for another invocation: {_differences(rec['binding'], bound)}",
            suggested_fix="Use a new key for a different invocation; repeat the recorded one to replay it.",
            extra={"operation_id": rec.get("operation_id")})
    op_id = str(rec["operation_id"])
    path = store.root() / op_id
    state = liveness.current(path) if (path / "state.json").exists() else {"state": rec.get("state")}
    if state.get("state") not in store.FINAL:
        raise IdempotencyInProgress(
            f"idempotency key {key!r}: its first run is still going as operation {op_id}; nothing was run "
            "again",
            code_actions=(CodeAction(title="Wait for the first run's result",
                                     command=("agentwrap", "op", "wait", op_id, "--timeout", "10m"),
                                     applicability="machine_applicable", is_preferred=True),),
            extra={"operation_id": op_id})
    result = store.read_result(path, detail) if path.exists() else None
    if result is None:
        result = rec.get("concise" if detail == "concise" else "envelope")
    if state.get("state") == "lost" or result is None:
        from agentwrap.commands.op import OperationLost

        raise OperationLost(f"idempotency key {key!r}: its first run (operation {op_id}) was lost before it "
                            "recorded a result; whether it changed anything is unknown",
                            suggested_fix="Check with a read-only command whether the change happened; "
                                          "then run again with a new key if it did not.",
                            extra={"operation_id": op_id})
    result = {**_replayed(result, key), "replayed": True, "operation_id": op_id}
    code = int(state.get("exit_code", rec.get("exit_code", 0 if result.get("status") == "success" else 1)))
    return envelope.Outcome(result, code)


def _replayed(result: dict[str, Any], key: str) -> dict[str, Any]:
    """A replayed failure's fix says that the key replays it: the recorded fix (`Raise the limit with
    --timeout`) followed with the same key would only replay the same failure."""
    error = result.get("error")
    if not isinstance(error, dict):
        return result
    fix = error.get("suggested_fix")
    said = (f"Replayed: this is the recorded result of idempotency key {key!r} and nothing ran now; the "
            "key replays it again, whatever --timeout. To run again, check what the first run changed, "
            "then use a new key")
    if fix:
        said += f"; the first run's fix: {fix}"
    return {**result, "error": {**error, "suggested_fix": said}}


def _stage_stdin(opts: Options, op_id: str) -> Path | None:
    """`--stdin -` read whole (it is digested, and the program is fed from the copy); None otherwise."""
    if opts.stdin != "-":
        return None
    staging = store.root() / ".staging"
    staging.mkdir(parents=True, exist_ok=True, mode=0o700)
    staged = staging / op_id
    fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "wb") as f:
        f.write(sys.stdin.buffer.read())
    return staged


def _stdin_file(opts: Options, staged: Path | None) -> str | None:
    if staged is not None:
        return str(staged)
    if opts.stdin is None:
        return None
    from agentwrap.commands.run import stdin_source

    handle = stdin_source(opts)  # the run's own checks and messages for an unreadable file
    if handle is not None:
        handle.close()
    return os.path.abspath(opts.stdin)


Emit = Callable[[dict[str, Any]], None]


def keyed(argv: list[str], opts: Options, request_id: str, *,
          run: Callable[[Options, Emit], envelope.Outcome] | None = None,
          emit: Emit | None = None) -> envelope.Outcome:
    """Run `argv` once per key; `run(opts, emit)` is the attached run path (None: detach it), `emit` the
    caller's own jsonl writer, if any."""
    from agentwrap.operations.launch import operation_id_for, start

    key = str(opts.idempotency_key)
    _check_key(key)
    if opts.read_only:  # a refusal is an answer about the request, not a run to record
        from agentwrap.safety import readonly

        readonly.check(argv, opts.env)
    op_id = operation_id_for(request_id)
    staged = _stage_stdin(opts, op_id)
    try:
        bound = binding(argv, opts, _stdin_file(opts, staged), key)
        with _locked(key) as record_path:
            answer = _existing(record_path, key, bound, opts.detail)
            if answer is not None:
                return answer
            path = store.create(op_id)
            if staged is not None:
                os.replace(staged, path / "stdin")
                opts.stdin = str(path / "stdin")
            key_info = {"key_sha256": record_path.stem}
            rec = {"binding": bound, "operation_id": op_id, "state": "running", "created_at": utc_now(),
                   "expires_epoch": time.time() + RETENTION_SECONDS}
            if run is None:
                start(opts, argv, request_id, idempotency=key_info)
                store.write_json(record_path, rec)
                from agentwrap.operations.launch import handle

                return handle(op_id, argv, request_id, stream=opts.format == "jsonl")
            _register_attached(path, argv)
            store.write_json(record_path, rec)
    finally:
        if staged is not None:
            staged.unlink(missing_ok=True)
    events = _events_writer(path, opts)
    before = os.environ.get(liveness.ENV_MARK)
    os.environ[liveness.ENV_MARK] = op_id  # the run's tree carries the mark: leftovers stay findable
    try:
        outcome = run(opts, _both(events.event, emit))
    except AgentwrapError:  # nothing ran (not found, not executable, bad option): the key stays free
        with _locked(key) as record_path:
            record_path.unlink(missing_ok=True)
        store.update_state(path, state="failed", ended_at=utc_now(), ended_epoch=time.time())
        raise
    finally:  # an in-process caller (the SDK) must not carry this run's mark into its next ones
        if before is None:
            os.environ.pop(liveness.ENV_MARK, None)
        else:
            os.environ[liveness.ENV_MARK] = before
        events.stream.close()
    _finish_attached(path, outcome, opts)
    record_done(key_info, op_id)
    return outcome


def _events_writer(path: Path, opts: Options) -> Any:
    """The operation's events.jsonl, written as `--format jsonl` would print them (redacted, standard)."""
    from agentwrap.render.output import Writer

    fd = os.open(path / "events.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    writer = Writer(open(fd, "a", encoding="utf-8"))  # noqa: SIM115 - closed by keyed() after the run
    recorded = Options(agent=opts.agent, detail="standard")
    recorded.env, recorded.answers = opts.env, opts.answers
    writer.configure("jsonl", recorded)
    return writer


def _both(first: Emit, second: Emit | None) -> Emit:
    if second is None:
        return first

    def emit(event: dict[str, Any]) -> None:
        first(event)
        second(event)

    return emit


def _register_attached(path: Path, argv: list[str]) -> None:
    """An attached keyed run is an operation too, supervised by this process: a second caller can wait on it,
    and if this process is killed the operation reads as lost, not as running forever."""
    op_id = path.name
    store.write_json(path / "request.json", {"argv": argv, "cwd": os.getcwd(), "created_at": utc_now(),
                                             "attached": True})
    store.write_json(path / "state.json", {
        "operation_id": op_id, "state": "running", "argv": argv, "created_at": utc_now(),
        "created_epoch": time.time(), "started_at": utc_now(), "attached": True,
        "supervisor": {"pid": os.getpid(), "started": liveness.start_time(os.getpid())}})


def _finish_attached(path: Path, outcome: envelope.Outcome, opts: Options) -> None:
    from agentwrap.redact import Redactor
    from agentwrap.render import views
    from agentwrap.secret_names import secret_values

    redactor = Redactor([*secret_values(os.environ), *secret_values(opts.env)])
    standard = redactor.redact_obj(outcome.envelope)
    concise = redactor.redact_obj(views.project(outcome.answer, "concise"))
    store.record_final(path, standard, concise, outcome.exit_code)


def record_done(key_info: dict[str, Any], op_id: str) -> None:
    """Copy the finished run's envelope into the key's record, so a replay outlives the operation's folder."""
    record_path = root() / f"{key_info['key_sha256']}.json"
    lock = record_path.with_suffix(".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        rec = store.read_json(record_path)
        if rec is None or rec.get("operation_id") != op_id:
            return
        path = store.root() / op_id
        state = store.read_json(path / "state.json") or {}
        rec.update(state="done", exit_code=state.get("exit_code"), envelope=store.read_json(path / "result.json"),
                   concise=store.read_json(path / "result.concise.json"))
        store.write_json(record_path, rec)
    finally:
        os.close(fd)


def prune(now: float | None = None) -> int:
    """Remove expired key records (their lock files go with them)."""
    now = time.time() if now is None else now
    removed = 0
    for record_path in root().glob("*.json") if root().exists() else ():
        rec = store.read_json(record_path) or {}
        if now >= float(rec.get("expires_epoch", 0)):
            record_path.unlink(missing_ok=True)
            record_path.with_suffix(".lock").unlink(missing_ok=True)
            removed += 1
    return removed
