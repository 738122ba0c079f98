"""docs/problems.md, written from the code tables: `python3 -m agentwrap.problem_docs > docs/problems.md`.

The page is derived, never edited by hand, so what `agentwrap explain` says and what the page says cannot
drift apart (tests/test_explain.py compares the two).
"""

from __future__ import annotations

import sys

from agentwrap import advice, codes

_HEAD = """\
# Problem codes

The wrapper-level codes every adapter inherits (CONTRACT section 3). `agentwrap explain CODE` prints the
same offline. Their `type` is `urn:agentwrap:problem:SLUG`. Adapters add their own codes (`agentwrap
describe NAME` lists them); their `type` is `urn:agentwrap:problem:TOOL:SLUG`, where SLUG never repeats
TOOL.

This page is generated: `python3 -m agentwrap.problem_docs > docs/problems.md`.
"""


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _wrapper_section(info: codes.CodeInfo) -> list[str]:
    exit_code = str(info.exit_code) if info.exit_code is not None else "the program’s own (or 128+N)"
    lines = [
        f"## {info.slug}",
        "",
        f"**{info.code}** — {info.title}. Category `{info.category}`, status {info.status}, exit code "
        f"{exit_code}, retryable: {_flag(info.retryable)}, safe to retry: {_flag(info.safe_to_retry)}.",
        "",
        info.meaning,
        "",
    ]
    lines += [f"- {fix}" for fix in advice.usable(info.fixes)]
    return [*lines, ""]


def render() -> str:
    lines = [_HEAD]
    for info in codes.BY_CODE.values():
        lines += _wrapper_section(info)
    lines += ["## Warnings", "", "Non-fatal conditions in `warnings` (they never decide a run):", ""]
    lines += [f"- `{code}`: {meaning}" for code, meaning in codes.WARNINGS.items()]
    lines += ["", *_adapter_sections()]
    return "\n".join(lines).rstrip("\n") + "\n"


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def _adapter_sections() -> list[str]:
    """One table per built-in tool, from the adapters' declarations (catalog.py)."""
    from agentwrap import catalog

    lines = [
        "## Adapter codes",
        "",
        "Each built-in adapter's declared codes (`agentwrap explain CODE` prints one). Retry facts: "
        "`r` retryable, `s` safe to retry. A code in *italics* is a family: any code matching its pattern.",
        "",
    ]
    by_tool: dict[str, list[catalog.Entry]] = {}
    for entry in catalog.entries():
        by_tool.setdefault(entry.tool, []).append(entry)
    for tool, entries in by_tool.items():
        lines += [
            f"### {tool}",
            "",
            "| code | type | title | category | status | retry | fix |",
            "|---|---|---|---|---|---|---|",
        ]
        for entry in entries:
            d = entry.declared
            code = f"*{d.code}* (`{d.pattern}`)" if d.pattern else f"`{d.code}`"
            retry = ("r" if d.retryable else "-") + ("s" if d.safe_to_retry else "-")
            fix = " ".join(advice.usable([d.suggested_fix] if d.suggested_fix else []))
            lines.append(
                f"| {code} | `{entry.type.removeprefix('urn:agentwrap:problem:')}` | {_cell(d.title)} | "
                f"{d.category} | {d.status} | {retry} | {_cell(fix)} |"
            )
        lines.append("")
    return lines


if __name__ == "__main__":
    sys.stdout.write(render())
