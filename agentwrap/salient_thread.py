"""A SalientScanner on a thread of its own, for outputs too big to keep inline.

Nearly all of the scanner's time is spent in `regex` literal searches made with concurrent=True, which
release the GIL: on a second core they run while the relay's worker cleans and redacts the next chunk,
so a big output costs the pipeline little more than its cleaning and redaction. The hand-over is
bounded (memory stays constant) and ordered (the same chunks in the same order: the same lines found);
`first` and `middle` wait for every chunk handed over so far.
"""

from __future__ import annotations

import _thread

try:
    from _queue import SimpleQueue
except ImportError:  # not CPython
    from queue import SimpleQueue

from agentwrap.salient import SalientScanner

_DEPTH = 4  # chunks in flight (each one commit of the pipeline, at most a batch of output)


class ThreadedScanner:
    def __init__(self, scanner: SalientScanner) -> None:
        self._scanner = scanner
        self._items: SimpleQueue[tuple[str, bool] | _thread.LockType] = SimpleQueue()
        self._slots: SimpleQueue[None] = SimpleQueue()
        for _ in range(_DEPTH):
            self._slots.put(None)
        self._error: BaseException | None = None
        self._started = False
        self._stopping = False

    def _work(self) -> None:
        while True:
            item = self._items.get()
            if not isinstance(item, tuple):  # a barrier: every chunk before it is scanned
                item.release()
                if self._stopping:
                    return
                continue
            try:
                if self._error is None:
                    self._scanner.feed(item[0], final=item[1])
            except BaseException as exc:  # noqa: BLE001 - raised in the owner's thread at the next wait
                self._error = exc
            finally:
                self._slots.put(None)

    def feed(self, text: str, *, final: bool = False) -> None:
        if not self._started:
            _thread.start_new_thread(self._work, ())
            self._started = True
        self._slots.get()  # blocks while _DEPTH chunks are waiting
        self._items.put((text, final))
        if final:  # the stream has ended: wait for the scan, and let the thread go
            self._stopping = True
            try:
                self._wait()
            finally:
                self._started = False  # the thread has returned: nothing may wait for it again

    def _wait(self) -> SalientScanner:
        if self._started:
            done = _thread.allocate_lock()
            done.acquire()
            self._items.put(done)
            done.acquire()
        if self._error is not None:
            raise self._error
        return self._scanner

    @property
    def after_line(self) -> int:
        return self._wait().after_line

    @after_line.setter
    def after_line(self, line: int) -> None:
        self._wait().after_line = line

    @property
    def first(self) -> list[tuple[int, str]]:
        return self._wait().first

    @property
    def middle(self) -> list[tuple[int, str]]:
        return self._wait().middle
