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
from pathlib import Path, PurePath
from typing import IO

from agentwrap import envelope
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.errors import UsageError
from agentwrap.logs import formats, render, steps
from agentwrap.logs.engine import LogResult, Normalizer
from agentwrap.logs.matchers import MatcherError
from agentwrap.logs.reader import MAX_LINE
from agentwrap.problem import Problem, wrapper_problem
from agentwrap.redact import Redactor
from agentwrap.secret_names import secret_values

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
            found.extend(formats.load_matcher_file(Path(path)))
        except MatcherError as exc:
            raise UsageError(f"normalize: --matcher {exc}") from None
    warnings: list[dict[str, str]] = []
    if not registry.builtin_only():
        found.extend(formats.user(registry.user_dir(), warnings))
    return found, warnings


class _Streamer:
    """Writes each problem the moment the engine keeps it: one JSON line, or one workflow command."""

    def __init__(self, fmt: str, root: PurePath | None, request_id: str) -> None:
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
        self.write_text(line)

    def write_text(self, line: str) -> None:
        if self.broken:
            return
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


def _say_cut(message: str, writer: _Streamer | None) -> None:
    """One line on stderr, and a `::warning::` in the job's log for `--format github` (stdout is that log)."""
    print(f"agentwrap normalize: {message}", file=sys.stderr)
    if writer is not None and writer.fmt == "github":
        writer.write_text(render.github_warning(message))


def _counted(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _step_exit(given: int | None, result: LogResult) -> int | None:
    """The step's exit status: as given, else the first the log's runner reported failed (`exit code N`)."""
    if given is not None:
        return given
    return next((f["exit_code"] for f in result.failed_steps), None)


def _verdict(problems: list[Problem], step_exit: int | None, tail: list[str]) -> tuple[Problem | None, int]:
    """The deciding problem and agentwrap's exit code, as for a live run (CONTRACT section 4): the step's own
    status when it failed, 1 when it exited 0 (or was not given) but its log names an error."""
    error = next((p for p in problems if p.severity == "error"), None)
    if error is None and step_exit:
        detail = f"the step failed with exit status {step_exit} and no error diagnostic was found in its log"
        if tail:  # what it said last is what a reader needs first (`Permission denied (publickey).`)
            detail += f"; its last lines:\n{steps.quoted(tail)}"
        error = wrapper_problem("COMMAND_FAILED", detail)
    if error is None:
        return None, 0
    code = step_exit or 1
    return error._replace(exit_code=code), code


def main(args: Sequence[str], ctx: CommandContext) -> envelope.Outcome:
    parser = Parser(prog="agentwrap normalize", description="Turn a saved build or CI log into diagnostics.")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="the log (default: standard input)")
    parser.add_argument("--adapter", default="auto",
                        help="read the whole log with this adapter or diagnostic format (default: detect)")
    parser.add_argument("--format", choices=FORMATS, default=None, help="output (default: the global format)")
    parser.add_argument("--root", default=None, help="repository root: paths are made relative to it")
    parser.add_argument("--exit-code", type=int, default=None, help="the exit code of the step that wrote the log")
    parser.add_argument("--max-problems", type=int, default=1000, help="keep at most this many (default 1000)")
    parser.add_argument("--matcher", action="append", default=[], metavar="FILE.json",
                        help="a GitHub Actions problem-matcher file to read the log with too (repeatable)")
    ns = parser.parse_args(list(args))
    # the runner's checkout (/home/runner/work/p/p) need not exist here: it is a prefix taken off paths
    root = render.root_of(ns.root) if ns.root else None
    if isinstance(root, Path) and root.exists() and not root.is_dir():
        raise UsageError(f"normalize: --root {ns.root}: not a directory")
    if ns.exit_code is not None and not 0 <= ns.exit_code <= 255:
        raise UsageError(f"normalize: --exit-code {ns.exit_code}: an exit status is 0 to 255")
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
    error, code = _verdict(located, _step_exit(ns.exit_code, result), result.tail)
    warnings = list(result.warnings)
    were = "was" if result.cut == 1 else "were"
    cut_message = (f"{_counted(result.cut, 'more problem')} {were} found and left out "
                   f"(--max-problems {ns.max_problems})")
    if result.cut:
        warnings.append({"code": "PROBLEMS_TRUNCATED", "message": cut_message})
        if fmt in ("sarif", "github", "jsonl"):  # no envelope carries the warning: say it beside the output
            _say_cut(cut_message, writer)
    if result.cut_lines:
        warnings.append({"code": "LINES_TRUNCATED", "message": f"{result.cut_lines} lines longer than "
                         f"{MAX_LINE // 1024} KiB were read up to that length"})
    if result.binary_lines:
        warnings.append({"code": "BINARY_OUTPUT", "message": f"{_counted(result.binary_lines, 'line')} "
                         f"({result.binary_bytes} bytes) of binary data (NUL or control bytes) were "
                         "skipped unread"})
    if result.invalid_utf8:
        warnings.append({"code": "INVALID_UTF8", "message": f"{result.invalid_utf8} byte sequences were not UTF-8"})
    counts = result.counts
    in_steps = f" ({_counted(len(result.steps), 'step')})" if result.steps else ""
    summary = (f"{_counted(counts['error'], 'error')}, {_counted(counts['warning'], 'warning')} in "
               f"{_counted(result.lines, 'line')}{in_steps}")
    data = {"problems_total": sum(counts.values()), "counts": counts, "tools": result.tools,
            "steps": result.steps, "failed_steps": result.failed_steps, "bytes": result.bytes,
            "lines": result.lines, "problems_cut": result.cut}
    # the step's status as given; a log does not tell how long the step ran (the contract wants a number)
    exit_info = None if ns.exit_code is None else {"code": ns.exit_code, "signal": None, "timed_out": False,
                                                   "duration_ms": 0}
    env = envelope.build(request_id=ctx.request_id, summary=summary, error=error, problems=located, data=data,
                         warnings=warnings, exit_info=exit_info)
    raw: str | None = None
    if fmt == "sarif":
        cut = (result.cut, cut_message) if result.cut else None
        raw = json.dumps(render.sarif(problems, root, cut), ensure_ascii=False, indent=1) + "\n"
    elif fmt in ("github", "jsonl"):
        raw = ""  # written as they were found
    elif fmt == "problem":
        raw = json.dumps(env["error"] if env["error"] else env, ensure_ascii=False) + "\n"
    elif fmt == "json":
        raw = json.dumps(env, ensure_ascii=False, separators=(",", ":")) + "\n"
    return envelope.Outcome(env, code, raw_output=raw)
