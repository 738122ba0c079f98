"""Fixtures: runs captured from real tools, replayed through the same pipeline and adapter as a live run.

A case is `DIR/<adapter>/<case>.out` and `.err` (raw bytes as the terminal delivered them, colours and
all), `.meta.json` (argv, exit, tool version, date) and `.expected.json` (the reviewed subset of the
envelope the adapter must produce).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from agentwrap.adapter import Adapter
from agentwrap.artifacts import ArtifactStore
from agentwrap.outcome import build
from agentwrap.outcome.record import RunRecord
from agentwrap.pipeline import Pipeline
from agentwrap.runner.session import RunResult

SUFFIXES = (".out", ".err", ".meta.json", ".expected.json")
REPLAY_INLINE_BYTES = 4096  # the agent default, so replays show what an agent would read


class Case(NamedTuple):
    adapter: str
    name: str
    base: Path  # DIR/<adapter>/<case>, without suffix

    def path(self, suffix: str) -> Path:
        return self.base.with_name(self.base.name + suffix)

    def meta(self) -> dict[str, Any]:
        return dict(json.loads(self.path(".meta.json").read_text()))

    def expected(self) -> dict[str, Any] | None:
        path = self.path(".expected.json")
        return dict(json.loads(path.read_text())) if path.exists() else None


def cases(root: Path, adapter: str | None = None) -> list[Case]:
    """Every case under `root` (a fixtures folder), or under `root/<adapter>` only."""
    folders = [root / adapter] if adapter else sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    found = []
    for folder in folders:
        for meta in sorted(folder.glob("*.meta.json")):
            found.append(Case(folder.name, meta.name.removesuffix(".meta.json"), meta.with_name(
                meta.name.removesuffix(".meta.json"))))
    return found


def replay(adapter: Adapter, case: Case, *, request_id: str = "req_replay", context: dict[str, Any] | None = None,
           store: ArtifactStore | None = None) -> tuple[dict[str, Any], int]:
    """The standard envelope and exit code of a replayed case (see `replay_record`)."""
    record = replay_record(adapter, case, request_id=request_id, context=context, store=store)
    return record.standard(), record.exit_code


def replay_record(adapter: Adapter, case: Case, *, request_id: str = "req_replay",
                  context: dict[str, Any] | None = None, store: ArtifactStore | None = None) -> RunRecord:
    """The envelope the adapter produces for a captured case, exactly as for the live run (which keeps
    long text in artifacts: pass a `store` to see that too; without one, every byte stays inline)."""
    meta = case.meta()
    pipeline = Pipeline(max_inline_bytes=REPLAY_INLINE_BYTES, store=store, secrets=[])
    for stream, suffix in (("stdout", ".out"), ("stderr", ".err")):
        path = case.path(suffix)
        if path.exists():
            data = path.read_bytes()
            for start in range(0, len(data), 1 << 18):  # the runner's batch size
                pipeline.output(stream, data[start:start + (1 << 18)])
    result = RunResult()
    result.returncode, result.signal = meta.get("exit_code"), meta.get("signal")
    result.duration_ms = int(meta.get("duration_ms", 0))
    prompt = meta.get("prompt")
    if isinstance(prompt, dict):
        from agentwrap.runner.session import PromptInfo

        detection = str(prompt.get("detection") or "kernel")
        if detection.endswith("-shim"):  # an editor or askpass request, recorded by the shim
            from agentwrap.runner.shims import Request

            kind = "editor" if prompt.get("input_kind") == "editor" else "askpass"
            result.requests = [Request(kind, str(prompt.get("prompt") or ""))]
        else:
            result.prompt = PromptInfo(str(prompt.get("prompt") or ""), str(prompt.get("input_kind") or "text"),
                                       detection, str(prompt.get("source") or "terminal"), 0, "")
    argv = [str(a) for a in meta["argv"]]
    return build(request_id=request_id, argv=argv, program=str(meta.get("program", argv[0])),
                 adapter=adapter, result=result, pipeline=pipeline, context=context)


def expectation(env: dict[str, Any]) -> dict[str, Any]:
    """The facts a fixture pins down, taken from an envelope (what `capture` proposes for review)."""
    def problem(p: dict[str, Any]) -> dict[str, Any]:
        keep = ("code", "category", "retryable", "safe_to_retry", "retry_after", "location", "input_kind")
        return {k: p[k] for k in keep if p.get(k) is not None}

    out: dict[str, Any] = {"status": env["status"], "exit": {"code": (env.get("exit") or {}).get("code")}}
    out["error"] = problem(env["error"]) if env.get("error") else None
    out["problems"] = [problem(p) for p in env.get("problems", [])]
    if env.get("data") is not None:
        out["data"] = env["data"]
    return out


def mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where `actual` differs from `expected` (dict keys not in `expected` are ignored; lists match in full)."""
    where = path or "envelope"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {json.dumps(actual)[:200]}"]
        found = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{where}.{key}: missing (expected {json.dumps(value)[:200]})")
            else:
                found.extend(mismatches(value, actual[key], f"{path}.{key}" if path else key))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            got = len(actual) if isinstance(actual, list) else type(actual).__name__
            return [f"{where}: expected {len(expected)} items, got {got}"]
        pairs = enumerate(zip(expected, actual, strict=True))
        return [m for i, (e, a) in pairs for m in mismatches(e, a, f"{where}[{i}]")]
    if expected != actual:
        return [f"{where}: expected {json.dumps(expected)[:200]}, got {json.dumps(actual)[:200]}"]
    return []
