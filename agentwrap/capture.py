"""Bounded capture of one output stream (CONTRACT section 7).

Memory stays constant however much a program prints: the inline text is a bounded head, bounded
salient lines and a bounded tail, while the complete cleaned text streams to an artifact. Chunks are
never split into lines on the hot path: newlines are counted with `str.count`, the tail is a deque
of chunk ends, and salient lines come from `SalientScanner`, which searches whole chunks.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from typing import Any, NamedTuple

from agentwrap.artifacts import ArtifactError, ArtifactRef, ArtifactStore, ArtifactWriter
from agentwrap.batch import Batch
from agentwrap.salient import SALIENT as SALIENT  # re-exported: the pattern is part of this module's API
from agentwrap.salient import SalientScanner

MEDIA_TYPE = "text/plain; charset=utf-8"
HEAD_SHARE = 0.45
SALIENT_SHARE = 0.20  # the tail gets the rest, about 35%, plus whatever head and salient leave unused
SALIENT_LINE_BYTES = 400
ELISION_ESTIMATE = 200  # bytes per elision line, reserved when the head is fixed before the end is known
CUT_END = " …[line truncated]"
CUT_START = "[line truncated]… "


def _enc(text: str) -> bytes:
    return text.encode("utf-8", "replace")  # a lone surrogate must not abort a capture


def _blen(text: str) -> int:
    return len(text) if text.isascii() else len(_enc(text))


def _clip(text: str, budget: int, *, keep_end: bool = False, force: bool = False) -> str:
    """`text`, or its start (its end) and a marker, in at most `budget` UTF-8 bytes."""
    if not force and len(text) <= budget and _blen(text) <= budget:
        return text
    keep = budget - _blen(CUT_START)
    if keep <= 0:
        return "" if keep_end else _enc(text[: max(budget, 0)])[: max(budget, 0)].decode("utf-8", "ignore")
    if keep_end:
        return CUT_START + _enc(text[-keep:])[-keep:].decode("utf-8", "ignore")
    return _enc(text[:keep])[:keep].decode("utf-8", "ignore") + CUT_END


def _shown(text: str) -> int:
    """UTF-8 bytes of program output in `text`, markers aside."""
    return _blen(text.removeprefix(CUT_START).removesuffix(CUT_END))


def _fit(lines: list[str], budget: int) -> tuple[str, ...]:
    """The leading `lines` that fit `budget` bytes with their newlines."""
    used = itertools.accumulate(_blen(line) + 1 for line in lines)  # grows, so the kept ones are a prefix
    return tuple(itertools.compress(lines, (total <= budget for total in used)))


def human_bytes(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    power = min(4, (count.bit_length() - 1) // 10)
    return f"{count / 1024**power:.1f} {('KiB', 'MiB', 'GiB', 'TiB')[power - 1]}"


class StreamResult(NamedTuple):
    text: str
    bytes: int
    lines: int
    truncated: bool
    omitted_lines: int
    artifact: ArtifactRef | None
    salient: tuple[tuple[int, str], ...] = ()  # (line number, line): the first salient lines anywhere
    head: tuple[str, ...] = ()  # first lines, without newlines, within the head budget
    tail: tuple[str, ...] = ()  # last lines, without newlines, within the tail budget
    cleaned_bytes: int = 0  # UTF-8 size of the complete cleaned text (the artifact's size)

    def to_dict(self) -> dict[str, Any]:
        """The contract's STREAM object."""
        return {"text": self.text, "bytes": self.bytes, "lines": self.lines, "truncated": self.truncated,
                "omitted_lines": self.omitted_lines, "artifact": self.artifact.id if self.artifact else None}


class StreamCapture:
    """Collects one stream's cleaned text; `close()` returns the bounded result."""

    def __init__(self, name: str, *, max_inline_bytes: int, store: ArtifactStore | None,
                 salient: re.Pattern[str] = SALIENT) -> None:
        self.name = name
        self.max_inline_bytes = max(0, max_inline_bytes)
        self.warnings: list[dict[str, Any]] = []
        self._store = store
        self._raw: int | None = None
        self._bytes = self._chars = self._newlines = 0
        self._pending: list[str] = []
        self._spilled = False
        self._writer: ArtifactWriter | None = None
        self._head: list[str] = []  # whole lines, or the clipped start of an overlong first line
        self._head_shown = 0  # content bytes the head shows (less than the line when it is clipped)
        self._tail: deque[str] = deque()
        self._tail_chars = 0
        self._tail_prev = "\n"  # the character just before the tail deque: is its first line whole?
        self._scanner = SalientScanner(salient)
        self._result: StreamResult | None = None

    def add_raw_bytes(self, n: int) -> None:
        """Count bytes as read from the terminal (STREAM.bytes); with none, bytes is the cleaned size."""
        self._raw = (self._raw or 0) + n

    def write(self, text: str, batch: Batch | None = None) -> None:
        """Add `text`; `batch`, made of it, lends the forms of it other stages made (bytes, newlines)."""
        if self._result is not None:
            raise RuntimeError(f"capture of {self.name} is closed")
        if not text:
            return
        batch = Batch.of(text, batch)
        self._chars += len(text)
        self._newlines += batch.newlines()
        self._push_tail(text)
        if self._spilled:
            data = batch.utf8()
            data = _enc(text) if data is None else data  # a lone surrogate: replaced, not passed through
            self._bytes += len(data)
            self._to_artifact(data)
            self._scanner.feed(text, batch=batch)
            return
        self._bytes += _blen(text)
        self._pending.append(text)
        if self._bytes > self.max_inline_bytes:
            self._spill()

    def close(self) -> StreamResult:
        if self._result is not None:
            return self._result
        if not self._spilled:
            text = "".join(self._pending)
            self._pending = []
            self._scanner.feed(text, final=True)
            lines = text.removesuffix("\n").split("\n") if text else []
            tail = _fit(lines[::-1], int((1 - HEAD_SHARE - SALIENT_SHARE) * self.max_inline_bytes))[::-1]
            self._result = self._result_of(text, False, 0, None, _fit(lines, self._head_budget()), tail)
            return self._result
        self._scanner.feed("", final=True)
        ref = None
        try:
            ref = self._writer.close() if self._writer is not None else None
        except ArtifactError as exc:
            self._fail(str(exc))
        self._result = self._compose(ref)
        return self._result

    def _result_of(self, text: str, truncated: bool, omitted: int, ref: ArtifactRef | None,
                   head: tuple[str, ...], tail: tuple[str, ...]) -> StreamResult:
        return StreamResult(text, self._raw if self._raw is not None else self._bytes, self._line_count(),
                            truncated, omitted, ref, tuple(self._scanner.first), head, tail, self._bytes)

    def _line_count(self) -> int:
        return self._newlines + (1 if self._tail and not self._tail[-1].endswith("\n") else 0)

    def _head_budget(self) -> int:
        return int(HEAD_SHARE * max(0, self.max_inline_bytes - 2 * ELISION_ESTIMATE))

    def _push_tail(self, text: str) -> None:
        tail, cap = self._tail, max(self.max_inline_bytes, 256)  # chars: a char is at least one byte
        tail.append(text)
        self._tail_chars += len(text)
        while len(tail) > 1 and self._tail_chars - len(tail[0]) >= cap:
            self._tail_prev = tail[0][-1]
            self._tail_chars -= len(tail.popleft())
        excess = self._tail_chars - cap
        if excess > cap:  # one huge chunk: keep only its end (amortised: at most once per cap chars)
            self._tail_prev = tail[0][excess - 1]
            tail[0] = tail[0][excess:]
            self._tail_chars -= excess

    def _spill(self) -> None:
        whole = "".join(self._pending)
        self._pending = []
        self._spilled = True
        budget, pos = self._head_budget(), 0
        while (nl := whole.find("\n", pos)) >= 0 and nl + 1 - pos <= budget - self._head_shown:
            line = whole[pos : nl + 1]
            if self._head_shown + _blen(line) > budget:
                break
            self._head.append(line)
            self._head_shown += _blen(line)
            pos = nl + 1
        if not self._head and budget > 0:  # the first line alone exceeds the head: show its start
            line_end = whole.find("\n")
            shown = _clip(whole[: min(budget + 1, line_end if line_end >= 0 else len(whole))], budget - 1)
            self._head, self._head_shown = [shown + "\n"], _shown(shown)
        self._scanner.after_line = len(self._head)
        try:
            if self._store is None:
                raise ArtifactError("no artifact store is configured")
            self._writer = self._store.create(media_type=MEDIA_TYPE, name=self.name)
        except ArtifactError as exc:
            self._fail(str(exc))
        self._to_artifact(_enc(whole))
        self._scanner.feed(whole)

    def _to_artifact(self, data: bytes) -> None:
        try:
            if self._writer is not None:
                self._writer.write(data)
        except ArtifactError as exc:
            self._fail(str(exc))

    def _fail(self, reason: str) -> None:
        self._writer = None
        self.warnings.append({"code": "ARTIFACT_UNAVAILABLE", "stream": self.name,
                              "message": f"{self.name}: the full text could not be kept ({reason}); "
                                         "only the inline text remains."})

    def _compose(self, ref: ArtifactRef | None) -> StreamResult:
        budget, total, head_end = self.max_inline_bytes, self._line_count(), len(self._head)
        head_text, first = "".join(self._head), head_end + 1
        where = f"agentwrap --agent artifact show {ref.id}" if ref is not None else None
        candidates = self._scanner.middle
        reserve = _blen(self._elision(total, "1023.9 bytes", first, total, len(candidates), where))
        avail = budget - _blen(head_text) - reserve * (2 if candidates else 1)
        tail_lines = self._tail_lines(total)
        for _ in range(2):  # salient lines that the tail shows anyway leave room for more tail
            block = self._salient_block(candidates, min(int(SALIENT_SHARE * budget), avail))
            room = avail - sum(_blen(b[1]) for b in block)
            tail, tail_first, tail_shown = self._select_tail(tail_lines, room)
            candidates = [c for c in candidates if c[0] < tail_first]
        block = [b for b in block if b[0] < tail_first]
        omitted = tail_first - first - len(block)
        size = self._bytes - self._head_shown - sum(b[2] for b in block) - tail_shown
        elision = self._elision(omitted, human_bytes(size), first, tail_first - 1, len(block), where)
        parts = [head_text, elision]
        if block:
            parts += [b[1] for b in block] + [f"… end of omitted lines {first}–{tail_first - 1}\n"]
        text = "".join(parts + tail)
        if _blen(text) > budget:  # only a budget too small for the elision line itself gets here
            text = _clip(text, budget)
        head = tuple(h.removesuffix("\n") for h in self._head)
        return self._result_of(text, True, omitted, ref, head, tuple(t.removesuffix("\n") for t in tail))

    @staticmethod
    def _elision(omitted: int, size: str, first: int, last: int, kept: int, where: str | None) -> str:
        what = f"{omitted} line{'s' * (omitted != 1)} ({size}) omitted" if omitted else f"{size} omitted"
        kept_text = f", {kept} salient line{'s' * (kept != 1)} kept below" if kept else ""
        span = f" (omitted part: --lines {first}:{last})" if omitted else ""
        source = f"full text: {where}{span}" if where else "the full text was not kept (see warnings)"
        return f"… {what}{kept_text}; {source}\n"

    @staticmethod
    def _salient_block(candidates: list[tuple[int, str]], budget: int) -> list[tuple[int, str, int]]:
        """(line number, display line, output bytes shown) for the salient lines that fit `budget`."""
        out: list[tuple[int, str, int]] = []
        for number, text in candidates:
            prefix = f"  [line {number}] "
            room = min(budget - _blen(prefix) - 1, SALIENT_LINE_BYTES)
            if room < 24:
                break
            shown = _clip(text, room)
            out.append((number, f"{prefix}{shown}\n", _shown(shown) + 1))
            budget -= _blen(out[-1][1])
        return out

    def _tail_lines(self, total: int) -> list[tuple[int, str, bool]]:
        """(line number, line, starts mid-line) for the lines in the tail window, oldest first."""
        text = "".join(self._tail)
        parts = text.split("\n")
        if text.endswith("\n"):
            parts.pop()
        partial = self._chars > len(text) and self._tail_prev != "\n"
        last = len(parts) - 1
        return [
            (total - last + i, part + ("\n" if i < last or text.endswith("\n") else ""), partial and i == 0)
            for i, part in enumerate(parts)
        ]

    def _select_tail(self, lines: list[tuple[int, str, bool]], budget: int) -> tuple[list[str], int, int]:
        """The last lines within `budget`, the number of the first one counted as shown, bytes shown."""
        out: list[str] = []
        total = self._line_count()
        first, used = total + 1, 0
        for number, line, partial in reversed(lines):
            # a single overlong line: the head showed its start, the tail may show its end
            lone = number == len(self._head) == total == 1
            if number <= len(self._head) and not (lone and not out):
                break
            if partial or lone or used + _blen(line) > budget:
                if not out:
                    body = line.removesuffix("\n")
                    clipped = _clip(body, budget - 1, keep_end=True, force=partial or lone)
                    if clipped:
                        out.append(clipped + line[len(body) :])
                        used += _shown(clipped)
                        first = number if not lone else first
                break
            out.append(line)
            used += _blen(line)
            first = number
        return out[::-1], first, used
