"""The attached run: PROGRAM ARGS, or a shell line (`bash -c LINE`, which `--shell LINE` becomes), run in
this process. The CLI, keyed runs and the detached supervisor all end here, so a line is read command by
command however it was started."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentwrap import envelope
from agentwrap.options import Options, working_dir
from agentwrap.shell import shell_line


def attached(args: list[str], opts: Options, request_id: str,
             emit: Callable[[dict[str, Any]], None] | None) -> envelope.Outcome:
    line = shell_line(args)  # the engine itself is imported only for a line: a plain run pays nothing for it
    if line is not None:  # read by the adapter of the command that decided it
        if opts.read_only:
            from agentwrap.safety import readonly

            readonly.check(args, opts.env, working_dir(opts))
        from agentwrap.shell.run import execute as run_line

        return run_line(line[0], line[1], opts, request_id=request_id, shell=args[0], emit=emit)
    from agentwrap.commands.run import execute

    return execute(args, opts, request_id=request_id, emit=emit)
