#!/usr/bin/env python3
"""Token economics: raw output bytes against envelope bytes, over every captured fixture.

    python3 bench/tokens.py [--markdown]

For each fixture the envelope is what `agentwrap --agent` prints for that run (json, concise, with
the context a live run carries), beside the complete `--detail standard` one, and the check is that
the facts survive in the concise one: every problem code and location of the fixture's reviewed
expectation is there. Goal: for outputs over 2 KB the envelopes are at most 20% of the raw bytes in
aggregate, with every expected fact kept. These are single large fixtures; `bench/session.py`
measures what a whole agent session costs.
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
from agentwrap.render.views import dumps, project  # noqa: E402

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


def _lost(expected: dict, lean: dict) -> list[str]:
    """The facts of the reviewed expectation missing from the concise envelope: the status, and each
    problem's code and location (in `error` or `problems`, unless the list was cut and says so)."""
    def fact(p: dict) -> tuple[str, str]:
        return p.get("code", ""), repr(sorted((p.get("location") or {}).items()))

    lost = [f"status {lean.get('status')} != {expected.get('status')}"] if lean.get("status") != expected.get(
        "status") else []
    shown = {fact(p) for p in [lean.get("error") or {}, *lean.get("problems", [])]}
    if "problems_omitted" not in lean:
        for p in [expected.get("error"), *expected.get("problems", [])]:
            if p and fact(p) not in shown:
                lost.append(f"{p.get('code')} at {p.get('location')}")
    return lost


def main() -> int:
    rows = []
    for case in fixtures.cases(ROOT / "fixtures"):
        adapter = registry.builtin(case.adapter)
        meta = case.meta()
        record = fixtures.replay_record(adapter, case, store=STORE,
                                        context=_context(adapter.environment([str(a) for a in meta["argv"]])))
        raw = sum(case.path(s).stat().st_size for s in (".out", ".err") if case.path(s).exists())
        lean = project(record, "concise")
        size, standard = len(dumps(lean)), len(dumps(record.standard()))
        rows.append((case.adapter, case.name, raw, size, standard, _lost(case.expected() or {}, lean)))
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for adapter, _, raw, size, standard, lost in rows:
        if raw > BIG:
            per[adapter][0] += raw
            per[adapter][1] += size
            per[adapter][2] += standard
        per[adapter][3] += 1
        per[adapter][4] += bool(lost)
    markdown = "--markdown" in sys.argv
    print("| adapter | fixtures | raw bytes (>2 KB) | concise bytes | concise/raw | standard/raw | facts lost |"
          if markdown else f"{'adapter':<10} {'cases':>5} {'raw>2KB':>10} {'concise':>9} {'ratio':>7} "
                           f"{'standard':>8} {'lost':>5}")
    if markdown:
        print("|---|---|---|---|---|---|---|")
    total = [0, 0, 0, 0, 0]
    for adapter, (raw, size, standard, count, lost) in sorted(per.items()):
        ratio = f"{size / raw:.1%}" if raw else "-"
        full = f"{standard / raw:.1%}" if raw else "-"
        print(f"| {adapter} | {count} | {raw} | {size} | {ratio} | {full} | {lost} |" if markdown else
              f"{adapter:<10} {count:>5} {raw:>10} {size:>9} {ratio:>7} {full:>8} {lost:>5}")
        total = [t + v for t, v in zip(total, (raw, size, standard, count, lost), strict=True)]
    ratio = f"{total[1] / total[0]:.1%}" if total[0] else "-"
    full = f"{total[2] / total[0]:.1%}" if total[0] else "-"
    print(f"| **all** | {total[3]} | {total[0]} | {total[1]} | **{ratio}** | {full} | {total[4]} |" if markdown else
          f"{'all':<10} {total[3]:>5} {total[0]:>10} {total[1]:>9} {ratio:>7} {full:>8} {total[4]:>5}"
          "  (goal <= 20%, 0 lost)")
    for adapter, name, _, _, _, lost in rows:
        for line in lost[:3]:
            print(f"  lost in {adapter}/{name}: {line}")
    return 0 if total[4] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
