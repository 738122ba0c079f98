"""agentwrap's cache folder, worked out without platformdirs on Linux (its import costs ~2-5 ms of a run).

A string: the run path goes without pathlib (~3 ms to import). The artifacts, the entry-point index
and the checked adapter specs live in it.
"""

from __future__ import annotations

import os
import sys


def cache_path() -> str:
    """`$AGENTWRAP_CACHE_DIR`, else the user cache folder: on Linux what platformdirs answers
    (`$XDG_CACHE_HOME` or `~/.cache`, then `agentwrap`)."""
    override = os.environ.get("AGENTWRAP_CACHE_DIR")
    if override:
        return override
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return os.path.join(base, "agentwrap")
    import platformdirs

    return str(platformdirs.user_cache_dir("agentwrap"))
