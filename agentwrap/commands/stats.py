"""`agentwrap stats [--since WHEN] [--format json|pretty] [--off|--on]`: what the local ledger says the
wrapper cost and saved, per program and per adapter. Reads only the ledger file (`agentwrap.ledger`)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from agentwrap import envelope, ledger
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.envelope import Outcome
from agentwrap.errors import UsageError
from agentwrap.lazyre import lazy

MAX_ROWS = 50
_AGO = lazy(r"(\d+(?:\.\d+)?)\s*(m|h|d|w)\Z")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SUMS = ("raw_bytes", "envelope_bytes", "raw_tokens_est", "envelope_tokens_est", "duration_ms")
# every call; those that started the program, and of them the failed; those that did not (ledger.RUNS)
_COUNTS = ("calls", "runs", "errors", "refused", "launches", "replays")
_RAN = ("attached", "detached")


def main(args: Sequence[str], ctx: CommandContext) -> Outcome:
    parser = Parser(prog="agentwrap stats", description="Sizes of past runs from the local ledger: tokens "
                    "the envelopes cost against the raw output, per program and adapter. Never sent anywhere.")
    parser.add_argument("--since", metavar="WHEN", help="only runs since WHEN: 30m, 24h, 7d, 2w, or a date "
                        "(2026-12-01, 2026-12-01T09:00:00Z)")
    parser.add_argument("--format", choices=("json", "pretty"), default=None, help="default: the global format")
    switch = parser.add_mutually_exclusive_group()
    switch.add_argument("--off", action="store_true",
                        help="stop writing the ledger (AGENTWRAP_NO_STATS=1 for one shell)")
    switch.add_argument("--on", action="store_true", help="write the ledger again")
    ns = parser.parse_args(list(args))
    if ns.off or ns.on:
        marker = _switch(bool(ns.on))
        state = "on" if ns.on else "off"
        return Outcome(envelope.build(request_id=ctx.request_id, summary=f"stats are {state}",
                                      data={"enabled": bool(ns.on), "marker": str(marker)}), 0)
    since = parse_since(ns.since) if ns.since else None
    reading = ledger.Reading()
    data = summarize(ledger.read(since, reading))
    data.update(ledger=str(ledger.ledger_path()), enabled=not ledger.opted_out(),
                since=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since)) if since is not None else None)
    # what the figures leave out, said only when something is: a total over a damaged or unreadable
    # ledger, or one new runs cannot add to, must not pass for the whole story
    if reading.skipped_lines:
        data["skipped_lines"] = reading.skipped_lines
    if reading.unreadable:
        data["unreadable"] = reading.unreadable
    if data["enabled"] and not ledger.writable():
        data["writable"] = False
    summary = summary_of(data)
    env = envelope.build(request_id=ctx.request_id, summary=summary, data=data)
    fmt = ns.format or ctx.format
    if fmt == "json" and ctx.format == "pretty":  # asked here for JSON on a terminal: print it as is
        from agentwrap.render import views

        return Outcome(env, 0, raw_output=views.dumps(env).decode())
    if fmt == "pretty":
        text = render(data, summary)
        return Outcome(env, 0, raw_text=text) if ctx.format == "pretty" else Outcome(env, 0, raw_output=text)
    return Outcome(env, 0)


def _switch(enabled: bool) -> Any:
    try:
        return ledger.set_enabled(enabled)
    except OSError as exc:  # the state folder is read-only, or a file stands where it should be
        state = "on" if enabled else "off"
        raise UsageError(f"stats --{state}: the state folder cannot be written ({exc.strerror}: {exc.filename})",
                         suggested_fix="Set AGENTWRAP_STATE_DIR to a writable folder, or use AGENTWRAP_NO_STATS=1 "
                         "to turn the ledger off for one shell.") from None


def parse_since(text: str) -> float:
    """`7d` (ago) or a date or RFC 3339 time (UTC) -> epoch seconds."""
    import calendar

    raw = text.strip()
    match = _AGO.match(raw.lower())
    if match:
        return time.time() - float(match.group(1)) * _UNITS[match.group(2)]
    for pattern in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            return float(calendar.timegm(time.strptime(raw, pattern)))
        except ValueError:
            continue
    raise UsageError(f"--since {text!r}: use a span ago (30m, 24h, 7d, 2w) or a date (2026-12-01, "
                     "2026-12-01T09:00:00Z)", suggested_fix="Run `agentwrap stats --since 7d`.")


def summarize(lines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Totals and per-program, per-adapter rows, in one pass (memory: one row per name). The sizes add
    up over every call, whatever it was: a refused call's answer was read too. The counts split the calls
    by `run`: `runs` started the program (here or detached), of which `errors` failed; the others did not."""
    total = _row()
    by: dict[str, dict[str, dict[str, Any]]] = {"program": {}, "adapter": {}}
    first = last = None
    for line in lines:
        ts = line["ts"]  # read() yields only lines with a well-formed one
        first, last = min(first or ts, ts), max(last or ts, ts)  # concurrent runs append out of order
        for key, rows in by.items():
            name = str(line.get(key) or "(none)")  # a refused call chose no adapter
            _add(rows.setdefault(name, _row()), line)
        _add(total, line)
    out: dict[str, Any] = {k: total[k] for k in _COUNTS}
    out.update({k: total[k] for k in _SUMS})
    out["saved_tokens_est"] = total["raw_tokens_est"] - total["envelope_tokens_est"]
    out["first"], out["last"] = first, last
    for key, rows in by.items():
        table = [{key: name, **row, "saved_tokens_est": row["raw_tokens_est"] - row["envelope_tokens_est"]}
                 for name, row in sorted(rows.items(), key=lambda kv: (-kv[1]["calls"], kv[0]))]
        out[f"by_{key}"] = table[:MAX_ROWS]
        if len(table) > MAX_ROWS:
            out[f"by_{key}_omitted"] = len(table) - MAX_ROWS
    return out


def _row() -> dict[str, Any]:
    return {**dict.fromkeys(_COUNTS, 0), **dict.fromkeys(_SUMS, 0)}


def _add(row: dict[str, Any], line: dict[str, Any]) -> None:
    row["calls"] += 1
    run = line.get("run", "attached")  # a line from before `run` was recorded: every such line ran
    if run in _RAN:
        row["runs"] += 1
        row["errors"] += line.get("status") == "error"
    elif run == "refused":
        row["refused"] += 1
    elif run == "launch":
        row["launches"] += 1
    elif run == "replay":
        row["replays"] += 1
    for key in _SUMS:
        value = line.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            row[key] += value


def summary_of(data: dict[str, Any]) -> str:
    runs, saved = data["runs"], data["saved_tokens_est"]
    calls = [f"{runs} run{'' if runs == 1 else 's'}"]
    for key, one, many in (("refused", "refused", "refused"), ("launches", "detach launch", "detach launches"),
                           ("replays", "replay", "replays")):
        if data[key]:
            calls.append(f"{data[key]} {one if data[key] == 1 else many}")
    return (f"{', '.join(calls)}: ~{data['envelope_tokens_est']} tokens read for ~{data['raw_tokens_est']} of "
            f"raw output ({'saved' if saved >= 0 else 'cost'} ~{abs(saved)})")


def render(data: dict[str, Any], summary: str) -> str:
    state = "" if data["enabled"] else " (off)"
    if data.get("writable") is False:
        state = " (cannot be written: new runs are not counted)"
    lines = [summary, f"ledger: {data['ledger']}{state}"]
    if data.get("skipped_lines"):
        lines.append(f"skipped: {data['skipped_lines']} damaged line(s)")
    lines.extend(f"unreadable: {path}" for path in data.get("unreadable", ()))
    lines.append("")
    for key in ("program", "adapter"):
        rows = data[f"by_{key}"]
        if not rows:
            continue
        width = max(len(key), *(len(str(r[key])) for r in rows))
        lines.append(f"{key:<{width}}  {'calls':>6} {'runs':>6} {'errors':>6} {'refused':>7} {'raw tok':>9} "
                     f"{'read tok':>9} {'saved':>9}")
        for r in rows:
            lines.append(f"{r[key]:<{width}}  {r['calls']:>6} {r['runs']:>6} {r['errors']:>6} {r['refused']:>7} "
                         f"{r['raw_tokens_est']:>9} {r['envelope_tokens_est']:>9} {r['saved_tokens_est']:>9}")
        omitted = data.get(f"by_{key}_omitted")
        if omitted:
            lines.append(f"(and {omitted} more {key}s, in the totals)")
        lines.append("")
    lines.append("tokens are estimated as bytes/4; read tok is what each call wrote to its caller, a refused")
    lines.append("call's answer too (a detached run's answer is read later with `agentwrap op`: not counted)")
    return "\n".join(lines) + "\n"
