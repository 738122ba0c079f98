"""A log's bytes as chunks of whole lines, in bounded memory, as soon as they arrive.

A line longer than MAX_LINE keeps its first MAX_LINE bytes (and a newline); the rest is counted and
dropped, so a 50 MB line without a newline costs no more than a short one. On a pipe or terminal a
pause of `idle` seconds is reported (an empty chunk), so a follower (`tail -f log | agentwrap normalize -`)
can finish what it holds and write it out while the writer is quiet.
"""

from __future__ import annotations

import io
import os
import select
import stat
from collections.abc import Iterator
from typing import IO

CHUNK = 1 << 20
MAX_LINE = 256 * 1024


class Reader:
    def __init__(self, stream: IO[bytes], *, idle: float = 0.5) -> None:
        self.stream = stream
        self.idle = idle
        try:
            self.fd: int | None = stream.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):
            self.fd = None  # an in-memory stream (a test, an embedding program): read it as it is
        mode = os.fstat(self.fd).st_mode if self.fd is not None else 0
        self.streaming = stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)
        self.bytes = 0
        self.cut_lines = 0  # lines longer than MAX_LINE (kept in part)
        self.dropped_bytes = 0

    def _reads(self) -> Iterator[bytes]:
        if self.fd is None:
            while data := self.stream.read(CHUNK):
                self.bytes += len(data)
                yield data
            return
        while True:
            if self.streaming:
                ready, _, _ = select.select([self.fd], [], [], self.idle)
                if not ready:
                    yield b""
                    continue
            try:
                data = os.read(self.fd, CHUNK)
            except InterruptedError:
                continue
            if not data:
                return
            self.bytes += len(data)
            yield data

    def chunks(self) -> Iterator[bytes]:
        """Whole lines (each ending in a newline but maybe the last); b"" when a stream went quiet."""
        pending = b""
        skipping = False
        for data in self._reads():
            if not data:
                yield b""
                continue
            if skipping:
                nl = data.find(b"\n")
                if nl < 0:
                    self.dropped_bytes += len(data)
                    continue
                self.dropped_bytes += nl
                data, skipping = data[nl + 1:], False
            buf = pending + data if pending else data
            cut = buf.rfind(b"\n") + 1
            whole, pending = buf[:cut], buf[cut:]
            if len(pending) > MAX_LINE:
                whole += pending[:MAX_LINE] + b"\n"
                self.dropped_bytes += len(pending) - MAX_LINE
                self.cut_lines += 1
                pending, skipping = b"", True
            if whole:
                yield whole
        if pending:
            yield pending
