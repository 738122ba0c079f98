"""GNU tar: what an invocation does, from its mode (`-t` lists, `-x` extracts, `-c` creates, ...).

Python rather than TOML because tar has no subcommand word: the mode is an option, given as `-tzf`, `--list`,
or the old bundled form `tar tzf ARCHIVE`. A listing or comparison is read-only only when every option is
one known not to run a program or write a file: `--to-command`, `-I`/`--use-compress-program`,
`--checkpoint-action=exec`, `-F`/`--info-script`, `--rsh-command`, `-g`, `--index-file` and a remote
`-f HOST:FILE` all do, and GNU tar accepts unambiguous abbreviations (`--to-com`), so an allow-list is the
only safe reading.
"""

from __future__ import annotations

import os

from agentwrap.sdk import Adapter, BaseAdapter, Effects, Spec

SPEC_FILE = os.path.join(os.path.dirname(__file__), "tar.spec.toml")

_MODES = {"t": "list", "d": "diff", "x": "extract", "c": "create", "r": "append", "u": "update",
          "A": "append"}
_LONG_MODES = {"--list": "list", "--diff": "diff", "--compare": "diff", "--extract": "extract",
               "--get": "extract", "--create": "create", "--append": "append", "--update": "update",
               "--catenate": "append", "--concatenate": "append", "--delete": "delete"}
#: Short options that take a value (the rest of the word, else the next word).
_SHORT_VALUE = frozenset("fCTXbKNVLgIFH")
#: Short options of a listing that neither run a program nor write a file.
_SAFE_SHORT = frozenset("tdvfzjJaZCTXObBiRPKNnhkmopsSwW")
#: Long options of a listing that neither run a program nor write a file (value after `=`, or next).
_SAFE_LONG = frozenset({
    "--list", "--diff", "--compare", "--file", "--verbose", "--gzip", "--gunzip", "--ungzip", "--bzip2",
    "--xz", "--lzma", "--lzip", "--lzop", "--zstd", "--compress", "--uncompress", "--auto-compress",
    "--directory", "--files-from", "--exclude", "--exclude-from", "--exclude-vcs", "--exclude-backups",
    "--exclude-caches", "--wildcards", "--no-wildcards", "--anchored", "--no-anchored", "--ignore-case",
    "--no-ignore-case", "--wildcards-match-slash", "--no-wildcards-match-slash", "--to-stdout",
    "--blocking-factor", "--record-size", "--read-full-records", "--ignore-zeros", "--block-number",
    "--absolute-names", "--starting-file", "--newer", "--after-date", "--newer-mtime", "--seek", "--no-seek",
    "--dereference", "--numeric-owner", "--utc", "--full-time", "--show-transformed-names",
    "--show-stored-names", "--transform", "--xform", "--strip-components", "--quoting-style", "--quote-chars",
    "--no-quote-chars", "--occurrence", "--null", "--no-null", "--unquote", "--no-unquote",
    "--verbatim-files-from", "--no-verbatim-files-from", "--force-local", "--format", "--label", "--totals",
    "--warning", "--no-recursion", "--recursion", "--one-file-system", "--check-links", "--sparse",
    "--interactive", "--confirmation", "--verify",
})
_SAFE_LONG_VALUE = frozenset({
    "--file", "--directory", "--files-from", "--exclude", "--exclude-from", "--blocking-factor",
    "--record-size", "--starting-file", "--newer", "--after-date", "--newer-mtime", "--transform", "--xform",
    "--strip-components", "--quoting-style", "--quote-chars", "--no-quote-chars", "--occurrence", "--format",
    "--label", "--warning",
})

_READS = Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
_EFFECTS = {
    # extracting overwrites files; creating replaces the archive
    "extract": Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
    "create": Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
    "append": Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
    "update": Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
    "delete": Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
}


def _words(argv: list[str]) -> list[str]:
    """The options as `-X` words. The old bundled first word takes its letters' values from the next words in
    order (`tar tfC A DIR` is `-t -f A -C DIR`)."""
    args = argv[1:]
    if not args or args[0].startswith("-"):
        return args
    out, rest = [], iter(args[1:])
    for letter in args[0]:
        out.append(f"-{letter}")
        if letter in _SHORT_VALUE:
            out.append(next(rest, ""))
    return [*out, *rest]


def _short_ok(word: str, words: list[str], at: int, archives: list[str]) -> tuple[bool, int]:
    """Whether a short cluster (`-tzf`) is safe for a listing, and how many next words it takes as values."""
    taken = 0
    for i, letter in enumerate(word[1:], 1):
        if letter not in _SAFE_SHORT:
            return False, taken
        if letter in _SHORT_VALUE:
            glued = word[i + 1:]
            value = glued or (words[at + 1 + taken] if at + 1 + taken < len(words) else "")
            taken += 0 if glued else 1
            if letter == "f":
                archives.append(value)
            if glued:
                break
    return True, taken


def _listing_is_safe(argv: list[str]) -> bool:
    """Every option of a listing is known not to run a program or write a file, and the archive is local."""
    words, archives, local = _words(argv), [], False
    skip = 0
    for at, word in enumerate(words):
        if skip:
            skip -= 1
            continue
        if word == "--":
            break
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            if name not in _SAFE_LONG:
                return False
            if name in _SAFE_LONG_VALUE and not eq:
                value, skip = (words[at + 1] if at + 1 < len(words) else ""), 1
            archives += [value] if name == "--file" else []
            local = local or name == "--force-local"
        elif word.startswith("-") and len(word) > 1:
            safe, skip = _short_ok(word, words, at, archives)
            if not safe:
                return False
    # `-f HOST:FILE` is an archive on another machine, read through rsh/ssh, unless --force-local
    return local or not any(":" in a and "/" not in a.split(":", 1)[0] for a in archives)


def mode(argv: list[str]) -> str | None:
    """The operation tar will do, or None when the command line names none (tar then refuses)."""
    for word in _words(argv):
        if word == "--":
            break
        name = word.partition("=")[0]
        if name in _LONG_MODES:
            return _LONG_MODES[name]
        if word.startswith("-") and not word.startswith("--"):
            for letter in word[1:]:
                if letter in _MODES:
                    return _MODES[letter]
                if letter in _SHORT_VALUE:
                    break
    return None


class TarAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)

    def effects(self, argv: list[str]) -> Effects:
        if argv[1:] in (["--version"], ["--help"], ["--usage"]):
            return _READS
        found = mode(argv)
        if found in ("list", "diff"):
            return _READS if _listing_is_safe(argv) else Effects()  # it may run a program: unknown
        return _EFFECTS.get(found or "", Effects())


ADAPTER: Adapter = TarAdapter()
