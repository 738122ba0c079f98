"""`agentwrap --detach`: check what can be checked before anything starts, then start the operation (keyed
runs go through idempotency, which starts it under the key's lock)."""

from __future__ import annotations

from agentwrap import envelope
from agentwrap.operations.launch import handle, launch_facts, start
from agentwrap.options import Options, working_dir


def detached(argv: list[str], opts: Options, request_id: str) -> envelope.Outcome:
    """`agentwrap --detach ... -- PROGRAM ARGS`: check what can be checked now, then start it."""
    if not argv:
        from agentwrap.errors import UsageError

        raise UsageError("no program given: agentwrap --detach [OPTIONS] [--] PROGRAM [ARGS...]")
    if opts.read_only:
        from agentwrap.safety import readonly

        # refused before anything starts, not later in the supervisor
        readonly.check(argv, opts.env, working_dir(opts))
    launch_facts(argv, opts)  # a folder or program that is not there: answered as the attached run would
    if opts.idempotency_key is not None:
        from agentwrap.safety import idempotency

        return idempotency.keyed(argv, opts, request_id)
    return handle(start(opts, argv, request_id), argv, request_id, stream=opts.format == "jsonl")
