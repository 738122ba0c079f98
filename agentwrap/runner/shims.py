"""Editor and askpass stand-ins: they record what the program asked for, and never answer unasked.

A program that wants an editor or a password helper gets one of these instead of a hang. The
askpass shim answers only when an `--answer` rule authorises it (the askpass protocol: the reply
on stdout, exit 0). Otherwise it records the request and then waits, so that the program cannot take
the refusal for an empty answer (ssh-keygen would write a key without a passphrase, visudo would call
the file unchanged): the runner sees the request and ends the tree. Should no runner end it, the shim
fails after `AGENTWRAP_SHIM_WAIT` seconds, as a refusal.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import NamedTuple

_SHIM = """#!{python}
import json, os, re, sys
kind = {kind!r}
prompt = " ".join(sys.argv[1:])
log = os.environ.get("AGENTWRAP_REQUEST_LOG")
rejected = None
if kind == "askpass" and os.environ.get("AGENTWRAP_ANSWERS"):
    try:
        with open(os.environ["AGENTWRAP_ANSWERS"]) as f:
            rules = json.load(f)
    except OSError:
        rules = []
    try:
        with open(log or "") as f:
            earlier = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        earlier = []
    for pattern, reply in rules:
        if re.search(pattern, prompt):
            # asked again what this rule answered: the program rejected the reply, which is not sent again
            if any(r.get("prompt") == prompt and r.get("answered") == pattern for r in earlier):
                rejected = pattern
                break
            if log:
                with open(log, "a") as f:
                    f.write(json.dumps({{"kind": kind, "prompt": prompt, "answered": pattern}}) + "\\n")
            sys.stdout.write(reply + "\\n")
            sys.exit(0)
if log:
    record = {{"kind": kind, "prompt": prompt}}
    if rejected is not None:
        record["rejected"] = rejected
    if kind == "editor" and sys.argv[1:]:
        try:  # saving the file unchanged only helps where it holds more than comments
            with open(sys.argv[-1], errors="replace") as f:
                record["prepared"] = any(line.strip() and not line.startswith("#") for line in f)
        except OSError:
            record["prepared"] = False
    with open(log, "a") as f:
        f.write(json.dumps(record) + "\\n")
what = "an editor" if kind == "editor" else "a password or confirmation"
sys.stderr.write("agentwrap: the program asked for " + what + " and no person is attached: " + prompt + "\\n")
sys.stderr.flush()
import time
time.sleep(float(os.environ.get("AGENTWRAP_SHIM_WAIT") or 30))
sys.exit(1)
"""


def refusal_line(kind: str, prompt: str) -> str:
    """The line a shim writes to the program's stderr when it refuses (the template says the same)."""
    what = "an editor" if kind == "editor" else "a password or confirmation"
    return f"agentwrap: the program asked for {what} and no person is attached: {prompt}"


class Request(NamedTuple):
    kind: str  # "editor" | "askpass"
    prompt: str
    answered: str | None = None
    prepared: bool | None = None  # an editor's file held text besides comments (None: not known)
    rejected: str | None = None  # the --answer rule whose reply the program asked for again (not sent again)


class ShimDir:
    """A private per-run folder holding the shims, the request log and the answers file. Paths are strings:
    every run makes one, and pathlib costs ~3 ms to import."""

    def __init__(self, root: str | os.PathLike[str], answers: list[tuple[str, str]]) -> None:
        self.root = os.fspath(root)
        self.log = os.path.join(self.root, "requests.jsonl")
        self.paths: dict[str, str] = {}
        for kind in ("editor", "askpass"):
            path = os.path.join(self.root, f"agentwrap-{kind}")
            with open(path, "w") as f:
                f.write(_SHIM.format(python=sys.executable, kind=kind))
            os.chmod(path, 0o700)
            self.paths[kind] = path
        self.answers_file: str | None = None
        self._seen = 0
        self._refused = False
        if answers:
            self.answers_file = os.path.join(self.root, "answers.json")
            fd = os.open(self.answers_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(answers, f)

    def refused(self) -> bool:
        """Whether a request was refused (a cheap check the runner makes while the program runs)."""
        try:
            size = os.stat(self.log).st_size
        except OSError:
            return False
        if size == self._seen:
            return self._refused
        self._seen = size
        self._refused = any(r.answered is None for r in self.requests())
        return self._refused

    def requests(self) -> list[Request]:
        try:
            with open(self.log) as f:
                lines = f.read().splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                rec = json.loads(line)
                prepared, rejected = rec.get("prepared"), rec.get("rejected")
                out.append(Request(str(rec["kind"]), str(rec["prompt"]), rec.get("answered"),
                                   prepared if isinstance(prepared, bool) else None,
                                   rejected if isinstance(rejected, str) else None))
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
