#!/usr/bin/env python3
"""Write a built-in adapter's Python SPEC dict as its TOML data file, and check it reads back equal.

    python3 .ci/spec_to_toml.py agentwrap.adapters.OLD_MODULE SPEC agentwrap/adapters/NAME.spec.toml

For porting a branch that still edits a Python rule table (the built-ins' tables became TOML in issue 9):
import the branch's module, dump its SPEC (or any dict in the spec format) and replace the TOML file.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any


def scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        if "'" not in v and "\n" not in v and all(ord(c) >= 32 for c in v):
            return "'" + v + "'"  # a literal string: regular expressions stay readable
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {scalar(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"{type(v).__name__} has no TOML form")


def key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def tables(v: Any) -> bool:
    return isinstance(v, list | tuple) and bool(v) and all(isinstance(x, dict) for x in v)


def dump(d: dict[str, Any], prefix: str = "") -> list[str]:
    def inline(v: Any) -> bool:  # a small table inside a table (effects.install) stays on one line
        return isinstance(v, dict) and bool(prefix) and all(not isinstance(x, dict | list | tuple) for x in v.values())

    plain = {k: v for k, v in d.items() if (not isinstance(v, dict) or inline(v)) and not tables(v)}
    out = [f"{key(k)} = {scalar(v)}" for k, v in plain.items()]
    for k, v in d.items():
        if k not in plain and isinstance(v, dict):
            out += ["", f"[{prefix}{key(k)}]", *dump(v, f"{prefix}{key(k)}.")]
    for k, v in d.items():
        if tables(v):
            for item in v:
                out += ["", f"[[{prefix}{key(k)}]]", *dump(item, f"{prefix}{key(k)}.")]
    return out


def plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    return v


def main() -> None:
    module, name, target = sys.argv[1:4]
    sys.path.insert(0, ".")  # run from the root of the checkout whose module it is
    data = plain(getattr(importlib.import_module(module), name))
    text = "\n".join(dump(data)).lstrip("\n") + "\n"
    if tomllib.loads(text) != data:
        raise SystemExit("the TOML does not read back as the same data")
    Path(target).write_text(text)
    print(f"wrote {target} ({len(text.splitlines())} lines)")


if __name__ == "__main__":
    main()
