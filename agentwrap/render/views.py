"""Projections (--detail, --fields) and the machine views (json, problem) of an envelope."""

from __future__ import annotations

import json
from typing import Any

ALWAYS = ("schema_version", "status", "summary", "request_id", "error")
_CONCISE_DROP = ("context", "metrics", "effects", "verification", "command")
_CONCISE_PROBLEM_KEEP = ("type", "title", "status", "detail", "code", "category", "retryable", "safe_to_retry",
                         "retry_after", "suggested_fix", "code_actions", "location", "prompt", "input_kind",
                         "exit_code", "severity")


def dumps(obj: Any) -> bytes:
    # stdlib json, not orjson: importing orjson costs 7-18 ms (it pulls in datetime, uuid, zoneinfo),
    # more than it saves on an envelope of a few kilobytes. Lone surrogates (undecodable argv) become U+FFFD.
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")


def _concise_problem(problem: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in problem.items() if k in _CONCISE_PROBLEM_KEEP and v not in (None, [], {})}


def by_detail(env: dict[str, Any], detail: str) -> dict[str, Any]:
    if detail != "concise" or "schema_version" not in env:
        return env
    out = {k: v for k, v in env.items() if k not in _CONCISE_DROP}
    if out.get("error"):
        out["error"] = _concise_problem(out["error"])
    out["problems"] = [_concise_problem(p) for p in out.get("problems", [])[:10]]
    for key in ("warnings", "artifacts"):
        if not out.get(key):
            out.pop(key, None)
    return out


def _pick(obj: Any, path: list[str]) -> Any:
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            raise KeyError(key)
        obj = obj[key]
    return obj


def by_fields(env: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
    """Keep only the dotted paths asked for (plus the fields every answer needs)."""
    if not fields or "schema_version" not in env:
        return env
    out: dict[str, Any] = {k: env[k] for k in ALWAYS if k in env}
    missing = []
    for dotted in fields:
        path = dotted.split(".")
        try:
            value = _pick(env, path)
        except KeyError:
            missing.append(dotted)
            continue
        target = out
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = value
    if missing:
        out.setdefault("warnings", []).append({"code": "UNKNOWN_FIELDS", "message": f"not found: {', '.join(missing)}"})
    return out


def problem_view(env: dict[str, Any]) -> dict[str, Any]:
    """`--format problem`: the bare RFC 9457 object on error, the envelope on success."""
    return env["error"] if env.get("status") == "error" and env.get("error") else env
