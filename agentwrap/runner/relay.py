"""Hand output to the sink on a worker thread, so reading the terminals overlaps with cleaning it.

os.read releases the GIL: while the worker cleans, redacts and captures one batch, the loop is
already waiting for the next, and the program is not stalled behind our processing. The hand-over is
bounded, so a slow sink still pushes back on the program (memory stays constant). The worker starts
with the first output: a program that prints nothing costs no thread.

Built on _thread and the C SimpleQueue: the threading and queue modules cost ~2 ms of every start.
"""

from __future__ import annotations

import _thread
from typing import Any

from agentwrap import signal_mask

try:
    from _queue import SimpleQueue
except ImportError:  # not CPython
    from queue import SimpleQueue

_DEPTH = 8  # batches in flight (each at most session.BATCH_SIZE bytes)
_BARRIER, _STOP = 0, 1


class ThreadedSink:
    def __init__(self, sink: Any) -> None:
        self._sink = sink
        self._items: SimpleQueue[tuple[str | int, Any]] = SimpleQueue()  # (stream, bytes) or (_BARRIER, lock)
        self._slots: SimpleQueue[None] = SimpleQueue()  # a token per batch that may still be handed over
        for _ in range(_DEPTH):
            self._slots.put(None)
        self._error: BaseException | None = None
        self._started = False

    def _work(self) -> None:
        while True:
            stream, payload = self._items.get()
            if isinstance(stream, int):  # _BARRIER or _STOP
                payload.release()  # every item before this one is done
                if stream == _STOP:
                    return
                continue
            try:
                if self._error is None:
                    self._sink.output(stream, payload)
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread at the next flush
                self._error = exc
            finally:
                self._slots.put(None)

    def _wait_for_worker(self, kind: int) -> None:
        done = _thread.allocate_lock()
        done.acquire()
        self._items.put((kind, done))
        done.acquire()  # released by the worker once it reaches this item

    def output(self, stream: str, data: bytes) -> None:
        if not self._started:
            signal_mask.start_thread(self._work)
            self._started = True
        self._slots.get()  # blocks while _DEPTH batches are in flight
        self._items.put((stream, data))

    def flush(self) -> None:
        """Wait until every batch handed over so far has been processed; re-raise a sink failure."""
        if self._started:
            self._wait_for_worker(_BARRIER)
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def prompt_text(self) -> str:
        self.flush()
        text: str = self._sink.prompt_text()
        return text

    def answering(self) -> None:
        self.flush()
        self._sink.answering()

    def since_answer(self) -> str | None:
        self.flush()
        text: str | None = self._sink.since_answer()
        return text

    def event(self, kind: str, payload: dict[str, object]) -> None:
        self.flush()
        self._sink.event(kind, payload)

    def close(self) -> None:
        if self._started:
            self._started = False
            self._wait_for_worker(_STOP)
        if self._error is not None:
            raise self._error
