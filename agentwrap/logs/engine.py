"""Saved logs to problems: decorations off, cleaned, split into steps, read by the tools' own adapters and
by the diagnostic formats' matchers, each problem handed on as soon as it is known.

Streams with constant memory: the log arrives in chunks of whole lines (`reader`), only the regions
around trigger lines are read (`regions`), and a region still open at the end of what arrived waits
for at most AFTER more lines, a step boundary, or a quiet moment of the input (bounded look-ahead).
The same adapter rules serve live runs and logs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import IO, Any

from agentwrap import registry
from agentwrap.adapter import Adapter, CapturedRun, generic_spec
from agentwrap.adapters import INDEX
from agentwrap.capture import StreamResult
from agentwrap.logs import binary, ci, detect, formats, lead, regions, twins, workflow
from agentwrap.logs.directories import Directories
from agentwrap.logs.matchers import Scanner
from agentwrap.logs.reader import Reader
from agentwrap.logs.steps import Steps
from agentwrap.logs.twins import richness, same_diagnostic
from agentwrap.problem import Problem
from agentwrap.terminal import TerminalCleaner

WINDOW = 1 << 20  # a region longer than this is read in overlapping windows
OVERLAP_LINES = 40
MAX_SEEN = 200_000
_EMPTY = StreamResult("", 0, 0, False, 0, None)
_SGR = re.compile(rb"\x1b\[[0-9;:]{0,64}m")


class LogResult:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.cut = 0
        self.counts = {"error": 0, "warning": 0, "note": 0}
        self.tools: dict[str, int] = {}
        self.steps: list[str] = []
        self.bytes = 0
        self.lines = 0
        self.warnings: list[dict[str, str]] = []
        self.invalid_utf8 = 0
        self.cut_lines = 0
        self.binary_lines = 0  # lines of binary data, dropped unread
        self.binary_bytes = 0
        self.tail: list[str] = []  # the log's last lines of output (what a failure without a diagnostic says)
        self.failed_steps: list[dict[str, Any]] = []  # the runner's `exit code N` lines


_C0 = bytes([*range(9), *range(11, 32), 127])


def clean(data: bytes) -> bytes:
    """Colour off in bulk; the terminal model only for text that still holds control characters (a
    carriage-return overwrite, a cursor move). Returns valid UTF-8."""
    if b"\x1b" in data:
        data = _SGR.sub(b"", data)
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    if len(data.translate(None, _C0)) == len(data) and (data.isascii() or b"\xc2" not in data):
        try:
            data.decode("utf-8")
            return data
        except UnicodeDecodeError:
            pass
    cleaner = TerminalCleaner(rows=1)
    return (cleaner.feed(data) + cleaner.finish()).encode("utf-8", "surrogatepass")


class Normalizer:
    """Reads one log. `forced`: the adapter that reads every region (no detection, no built-in formats);
    `extra_formats`: the user's matchers, tried first and never left to an adapter; `on_problem` is
    called with each problem as it is kept (the streaming formats write it at once)."""

    def __init__(self, *, forced: str | None, max_problems: int, extra_formats: list[formats.Format] | None = None,
                 on_problem: Callable[[Problem], None] | None = None) -> None:
        self.forced = forced
        self.max_problems = max_problems
        self.result = LogResult()
        self.on_problem = on_problem
        self._seen: set[tuple[Any, ...]] = set()
        self._adapters: dict[str, Adapter | None] = {}
        self._known = set(INDEX.values())
        asked = [(f, m) for f in extra_formats or [] for m in f.matchers]
        builtin = [(f, m) for f in (formats.builtin() if not forced else []) for m in f.matchers]
        self._matchers = [m for _, m in asked + builtin]
        # per matcher: (tool, default severity, asked for: never left to the tool's adapter)
        self._tool_of = [(f.name, m.severity, i < len(asked)) for i, (f, m) in enumerate(asked + builtin)]
        # a user's matcher may look for lines no trigger word marks: its first pattern is a trigger too
        self._triggers = regions.triggers([m.patterns[0].regex.pattern for _, m in asked])
        self._undecorator = ci.Undecorator()
        self._dirs = Directories()
        self._step = ""
        self._steps = Steps()
        self._hold = b""  # cleaned text not yet read: an open region, or context lines for the next one

    def _adapter(self, name: str) -> Adapter | None:
        if name not in self._adapters:
            try:
                self._adapters[name] = registry.find("", forced=name)[0]
            except Exception as exc:  # noqa: BLE001 - a missing or broken adapter: the others still read
                self._adapters[name] = None
                self.result.warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": f"{name}: {exc}"[:300]})
        return self._adapters[name]

    def run(self, stream: IO[bytes]) -> LogResult:
        reader = Reader(stream)
        for chunk in reader.chunks():
            if not chunk:  # the writer went quiet: what is held is all there is for now
                self._flush()
                continue
            chunk = self._text_only(chunk)
            if not chunk:
                continue
            data = clean(self._undecorator.feed(chunk))
            if len(data) != len(chunk) or not chunk.isascii():  # cleaning may have replaced bad bytes
                self.result.invalid_utf8 += data.count("\ufffd".encode()) - chunk.count("\ufffd".encode())
            self._text(data)
        self._flush()
        self.result.tail = self._steps.log_tail()
        self.result.failed_steps = self._steps.failures
        self.result.bytes = reader.bytes
        self.result.cut_lines = reader.cut_lines
        return self.result

    def _text_only(self, chunk: bytes) -> bytes:
        dropped = binary.drop(chunk)
        self.result.binary_lines += dropped.lines
        self.result.binary_bytes += dropped.bytes
        self.result.lines += dropped.lines
        return dropped.text

    def _text(self, data: bytes) -> None:
        if ci.BMARK not in data:
            self._output(data)
            return
        for part in data.split(ci.BMARK):
            if part.startswith((b"step ", b"end", b"body", b"cmd ")):
                head, _, part = part.partition(b"\n")
                self._sentinel(head.decode("utf-8", "replace"))
            if part:
                self._output(part)

    def _output(self, part: bytes) -> None:
        self.result.lines += part.count(b"\n")
        self._steps.output(part)
        self._segment(part)

    def _sentinel(self, head: str) -> None:
        if head.startswith("cmd "):
            self.result.lines += 1
            self._annotation(workflow.parse(head[4:]))
            return
        if head.startswith("body"):
            self._steps.body()
            return
        self._flush()
        name = head[5:].strip() if head.startswith("step ") else ""
        self._step = name
        if name:  # after an `end` the runner's `exit code N` still judges the step that ended
            self._steps.start(name)
        if name and name not in self.result.steps:
            self.result.steps.append(name)

    def _annotation(self, note: workflow.Annotation) -> None:
        """A workflow command's annotation, read by the tools' adapters when its text is their diagnostic
        (ruff's `--output-format github`), or kept as it is; the runner's `exit code N` fails the step."""
        code = workflow.exit_code(note)
        if code is not None:
            self._flush()  # the step's last diagnostics are read before it is judged
            failure = self._steps.failed(code)
            if failure is not None:
                self._keep(failure, "github")
            return
        own = workflow.problem(note)
        read = [(p, tool) for p, tool in self._found(note.message) if p.location and p.location.get("file")]
        if not read:
            self._keep(own, "github")
        for p, tool in read:
            self._keep(workflow.merged(p, own), tool)

    def _segment(self, data: bytes) -> None:
        data = self._hold + data if self._hold else data
        self._hold = b""
        pos = 0
        for region in regions.find(data, self._triggers):
            if region.open:
                self._dirs.advance(data, pos, region.start)
                self._hold = data[region.start:]
                if len(self._hold) > WINDOW:  # one long run of trigger lines: read it, keep its tail
                    self._analyse(self._hold)
                    self._hold = b"\n".join(self._hold.split(b"\n")[-OVERLAP_LINES:])
                return
            self._dirs.advance(data, pos, region.first)  # the context before it: `Entering directory`
            self._read(data, region)
            pos = region.end
        start = max(pos, regions.back(data, len(data), regions.BEFORE))
        self._dirs.advance(data, pos, start)
        self._hold = data[start:]

    def _flush(self) -> None:
        if self._hold:
            hold, self._hold = self._hold, b""
            pos = 0
            for region in regions.find(hold, self._triggers):
                self._dirs.advance(hold, pos, region.first)
                self._read(hold, region)
                pos = region.end
            self._dirs.advance(hold, pos)

    def _read(self, data: bytes, region: regions.Region) -> None:
        """Analyse a region, in parts where a build tool announced a folder inside it: each part's paths are
        read from the folder in force where it was printed."""
        last = max(region.hits, default=0)  # the last trigger line: a folder announced after it changes nothing
        cuts = [c for c in self._dirs.cuts(data, region.first, region.end)
                if data.count(b"\n", region.start, c) <= last]
        bounds = [region.start, *cuts, region.end]
        line = 0  # the region's line where the part starts
        for start, end in zip(bounds, bounds[1:], strict=False):
            if start >= end:
                continue
            lines = data.count(b"\n", start, end)
            hits = region.hits if len(bounds) == 2 else frozenset(h - line for h in region.hits)
            self._analyse(data[start:end], hits)
            self._dirs.advance(data, max(start, region.first), end)
            line += lines

    def _analyse(self, data: bytes, starts: frozenset[int] | None = None) -> None:
        text = lead.strip("\n" + data.decode("utf-8", "replace"))[1:]
        if not text.strip():
            return
        found = self._found(text, starts)
        before = sum(self.result.counts.values())
        for p, tool in found:
            self._keep(p, tool)
        if sum(self.result.counts.values()) == before and not self.forced:
            # as in a live run: failures of any program, where no tool explained the region
            run = CapturedRun(argv=("log",), program="log", exit_code=1, signal=None, stdout=_EMPTY,
                              stderr=_EMPTY, stdout_text=text)
            for p in generic_spec().match_rules(run):
                self._keep(p, "generic")

    def _found(self, text: str, starts: frozenset[int] | None = None) -> list[tuple[Problem, str]]:
        """What the adapters of the tools that printed `text` and the matchers read in it."""
        tools = [self.forced] if self.forced else detect.tools_in(text, self._known) or ["generic"]
        run = CapturedRun(argv=("log",), program="log", exit_code=1, signal=None, stdout=_EMPTY, stderr=_EMPTY,
                          stdout_text=text)
        found: list[tuple[Problem, str]] = []
        for tool in tools:
            adapter = self._adapter(tool)
            if adapter is None:
                continue
            try:
                problems = adapter.find_problems(run._replace(argv=(tool,), program=tool))
            except Exception as exc:  # noqa: BLE001 - one adapter's bug must not lose the others' problems
                self.result.warnings.append({"code": "ADAPTER_FAILED", "message": f"{tool}: {exc}"[:300]})
                continue
            found.extend((p, tool) for p in problems)
        if self._matchers:
            self._match(text, found, starts)
        return twins.one_per_line(found)

    def _match(self, text: str, found: list[tuple[Problem, str]], starts: frozenset[int] | None) -> None:
        """The matchers' diagnostics added to the adapters' `found`: a built-in format's only where no adapter
        read that line, a user's everywhere, but once: the same diagnostic an adapter or another matcher read
        is kept in the richer of the two forms."""
        owned = {(loc.get("file"), loc.get("line")) for p, _ in found if (loc := p.location)}
        scanner = Scanner(self._matchers)
        asked_lines: set[int] = set()
        lines = text.split("\n")
        for diag in [*scanner.scan(lines, starts=starts), *scanner.flush()]:
            tool, severity, asked = self._tool_of[diag.matcher]
            if asked and diag.line_index >= 0:
                if diag.line_index in asked_lines:
                    continue  # as the runner does: a line is the first matching matcher's (the list's order)
                asked_lines.add(diag.line_index)
            p = formats.problem(diag, tool, severity, formats.read_from(self._matchers[diag.matcher], diag, lines))
            if p is None:
                continue
            loc = p.location or {}
            if not asked and (loc.get("file"), loc.get("line")) in owned:
                continue  # the tool's own adapter read this line
            twin = next((i for i, (q, _) in enumerate(found) if same_diagnostic(q, p)), None)
            if twin is None:
                found.append((p, tool))
            elif richness(p) > richness(found[twin][0]):
                found[twin] = (p, tool)

    def _keep(self, problem: Problem, tool: str) -> None:
        problem = self._dirs.resolve(problem, tool)
        loc = problem.location or {}
        key = (problem.code, loc.get("file"), loc.get("line"), loc.get("column"), problem.detail)
        if key in self._seen:  # printed twice: by the compiler and by make, or by a retried step
            return
        if len(self._seen) < MAX_SEEN:  # past this many distinct problems, memory wins over deduplication
            self._seen.add(key)
        severity = problem.severity if problem.severity in self.result.counts else "note"
        self._steps.kept(severity)
        self.result.counts[severity] += 1
        self.result.tools[tool] = self.result.tools.get(tool, 0) + 1
        if len(self.result.problems) >= self.max_problems:
            self.result.cut += 1
            return
        extra = {**(problem.extra or {}), "tool": (problem.extra or {}).get("tool", tool)}
        extra.pop("fatal_on_success", None)
        if self._step:
            extra["step"] = self._step
        kept = problem._replace(extra=extra, exit_code=None)
        self.result.problems.append(kept)
        if self.on_problem is not None:
            self.on_problem(kept)
