"""Projections of an answer (CONTRACT section 2a): `concise`, `standard`, `detailed` and `--fields` are
views of one built record, and the machine views (json, problem) of the result.

A wrapped run's answer is a `RunRecord`; every other command answers with a plain envelope dict, which
has no more than its standard form, and whose concise form only loses what is empty or null. The
problems in a concise view are projected by agentwrap.render.concise_problems.
"""

from __future__ import annotations

import json
from typing import Any

from agentwrap import SCHEMA_VERSION
from agentwrap.lazyre import lazy
from agentwrap.outcome.record import RunRecord, Stream
from agentwrap.problem import Problem
from agentwrap.render import concise_problems
from agentwrap.render.concise_problems import EMPTY, concise_problem, deciding_problem, lean_problem_dict

ALWAYS = ("schema_version", "status", "summary", "request_id", "error")
CONCISE_PROBLEMS = 20
# the cut stream itself says so; the concise data has its own bound
_LEAN_WARNINGS_DROP = {"OUTPUT_TRUNCATED", "DATA_TRUNCATED"}


def dumps(obj: Any) -> bytes:
    # stdlib json, not orjson: importing orjson costs 7-18 ms (it pulls in datetime, uuid, zoneinfo),
    # more than it saves on an envelope of a few kilobytes. Lone surrogates (undecodable argv) become U+FFFD.
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")


def project(answer: RunRecord | dict[str, Any], detail: str, fields: list[str] | None = None) -> dict[str, Any]:
    """The envelope at `detail`, then narrowed to `fields` (taken from the standard envelope)."""
    if fields:
        base = answer.standard() if isinstance(answer, RunRecord) else answer
        picked = by_fields(base, fields)
        if detail != "concise" or "schema_version" not in base:
            return picked
        # the members every answer carries are the concise ones (no request id, the lean error); what was
        # asked for by name is given as the standard envelope has it
        lean = concise(answer) if isinstance(answer, RunRecord) else _concise_dict(answer)
        for key in ALWAYS:
            if key in lean:
                picked[key] = lean[key]
            elif key not in fields:
                picked.pop(key, None)
        return picked
    if isinstance(answer, RunRecord):
        if detail == "concise":
            return concise(answer)
        return detailed(answer) if detail == "detailed" else answer.standard()
    return _concise_dict(answer) if detail == "concise" else answer


# --- concise ------------------------------------------------------------------------------------
def concise(rec: RunRecord) -> dict[str, Any]:
    """Each fact once; nothing empty, null or default; nothing that cannot change the next step."""
    out: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "status": rec.status, "summary": rec.summary}
    exit_info = _concise_exit(rec)
    if exit_info:
        out["exit"] = exit_info
    decided_by = rec.command.get("decided_by") if rec.command else None
    if decided_by and rec.status == "error":  # a shell line: which of its commands failed, and where
        decided = _decided_by(rec, decided_by)
        if decided:  # a line of one command, which failed: the caller wrote all it would say
            out["command"] = {"decided_by": decided}
    if rec.lean_data is not None:
        out["data"] = rec.lean_data
    streams = {name: _concise_stream(s) for name, s in rec.output.items() if s.lean and not _only_asks(rec, s)}
    if streams:
        out["output"] = streams
    others = [p for p in rec.problems if rec.error is None or not _same(p, rec.error)]
    omitted = rec.problems_omitted + max(0, len(others) - CONCISE_PROBLEMS)
    kept_whole = _artifact_of(rec) if omitted or _part_shown(rec, others[:CONCISE_PROBLEMS]) else None
    dropped = _LEAN_WARNINGS_DROP | {"PROBLEMS_TRUNCATED"}
    if "command" in out and out["command"]["decided_by"].get("hidden_by_pipe"):
        dropped = dropped | {"PIPE_HID_FAILURE"}  # rule 1: decided_by says which stage failed, and that the pipe hid it
    warnings = [w.to_dict() for w in rec.warnings if w.code not in dropped]
    if omitted:  # this envelope's count, and where the problems it leaves out can be read
        warnings.append({"code": "PROBLEMS_TRUNCATED", "message": f"{omitted} more problems were left out"
                         + (f"; the full output is in artifact {kept_whole}" if kept_whole else ".")})
    elif kept_whole and not any(s.lean_cut and s.artifact for s in rec.output.values()):
        warnings.append({"code": "OUTPUT_TRUNCATED", "message": "problems show part of the output they were read "
                         f"from (see their `*_omitted` counts); the full output: {_artifacts_named(rec)}"})
    if rec.lean_data_cut or rec.lean_data_dropped:
        warnings.append({"code": "DATA_TRUNCATED", "message": _data_cut(rec)})
    for key, value in (("effects", list(rec.effects)), ("warnings", warnings)):
        if value:
            out[key] = value
    if rec.error is not None:
        out["error"] = deciding_problem(rec)
    if others:
        known_fix = rec.error.suggested_fix if rec.error is not None else None
        listed = []
        for p in others[:CONCISE_PROBLEMS]:
            listed.append(concise_problem(p, summary=rec.summary, known_fix=known_fix))
            # with no deciding problem (warnings of a run that passed), the first fix listed is the known one:
            # a templated fix is said once, as the deciding one would say it
            known_fix = known_fix or listed[-1].get("suggested_fix")
        # Rule 1: a problem the summary says whole (cargo's `could not compile`, with no place, fix or
        # fact of its own) is not listed again as a bare code.
        listed = [p for p in listed if set(p) != {"code"} or rec.error is None]
        listed = concise_problems.evidence_once(listed, out.get("error"))
        if listed:
            out["problems"] = listed
        if omitted:
            out["problems_omitted"] = omitted
    return out


def _data_cut(rec: RunRecord) -> str:
    """What the bound left out of the concise data (each item's detail, then items), and where it all is."""
    lists: dict[str, list[str]] = {}
    for name in rec.lean_data_dropped:
        key, member = name.split(".", 1)
        lists.setdefault(key, []).append(member)
    said = [f"the items of {key} left out their {', '.join(members)}" for key, members in lists.items()]
    if rec.lean_data_cut:
        said.append(f"{rec.lean_data_cut} items were left out (counted in `*_omitted`)")
    whole = _artifact_of(rec)
    where = f"the whole output is in artifact {whole}" if whole else "--detail standard has more of it"
    return f"data was cut to its bound: {'; '.join(said)}; {where}"


def _only_asks(rec: RunRecord, s: Stream) -> bool:
    """Rule 1: a stream whose whole text is the prompt the deciding problem quotes (`Your name: `)."""
    prompt = (rec.error.extra or {}).get("prompt") if rec.error is not None else None
    return bool(prompt) and not s.lean_cut and s.lean.strip() == str(prompt).strip()


def _artifact_of(rec: RunRecord) -> str | None:
    """The artifact holding the run's whole output (stdout's first), when one was kept."""
    return next((s.artifact for name in ("stdout", "stderr") if (s := rec.output.get(name)) and s.artifact), None)


def _artifacts_named(rec: RunRecord) -> str:
    """Each stream's artifact with the stream's name: a problem read from stderr (pip's list of releases)
    is not in stdout's artifact, and nothing says which stream a problem was read from."""
    return ", ".join(f"{name} in artifact {s.artifact}" for name in ("stdout", "stderr")
                     if (s := rec.output.get(name)) and s.artifact)


def _part_shown(rec: RunRecord, problems: list[Problem]) -> bool:
    """A problem the envelope shows says it left out part of what it was read from (`captured_omitted`)."""
    return any(key.endswith("_omitted") and value for p in [*([rec.error] if rec.error else []), *problems]
               for key, value in (p.extra or {}).items())


def _decided_by(rec: RunRecord, decided: dict[str, Any]) -> dict[str, Any]:
    """The shell line's deciding command, less what the caller wrote or the envelope says elsewhere (rules
    1 and 3): its words beside its text, stage 1 of 1 (no pipeline), the exit code `exit` gives, the cwd
    the caller ran in, and its index when it is the line's only command."""
    out = {k: v for k, v in decided.items() if v not in EMPTY}
    line = str(((rec.command or {}).get("argv") or [""])[-1]).strip()
    said = {"argv": _words_of(str(out.get("command") or "")) == " ".join(out.get("argv") or ()),
            "pipestatus": _only_the_stage_failed(out, rec.exit.get("code")),
            "stage": out.get("stages") == 1, "stages": out.get("stages") == 1,
            "exit_code": "exit_code" in out and out["exit_code"] == rec.exit.get("code"),
            "cwd": "cwd" in out and out["cwd"] == (rec.context or {}).get("cwd"),
            "index": out.get("index") == 1 and out.get("command") == line,
            "command": out.get("command") == line}
    return {k: v for k, v in out.items() if not said.get(k)}


_REDIRECTS = lazy(r"(?:\s+\d*(?:[<>]&?|&>>?)\s*\S+)+$")


def _words_of(command: str) -> str:
    """A stage's text less its trailing redirections (`pytest -q 2>&1`: its argv is `pytest -q`)."""
    return _REDIRECTS.sub("", command).strip()


def _only_the_stage_failed(decided: dict[str, Any], line_code: Any) -> bool:
    """`pipestatus` says nothing `stage`, `exit_code` and the line's code do not: only that stage failed."""
    statuses, stage = decided.get("pipestatus"), decided.get("stage")
    if not isinstance(statuses, list) or not isinstance(stage, int) or not 1 <= stage <= len(statuses):
        return False
    expected: list[Any] = [0] * len(statuses)
    expected[stage - 1] = decided.get("exit_code")
    return statuses == expected and statuses[-1] == line_code


def _concise_exit(rec: RunRecord) -> dict[str, Any]:
    info: dict[str, Any] = {}
    code = rec.exit.get("code")
    if code is not None and (code != 0 or rec.status == "error"):
        info["code"] = code
    if rec.exit.get("signal") is not None:
        info["signal"] = rec.exit["signal"]
        if rec.exit.get("signal_name"):
            info["signal_name"] = rec.exit["signal_name"]
    if rec.exit.get("timed_out"):
        info["timed_out"] = True
    return info


def _concise_stream(s: Stream) -> dict[str, Any]:
    out: dict[str, Any] = {"text": s.lean}
    if s.lean_cut:
        out["truncated"] = True
        out["omitted_lines"] = max(s.omitted_lines, s.lines - s.lean.count("\n"))
        if s.artifact:
            out["artifact"] = s.artifact
    return out


def _same(a: Problem, b: Problem) -> bool:
    return a.code == b.code and a.detail == b.detail and a.location == b.location


def _concise_dict(env: dict[str, Any]) -> dict[str, Any]:
    """Another command's envelope, concise: its ids, timings and empty members left out."""
    if "schema_version" not in env:
        return env
    drop = {"request_id", "command", "context", "metrics", "verification"}
    out = {k: v for k, v in env.items() if k not in drop and v not in EMPTY}
    if (env.get("verification") or {}).get("passed") is not None:  # 2a: verification when it was run
        out["verification"] = env["verification"]
    if not any((stream or {}).get("text") for stream in (env.get("output") or {}).values()):
        out.pop("output", None)  # no text: empty streams are defaults (and a concise stream has no null artifact)
    if env.get("error"):
        out["error"] = lean_problem_dict(env["error"])
    out.pop("problems", None)
    others = [p for p in env.get("problems", []) if (p.get("code"), p.get("detail")) != (
        (env.get("error") or {}).get("code"), (env.get("error") or {}).get("detail"))]
    if others:  # a listed problem's docs page is `agentwrap explain CODE`'s (as a run's concise problems)
        out["problems"] = [{k: v for k, v in lean_problem_dict(p).items() if k != "docs_url"} for p in others]
    return out



# --- detailed -----------------------------------------------------------------------------------
def detailed(rec: RunRecord) -> dict[str, Any]:
    """The standard envelope plus what agentwrap did to get it: the prevention environment, the shims
    folder, and per stream the lines the noise rules and the facts already given took out of `lean`."""
    env = rec.standard()
    env["context"] = {**env["context"], "env_set": rec.env_set}
    for name, s in rec.output.items():
        env["output"][name].update(lean_bytes=len(s.lean.encode()), noise_lines=s.noise_lines,
                                   restated_lines=s.restated_lines)
    if rec.noise_fired:
        env["noise_rules_fired"] = list(rec.noise_fired)
    return env


# --- fields -------------------------------------------------------------------------------------
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
