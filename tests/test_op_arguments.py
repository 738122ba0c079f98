"""`agentwrap op` arguments that cannot mean anything are usage errors, and ages read as `stats --since`
reads them (days and weeks)."""

from __future__ import annotations

import pytest

from tests.conftest import aw


@pytest.mark.parametrize("args", [
    ("op", "events", "op_01m8xw9xh3f4zm2shh0x2j9jsm", "--limit", "0"),
    ("op", "events", "op_01m8xw9xh3f4zm2shh0x2j9jsm", "--after", "-5"),
    ("op", "list", "--limit", "-1"),
])
def test_a_count_that_means_nothing_is_a_usage_error(args: tuple[str, ...]) -> None:
    refused = aw(*args)
    assert refused.code == 125 and refused.error is not None and refused.error["code"] == "USAGE"


def test_prune_takes_weeks_like_stats_since() -> None:
    assert aw("stats", "--since", "2w").code == 0
    pruned = aw("op", "prune", "--older-than", "2w")
    assert pruned.code == 0, pruned.env


def test_one_event_is_said_in_the_singular() -> None:
    started = aw("--detach", "--", "sleep", "1")
    op_id = started.env["operation_id"]
    first = aw("op", "events", op_id, "--limit", "1")
    assert first.env["summary"] == f"1 event of {op_id} after sequence 0"
    aw("op", "wait", op_id, "--timeout", "30")
