"""Mocha's spec reporter (its default) as facts: the `N passing`/`N failing`/`N pending` totals and each failed
test's numbered block (`  1) suite` / `       test:`, the error, its frames). Read where npm runs a test script or
npx runs mocha; a pure function of cleaned text, like `js_test_results` for `node --test`."""

from __future__ import annotations

import re
import shlex
from typing import Any

from agentwrap.adapters.js_frames import parse_frame, user_frames
from agentwrap.lazyre import lazy
from agentwrap.sdk import Problem, ProblemCode, problem

_COUNT = lazy(r"^ {2}(?P<n>\d+) (?P<key>passing|failing|pending)(?: \((?P<took>[\d.]+m?s)\))?$", re.M)
_FAILING = lazy(r"^ {2}\d+ failing$")
_HEAD = lazy(r"^ {2}(?P<n>\d+)\) (?P<title>.+)$")
# mocha's own diff under the error's message: node's AssertionError message already holds the values
_DIFF = lazy(r"^\s*\+ expected - actual\s*$")
_KEYS = {"passing": "passed", "failing": "failed", "pending": "skipped"}


def counts(text: str) -> dict[str, Any] | None:
    """`1 passing (9ms)`, `2 failing`, `1 pending`: mocha's totals (None when it printed none)."""
    found: dict[str, Any] = {}
    for m in _COUNT.finditer(text):
        found[_KEYS[m["key"]]] = int(m["n"])
    if "passed" not in found:  # mocha always prints `N passing`
        return None
    found["total"] = sum(found.values())
    return found


def failures(text: str, tool: str, test: ProblemCode, exit_code: int | None) -> list[Problem]:
    """Each numbered failure under `N failing`: the test's full title, its error's message (up to mocha's own
    diff, which repeats the values), located at the first frame in the user's files."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _FAILING.match(line)), None)
    if start is None:
        return []
    heads = [i for i in range(start + 1, len(lines)) if _HEAD.match(lines[i])]
    out = []
    for k, at in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        out.append(_failure(lines[at:end], tool, test, exit_code))
    return out


def _failure(block: list[str], tool: str, test: ProblemCode, exit_code: int | None) -> Problem:
    head = _HEAD.match(block[0])
    assert head is not None
    parts, i = [head["title"].removesuffix(":")], 1
    while not head["title"].endswith(":") and i < len(block) and block[i].strip():
        parts.append(block[i].strip().removesuffix(":"))  # a nested suite, then the test, ending with `:`
        if block[i].rstrip().endswith(":"):
            i += 1
            break
        i += 1
    frames = [f for line in block[i:] if (f := parse_frame(line))]
    first_frame = next((j for j in range(i, len(block)) if parse_frame(block[j])), len(block))
    message = block[i:first_frame]
    message = message[:next((j for j, line in enumerate(message) if _DIFF.match(line)), len(message))]
    reason = " ".join(" ".join(line.split()) for line in message if line.strip())[:300]
    title = " ".join(parts)
    user = user_frames(frames)
    location = {"file": user[0].file, "line": user[0].line, "column": user[0].column} if user else None
    grep = shlex.quote("^" + re.escape(title).replace("\\ ", " ") + "$")
    found = problem(tool, test, f"test '{title}' failed" + (f": {reason}" if reason else ""),
                    exit_code=exit_code, location=location, extra={"test": title},
                    suggested_fix=f"Fix the code or the test; re-run just this test with `npx mocha --grep {grep}`.")
    return found._replace(matched="\n".join(block))  # the problem stands for its whole block
