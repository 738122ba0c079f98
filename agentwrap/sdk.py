"""The adapter SDK: the one module a plugin author imports, and the built-in adapters use too.

    from agentwrap import sdk

    class MyToolAdapter(sdk.BaseAdapter):
        spec = sdk.Spec.from_toml(PATH)            # rules, prompts, effects, descriptor: data
        codes = (BROKEN,)                           # the codes the Python below emits, declared once
        parsers = {"list": parse_list}              # subcommand -> data

        def diagnostics(self, run: sdk.CapturedRun) -> list[sdk.Problem]:
            return [sdk.problem("mytool", BROKEN, line) for line in run.stderr_text.splitlines() if ...]

    ADAPTER = MyToolAdapter()

- **Records** (kw-only frozen dataclasses): `CapturedRun` (what an adapter reads), `Interpretation`,
  `Problem`, `CodeAction`, `Effects`, `Presentation`, and `ProblemCode` (a declared code).
- **`BaseAdapter`**: every default and the declarative engine; a TOML adapter needs no Python at all.
- **`Spec`**: the validated declarative form (TOML, or the same tables as a dict), see docs/adapters.md.
  A rule has one form, the `[[rules]]` table (`rule(...)` below builds the same table in Python).
- **Launchers** (`npx tsc`, `uv run pytest`, `npm run build`): a `[launcher]` table in the spec, or a
  Python override of `BaseAdapter.inner_command(argv)` / `inner_commands_of(run)`, names the command a
  run launched; that command's adapter then reads the run (docs/adapters.md, "Launchers").
- **`problem(tool, declared, detail, ...)`**: the one problem factory. It owns the type URI
  (`urn:agentwrap:problem:TOOL:SLUG`, `problem_type`), so no adapter writes one by hand.

Nothing else of agentwrap is public to adapters; names here keep their meaning across minor versions.
"""

from __future__ import annotations

from typing import Any

from agentwrap.adapter import Adapter, BaseAdapter, Parser, merge_codes, program_name
from agentwrap.problem import adapter_problem as problem
from agentwrap.problem import problem_type, slug
from agentwrap.records import (
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Presentation,
    Problem,
    ProblemCode,
    Stream,
)
from agentwrap.spec import Spec, SpecError

#: The entry-point group a plugin distribution registers its adapters in (one value shape: an adapter
#: instance, e.g. `mytool = "mypkg.adapter:ADAPTER"`). Versioned: a new shape gets a new group.
ENTRY_POINT_GROUP = "agentwrap.adapters.v1"


def rule(
    *,
    code: str,
    pattern: str,
    title: str,
    category: str,
    status: int,
    retryable: bool = False,
    safe_to_retry: bool = True,
    **more: Any,
) -> dict[str, Any]:
    """A `[[rules]]` table built in Python: keyword arguments, the same keys and defaults as TOML."""
    return {
        "code": code,
        "pattern": pattern,
        "title": title,
        "category": category,
        "status": status,
        "retryable": retryable,
        "safe_to_retry": safe_to_retry,
        **more,
    }


def secret_forms(*values: Any) -> tuple[str, ...]:
    """The ways a program's text can show `values` (JSON values: a string, or lists and mappings of them), for
    `Interpretation.secrets`: each string as it is (`-raw`), and as JSON writes it inside quotes, escaped as
    Python's json and Go's encoding/json (`<`, `>`, `&` as \\u003c...) escape it. Numbers of six digits or
    more count too; shorter numbers and booleans would hide every such word of the output."""
    import json

    forms: list[str] = []

    def add(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                add(item)
        elif isinstance(value, list | tuple):
            for item in value:
                add(item)
        elif isinstance(value, str):
            escaped = json.dumps(value, ensure_ascii=False)[1:-1]
            go = escaped.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            go = go.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
            forms.extend((value, escaped, json.dumps(value)[1:-1], go))
        elif isinstance(value, int | float) and not isinstance(value, bool) and len(str(value)) >= 6:
            forms.append(str(value))

    for value in values:
        add(value)
    return tuple(dict.fromkeys(forms))


__all__ = [
    "ENTRY_POINT_GROUP",
    "Adapter",
    "BaseAdapter",
    "CapturedRun",
    "CodeAction",
    "Effects",
    "Interpretation",
    "Parser",
    "Presentation",
    "Problem",
    "ProblemCode",
    "Spec",
    "SpecError",
    "Stream",
    "merge_codes",
    "problem",
    "problem_type",
    "program_name",
    "rule",
    "secret_forms",
    "slug",
]
