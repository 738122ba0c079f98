#!/usr/bin/env python3
"""Token economics: raw output bytes against envelope bytes, over every captured fixture.

    python3 bench/tokens.py [--markdown]

For each fixture the envelope is what `agentwrap --agent` prints for that run (json, default detail,
with the context a live run carries), and the check is that the facts survive: every problem code and
location in the fixture's reviewed expectation is in the envelope. Goal: for outputs over 2 KB the
envelopes are at most 20% of the raw bytes in aggregate, with every expected fact kept.
"""

from __future__ import annotations

import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentwrap import fixtures, prevention, registry  # noqa: E402
from agentwrap.artifacts import ArtifactStore  # noqa: E402
from agentwrap.render.views import dumps  # noqa: E402

BIG = 2048
STORE = ArtifactStore(Path(tempfile.mkdtemp(prefix="aw-tokens-")))  # long text goes here, as in a live run


def _context(adapter_env: dict[str, str]) -> dict[str, object]:
    """The context a live run reports (the shim folder stands for the per-run temporary one)."""
    shims = {"editor": "$AGENTWRAP_SHIMS/agentwrap-editor", "askpass": "$AGENTWRAP_SHIMS/agentwrap-askpass"}
    env_set = prevention.environment(shims, adapter_env)
    env_set["AGENTWRAP_REQUEST_LOG"] = "$AGENTWRAP_SHIMS/requests.jsonl"
    return {"cwd": "/home/user/project", "pty": True, "env_set": dict(sorted(env_set.items())),
            "shims_dir": "/tmp/agentwrap_01jd0000000000000000000000", "started_at": "2026-11-30T10:00:00.000Z",
            "timeout_ms": 600000, "stdin": "terminal", "answered": []}


def _facts(expected: dict) -> dict:
    """The facts that must survive: codes and locations of the error and of every problem."""
    def keep(p: dict | None) -> dict | None:
        return None if p is None else {k: p[k] for k in ("code", "location") if k in p}

    facts: dict = {"status": expected.get("status")}
    if "error" in expected:
        facts["error"] = keep(expected["error"])
    if "problems" in expected:
        facts["problems"] = [keep(p) for p in expected["problems"]]
    return facts


def main() -> int:
    rows = []
    for case in fixtures.cases(ROOT / "fixtures"):
        adapter = registry.builtin(case.adapter)
        meta = case.meta()
        env, _ = fixtures.replay(adapter, case, context=_context(adapter.environment([str(a) for a in meta["argv"]])),
                                 store=STORE)
        raw = sum(case.path(s).stat().st_size for s in (".out", ".err") if case.path(s).exists())
        size = len(dumps(env))
        lost = fixtures.mismatches(_facts(case.expected() or {}), env)
        rows.append((case.adapter, case.name, raw, size, lost))
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for adapter, _, raw, size, lost in rows:
        if raw > BIG:
            per[adapter][0] += raw
            per[adapter][1] += size
        per[adapter][2] += 1
        per[adapter][3] += bool(lost)
    markdown = "--markdown" in sys.argv
    print("| adapter | fixtures | raw bytes (>2 KB) | envelope bytes | envelope/raw | facts lost |" if markdown else
          f"{'adapter':<10} {'cases':>5} {'raw>2KB':>10} {'envelope':>9} {'ratio':>7} {'lost':>5}")
    if markdown:
        print("|---|---|---|---|---|---|")
    total = [0, 0, 0, 0]
    for adapter, (raw, size, count, lost) in sorted(per.items()):
        ratio = f"{size / raw:.1%}" if raw else "-"
        print(f"| {adapter} | {count} | {raw} | {size} | {ratio} | {lost} |" if markdown else
              f"{adapter:<10} {count:>5} {raw:>10} {size:>9} {ratio:>7} {lost:>5}")
        total = [t + v for t, v in zip(total, (raw, size, count, lost), strict=True)]
    ratio = f"{total[1] / total[0]:.1%}" if total[0] else "-"
    print(f"| **all** | {total[2]} | {total[0]} | {total[1]} | **{ratio}** | {total[3]} |" if markdown else
          f"{'all':<10} {total[2]:>5} {total[0]:>10} {total[1]:>9} {ratio:>7} {total[3]:>5}  (goal <= 20%, 0 lost)")
    for adapter, name, _, _, lost in rows:
        for line in lost[:3]:
            print(f"  lost in {adapter}/{name}: {line}")
    return 0 if total[3] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
