"""The process entry, for the `agentwrap` script and `python -m agentwrap`: stop signals are held from
here on (agentwrap.stop_signals), before the rest of agentwrap is imported."""

import gc

from agentwrap import stop_signals

# Python collects cycles every 700 new container objects: importing the run path alone (classes, functions,
# their dicts) sets off dozens of collections that find nothing to free, ~6M instructions of each start
# (bench/run.py startup). One every 50,000 keeps a long run's memory flat (bench/run.py memory) all the same.
GC_THRESHOLD = 50_000


def main() -> int:
    stop_signals.hold()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    from agentwrap.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
