"""An ArgumentParser that reports bad arguments as a USAGE problem instead of exiting the process."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, NoReturn

from agentwrap.errors import HelpRequested, UsageError


class _HelpAction(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        raise HelpRequested(parser.format_help())


class Parser(argparse.ArgumentParser):
    """argparse for subcommands: argument errors raise UsageError, `-h` raises HelpRequested; never exits."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("exit_on_error", False)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self.add_argument("-h", "--help", action=_HelpAction, nargs=0, help="show this help")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # With exit_on_error=False argparse raises ArgumentError itself instead of calling error().
        try:
            return super().parse_known_args(args, namespace)
        except argparse.ArgumentError as exc:
            self.error(str(exc))

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}", suggested_fix=f"See `{self.prog} --help`.")
