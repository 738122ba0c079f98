"""The view for a person at a terminal: the program's cleaned output, then what happened and the fix.

The program's output is printed as it was. A run on the person's terminal has shown its command line and
output already, while it ran (render.live): `live=True` leaves them out here, so nothing is said twice.
agentwrap's own lines (summary, detail, fix, warnings) are wrapped at spaces to the terminal's width, so a
word is never split by the terminal's hard wrap.
"""

from __future__ import annotations

import shlex
from typing import Any

_RESET, _BOLD, _DIM, _RED, _GREEN, _YELLOW = "\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m"
_HANG = 2  # a wrapped line of ours continues under the text after its mark (`✔ `, `  ! `)


class _Lines:
    """agentwrap's own lines, wrapped to `width` and painted line by line (a style never spans a break)."""

    def __init__(self, color: bool, width: int) -> None:
        self.color, self.width = color, max(width, 20)
        self.out: list[str] = []

    def raw(self, text: str) -> None:
        self.out.append(text)

    def say(self, text: str, *styles: str) -> None:
        import textwrap

        for part in text.split("\n"):
            indent = " " * (len(part) - len(part.lstrip(" ")) + _HANG)
            wrapped = textwrap.wrap(part, self.width, subsequent_indent=indent, break_long_words=False,
                                    break_on_hyphens=False, replace_whitespace=False) or [""]
            self.out.extend(self._paint(line, styles) for line in wrapped)

    def _paint(self, text: str, styles: tuple[str, ...]) -> str:
        return f"{''.join(styles)}{text}{_RESET}" if self.color and styles else text


def _width() -> int:
    import shutil

    return shutil.get_terminal_size((100, 24)).columns


def command_line(argv: list[str], *, color: bool, width: int | None = None) -> str:
    """The `$ PROGRAM ARGS` line that heads the view (`argv` redacted already)."""
    lines = _Lines(color, width or _width())
    lines.say(f"$ {shlex.join(argv)}", _DIM)
    return "\n".join(lines.out) + "\n"


def render(env: dict[str, Any], *, color: bool, width: int | None = None, live: bool = False) -> str:
    if "schema_version" not in env:  # a raw document (a JSON Schema): nothing to decorate
        import json

        return json.dumps(env, indent=2, ensure_ascii=False) + "\n"
    lines = _Lines(color, width or _width())
    command = env.get("command") or {}
    if command.get("argv") and not live:
        lines.say(f"$ {shlex.join(command['argv'])}", _DIM)
    output = {} if live else env.get("output") or {}
    for name in ("stdout", "stderr"):
        text = (output.get(name) or {}).get("text") or ""
        if text:
            if name == "stderr" and (output.get("stdout") or {}).get("text"):
                lines.say("--- stderr ---", _DIM)
            lines.raw(text.rstrip("\n"))
    data = env.get("data")
    if isinstance(data, dict) and _is_artifact_page(data):
        _artifact_page(lines, data)
    elif data is not None and not command:
        import json

        lines.raw(json.dumps(data, indent=2, ensure_ascii=False))
    _verdict(lines, env)
    for warning in env.get("warnings") or []:
        lines.say(f"  ! {warning.get('code')}: {warning.get('message')}", _YELLOW)
    _full_output(lines, env)
    return "\n".join(lines.out) + "\n"


def _verdict(lines: _Lines, env: dict[str, Any]) -> None:
    error = env.get("error")
    if error:
        # The summary says what failed and how (ours); the detail is the tool's own line, said once below it.
        lines.say(f"✘ {env.get('summary') or error.get('code')}", _BOLD, _RED)
        lines.say(f"  {error.get('code')}: {error.get('detail')}")
        if error.get("prompt"):
            lines.say(f"  prompt: {error['prompt']!r} ({error.get('input_kind')})")
        if error.get("suggested_fix"):
            lines.say(f"  fix: {error['suggested_fix']}")
        for action in error.get("code_actions") or []:
            cmd = f": {shlex.join(action['command'])}" if action.get("command") else ""
            lines.say(f"  try: {action['title']}{cmd}")
        if error.get("retry_after") is not None:
            lines.say(f"  retry after: {error['retry_after']} s")
    else:
        lines.say(f"✔ {env.get('summary', 'success')}", _BOLD, _GREEN)
    if env.get("replayed"):  # json says "replayed": true; a person must not take it for a fresh run
        of = f" of {env['operation_id']}" if env.get("operation_id") else ""
        lines.say(f"  replayed: the recorded result{of} (--idempotency-key); nothing ran now", _DIM)


def _full_output(lines: _Lines, env: dict[str, Any]) -> None:
    """Point at a stream's artifact only when its text above was cut: a whole text needs no second look
    (an artifact may exist anyway, for the shorter views an agent reads)."""
    sizes = {art.get("id"): art.get("bytes") for art in env.get("artifacts") or []}
    for name, stream in (env.get("output") or {}).items():
        art = (stream or {}).get("artifact")
        if art and stream.get("truncated"):
            size = f"  ({sizes[art]} bytes)" if sizes.get(art) is not None else ""
            lines.say(f"  full {name}: agentwrap artifact show {art}{size}", _DIM)


def _is_artifact_page(data: dict[str, Any]) -> bool:
    return str(data.get("id", "")).startswith("art_") and "mode" in data


def _artifact_page(lines: _Lines, page: dict[str, Any]) -> None:
    """`artifact show`: the text itself (or the numbered matches), as `less` or `grep -n` would print it."""
    if page["mode"] == "grep":
        for match in page.get("matches") or []:
            at = f" [at byte {match['offset']}]" if match.get("truncated") and "offset" in match else ""
            lines.raw(f"{match['line']}:{at} {match['text']}")
    elif page.get("text"):
        lines.raw(str(page["text"]).rstrip("\n"))
    if page.get("next_cursor"):
        lines.say(f"  more: agentwrap artifact show --cursor {page['next_cursor']}", _DIM)
