"""Shell command lines: parsed by a real grammar, run by the real bash, read per command (CONTRACT 10)."""

from __future__ import annotations

import os

SHELLS = ("bash", "sh")


def shell_line(argv: list[str]) -> tuple[str, list[str]] | None:
    """(line, the arguments after it) when `argv` is `bash -c LINE ...` or `sh -c LINE ...`."""
    if len(argv) >= 3 and os.path.basename(argv[0]) in SHELLS and argv[1] == "-c":
        return argv[2], argv[3:]
    return None
