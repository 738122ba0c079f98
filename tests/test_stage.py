"""The background stage a spilled capture hands its artifact writes and salient scan to."""

from __future__ import annotations

import _thread

import pytest

from agentwrap.stage import Stage


def test_items_are_processed_in_order_on_another_thread() -> None:
    seen: list[tuple[int, int]] = []
    stage: Stage[int] = Stage(lambda n: seen.append((n, _thread.get_ident())), depth=2)
    for n in range(100):
        stage.put(n)
    stage.join()
    assert [n for n, _ in seen] == list(range(100))
    assert {ident for _, ident in seen} != {_thread.get_ident()}


def test_at_most_depth_items_wait() -> None:
    gate = _thread.allocate_lock()
    gate.acquire()
    started: list[int] = []

    def slow(n: int) -> None:
        started.append(n)
        with gate:  # held until the test lets it go
            pass

    stage: Stage[int] = Stage(slow, depth=2)
    stage.put(1)
    stage.put(2)
    assert stage._slots.qsize() == 0  # a third put would wait: a slot comes back only when an item is done
    gate.release()
    stage.put(3)
    stage.join()
    assert started == [1, 2, 3]


def test_a_failure_is_raised_by_join_and_later_items_are_skipped() -> None:
    seen: list[int] = []

    def process(n: int) -> None:
        if n == 2:
            raise ValueError("disk on fire")
        seen.append(n)

    stage: Stage[int] = Stage(process)
    for n in range(5):
        stage.put(n)
    with pytest.raises(ValueError, match="disk on fire"):
        stage.join()
    assert seen == [0, 1]
    with pytest.raises(RuntimeError):
        stage.put(9)
