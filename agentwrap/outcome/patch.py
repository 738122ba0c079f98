"""The lines of a unified diff (`git diff`, `git show`, `git log -p`) as a model reads them.

A hunk's lines are the change itself: they are never noise and never "restated", whatever words they
share with the data (a removed line `-  lib src` is not said by a file named `src/lib`). Around the
hunks, git writes each file's name three times (`diff --git a/P b/P`, `--- a/P`, `+++ b/P`) and the
blob ids (`index 1e8aea5..c2abc1e 100644`); the `---`/`+++` pair that only repeats the `diff --git`
line and the `index` line carry nothing the next step needs, so the concise text leaves them out (the
artifact keeps them). A pair that says more (`--- /dev/null` for a new file, a rename) is kept.
"""

from __future__ import annotations

from agentwrap.lazyre import lazy

HUNK = "hunk"  # a line of a hunk: kept byte for byte
DROP = "drop"  # a header line another header line already says
OTHER = "other"  # anything else (a commit header, a stat line): read like any other text

_HUNK_HEAD = lazy(r"^@@+ (?:-\d+(?:,(?P<old>\d+))? )+\+\d+(?:,(?P<new>\d+))? @@+")
_INDEX = lazy(r"^index [0-9a-f]{7,}(?:,[0-9a-f]{7,})*\.\.[0-9a-f]{7,}(?: [0-7]{6})?$")
RULE = "patch header said by its diff --git line"


def kinds(lines: list[str], headed: bool = False) -> list[str]:
    """Each line's kind: HUNK (inside a hunk, counted by its `@@` header), DROP or OTHER. `headed`: in text
    not known to be a patch, a hunk counts only under its file's `+++` line or right after another hunk
    (a banner of `@` signs is no combined diff)."""
    out = [OTHER] * len(lines)
    old = new = 0
    combined = False  # a merge's combined diff (`@@@`): one mark column per parent, kept to the next file
    diff_line = ""
    for i, line in enumerate(lines):
        if combined and not line.startswith("diff "):
            out[i] = HUNK
            continue
        combined = False
        if old > 0 or new > 0:
            out[i] = HUNK
            mark = line[:1]
            if mark in (" ", ""):
                old, new = old - 1, new - 1
            elif mark == "-":
                old -= 1
            elif mark == "+":
                new -= 1
            elif mark != "\\":  # `\ No newline at end of file` counts for neither side
                out[i] = OTHER  # a hunk shorter than its header said (a cut text): stop counting
                old = new = 0
            continue
        if headed and not (i > 0 and (lines[i - 1].startswith("+++ ") or out[i - 1] == HUNK)):
            continue
        if line.startswith("@@@") and (not headed or _HUNK_HEAD.match(line)):
            out[i], combined = HUNK, True
        elif m := _HUNK_HEAD.match(line):
            out[i] = HUNK
            old = int(m.group("old")) if m.group("old") is not None else 1
            new = int(m.group("new")) if m.group("new") is not None else 1
        elif line.startswith("diff --git "):
            diff_line = line
        elif _INDEX.match(line):
            out[i] = DROP
        elif line.startswith("+++ ") and i > 0 and lines[i - 1].startswith("--- ") and diff_line == (
                f"diff --git {lines[i - 1][4:]} {line[4:]}"):
            out[i - 1] = out[i] = DROP  # `--- a/P` and `+++ b/P` say what `diff --git a/P b/P` said
    return out
