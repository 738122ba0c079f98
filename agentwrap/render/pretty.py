"""The view for a person at a terminal: the program's cleaned output, then what happened and the fix."""

from __future__ import annotations

import shlex
from typing import Any

_RESET, _BOLD, _DIM, _RED, _GREEN, _YELLOW = "\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m"


class _Paint:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        return f"{''.join(styles)}{text}{_RESET}" if self.color and styles else text


def render(env: dict[str, Any], *, color: bool) -> str:
    if "schema_version" not in env:  # a raw document (a JSON Schema): nothing to decorate
        import json

        return json.dumps(env, indent=2, ensure_ascii=False) + "\n"
    paint = _Paint(color)
    lines: list[str] = []
    command = env.get("command") or {}
    if command.get("argv"):
        lines.append(paint(f"$ {shlex.join(command['argv'])}", _DIM))
    output = env.get("output") or {}
    for name in ("stdout", "stderr"):
        text = (output.get(name) or {}).get("text") or ""
        if text:
            if name == "stderr" and (output.get("stdout") or {}).get("text"):
                lines.append(paint("--- stderr ---", _DIM))
            lines.append(text.rstrip("\n"))
    data = env.get("data")
    if data is not None and not command:
        import json

        lines.append(json.dumps(data, indent=2, ensure_ascii=False))
    error = env.get("error")
    if error:
        # The summary says what failed and how (ours); the detail is the tool's own line, said once below it.
        lines.append(paint(f"✘ {env.get('summary') or error.get('code')}", _BOLD, _RED))
        lines.append(f"  {error.get('code')}: {error.get('detail')}")
        if error.get("prompt"):
            lines.append(f"  prompt: {error['prompt']!r} ({error.get('input_kind')})")
        if error.get("suggested_fix"):
            lines.append(f"  fix: {error['suggested_fix']}")
        for action in error.get("code_actions") or []:
            cmd = f": {shlex.join(action['command'])}" if action.get("command") else ""
            lines.append(f"  try: {action['title']}{cmd}")
        if error.get("retry_after") is not None:
            lines.append(f"  retry after: {error['retry_after']} s")
    else:
        lines.append(paint(f"✔ {env.get('summary', 'success')}", _BOLD, _GREEN))
    for warning in env.get("warnings") or []:
        lines.append(paint(f"  ! {warning.get('code')}: {warning.get('message')}", _YELLOW))
    for art in env.get("artifacts") or []:
        lines.append(paint(f"  full output: agentwrap artifact show {art['id']}  ({art['bytes']} bytes)", _DIM))
    return "\n".join(lines) + "\n"
