"""Running or lost: a supervisor is alive only if its pid exists AND started when we recorded (a pid
can be reused by an unrelated process after a crash)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agentwrap.ids import utc_now
from agentwrap.operations import store

ENV_MARK = "AGENTWRAP_OPERATION_ID"  # set in the environment of every process of an operation's tree
_START_SLACK = 0.05  # create_time is rounded to clock ticks


def start_time(pid: int) -> float | None:
    import psutil

    try:
        return float(psutil.Process(pid).create_time())
    except (psutil.Error, ValueError):
        return None


def alive(pid: int | None, created: float | None) -> bool:
    if not pid:
        return False
    import psutil

    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        return created is None or abs(proc.create_time() - created) < _START_SLACK
    except psutil.Error:
        return False


def leftovers(op_id: str) -> list[int]:
    """Processes still carrying the operation's mark in their environment (its tree, even re-parented)."""
    import psutil

    found = []
    needle = f"{ENV_MARK}={op_id}".encode()
    for proc in psutil.process_iter():
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(proc.pid)
        except OSError:
            continue
    return found


def current(path: Path) -> dict[str, Any]:
    """The operation's state as it is now: a running one whose supervisor died is `lost` (and recorded so)."""
    state: dict[str, Any] = store.read_json(path / "state.json") or {}
    if state.get("state") in store.FINAL:
        return state
    sup = state.get("supervisor") or {}
    if alive(sup.get("pid"), sup.get("started")):
        return state
    if state.get("state") == "starting" and time.time() - float(state.get("created_epoch", 0)) < 30:
        return state  # the supervisor has not recorded itself yet
    state = store.read_json(path / "state.json") or {}  # it may have finished between the two reads
    if state.get("state") in store.FINAL:
        return state
    cancelled = (path / "cancel.json").exists()
    return store.update_state(path, state="cancelled" if cancelled else "lost", ended_at=utc_now(),
                              ended_epoch=time.time(),
                              lost_reason=None if cancelled else
                              "the supervisor process ended without recording a result (killed or crashed)")
