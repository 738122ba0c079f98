"""Precision on ordinary output nobody here wrote: files of this machine must come back untouched.

Hashes and ids (dist-info RECORD digests, `--hash=sha256:` pins made from them, CA certificates, ssh
public keys, UUIDs from the kernel, git hashes and dates): no redaction at all. Source code (the Python
standard library, with its `password: str`, `token = nextchar`, `SERVER_AUTH = '1.3.6...'`): at most
0.5 redactions per MB (issue 12).
"""

from __future__ import annotations

import glob
import subprocess
import sysconfig
from pathlib import Path

import pytest

from agentwrap.redact import Redactor

ROOT = Path(__file__).resolve().parent.parent


def _redactions(text: str) -> tuple[int, list[str]]:
    redactor = Redactor()
    out = redactor.redact(text)
    changed = [a for a, b in zip(text.splitlines(), out.splitlines(), strict=False) if a != b]
    return redactor.count, changed[:5]


def _records() -> str:
    site = sysconfig.get_paths()["purelib"]
    return "".join(Path(p).read_text(errors="replace") for p in sorted(glob.glob(f"{site}/*.dist-info/RECORD")))


def _hash_pins() -> str:
    digests = [line.rsplit("sha256=", 1)[1].split(",")[0] for line in _records().splitlines() if "sha256=" in line]
    return "".join(f"pkg{i}==1.0 \\\n    --hash=sha256:{d}\n" for i, d in enumerate(digests[:5000]))


def _certs() -> str:
    return "".join(Path(p).read_text(errors="replace") for p in sorted(glob.glob("/etc/ssl/certs/*.pem")))


def _pubkeys() -> str:
    return "".join(Path(p).read_text() for p in sorted(glob.glob("/etc/ssh/*.pub")))


def _uuids() -> str:
    return "".join(Path("/proc/sys/kernel/random/uuid").read_text() for _ in range(5000))


def _git_ids() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%H %h %T %an <%ae> %aI", "-2000"],
                          capture_output=True, text=True, check=False)
    return done.stdout


CORPUS = {"RECORD digests": _records, "--hash=sha256 pins": _hash_pins, "CA certificates": _certs,
          "ssh public keys": _pubkeys, "UUIDs": _uuids, "git hashes and dates": _git_ids}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_hashes_and_ids_are_never_redacted(name: str) -> None:
    text = CORPUS[name]()
    if len(text) < 200:
        pytest.skip(f"{name}: not on this machine")
    count, changed = _redactions(text)
    assert count == 0, changed


def test_source_code_keeps_to_half_a_redaction_per_megabyte() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    text = "".join(p.read_text(errors="replace") for p in sorted(stdlib.glob("*.py")))
    assert len(text) > 1_000_000
    count, changed = _redactions(text)
    assert count / (len(text) / 1e6) <= 0.5, changed
