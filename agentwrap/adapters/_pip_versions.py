"""pip's release order, near enough to find a version's neighbours (`packaging` is no dependency).

`version_key(v)` places a release in order (dev < pre-release < final < post; epochs and local versions
not weighed); `kept_versions(versions, requirement)` cuts a long release list to the ones an agent can
pick. The problems (a release list cut) and the install summary (upgraded or downgraded) both read it.
"""

from __future__ import annotations

import re

from agentwrap.lazyre import lazy

# A long release list (botocore has 2,559) keeps the releases an agent can pick: the newest, and those next
# to the version asked for; `available_versions_omitted` counts the rest, which pip's line in the artifact has.
VERSIONS_WHOLE = 12  # a list this short is kept whole
NEWEST_KEPT = 5
NEAR_KEPT = 2  # on each side of the version asked for
_ASKED = lazy(r"(?:===?|~=|!=|<=?|>=?)\s*v?(?P<version>\d[\w.!+-]*)")
_RELEASE = lazy(r"^v?(?:\d+!)?(?P<release>\d+(?:\.\d+)*)(?P<rest>.*)$")
_STAGES = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "c": 3, "rc": 3, "pre": 3, "preview": 3}


def version_key(version: str) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """A version's place in release order, near enough to find its neighbours (`packaging` is no
    dependency): the release numbers (1.0 is 1.0.0), then dev < pre-release < final < post, then their
    numbers. Epochs and local versions are not weighed."""
    m = _RELEASE.match(version.strip().lower())
    if m is None:
        return (), 4, ()
    release = tuple(int(part) for part in m["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    rest = m["rest"].split("+", 1)[0].lstrip("-_.")
    word = re.match(r"[a-z]+", rest)
    stage = (_STAGES.get(word.group(0), 5) if word else 5) if rest else 4
    return release, stage, tuple(int(n) for n in re.findall(r"\d+", rest))


def kept_versions(versions: list[str], requirement: str) -> list[str]:
    """Of pip's releases (oldest first), the ones an agent can act on, in pip's order: all of a short
    list; else the newest few and the nearest below and above the version the requirement names."""
    if len(versions) <= VERSIONS_WHOLE:
        return versions
    keep = set(range(len(versions) - NEWEST_KEPT, len(versions)))
    if (asked := _ASKED.search(requirement)) is not None:
        target = version_key(asked["version"].removesuffix(".*"))
        keys = [version_key(v) for v in versions]
        order = sorted(range(len(versions)), key=keys.__getitem__)
        below = [i for i in order if keys[i] < target]
        above = [i for i in order if keys[i] > target]
        keep |= {*below[-NEAR_KEPT:], *above[:NEAR_KEPT], *(i for i in order if keys[i] == target)}
    return [versions[i] for i in sorted(keep)]
