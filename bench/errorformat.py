#!/usr/bin/env python3
"""Recall and precision of `agentwrap normalize` on reviewdog/errorformat's test corpus (MIT).

    python3 bench/errorformat.py [--corpus DIR] [-v]

The corpus is real output of 49 tools (`fmts/testdata/NAME.in`) with the entries errorformat reads
from it (`NAME.ok`: `file|line col N type| message`). Nobody here wrote either. It is found at
--corpus DIR (a checkout), else $ERRORFORMAT_DIR, else cloned once into the user cache
(`git clone --depth 1 https://github.com/reviewdog/errorformat`); its files are not in this repository.

Each input is read three ways: as the tool printed it (raw), wrapped the way GitHub Actions stores a
step's log (timestamps, `##[group]`), and in `gh run view --log` layout (`JOB<TAB>STEP<TAB>TIME line`).
A found problem counts when its file and line equal an entry's (and its column, when the entry has
one); entries and problems are compared as sets. Goal: recall >= 0.95, precision >= 0.98 over all.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["AGENTWRAP_ADAPTERS"] = "builtin"

from agentwrap.logs.engine import Normalizer  # noqa: E402

_OK = re.compile(r"^([^|]*)\|(\d*)(?: col (\d+))?[^|]*\|")
Key = tuple[str, int | None, int | None]


def corpus() -> Path:
    if "--corpus" in sys.argv:
        return Path(sys.argv[sys.argv.index("--corpus") + 1]) / "fmts" / "testdata"
    if os.environ.get("ERRORFORMAT_DIR"):
        return Path(os.environ["ERRORFORMAT_DIR"]) / "fmts" / "testdata"
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "agentwrap-bench" / "errorformat"
    if not (cache / "fmts" / "testdata").is_dir():
        cache.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["git", "clone", "--quiet", "--depth", "1",
                               "https://github.com/reviewdog/errorformat", str(cache)])
        if done.returncode != 0:
            raise SystemExit("the corpus could not be cloned; give a checkout of reviewdog/errorformat with "
                             "--corpus DIR (or $ERRORFORMAT_DIR)")
    return cache / "fmts" / "testdata"


def truth(ok: Path) -> set[Key]:
    keys: set[Key] = set()
    for line in ok.read_text(encoding="utf-8").splitlines():
        m = _OK.match(line)
        if m:
            keys.add((m.group(1), int(m.group(2)) if m.group(2) else None, int(m.group(3)) if m.group(3) else None))
    return keys


def github(name: str, text: str) -> str:
    out = [f"2024-05-01T10:00:00.0000000Z ##[group]Run {name}"]
    out += [f"2024-05-01T10:00:{i % 60:02d}.{i:07d}Z {line}" for i, line in enumerate(text.splitlines())]
    out += ["2024-05-01T10:01:00.0000000Z ##[endgroup]",
            "2024-05-01T10:01:00.0000000Z ##[error]Process completed with exit code 1."]
    return "\n".join(out) + "\n"


def gh(name: str, text: str) -> str:
    """`gh run view --log`: each line of the GitHub log behind its job and step columns."""
    return "".join(f"lint\tRun {name}\t{line}\n" for line in github(name, text).splitlines())


def found(log: str, keys: set[Key]) -> set[Key]:
    with tempfile.TemporaryFile() as f:
        f.write(log.encode("utf-8"))
        f.seek(0)
        result = Normalizer(forced=None, max_problems=100_000).run(f)
    out: set[Key] = set()
    for p in result.problems:
        loc = p.location or {}
        file, line, col = str(loc.get("file", "")), loc.get("line"), loc.get("column")
        out.add((file, line, col) if (file, line, col) in keys else (file, line, None))
    return out


def main() -> int:
    data = corpus()
    if not any(data.glob("*.ok")):
        raise SystemExit(f"{data}: no *.ok files (is it a checkout of reviewdog/errorformat?)")
    names = sorted(p.stem for p in data.glob("*.ok"))
    layouts = {"raw": lambda n, t: t, "github": github, "gh": gh}
    totals = {k: [0, 0, 0] for k in layouts}  # hit, found, truth
    print(f"{'format':<16}" + "".join(f" {k + ' P':>9} {k + ' R':>9}" for k in layouts))
    for name in names:
        keys = truth(data / f"{name}.ok")
        text = (data / f"{name}.in").read_text(encoding="utf-8")
        row, notes = f"{name:<16}", []
        for layout, wrap in layouts.items():
            got = found(wrap(name, text), keys)
            hit = len(got & keys)
            for i, n in enumerate((hit, len(got), len(keys))):
                totals[layout][i] += n
            row += f" {hit / len(got) if got else 1.0:>9.2f} {hit / len(keys) if keys else 1.0:>9.2f}"
            if "-v" in sys.argv and (got - keys or keys - got):
                notes.append(f"    {layout}: missed {sorted(keys - got, key=str)[:3]} "
                             f"extra {sorted(got - keys, key=str)[:3]}")
        print(row)
        print("\n".join(notes)) if notes else None
    good = True
    print(f"{'ALL (' + str(len(names)) + ')':<16}", end="")
    for hit, got, want in totals.values():
        precision, recall = hit / got if got else 1.0, hit / want if want else 1.0
        good &= precision >= 0.98 and recall >= 0.95
        print(f" {precision:>9.3f} {recall:>9.3f}", end="")
    print(f"\nentries: {totals['raw'][2]}; goal: precision >= 0.98, recall >= 0.95 in every layout")
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
