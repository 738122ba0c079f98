"""agentwrap's state folder: what outlives a run and is not a cache (the stats ledger, `init`'s records).

`$AGENTWRAP_STATE_DIR`, else the user state folder: on Linux what platformdirs answers
(`$XDG_STATE_HOME` or `~/.local/state`, then `agentwrap`), worked out without importing it, since
every run appends to the ledger and start-up is a budget.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def state_dir() -> Path:
    override = os.environ.get("AGENTWRAP_STATE_DIR")
    if override:
        return Path(override)
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
        return Path(base) / "agentwrap"
    import platformdirs

    return Path(platformdirs.user_state_dir("agentwrap"))
