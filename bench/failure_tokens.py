#!/usr/bin/env python3
"""What a failure's envelope costs, and whether its summary says the error's detail again (CONTRACT 2a rule 1).

    python3 bench/failure_tokens.py [--code DIR] [--save FILE] [--compare FILE] [-v]

Every failing fixture is replayed into the envelope `agentwrap --agent` prints (concise) and counted in
o200k tokens (bpe-openai, offline): the whole envelope, its summary, and the error's detail. It prints the
totals and how many summaries restate the detail (the same words, or one holding the other whole).

`--code DIR` replays with the agentwrap package of another checkout (say, an export of main before a
change), over that checkout's own fixtures; `--save FILE` writes the per-fixture counts, and `--compare
FILE` prints the change against a saved run, fixture by fixture: the total, and every envelope that grew.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose agentwrap replays (default: this)")
    parser.add_argument("--save", type=Path, help="write the per-fixture counts here (JSON)")
    parser.add_argument("--compare", type=Path, help="a file written by --save, to compare against")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every restating summary")
    return parser.parse_args()


def _plain(text: str) -> str:
    return " ".join(text.split()).rstrip(".: ").casefold()


def restates(summary: str, detail: str) -> bool:
    """The same test as agentwrap.failure_summary.restates, written out here so that it measures any
    checkout, including one that predates that module."""
    if not summary or not detail:
        return False
    a, b = _plain(summary), _plain(detail)
    return a == b or (len(b) >= 8 and b in a) or (len(a) >= 8 and a in b)


def measure(code: Path) -> dict[str, dict[str, object]]:
    sys.path.insert(0, str(code))
    from agentwrap import fixtures, registry
    from agentwrap.artifacts import ArtifactStore
    from agentwrap.render.views import dumps, project

    try:
        import bpe_openai  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        raise SystemExit("needs the o200k tokenizer: pip install bpe-openai (or the bench extra)") from None
    encoding = bpe_openai.get_encoding("o200k_base")
    store = ArtifactStore(Path(tempfile.mkdtemp(prefix="aw-failure-tokens-")))  # long text goes here, as live

    def tokens(text: str) -> int:
        # an artifact's id is random (a ULID): one fixed id, so that two runs count the same text alike
        return len(encoding.encode(re.sub(r"art_[0-9a-z]{26}", "art_01jd0000000000000000000000", text)))

    rows: dict[str, dict[str, object]] = {}
    for case in fixtures.cases(code / "fixtures"):
        record = fixtures.replay_record(registry.builtin(case.adapter), case, store=store)
        if record.error is None:
            continue
        lean = project(record, "concise")
        summary, detail = str(lean["summary"]), str(lean["error"].get("detail", ""))
        rows[f"{case.adapter}/{case.name}"] = {
            "envelope": tokens(dumps(lean).decode()), "summary": tokens(summary), "detail": tokens(detail),
            "restates": restates(summary, detail), "text": summary}
    return rows


def main() -> int:
    args = _args()
    rows = measure(args.code.resolve())
    total = sum(int(r["envelope"]) for r in rows.values())  # type: ignore[call-overload]
    said = sum(int(r["summary"]) for r in rows.values())  # type: ignore[call-overload]
    restating = [name for name, r in rows.items() if r["restates"]]
    print(f"{len(rows)} failing fixtures ({args.code}): concise envelopes {total} tokens, summaries {said} tokens; "
          f"{len(restating)} summaries restate the error's detail")
    if args.verbose:
        for name in restating:
            print(f"  restates: {name}: {rows[name]['text']}")
    if args.save:
        args.save.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    if args.compare:
        before: dict[str, dict[str, object]] = json.loads(args.compare.read_text())
        both = sorted(set(before) & set(rows))
        was = sum(int(before[n]["envelope"]) for n in both)  # type: ignore[call-overload]
        now = sum(int(rows[n]["envelope"]) for n in both)  # type: ignore[call-overload]
        grew = [n for n in both if int(rows[n]["envelope"]) > int(before[n]["envelope"])]  # type: ignore[call-overload]
        shrank = sum(1 for n in both if int(rows[n]["envelope"]) < int(before[n]["envelope"]))  # type: ignore[call-overload]
        print(f"against {args.compare} ({len(both)} fixtures in both): {was} -> {now} tokens "
              f"({now - was:+d}, {(now - was) / was:+.1%}); {shrank} smaller, {len(grew)} larger")
        for name in grew:
            print(f"  larger: {name}: {before[name]['envelope']} -> {rows[name]['envelope']} "
                  f"({before[name]['text']!r} -> {rows[name]['text']!r})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
