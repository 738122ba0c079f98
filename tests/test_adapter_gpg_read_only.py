"""`--read-only` and gpg: listing keys, fingerprints and verifying a signature run; a listing or verification
with an option that fetches keys, runs a viewer or writes a file is refused, as is every other operation."""

from __future__ import annotations

import pytest

from agentwrap import registry
from agentwrap.safety.readonly import classify


def _read_only(*argv: str) -> bool:
    return classify(list(argv), registry.builtin("gpg")).read_only


@pytest.mark.parametrize("argv", [
    ("gpg", "--list-keys"), ("gpg", "-k", "bob"), ("gpg", "--list-secret-keys", "--with-colons"),
    ("gpg", "--fingerprint", "bob"), ("gpg", "--verify", "msg.sig", "msg.txt"),
    ("gpg", "--homedir", "/tmp/g", "--batch", "--list-keys"), ("gpg", "--show-keys", "key.asc"),
])
def test_listing_and_verifying_are_read_only(argv: tuple[str, ...]):
    assert _read_only(*argv)


@pytest.mark.parametrize("argv", [
    ("gpg", "--verify", "--auto-key-retrieve", "msg.sig"), ("gpg", "--keyserver", "hkps://k", "--verify", "s"),
    ("gpg", "--list-keys", "--list-options", "show-photos"), ("gpg", "-o", "out", "--verify", "s"),
    ("gpg", "--trust-model=tofu", "--verify", "s"), ("gpg", "--list-k"), ("gpg", "--import", "key.asc"),
    ("gpg", "--delete-keys", "bob"), ("gpg", "msg.gpg"),
])
def test_anything_else_is_refused(argv: tuple[str, ...]):
    assert not _read_only(*argv)
