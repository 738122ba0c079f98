"""CI log decorations: timestamps, group and section markers, workflow commands, `gh run view --log` columns.

Works on chunks of whole lines with regexes anchored on a newline (a literal the regex engine searches
at memchr speed): a 1 GB log is never split into a Python list of lines. Step markers become sentinel
lines (U+E000, a private-use character the terminal cleaner keeps) so segmentation survives cleaning.

Layouts: GitHub Actions (raw and downloaded logs: `2024-01-01T12:34:56.1234567Z ` and `##[group]`),
`gh run view --log`/`--log-failed` (`JOB<TAB>STEP<TAB>TIMESTAMP line`: the columns become the step),
GitLab (`section_start:…`, and its `TIMESTAMP 00O ` line prefixes), Jenkins (timestamper stamps,
`[Pipeline] { (Stage)`), Azure Pipelines (`##[section]Starting: Job`), Buildkite (`--- Step`,
`+++ Step`, `~~~ Step`; its `_bk;t=` stamps are escape sequences the cleaner removes). CircleCI's
downloaded step logs carry no decoration.
"""

from __future__ import annotations

import re

MARK = "\ue000"  # starts a sentinel line: MARK + "step " + name, or MARK + "end"
BMARK = MARK.encode()

_ISO = rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
# Timestamp prefixes, after a newline: GitHub Actions and Azure (ISO + space; GitLab adds a stream id
# `00O`/`01E` and a `+` for continued lines), Buildkite (`ESC _bk;t=MILLIS BEL`), Jenkins timestamper
# ([ISO] or [HH:MM:SS]), plain HH:MM:SS.
_PREFIX = re.compile(rb"\n(?:\x1b_bk;t=\d+\x07|" + _ISO + rb"[ \t](?:\d\d[OE]\+? ?)?|\[" + _ISO + rb"\][ \t]?"
                     rb"|\[\d\d:\d\d:\d\d(?:\.\d+)?\][ \t]?|\d\d:\d\d:\d\d(?:\.\d{3})?[ \t])")
_GROUP = re.compile(rb"\n(?:##\[group\]|::group::)([^\n]*)")
_ENDGROUP = re.compile(rb"\n(?:##\[endgroup\]|::endgroup::)[^\n]*")
_AZURE_START = re.compile(rb"\n##\[section\]Starting: ([^\n]*)")
_AZURE_END = re.compile(rb"\n##\[section\]Finishing: [^\n]*")
# Buildkite section headers: `--- :hammer: Build`; not a diff's `--- a/file`, YAML's `---`, go test's `--- FAIL:`.
_BUILDKITE = re.compile(rb"\n(?:---|\+\+\+|~~~) (?!(?:FAIL|PASS|SKIP|BENCH): )"
                        rb"(?:(?::[\w+-]+: )+([^\n]+)|([A-Z][^\n]*))")
# GitLab: section_start:1700000000:name[collapsed=true]\r\x1b[0KHeader text
_SECTION_START = re.compile(rb"\n(?:\x1b\[0K)?section_start:\d+:([^\r\n\[]+)(?:\[[^\]\n]*\])?\r?(?:\x1b\[0K)?([^\n]*)")
_SECTION_END = re.compile(rb"\n(?:\x1b\[0K)?section_end:\d+:[^\r\n]*\r?(?:\x1b\[0K)?(?=\n)")
_STAGE = re.compile(rb"\n\[Pipeline\] \{ \(([^\n]*)\)(?=\n)")
_PIPELINE = re.compile(rb"\n\[Pipeline\] [^\n]*")
# Workflow commands a step printed: keep the message, drop the command syntax.
_COMMAND = re.compile(rb"\n(?:##\[(?:error|warning|notice|debug|command|section)\]|::(?:error|warning|notice|debug)"
                      rb"(?: [^:\n]*)?::)")
_OTHER_COMMAND = re.compile(rb"\n::(?:add-mask|set-output|save-state|stop-commands|add-matcher|remove-matcher|echo|"
                            rb"add-path|set-env)[^\n]*")
# `gh run view --log`: JOB<TAB>STEP<TAB>2024-01-01T00:00:00.0000000Z text
_GH = re.compile(rb"([^\t\n]*)\t([^\t\n]*)\t(?=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)")


def _step(name: bytes) -> bytes:
    return b"\n" + BMARK + b"step " + name.strip()


class Undecorator:
    """Removes CI decorations from chunks of whole lines (bytes: the checks run at memchr speed whatever
    the text's characters), keeping the `gh` layout's step across chunks."""

    def __init__(self) -> None:
        self._gh_step: bytes | None = None  # the JOB<TAB>STEP<TAB> prefix being read, in the gh layout
        self.gh = False

    def feed(self, chunk: bytes) -> bytes:
        if chunk.startswith(b"\xef\xbb\xbf"):
            chunk = chunk[3:]
        if self.gh or (b"\t" in chunk and _GH.match(chunk)):
            chunk = self._gh_columns(chunk)
        return _undecorate(b"\n" + chunk, gh=self.gh)[1:]

    def _gh_columns(self, chunk: bytes) -> bytes:
        """Lines of one job and step share a prefix: each run of them is stripped with one replace."""
        self.gh = True
        out, pos, n = [], 0, len(chunk)
        while pos < n:
            m = _GH.match(chunk, pos)
            if m is None:  # a line without the columns (a wrapped message): kept as it is
                end = chunk.find(b"\n", pos) + 1 or n
                out.append(chunk[pos:end])
                pos = end
                continue
            prefix = m.group(0)
            if prefix != self._gh_step:
                self._gh_step = prefix
                out.append(BMARK + b"step " + m.group(1).strip() + b" / " + m.group(2).strip() + b"\n")
            other = re.compile(rb"\n(?!" + re.escape(prefix) + rb")").search(chunk, pos)
            end = other.end() if other else n
            out.append(chunk[pos + len(prefix):end].replace(b"\n" + prefix, b"\n"))
            pos = end
        return b"".join(out)


def _undecorate(chunk: bytes, *, gh: bool = False) -> bytes:
    """`chunk` starts with a newline (so every line, the first too, follows one)."""
    chunk = _PREFIX.sub(b"\n", chunk)
    commands = b"\n##[" in chunk or b"\n::" in chunk
    if commands and (b"group" in chunk):
        # in the gh layout the step column names the step: a group inside it is only a header
        chunk = _GROUP.sub((lambda m: b"\n" + m.group(1)) if gh else (lambda m: _step(m.group(1))), chunk)
        chunk = _ENDGROUP.sub(b"\n" if gh else b"\n" + BMARK + b"end", chunk)
    if commands and b"##[section]" in chunk:
        chunk = _AZURE_START.sub(lambda m: _step(m.group(1)), chunk)
        chunk = _AZURE_END.sub(b"\n" + BMARK + b"end", chunk)
    if b"section_" in chunk:
        chunk = _SECTION_START.sub(lambda m: _step(m.group(2) or m.group(1)), chunk)
        chunk = _SECTION_END.sub(b"\n" + BMARK + b"end", chunk)
    if b"\n--- " in chunk or b"\n+++ " in chunk or b"\n~~~ " in chunk:
        chunk = _BUILDKITE.sub(lambda m: _step(m.group(1) or m.group(2)), chunk)  # emoji codes left out
    if b"[Pipeline]" in chunk:
        chunk = _STAGE.sub(lambda m: _step(m.group(1)), chunk)
        chunk = _PIPELINE.sub(b"\n", chunk)
    if commands:
        chunk = _COMMAND.sub(b"\n", chunk)
        chunk = _OTHER_COMMAND.sub(b"\n", chunk)
    return chunk


def undecorate(chunk: str) -> str:
    """Remove CI decorations from a chunk of whole lines (no state kept between calls)."""
    return Undecorator().feed(chunk.encode("utf-8", "surrogatepass")).decode("utf-8", "replace")
