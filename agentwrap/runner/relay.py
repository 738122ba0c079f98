"""Hand output to the sink on a worker thread, so reading the terminals overlaps with cleaning it.

os.read releases the GIL: while the worker cleans, redacts and captures one batch, the loop is
already waiting for the next, and the program is not stalled behind our processing. The queue is
bounded, so a slow sink still pushes back on the program (memory stays constant).
"""

from __future__ import annotations

import queue
import threading
from typing import Any

_DEPTH = 8  # batches in flight (each at most session.BATCH_SIZE bytes)


class ThreadedSink:
    def __init__(self, sink: Any) -> None:
        self._sink = sink
        self._queue: queue.Queue[tuple[str, bytes] | None] = queue.Queue(_DEPTH)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="agentwrap-sink", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                if self._error is None:
                    self._sink.output(*item)
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread at the next flush
                self._error = exc
            finally:
                self._queue.task_done()

    def output(self, stream: str, data: bytes) -> None:
        self._queue.put((stream, data))

    def flush(self) -> None:
        """Wait until every batch handed over so far has been processed; re-raise a sink failure."""
        self._queue.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def prompt_text(self) -> str:
        self.flush()
        text: str = self._sink.prompt_text()
        return text

    def event(self, kind: str, payload: dict[str, object]) -> None:
        self.flush()
        self._sink.event(kind, payload)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error
