"""A bounded background stage: items handed to `put` are processed in order on a thread of their own.

The relay's worker cleans and redacts output while holding the GIL most of the time; what a spilled
capture then does with the text (the salient scan's Aho-Corasick pass, SHA-256, the artifact write)
mostly releases it. Run here, that work overlaps with the cleaning of the next batch instead of
following it. At most `depth` items wait, so a slow disk pushes back and memory stays constant.

Built on _thread and the C SimpleQueue, as the relay is (the threading module costs ~2 ms of a start).
"""

from __future__ import annotations

import _thread
from collections.abc import Callable
from typing import Generic, TypeVar

try:
    from _queue import SimpleQueue
except ImportError:  # not CPython
    from queue import SimpleQueue

T = TypeVar("T")
_DEPTH = 4


class Stage(Generic[T]):
    def __init__(self, process: Callable[[T], None], *, depth: int = _DEPTH) -> None:
        self._process = process
        self._items: SimpleQueue[tuple[bool, T | None]] = SimpleQueue()  # (last, item)
        self._slots: SimpleQueue[None] = SimpleQueue()  # a token per item that may still be handed over
        for _ in range(depth):
            self._slots.put(None)
        self._done = _thread.allocate_lock()
        self._done.acquire()  # released by the thread when it has processed the last item
        self._error: BaseException | None = None
        self._joined = False
        _thread.start_new_thread(self._work, ())

    def _work(self) -> None:
        try:
            while True:
                last, item = self._items.get()
                if last:
                    return
                try:
                    if self._error is None:
                        self._process(item)  # type: ignore[arg-type]
                except BaseException as exc:  # noqa: BLE001 - re-raised by join, in the caller's thread
                    self._error = exc
                finally:
                    self._slots.put(None)
        finally:
            self._done.release()

    def put(self, item: T) -> None:
        if self._joined:
            raise RuntimeError("the stage is closed")
        self._slots.get()  # blocks while `depth` items wait
        self._items.put((False, item))

    def join(self) -> None:
        """Wait until every item put so far is processed and end the thread; re-raise its failure."""
        if not self._joined:
            self._joined = True
            self._items.put((True, None))
            self._done.acquire()
        if self._error is not None:
            raise self._error
