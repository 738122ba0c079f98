"""agentwrap's own folders (cache, state, config), and the one way a cache file is written.

On Linux each folder is what platformdirs answers, worked out without importing it (~2-5 ms of a run);
each is a string, since the run path goes without pathlib (~3 ms to import). The cache holds the
artifacts, the entry-point index and the checked adapter specs; the state holds the stats ledger.
"""

from __future__ import annotations

import contextlib
import os
import sys


def _folder(override: str | None, xdg: str, home_default: str, platformdirs_name: str) -> str:
    """`$override`, else `agentwrap` in `$xdg` (or `home_default`) on Linux, else platformdirs' answer."""
    if override and (value := os.environ.get(override)):
        return value
    if sys.platform.startswith("linux"):
        base = os.environ.get(xdg, "").strip() or os.path.expanduser(home_default)
        return os.path.join(base, "agentwrap")
    import platformdirs

    return str(getattr(platformdirs, platformdirs_name)("agentwrap"))


def cache_path() -> str:
    """`$AGENTWRAP_CACHE_DIR`, else the user cache folder (`$XDG_CACHE_HOME` or `~/.cache`, then `agentwrap`)."""
    return _folder("AGENTWRAP_CACHE_DIR", "XDG_CACHE_HOME", "~/.cache", "user_cache_dir")


def state_path() -> str:
    """`$AGENTWRAP_STATE_DIR`, else the user state folder (`$XDG_STATE_HOME` or `~/.local/state`, then
    `agentwrap`): what outlives a run and is not a cache."""
    return _folder("AGENTWRAP_STATE_DIR", "XDG_STATE_HOME", "~/.local/state", "user_state_dir")


def config_path() -> str:
    """The user config folder (`$XDG_CONFIG_HOME` or `~/.config`, then `agentwrap`)."""
    return _folder(None, "XDG_CONFIG_HOME", "~/.config", "user_config_dir")


def write_cached(path: str, text: str) -> bool:
    """Write a cache file whole or not at all (a temporary file renamed over it), private (0600 whatever
    the umask) in a private folder; False when it could not be written, which never fails a run."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True
