"""The JSON Schemas shipped in `agentwrap/schemas/`: the machine-readable form of the contract.

`result` is the envelope (CONTRACT section 2), `problem` one RFC 9457 object (section 3), `event`
one JSONL line (section 8), `request` the input of `agentwrap run --input`.
Each file is self-contained: `result` bundles `problem` under `$defs`
and `event` bundles `result`, as embedded resources with their own `$id`.
"""

from __future__ import annotations

import copy
import functools
import json
from importlib import resources
from typing import Any

KINDS = ("result", "problem", "event", "request")


def load(kind: str) -> dict[str, Any]:
    """The parsed schema for `kind`; a fresh copy each call, so callers may change it freely."""
    return copy.deepcopy(_parsed(kind))


@functools.cache
def _parsed(kind: str) -> dict[str, Any]:
    if kind not in KINDS:
        raise ValueError(f"unknown schema kind {kind!r}; kinds: {', '.join(KINDS)}")
    text = resources.files("agentwrap").joinpath("schemas", f"{kind}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
