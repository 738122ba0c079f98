"""A request's options as the launcher recorded them and the supervisor reads them back (JSON).

Its own module so that the launcher, the supervisor and idempotency can all use it without importing
each other (they form no cycle)."""

from __future__ import annotations

from typing import Any

from agentwrap import options


def options_to_json(opts: options.Options) -> dict[str, Any]:
    """The launcher's options as already parsed and validated, so the supervisor runs exactly them."""
    names = [n for n in vars(options.Options) if not n.startswith("_") and not callable(getattr(opts, n))]
    out = {n: getattr(opts, n) for n in names if getattr(opts, n) != getattr(options.Options, n, None)}
    out.update(answers=[list(a) for a in opts.answers], env=dict(opts.env))
    return out


def options_from_json(values: dict[str, Any]) -> options.Options:
    known = {k: v for k, v in values.items() if hasattr(options.Options, k) or k in ("answers", "env")}
    opts = options.Options(**{k: v for k, v in known.items() if k not in ("answers", "env")})
    opts.answers = [(str(p), str(r)) for p, r in values.get("answers", [])]
    opts.env = {str(k): str(v) for k, v in values.get("env", {}).items()}
    return opts
