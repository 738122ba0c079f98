"""How the runner batches what it reads: whole, in order, bounded, however the program writes."""

from __future__ import annotations

import os
import sys

from agentwrap.runner import session
from agentwrap.runner.spawn import resolve_program


class _Sink:
    def __init__(self) -> None:
        self.batches: list[bytes] = []

    def output(self, stream: str, data: bytes) -> None:
        assert stream == "stdout"
        self.batches.append(data)

    def prompt_text(self) -> str:
        return ""

    def event(self, kind: str, payload: dict[str, object]) -> None:
        pass


def test_many_small_writes_arrive_whole_in_order_and_in_bounded_batches() -> None:
    # one flush per line: the terminal yields small reads, which the runner gathers before handing over
    code = "import sys\nfor i in range(30000):\n    sys.stdout.write(f'line {i}\\n'); sys.stdout.flush()"
    spec = session.RunSpec(argv=[sys.executable, "-c", code], program=resolve_program(sys.executable, "", "."),
                           cwd=".", env=dict(os.environ))
    sink = _Sink()
    result = session.run(spec, sink)
    expected = "".join(f"line {i}\n" for i in range(30000)).encode()
    assert b"".join(sink.batches) == expected
    assert result.returncode == 0
    assert max(map(len, sink.batches)) <= session.BATCH_SIZE + session.READ_SIZE
