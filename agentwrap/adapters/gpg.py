"""GnuPG: which invocations only read (listing keys, showing fingerprints, verifying a signature).

Python rather than TOML because gpg has no subcommand word: the operation is an option (`--list-keys`, `-k`).
Only an invocation whose every option is known not to fetch keys (`--auto-key-retrieve`, `--keyserver`), run
a program (`show-photos`, `--exec-path`) or write a file (`-o`, `--status-file`, the TOFU database) counts as
read-only; gpg accepts abbreviated options (`--list-k`), so an allow-list is the only safe reading. Such a run
may still create an empty keyring on first use and refresh trustdb.gpg, gpg's cache of computed validity.
"""

from __future__ import annotations

import os

from agentwrap.sdk import Adapter, BaseAdapter, Effects, Spec

SPEC_FILE = os.path.join(os.path.dirname(__file__), "gpg.spec.toml")

_READING = frozenset({"--list-keys", "-k", "--list-public-keys", "--list-secret-keys", "-K", "--fingerprint",
                      "--list-sigs", "--check-sigs", "--verify", "--show-keys", "--list-packets", "--version",
                      "--help", "-h", "--list-config", "--dump-options", "--print-md", "--print-mds"})
#: Options that change only what a reading run shows or how it talks to its caller.
_QUIET = frozenset({"--with-colons", "--with-fingerprint", "--with-subkey-fingerprint", "--with-keygrip",
                    "--with-key-origin", "--with-sig-list", "--with-secret", "--fixed-list-mode", "--batch",
                    "--no-batch", "--no-tty", "--quiet", "-q", "--verbose", "-v", "--armor", "-a",
                    "--no-greeting", "--no-permission-warning", "--utf8-strings", "--no-auto-key-retrieve",
                    "--no-options", "--no-default-keyring", "--yes", "--no"})
_QUIET_VALUE = frozenset({"--homedir", "--keyid-format", "--list-options", "--verify-options", "--status-fd",
                          "--logger-fd", "--display-charset", "--trust-model", "--compliance"})
_READS = Effects(read_only=True, destructive=False, idempotent=True, open_world=False)


def _harmless(name: str, value: str) -> bool:
    """A value that makes a reading option run a viewer or write the TOFU database is not harmless."""
    if name in ("--list-options", "--verify-options"):
        return "show-photos" not in value
    if name == "--trust-model":
        return "tofu" not in value
    return True


def reads_only(argv: list[str]) -> bool:
    """Whether the command line names a reading operation and nothing but options known to keep it so."""
    args = argv[1:]
    reading, skip = False, False
    for at, word in enumerate(args):
        if skip:
            skip = False
            continue
        if word == "--":
            break
        name, eq, value = word.partition("=")
        if name in _QUIET_VALUE:
            value, skip = (value, False) if eq else ((args[at + 1] if at + 1 < len(args) else ""), True)
            if not _harmless(name, value):
                return False
        elif word in _READING:
            reading = True
        elif word.startswith("-") and word not in _QUIET:
            return False
    return reading


class GpgAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)

    def effects(self, argv: list[str]) -> Effects:
        return _READS if reads_only(argv) else super().effects(argv)


ADAPTER: Adapter = GpgAdapter()
