"""`agentwrap normalize [--adapter NAME|auto] [--format json|jsonl|sarif|github|problem] [--root DIR]
[--exit-code N] [--max-problems N] [--matcher FILE.json]... [FILE|-]`: a saved build log as diagnostics.

`--format jsonl` and `github` write each problem as soon as it is known (a follower of a growing log
sees them while it grows); the other formats are one document at the end."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from agentwrap import envelope
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.errors import UsageError
from agentwrap.logs import formats, render
from agentwrap.logs.engine import Normalizer
from agentwrap.logs.matchers import MatcherError
from agentwrap.logs.reader import MAX_LINE
from agentwrap.problem import Problem, wrapper_problem
from agentwrap.redact import Redactor, secret_values

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


def _matchers(paths: list[str]) -> tuple[list[formats.Format], list[dict[str, str]]]:
    """`--matcher` files (a defect is a USAGE problem) and the user folder's (a defect is a warning)."""
    from agentwrap import registry

    found = []
    for path in paths:
        try:
            found.append(formats.load_matcher_file(Path(path)))
        except MatcherError as exc:
            raise UsageError(f"normalize: --matcher {exc}") from None
    warnings: list[dict[str, str]] = []
    if not registry.builtin_only():
        found.extend(formats.user(registry.user_dir(), warnings))
    return found, warnings


class _Streamer:
    """Writes each problem the moment the engine keeps it: one JSON line, or one workflow command."""

    def __init__(self, fmt: str, root: Path | None, request_id: str) -> None:
        self.fmt, self.root, self.request_id = fmt, root, request_id
        self.redactor = Redactor(secret_values(os.environ))
        self.broken = False

    def write(self, problem: Problem) -> None:
        if self.broken:
            return
        if problem.location and isinstance(problem.location.get("file"), str):
            problem = problem._replace(location={**problem.location,
                                                 "file": render.relative(problem.location["file"], self.root)})
        data = problem.with_instance(self.request_id).to_dict()
        line = json.dumps(data, ensure_ascii=False) + "\n" if self.fmt == "jsonl" else render.github([data], None)
        text = self.redactor.redact(line)
        try:
            try:
                fd = sys.stdout.fileno()
            except (OSError, ValueError, io.UnsupportedOperation):  # an in-memory stdout (in-process use)
                sys.stdout.write(text)
                sys.stdout.flush()
                return
            raw = text.encode("utf-8", "replace")
            while raw:
                raw = raw[os.write(fd, raw):]
        except (BrokenPipeError, OSError):
            self.broken = True  # the reader left; the exit code still tells the result


def main(args: Sequence[str], ctx: CommandContext) -> envelope.Outcome:
    parser = Parser(prog="agentwrap normalize", description="Turn a saved build or CI log into diagnostics.")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="the log (default: standard input)")
    parser.add_argument("--adapter", default="auto", help="read the whole log with this adapter (default: detect)")
    parser.add_argument("--format", choices=FORMATS, default=None, help="output (default: the global format)")
    parser.add_argument("--root", default=None, help="repository root: paths are made relative to it")
    parser.add_argument("--exit-code", type=int, default=None, help="the exit code of the step that wrote the log")
    parser.add_argument("--max-problems", type=int, default=1000, help="keep at most this many (default 1000)")
    parser.add_argument("--matcher", action="append", default=[], metavar="FILE.json",
                        help="a GitHub Actions problem-matcher file to read the log with too (repeatable)")
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
    extra, load_warnings = _matchers(ns.matcher)
    fmt = ns.format or ("problem" if ctx.format == "problem" else "jsonl" if ctx.format == "jsonl" else None)
    stream = _open(ns.file)
    writer = _Streamer(fmt, root, ctx.request_id) if fmt in ("jsonl", "github") else None
    try:
        result = Normalizer(forced=forced, max_problems=ns.max_problems, extra_formats=extra,
                            on_problem=writer.write if writer else None).run(stream)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    result.warnings[:0] = load_warnings
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
    if result.cut_lines:
        warnings.append({"code": "LINES_TRUNCATED", "message": f"{result.cut_lines} lines longer than "
                         f"{MAX_LINE // 1024} KiB were read up to that length"})
    if result.invalid_utf8:
        warnings.append({"code": "INVALID_UTF8", "message": f"{result.invalid_utf8} byte sequences were not UTF-8"})
    counts = result.counts
    summary = (f"{counts['error']} errors, {counts['warning']} warnings in {result.lines} lines"
               + (f" ({len(result.steps)} steps)" if result.steps else ""))
    data = {"problems_total": sum(counts.values()), "counts": counts, "tools": result.tools,
            "steps": result.steps, "bytes": result.bytes, "lines": result.lines, "problems_cut": result.cut}
    env = envelope.build(request_id=ctx.request_id, summary=summary, error=error, problems=located, data=data,
                         warnings=warnings)
    raw: str | None = None
    if fmt == "sarif":
        raw = json.dumps(render.sarif(problems, root), ensure_ascii=False, indent=1) + "\n"
    elif fmt in ("github", "jsonl"):
        raw = ""  # written as they were found
    elif fmt == "problem":
        raw = json.dumps(env["error"] if env["error"] else env, ensure_ascii=False) + "\n"
    elif fmt == "json":
        raw = json.dumps(env, ensure_ascii=False, separators=(",", ":")) + "\n"
    return envelope.Outcome(env, code, raw_output=raw)
