"""Fixtures: runs captured from real tools, replayed through the same pipeline and adapter as a live run.

A case is `DIR/<adapter>/<case>.out` and `.err` (raw bytes as the terminal delivered them, colours and
all), `.meta.json` (argv, exit, tool version, date) and `.expected.json` (the reviewed subset of the
envelope the adapter must produce).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from agentwrap.adapter import Adapter, inner_adapter
from agentwrap.artifacts import ArtifactStore
from agentwrap.errors import UsageError
from agentwrap.outcome import build
from agentwrap.outcome.record import RunRecord
from agentwrap.pipeline import Pipeline
from agentwrap.runner.session import RunResult

SUFFIXES = (".out", ".err", ".meta.json", ".expected.json")
REPLAY_INLINE_BYTES = 4096  # the agent default, so replays show what an agent would read


class FixtureError(UsageError):
    """A case's file that cannot be read as what it must be: its path and what is wrong."""


def _json_file(path: Path) -> dict[str, Any]:
    """A case's JSON object, or a FixtureError naming the file and the defect (a replay must not crash on
    a hand-edited file: `[]` would even pass as an empty expectation)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise FixtureError(f"{path}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise FixtureError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise FixtureError(f"{path}: must be a JSON object, not `{json.dumps(value)[:80]}`")
    return value


class Case(NamedTuple):
    adapter: str
    name: str
    base: Path  # DIR/<adapter>/<case>, without suffix

    def path(self, suffix: str) -> Path:
        return self.base.with_name(self.base.name + suffix)

    def meta(self) -> dict[str, Any]:
        path = self.path(".meta.json")
        if not path.exists():
            raise FixtureError(f"{path}: missing; a case is recorded with `agentwrap capture`")
        return _json_file(path)

    def expected(self) -> dict[str, Any] | None:
        path = self.path(".expected.json")
        return _json_file(path) if path.exists() else None


def _case_name(path: Path) -> str | None:
    return next((path.name.removesuffix(s) for s in SUFFIXES if path.name.endswith(s)), None)


def cases(root: Path, adapter: str | None = None) -> list[Case]:
    """Every case under `root` (a fixtures folder), or under `root/<adapter>` only: a case is any of its
    files, so one whose .meta.json is missing is found, and fails, rather than being skipped."""
    folders = [root / adapter] if adapter else sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    found: list[Case] = []
    for folder in folders:
        names = {name for path in folder.glob("*") if (name := _case_name(path))} if folder.is_dir() else set()
        found.extend(Case(folder.name, name, folder / name) for name in sorted(names))
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
        keep = ("code", "category", "severity", "retryable", "safe_to_retry", "retry_after", "location",
                "input_kind")
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


def check(adapter: Adapter, case: Case) -> list[str]:
    """Why a case fails for `adapter` (empty when it passes): a missing or unreadable file, an expectation
    that checks nothing, a mismatch with the replayed envelope, or a problem code nobody declared (then
    `describe` and `explain` would not know it)."""
    expected_path = case.path(".expected.json")
    try:
        expected = case.expected()
        if expected is None:
            return [f"{expected_path}: missing; `agentwrap capture` proposes one"]
        if not expected:
            return [f"{expected_path}: {{}} checks nothing; keep the facts that matter (status, exit, error)"]
        env, _ = replay(adapter, case)
    except FixtureError as exc:
        return [str(exc)]
    return [*mismatches(expected, env), *undeclared(adapter, env)]


def undeclared(adapter: Adapter, env: dict[str, Any]) -> list[str]:
    """The problems of an envelope whose code is neither agentwrap's own nor declared by the adapter whose
    type it has (the case's, or the one of the tool a launcher ran: `tidy run greet`'s greet)."""
    from agentwrap import codes

    found, seen = [], set()
    for where, problem in _problems_of(env):
        code = str(problem.get("code"))
        if code in codes.BY_CODE or code in seen:
            continue
        seen.add(code)
        declaring = _declaring(adapter, str(problem.get("type") or ""))
        if not any(d.covers(code) for d in declaring.declarations()):
            found.append(f"{where}.code: {code} is not declared by the {declaring.name} adapter; list it in "
                         "`codes` (a Python adapter's ProblemCode) or as a [[rules]] code")
    return found


def _problems_of(env: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    listed = [(f"problems[{i}]", p) for i, p in enumerate(env.get("problems") or []) if isinstance(p, dict)]
    error = env.get("error")
    return [("error", error), *listed] if isinstance(error, dict) else listed


def _declaring(adapter: Adapter, kind: str) -> Adapter:
    """Who declares a problem of this type: the adapter, or the adapter of the tool its type names when
    that is another (a launcher's run read by the launched tool's adapter)."""
    from agentwrap.problem import TYPE_PREFIX

    tool = kind.removeprefix(TYPE_PREFIX).partition(":")[0] if kind.count(":") >= 4 else adapter.name
    found = inner_adapter(tool) if tool != adapter.name else None  # found through the registry, as a run's is
    return found or adapter
