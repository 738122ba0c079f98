"""CI log decorations: timestamps, group and section markers, workflow commands, `gh run view --log` columns.

Works on chunks of whole lines with regexes anchored on a newline (a literal the regex engine searches
at memchr speed): a 1 GB log is never split into a Python list of lines. Step markers become sentinel
lines (U+E000, a private-use character the terminal cleaner keeps) so segmentation survives cleaning:
MARK + `step NAME` (a step starts), `body` (its header ended, its output follows), `end` (it ended), and
`cmd LEVEL<TAB>PROPERTIES<TAB>MESSAGE` for an `::error`/`::warning`/`::notice` command or the runner's
`##[error]` line (still escaped as GitHub escapes them: `annotations` decodes them).

A GitHub Actions step is its `##[group]Run …` header (the script, `shell:`, `env:`) followed by its
output, after `##[endgroup]`, up to the next step's header; a group the step's own output opens is a
header line inside it. Groups outside a `Run` step (GitLab-less logs of `::group::` sections, the
`Set up job` groups) are steps of their own, from group to endgroup.

Layouts: GitHub Actions (raw and downloaded logs: `2024-01-01T12:34:56.1234567Z ` and `##[group]`),
`gh run view --log`/`--log-failed` (`JOB<TAB>STEP<TAB>TIMESTAMP line`: the columns become the step),
GitLab (`section_start:…`, and its `TIMESTAMP 00O ` line prefixes), Jenkins (timestamper stamps,
`[Pipeline] { (Stage)`), Azure Pipelines (`##[section]Starting: Job`), Buildkite (`--- Step`,
`+++ Step`, `~~~ Step`; its `_bk;t=` stamps are escape sequences the cleaner removes). CircleCI's
downloaded step logs carry no decoration.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MARK = "\ue000"  # starts a sentinel line: MARK + "step " + name, or MARK + "end"
BMARK = MARK.encode()

_ISO = rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
# Timestamp prefixes, after a newline: GitHub Actions and Azure (ISO + space; GitLab adds a stream id
# `00O`/`01E` and a `+` for continued lines), Buildkite (`ESC _bk;t=MILLIS BEL`), Jenkins timestamper
# ([ISO] or [HH:MM:SS]), plain HH:MM:SS.
_PREFIX = re.compile(rb"\n(?:\xef\xbb\xbf)?(?:\x1b_bk;t=\d+\x07|" + _ISO + rb"[ \t](?:\d\d[OE]\+? ?)?"
                     rb"|\[" + _ISO + rb"\][ \t]?|\[\d\d:\d\d:\d\d(?:\.\d+)?\][ \t]?|\d\d:\d\d:\d\d(?:\.\d{3})?[ \t])")
_GROUPING = re.compile(rb"\n(?:(?:##\[group\]|::group::)([^\n]*)|(?:##\[endgroup\]|::endgroup::)[^\n]*)")
_RUN = re.compile(rb"(?:Run|Post Run) \S")  # the header of a `run:` or `uses:` step
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
# Annotations: the runner's `##[error]text` and a step's `::error file=a.c,line=3,title=T::text` (a property
# value escapes `:` as %3A; an unescaped one, a Windows drive's, is read too when no `::` follows it).
_ANNOTATION = re.compile(rb"\n(?:##\[(error|warning|notice)\]"
                         rb"|::(error|warning|notice)(?: ((?:[^:\n]|:(?!:))*))?::)([^\n]*)")
# Other workflow commands a step printed: keep the message, drop the command syntax.
_COMMAND = re.compile(rb"\n(?:##\[(?:debug|command|section)\]|::debug(?: [^:\n]*)?::)")
_OTHER_COMMAND = re.compile(rb"\n::(?:add-mask|set-output|save-state|stop-commands|add-matcher|remove-matcher|echo|"
                            rb"add-path|set-env)[^\n]*")
# `gh run view --log`: JOB<TAB>STEP<TAB>2024-01-01T00:00:00.0000000Z text
# (each step's first line carries the BOM its log file starts with)
_GH = re.compile(rb"([^\t\n]*)\t([^\t\n]*)\t(?:\xef\xbb\xbf)?(?=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)")


def _step(name: bytes) -> bytes:
    return b"\n" + BMARK + b"step " + name.strip()


def is_run_step(name: str) -> bool:
    """A GitHub Actions step's header: its output follows the group, up to the next step."""
    return _RUN.match(name.encode("utf-8", "replace")) is not None


def _annotation(m: re.Match[bytes]) -> bytes:
    level = m.group(1) or m.group(2)
    return b"\n" + BMARK + b"cmd " + level + b"\t" + (m.group(3) or b"").strip() + b"\t" + m.group(4)


class Undecorator:
    """Removes CI decorations from chunks of whole lines (bytes: the checks run at memchr speed whatever
    the text's characters), keeping the `gh` layout's step across chunks."""

    def __init__(self) -> None:
        self._gh_step: bytes | None = None  # the JOB<TAB>STEP being read, in the gh layout
        self.gh = False
        self._run = False  # inside a `Run …` step: groups are headers, endgroup ends only the step's header
        self._depth = 0  # groups open inside it

    def feed(self, chunk: bytes) -> bytes:
        if chunk.startswith(b"\xef\xbb\xbf"):
            chunk = chunk[3:]
        if self.gh or (b"\t" in chunk and _GH.match(chunk)):
            chunk = self._gh_columns(chunk)
        return _undecorate(b"\n" + chunk, self._group)[1:]

    def _group(self, m: re.Match[bytes]) -> bytes:
        """A group or endgroup line, as a sentinel or a plain header line (see the module's docstring)."""
        name = m.group(1)
        if self.gh:  # in the gh layout the step column names the step: a group inside it is only a header
            return b"\n" + (name or b"")
        if name is not None:
            if _RUN.match(name):
                self._run, self._depth = True, 1
                return _step(name)
            if self._run:
                self._depth += 1
                return b"\n" + name
            return _step(name)
        if not self._run:
            return b"\n" + BMARK + b"end"
        self._depth -= 1
        return b"\n" + BMARK + b"body" if self._depth == 0 else b"\n"

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
            prefix, step = m.group(0), m.group(1) + b"\t" + m.group(2)
            if step != self._gh_step:
                self._gh_step = step
                out.append(BMARK + b"step " + m.group(1).strip() + b" / " + m.group(2).strip() + b"\n")
            other = re.compile(rb"\n(?!" + re.escape(prefix) + rb")").search(chunk, pos)
            end = other.end() if other else n
            out.append(chunk[pos + len(prefix):end].replace(b"\n" + prefix, b"\n"))
            pos = end
        return b"".join(out)


def _undecorate(chunk: bytes, group: Callable[[re.Match[bytes]], bytes]) -> bytes:
    """`chunk` starts with a newline (so every line, the first too, follows one); `group` rewrites a group
    or endgroup line."""
    chunk = _PREFIX.sub(b"\n", chunk)
    commands = b"\n##[" in chunk or b"\n::" in chunk
    if commands and b"group" in chunk:
        chunk = _GROUPING.sub(group, chunk)
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
        chunk = _ANNOTATION.sub(_annotation, chunk)
        chunk = _COMMAND.sub(b"\n", chunk)
        chunk = _OTHER_COMMAND.sub(b"\n", chunk)
    return chunk


def undecorate(chunk: str) -> str:
    """Remove CI decorations from a chunk of whole lines (no state kept between calls)."""
    return Undecorator().feed(chunk.encode("utf-8", "surrogatepass")).decode("utf-8", "replace")
