"""The jsonl event stream of CONTRACT section 8: one JSON object per line, written as it happens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentwrap import SCHEMA_VERSION
from agentwrap.ids import utc_now

EVENT_TEXT_BYTES = 4096


class EventStream:
    """Numbers events, stamps them, and keeps output events within a byte budget."""

    def __init__(self, write: Callable[[dict[str, Any]], None], operation_id: str, output_budget: int) -> None:
        self._write = write
        self.operation_id = operation_id
        self.sequence = 0
        self._output_left = output_budget
        self._limited = False

    def emit(self, kind: str, **payload: Any) -> dict[str, Any]:
        self.sequence += 1
        event = {"schema_version": SCHEMA_VERSION, "type": kind, "operation_id": self.operation_id,
                 "sequence": self.sequence, "timestamp": utc_now(), **payload}
        self._write(event)
        return event

    def output(self, stream: str, text: str) -> None:
        if self._limited:
            return
        data = text.encode()
        if len(data) > self._output_left:
            self._limited = True
            self.emit("warning", code="OUTPUT_EVENTS_LIMITED",
                      message="output events reached their budget; the final envelope has the bounded "
                              "output and the artifact with all of it")
            return
        self._output_left -= len(data)
        for start in range(0, len(data), EVENT_TEXT_BYTES):
            piece = data[start:start + EVENT_TEXT_BYTES].decode(errors="ignore")
            self.emit("output", stream=stream, text=piece)
