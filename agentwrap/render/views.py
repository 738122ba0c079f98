"""Projections of an answer (CONTRACT section 2a): `concise`, `standard`, `detailed` and `--fields` are
views of one built record, and the machine views (json, problem) of the result.

A wrapped run's answer is a `RunRecord`; every other command answers with a plain envelope dict, which
has no more than its standard form, and whose concise form only loses what is empty or null.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentwrap import SCHEMA_VERSION
from agentwrap.lazyre import lazy
from agentwrap.outcome.lean import words
from agentwrap.outcome.record import RunRecord, Stream
from agentwrap.problem import CodeAction, Problem

ALWAYS = ("schema_version", "status", "summary", "request_id", "error")
CONCISE_PROBLEMS = 20
# Problem members a model does not act on: ids and links it can derive (`agentwrap explain CODE`), how a
# prompt was found, which adapter said it.
_NOT_DECISIVE = {"tool", "fatal_on_success", "detection", "source", "process"}
_INTERNAL = {"tool", "fatal_on_success"}  # which adapter said it (the type names it), how the engine read it
_EMPTY: tuple[Any, ...] = (None, [], {}, "")
_ALWAYS_KEPT = {"prompt", "input_kind"}  # CONTRACT 5: what a caller dispatches on when input is needed
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
        deciding_fix = rec.error.suggested_fix if rec.error is not None else None
        listed = [concise_problem(p, summary=rec.summary, known_fix=deciding_fix) for p in others[:CONCISE_PROBLEMS]]
        # Rule 1: a problem the summary says whole (cargo's `could not compile`, with no place, fix or
        # fact of its own) is not listed again as a bare code.
        listed = [p for p in listed if set(p) != {"code"} or rec.error is None]
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
    out = {k: v for k, v in decided.items() if v not in _EMPTY}
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


def deciding_problem(rec: RunRecord) -> dict[str, Any]:
    """CONTRACT 2a: the deciding problem whole (RFC 9457 and its extensions), without null or empty
    members: it is what a caller dispatches on and acts on, so nothing of it is left to another level."""
    assert rec.error is not None
    problem = {k: v for k, v in rec.standard()["error"].items() if v not in _EMPTY and k not in _INTERNAL}
    # Rules 1-3 of 2a: the request's id is no decision fact, the exit code is said once (in `exit`),
    # and an error's severity is the default one.
    problem.pop("instance", None)
    if "detail" in problem:  # rule 1: the place is the location's
        problem["detail"] = _without_location(problem["detail"], rec.error.location, rec.error.severity)
    if "location" in problem:
        problem["location"] = _lean_location(problem["location"])
    if problem.get("exit_code") == rec.exit.get("code"):
        problem.pop("exit_code", None)
    if problem.get("severity") == "error":
        problem.pop("severity")
    if rec.error.code_actions:  # rule 2 inside an action too: no default kind, applicability or preference
        problem["code_actions"] = [_concise_action(a) for a in rec.error.code_actions]
    # Rule 1: a remediation step that only names the problem's own members again (`provide_input` with
    # the `prompt` and `input_kind` beside it) and asks nothing of the user is said once, by them.
    steps = [r for r in rec.error.remediation if not _restates_members(r, problem)]
    if steps:
        problem["remediation"] = steps
    else:
        problem.pop("remediation", None)
    # Rule 1: an adapter's own member (its `extra`) that only repeats the detail or the code (pytest's
    # `nodeid`, gcc's `message`, ruff's `rule`, rustc's code) is said once, in the detail. Section 3's
    # members, the problem's fields, all stay.
    said = f"{rec.error.detail}\n{rec.error.code}"
    for key in [k for k in rec.error.extra or {} if k in problem and k not in _ALWAYS_KEPT]:
        if _restated(key, problem[key], said):
            del problem[key]
    return problem


def _restates_members(step: dict[str, Any], problem: dict[str, Any]) -> bool:
    args = step.get("args") or {}
    return not step.get("requires_user") and bool(args) and all(problem.get(k) == v for k, v in args.items())


def _restated(key: str, value: Any, said: str) -> bool:
    """A string member found word for word in `said`, or a count it gives (`recipe_status: 1` beside
    "status 1")."""
    if isinstance(value, str):
        # word for word: not inside a longer word (`call` is not said by "recall")
        return len(value) >= 2 and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", said) is not None
    if isinstance(value, int) and not isinstance(value, bool):
        return any(re.search(rf"\b{re.escape(w)} {value}\b", said) for w in key.split("_") if len(w) > 2)
    return False


def concise_problem(p: Problem, *, summary: str | None = None, known_fix: str | None = None) -> dict[str, Any]:
    """A listed problem (not the deciding one): code, location, the message, edits (a compiler's fix-it),
    the fix only when it says more than the deciding fix and its own message and location do, and retry
    facts only where a retry is on the table."""
    out: dict[str, Any] = {"code": p.code}
    detail = _without_location(p.detail, p.location, p.severity)
    if detail and (not summary or p.detail not in summary):
        out["detail"] = detail
    if p.location:
        out["location"] = _lean_location(p.location)
    if p.severity != "error":
        out["severity"] = p.severity
    if p.retryable:
        out["retryable"] = True
        out["safe_to_retry"] = p.safe_to_retry
        if p.retry_after is not None:
            out["retry_after"] = p.retry_after
    if p.suggested_fix and not _says_nothing_new(p, known_fix):
        out["suggested_fix"] = p.suggested_fix
    actions = [_concise_action(a) for a in p.code_actions if a.kind == "edit"]
    if actions:
        out["code_actions"] = actions
    asks_user = [r for r in p.remediation if r.get("requires_user")]
    if asks_user:
        out["remediation"] = asks_user
    said = " ".join(str(x) for x in (summary, p.code, p.detail, p.suggested_fix) if x)  # rustc_code: the code
    for key, value in (p.extra or {}).items():
        if key in _NOT_DECISIVE or value in _EMPTY or value is False or key in out:
            continue
        if key not in _ALWAYS_KEPT and _restated(key, value, said):
            continue  # the summary, the detail or the fix already says it
        out[key] = value
    return out


def _lean_location(location: dict[str, Any]) -> dict[str, Any]:
    """A location without an `end_line` that is its `line` again (a span within one line)."""
    if "end_line" in location and location["end_line"] == location.get("line"):
        return {k: v for k, v in location.items() if k != "end_line"}
    return location


# `file:line:col: msg` (gcc, mypy), `file:line:col - msg` (tsc --pretty), `file(line,col): msg` (tsc, msbuild);
# the place ends where the message starts, so `src/b.ts:1:21 - error` is never read as `src/b.ts:1:` + `21 - …`
_PLACE = lazy(r"(?P<file>[^:(\n]+)(?::(?P<line>\d+)(?::(?P<column>\d+))?(?:: ?| - )|\((?P<pline>\d+)"
              r"(?:,(?P<pcolumn>\d+))?\): ?)")


def _without_location(detail: str, location: dict[str, Any] | None, severity: str = "error") -> str:
    """A compiler's `file:line:col: message` less the place `location` already gives: the same line and
    column, in the same file or in one `location` names from another folder (`make -C native` reports
    `window.c:19:63`, located at `native/window.c`), or by its absolute path (`/work/app/lib/a.js:1:5`,
    located at `lib/a.js`)."""
    m = _PLACE.match(detail)
    if not m or not location or "file" not in location or len(detail) == m.end():
        return detail
    file, here = str(location["file"]), m.group("file")
    tail = re.sub(r"^(?:\.\.?/)+", "", here)  # `../src/x.c` printed in build/, located at `src/x.c`
    # or an absolute path printed (eslint's `/work/app/lib/a.js`), located relative to the folder it ran in
    absolute = here.startswith("/") and not file.startswith("/") and here.endswith("/" + file)
    if file != here and file != tail and not file.endswith("/" + tail) and not absolute:
        return detail
    line, column = m.group("line") or m.group("pline"), m.group("column") or m.group("pcolumn")
    if line != str(location.get("line")) or column not in (None, str(location.get("column"))):
        return detail
    rest = detail[m.end():]
    # `warning: ` after the place is the severity, which the problem says (or leaves at its default)
    lean = rest.removeprefix(f"{severity}: ")
    return lean if len(lean) > 1 else rest


_CODE_SPAN = lazy(r"`([^`\n]+)`")


def _says_nothing_new(p: Problem, known_fix: str | None) -> bool:
    """A templated fix (`Fix the test at a.py:3`) repeated per problem: every word is in the deciding
    fix, the problem's message or its location."""
    if not known_fix or p.suggested_fix is None:
        return False
    known_text = " ".join([known_fix, p.detail, json.dumps(p.location or {})])
    # a command or name in backticks is one fact: `pip install types-six` is new though "types" and "six"
    # were both said, apart
    if any(span not in known_text for span in _CODE_SPAN.findall(p.suggested_fix)):
        return False
    return set(words(p.suggested_fix)) <= set(words(known_text))


def _concise_action(a: CodeAction) -> dict[str, Any]:
    return _lean_action_dict(a.to_dict())


def _concise_dict(env: dict[str, Any]) -> dict[str, Any]:
    """Another command's envelope, concise: its ids, timings and empty members left out."""
    if "schema_version" not in env:
        return env
    drop = {"request_id", "command", "context", "metrics", "verification"}
    out = {k: v for k, v in env.items() if k not in drop and v not in _EMPTY}
    if (env.get("verification") or {}).get("passed") is not None:  # 2a: verification when it was run
        out["verification"] = env["verification"]
    if not any((stream or {}).get("text") for stream in (env.get("output") or {}).values()):
        out.pop("output", None)  # no text: empty streams are defaults (and a concise stream has no null artifact)
    if env.get("error"):
        out["error"] = _lean_problem_dict(env["error"])
    out.pop("problems", None)
    others = [p for p in env.get("problems", []) if (p.get("code"), p.get("detail")) != (
        (env.get("error") or {}).get("code"), (env.get("error") or {}).get("detail"))]
    if others:  # a listed problem's docs page is `agentwrap explain CODE`'s (as a run's concise problems)
        out["problems"] = [{k: v for k, v in _lean_problem_dict(p).items() if k != "docs_url"} for p in others]
    return out


def _lean_problem_dict(problem: dict[str, Any]) -> dict[str, Any]:
    """agentwrap's own problem (a refusal, a usage error) by the rules a run's deciding problem keeps: no
    null or empty member, no default severity or action member, and no member an action already says
    (`read_only_alternative` beside the action that runs it)."""
    out = {k: v for k, v in problem.items() if v not in _EMPTY and k != "instance"}
    if out.get("severity") == "error":
        del out["severity"]
    actions = [_lean_action_dict(a) for a in out.get("code_actions") or [] if isinstance(a, dict)]
    if actions:
        out["code_actions"] = actions
    if any(a.get("command") == out.get("read_only_alternative") for a in actions):
        out.pop("read_only_alternative", None)
    return out


_ACTION_DEFAULTS = {"kind": "command", "applicability": "unspecified", "is_preferred": False}


def _lean_action_dict(action: dict[str, Any]) -> dict[str, Any]:
    """An action without its default members (rule 2 inside an action: kind, applicability, preference)."""
    return {k: v for k, v in action.items() if v not in _EMPTY and _ACTION_DEFAULTS.get(k, _NONE) != v}


_NONE = object()


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
