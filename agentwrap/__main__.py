"""The process entry, for the `agentwrap` script and `python -m agentwrap`: stop signals are held from
here on (agentwrap.stop_signals), before the rest of agentwrap is imported."""

from agentwrap import stop_signals


def main() -> int:
    stop_signals.hold()
    from agentwrap.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
