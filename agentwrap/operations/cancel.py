"""`op cancel`: end an operation's whole tree and say which of its effects remain."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

from agentwrap.ids import utc_now
from agentwrap.operations import liveness, store

SUPERVISOR_GRACE = 15.0  # the supervisor ends the tree itself (SIGTERM, grace, SIGKILL) and records it


def cancel(path: Path) -> dict[str, Any]:
    state = liveness.current(path)
    if state.get("state") in store.FINAL:
        ended = _end_leftovers(path.name)
        return {"state": state["state"], "already_finished": True, "leftovers_ended": ended}
    if not (path / "cancel.json").exists():
        store.write_json(path / "cancel.json", {"requested_at": utc_now()})
    sup = state.get("supervisor") or {}
    pid = int(sup.get("pid") or 0)
    if liveness.alive(pid, sup.get("started")):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)  # the supervisor's run loop ends the tree as for an attached run
    deadline = time.monotonic() + SUPERVISOR_GRACE
    delay = 0.02
    while time.monotonic() < deadline:
        state = liveness.current(path)
        if state.get("state") in store.FINAL:
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.25)
    else:
        if liveness.alive(pid, sup.get("started")):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)  # it did not end in time: its tree is ended below
        time.sleep(0.05)
        state = liveness.current(path)
    ended = _end_leftovers(path.name)
    return {"state": state.get("state"), "already_finished": False, "leftovers_ended": ended}


def _end_leftovers(op_id: str) -> list[int]:
    """Any process of the operation's tree still alive (its supervisor was killed before it could end them)."""
    found = [p for p in liveness.leftovers(op_id) if p != os.getpid()]
    pids = found
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        if sig == signal.SIGTERM and pids:
            time.sleep(0.5)
            pids = [p for p in pids if liveness.alive(p, None)]
    return found
