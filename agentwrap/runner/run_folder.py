"""The private per-run folder (shims, request log, answers, a shell line's `| tail` copies), made and removed.

Run folders live in one folder per user, `$TMPDIR/agentwrap-UID`, each named after the process that made it.
A run ended by SIGKILL cannot remove its own folder (and a `| tail` copy may hold unredacted secrets), so
each new run removes the folders of runs whose process is gone. Paths are strings and nothing here imports
tempfile or shutil (~6 ms): every run makes one of these.
"""

from __future__ import annotations

import contextlib
import os
import stat

from agentwrap.ids import new_id


def make() -> str:
    """A new private folder for one run, after sweeping the folders dead runs left behind."""
    tmp = os.environ.get("TMPDIR") or "/tmp"
    base = _users_folder(tmp)
    if base is None:  # not ours to trust (another user's, a symlink, open to others): one folder, swept by nobody
        path = os.path.join(tmp, new_id("agentwrap"))
    else:
        space = _pid_space()
        sweep(base, space)
        path = os.path.join(base, f"{space}-{os.getpid()}-{new_id('run')}")
    os.mkdir(path, 0o700)
    return path


def remove(path: str) -> None:
    """Remove a run folder and everything in it; each entry on its own, so one that cannot be removed
    does not leave the rest behind."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                remove(entry.path)
            else:
                os.remove(entry.path)
    with contextlib.suppress(OSError):
        os.rmdir(path)


def sweep(base: str, space: str) -> None:
    """Remove the folders of runs in this pid namespace whose process no longer exists."""
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for entry in entries:
        owner_space, _, rest = entry.name.partition("-")
        pid = rest.partition("-")[0]
        if owner_space == space and pid.isdigit() and not _alive(int(pid)):
            remove(entry.path)


def _users_folder(tmp: str) -> str | None:
    """`TMP/agentwrap-UID`, made private; None when what is there is not a folder only this user can open."""
    if not hasattr(os, "getuid"):
        return None
    base = os.path.join(tmp, f"agentwrap-{os.getuid()}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(base, 0o700)
    try:
        info = os.lstat(base)
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077
    return base if private else None


def _pid_space() -> str:
    """The pid namespace (containers sharing a /tmp see other pids): only its own runs are judged dead."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, as another user's
        return True
    return True
