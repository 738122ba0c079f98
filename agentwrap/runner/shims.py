"""Editor and askpass stand-ins: they record what the program asked for, and fail fast.

A program that wants an editor or a password helper gets one of these instead of a hang. The
askpass shim answers only when an `--answer` rule authorises it (the askpass protocol: the reply
on stdout, exit 0); otherwise it records the prompt and exits 1, so ssh and git fail at once.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

_SHIM = """#!{python}
import json, os, re, sys
kind = {kind!r}
prompt = " ".join(sys.argv[1:])
log = os.environ.get("AGENTWRAP_REQUEST_LOG")
if kind == "askpass" and os.environ.get("AGENTWRAP_ANSWERS"):
    try:
        with open(os.environ["AGENTWRAP_ANSWERS"]) as f:
            rules = json.load(f)
    except OSError:
        rules = []
    for pattern, reply in rules:
        if re.search(pattern, prompt):
            if log:
                with open(log, "a") as f:
                    f.write(json.dumps({{"kind": kind, "prompt": prompt, "answered": pattern}}) + "\\n")
            sys.stdout.write(reply + "\\n")
            sys.exit(0)
if log:
    with open(log, "a") as f:
        f.write(json.dumps({{"kind": kind, "prompt": prompt}}) + "\\n")
what = "an editor" if kind == "editor" else "a password or confirmation"
sys.stderr.write("agentwrap: the program asked for " + what + " and no person is attached: " + prompt + "\\n")
sys.exit(1)
"""


class Request(NamedTuple):
    kind: str  # "editor" | "askpass"
    prompt: str
    answered: str | None = None


class ShimDir:
    """A private per-run folder holding the shims, the request log and the answers file."""

    def __init__(self, root: Path, answers: list[tuple[str, str]]) -> None:
        self.root = root
        self.log = root / "requests.jsonl"
        self.paths: dict[str, str] = {}
        for kind in ("editor", "askpass"):
            path = root / f"agentwrap-{kind}"
            path.write_text(_SHIM.format(python=sys.executable, kind=kind))
            path.chmod(0o700)
            self.paths[kind] = str(path)
        self.answers_file: str | None = None
        if answers:
            fd = os.open(root / "answers.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(answers, f)
            self.answers_file = str(root / "answers.json")

    def requests(self) -> list[Request]:
        try:
            lines = self.log.read_text().splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                rec = json.loads(line)
                out.append(Request(str(rec["kind"]), str(rec["prompt"]), rec.get("answered")))
            except (ValueError, KeyError, TypeError):
                continue
        return out


def valid_regex(pattern: str) -> str | None:
    """None when `pattern` compiles, else the reason (for a USAGE problem)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return str(exc)
    return None
