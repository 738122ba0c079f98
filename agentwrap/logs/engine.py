"""Saved logs to problems: decorations off, cleaned, split into steps, read by the tools' own adapters.

Streams with constant memory: the log is read in 1 MiB chunks, each step's text is analysed in bounded
windows, and only the problems (capped) are kept. The same adapter rules serve live runs and logs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from agentwrap import registry
from agentwrap.adapter import Adapter, CapturedRun
from agentwrap.adapters import INDEX
from agentwrap.capture import StreamResult
from agentwrap.logs import ci, detect
from agentwrap.problem import Problem
from agentwrap.terminal import TerminalCleaner

CHUNK = 1 << 20
WINDOW = 1 << 20  # text analysed at once; a step longer than this is read in overlapping windows
OVERLAP_LINES = 40  # a multi-line diagnostic cut by a window edge is seen whole in the next one
MAX_SEEN = 200_000
_EMPTY = StreamResult("", 0, 0, False, 0, None)


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


def _lines(stream: IO[bytes], result: LogResult) -> Iterator[str]:
    """Cleaned text of the log in chunks of whole lines, with step markers as sentinel lines."""
    cleaner = TerminalCleaner()
    carry = b""
    while chunk := stream.read(CHUNK):
        result.bytes += len(chunk)
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0 and len(data) < 8 * CHUNK:
            carry = data
            continue
        carry, data = (data[cut:], data[:cut]) if cut else (b"", data)
        text = ci.undecorate(data.decode("utf-8", "replace"))
        result.invalid_utf8 += text.count("\ufffd")
        yield cleaner.feed(text.encode("utf-8", "surrogatepass"))
    if carry:
        yield cleaner.feed(ci.undecorate(carry.decode("utf-8", "replace")).encode("utf-8", "surrogatepass"))
    yield cleaner.finish()


class Normalizer:
    def __init__(self, *, forced: str | None, max_problems: int) -> None:
        self.forced = forced
        self.max_problems = max_problems
        self.result = LogResult()
        self._seen: set[tuple[Any, ...]] = set()
        self._adapters: dict[str, Adapter | None] = {}
        self._known = set(INDEX.values())

    def _adapter(self, name: str) -> Adapter | None:
        if name not in self._adapters:
            try:
                self._adapters[name] = registry.find("", forced=name)[0]
            except Exception as exc:  # noqa: BLE001 - a missing or broken adapter: the others still read
                self._adapters[name] = None
                self.result.warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": f"{name}: {exc}"[:300]})
        return self._adapters[name]

    def run(self, stream: IO[bytes]) -> LogResult:
        step, window = "", []
        size = 0
        for text in _lines(stream, self.result):
            if not text:
                continue
            self.result.lines += text.count("\n")
            if ci.MARK not in text and size + len(text) < WINDOW:
                window.append(text)
                size += len(text)
                continue
            for line in text.splitlines(keepends=True):
                if line.startswith(ci.MARK):
                    self._analyse("".join(window), step)
                    window, size = [], 0
                    name = line[len(ci.MARK):].strip()
                    step = name[5:] if name.startswith("step ") else ""
                    if step and step not in self.result.steps:
                        self.result.steps.append(step)
                    continue
                window.append(line)
                size += len(line)
                if size >= WINDOW:
                    joined = "".join(window)
                    self._analyse(joined, step)
                    window = joined.splitlines(keepends=True)[-OVERLAP_LINES:]
                    size = sum(map(len, window))
        self._analyse("".join(window), step)
        return self.result

    def _analyse(self, text: str, step: str) -> None:
        if not text.strip():
            return
        tools = [self.forced] if self.forced else detect.tools_in(text, self._known)
        run = CapturedRun(argv=("log",), program="log", exit_code=1, signal=None, stdout=_EMPTY, stderr=_EMPTY,
                          stdout_text=text)
        found: list[tuple[str, Problem]] = []
        for tool in tools or ["generic"]:
            adapter = self._adapter(tool)
            if adapter is None:
                continue
            try:
                problems = adapter.find_problems(run._replace(argv=(tool,), program=tool))
            except Exception as exc:  # noqa: BLE001 - one adapter's bug must not lose the others' problems
                self.result.warnings.append({"code": "ADAPTER_FAILED", "message": f"{tool}: {exc}"[:300]})
                continue
            found.extend((tool, p) for p in problems)
        for tool, problem in found:
            self._keep(problem, tool, step)

    def _keep(self, problem: Problem, tool: str, step: str) -> None:
        loc = problem.location or {}
        key = (problem.code, loc.get("file"), loc.get("line"), loc.get("column"), problem.detail)
        if key in self._seen:  # printed twice: by the compiler and by make, or by a retried step
            return
        if len(self._seen) < MAX_SEEN:  # past this many distinct problems, memory wins over deduplication
            self._seen.add(key)
        severity = problem.severity if problem.severity in self.result.counts else "note"
        self.result.counts[severity] += 1
        self.result.tools[tool] = self.result.tools.get(tool, 0) + 1
        if len(self.result.problems) >= self.max_problems:
            self.result.cut += 1
            return
        extra = {**(problem.extra or {}), "tool": (problem.extra or {}).get("tool", tool)}
        extra.pop("fatal_on_success", None)
        if step:
            extra["step"] = step
        self.result.problems.append(problem._replace(extra=extra, exit_code=None))
