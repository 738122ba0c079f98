"""`agentwrap normalize [--adapter NAME|auto] [--format json|jsonl|sarif|github|problem] [--root DIR]
[--exit-code N] [--max-problems N] [FILE|-]`: a saved build log as diagnostics."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from agentwrap import envelope
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.errors import UsageError
from agentwrap.logs import render
from agentwrap.logs.engine import Normalizer
from agentwrap.problem import wrapper_problem

FORMATS = ("json", "jsonl", "sarif", "github", "problem")


def _open(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by main()
    except IsADirectoryError:
        raise UsageError(f"normalize: {path}: is a directory") from None
    except OSError as exc:
        raise UsageError(f"normalize: {path}: cannot read: {exc.strerror}") from None


def main(args: Sequence[str], ctx: CommandContext) -> envelope.Outcome:
    parser = Parser(prog="agentwrap normalize", description="Turn a saved build or CI log into diagnostics.")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="the log (default: standard input)")
    parser.add_argument("--adapter", default="auto", help="read the whole log with this adapter (default: detect)")
    parser.add_argument("--format", choices=FORMATS, default=None, help="output (default: the global format)")
    parser.add_argument("--root", default=None, help="repository root: paths are made relative to it")
    parser.add_argument("--exit-code", type=int, default=None, help="the exit code of the step that wrote the log")
    parser.add_argument("--max-problems", type=int, default=1000, help="keep at most this many (default 1000)")
    ns = parser.parse_args(list(args))
    root = Path(ns.root) if ns.root else None
    if root is not None and not root.is_dir():
        raise UsageError(f"normalize: --root {ns.root}: not a directory")
    if ns.max_problems < 1:
        raise UsageError("normalize: --max-problems must be at least 1")
    forced = None if ns.adapter == "auto" else ns.adapter
    if forced:
        from agentwrap import registry

        registry.find("", forced=forced)  # an unknown name is a USAGE problem naming the close ones
    stream = _open(ns.file)
    try:
        result = Normalizer(forced=forced, max_problems=ns.max_problems).run(stream)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    located = [p._replace(location={**p.location, "file": render.relative(p.location["file"], root)})
               if p.location and isinstance(p.location.get("file"), str) else p for p in result.problems]
    problems = [p.with_instance(ctx.request_id).to_dict() for p in located]
    error = next((p for p in located if p.severity == "error"), None)
    if error is None and ns.exit_code:
        error = wrapper_problem("COMMAND_FAILED", f"the step exited with status {ns.exit_code} and its log names "
                                "no error agentwrap recognises")
    if error is not None:
        error = error._replace(exit_code=1)
    code = 1 if error is not None else 0
    warnings = list(result.warnings)
    if result.cut:
        warnings.append({"code": "PROBLEMS_TRUNCATED", "message": f"{result.cut} more problems were found and "
                         f"left out (--max-problems {ns.max_problems})"})
    if result.invalid_utf8:
        warnings.append({"code": "INVALID_UTF8", "message": f"{result.invalid_utf8} byte sequences were not UTF-8"})
    counts = result.counts
    summary = (f"{counts['error']} errors, {counts['warning']} warnings in {result.lines} lines"
               + (f" ({len(result.steps)} steps)" if result.steps else ""))
    data = {"problems_total": sum(counts.values()), "counts": counts, "tools": result.tools,
            "steps": result.steps, "bytes": result.bytes, "lines": result.lines, "problems_cut": result.cut}
    env = envelope.build(request_id=ctx.request_id, summary=summary, error=error, problems=located, data=data,
                         warnings=warnings)
    fmt = ns.format or ("problem" if ctx.format == "problem" else "jsonl" if ctx.format == "jsonl" else None)
    raw: str | None = None
    if fmt == "sarif":
        raw = json.dumps(render.sarif(problems, root), ensure_ascii=False, indent=1) + "\n"
    elif fmt == "github":
        raw = render.github(problems, root)
    elif fmt == "jsonl":
        raw = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in problems)
    elif fmt == "problem":
        raw = json.dumps(env["error"] if env["error"] else env, ensure_ascii=False) + "\n"
    elif fmt == "json":
        raw = json.dumps(env, ensure_ascii=False, separators=(",", ":")) + "\n"
    return envelope.Outcome(env, code, raw_output=raw)
