"""agentwrap's state folder: what outlives a run and is not a cache (the stats ledger, `init`'s records).

`$AGENTWRAP_STATE_DIR`, else the user state folder: on Linux what platformdirs answers
(`$XDG_STATE_HOME` or `~/.local/state`, then `agentwrap`), worked out without importing it, since
every run appends to the ledger and start-up is a budget. `state_path` answers as a string: the run
path does without pathlib (~3 ms to import).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentwrap.folders import state_path as state_path  # re-exported: the ledger's string form

if TYPE_CHECKING:
    from pathlib import Path


def state_dir() -> Path:
    from pathlib import Path

    return Path(state_path())
