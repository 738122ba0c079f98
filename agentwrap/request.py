"""Typed input: `agentwrap run --input FILE|-` takes the whole request as one JSON document (the
`request` schema, `agentwrap schema request`) instead of a command line to escape.

Every correctable error is found before anything runs and reported in one answer: the schema's
errors and the checks a schema cannot make (a duration, a regex, a directory, a readable file, an
adapter's name), each with its JSON pointer, in the problem's `invalid_params` (RFC 9457 section 3's
own example of an extension member).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import sys
from typing import Any

from agentwrap import stop_signals
from agentwrap.errors import AgentwrapError, UsageError
from agentwrap.options import Options, parse_duration

MAX_REQUEST_BYTES = 16 << 20
_ONE_OF = {"timeout": "seconds (a number) or a duration (90s, 5m, 500ms, 1h)",
           "grace": "seconds (a number) or a duration (3s, 500ms)",
           "stdin": '{"file": PATH} or {"text": TEXT}'}


class RequestInvalid(AgentwrapError):
    code = "REQUEST_INVALID"


def _read(source: str) -> bytes:
    try:
        if source == "-":
            with stop_signals.interruptible():  # a caller that never closes stdin can still stop us
                return sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1)
        with stop_signals.interruptible(), open(source, "rb") as f:  # a FIFO nobody writes blocks open()
            return f.read(MAX_REQUEST_BYTES + 1)
    except IsADirectoryError:
        raise UsageError(f"--input {source}: is a directory") from None
    except OSError as exc:
        raise UsageError(f"--input {source}: cannot read: {exc.strerror}") from None


def _pointer(path: Any) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path) if path else ""


def _schema_errors(doc: Any) -> list[dict[str, str]]:
    import jsonschema

    from agentwrap.schema_files import load

    validator = jsonschema.Draft202012Validator(load("request"))
    found = []
    for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = _pointer(error.absolute_path)
        if error.validator == "oneOf" and not error.absolute_path:
            both = isinstance(doc, dict) and "argv" in doc and "shell" in doc
            reason = "give argv or shell, not both" if both else "give the program: argv (a list) or shell (a line)"
        elif error.validator == "additionalProperties":
            import difflib

            from agentwrap.schema_files import load as _load

            known = list(_load("request")["properties"]) if not error.absolute_path else []
            extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
            for name in extra:
                near = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {near[0]}?)" if near else ""
                found.append({"pointer": f"{where}/{name}", "reason": f"unknown member {name!r}{hint}"})
            continue
        elif error.validator == "oneOf" and str(error.absolute_path[0]) in _ONE_OF:
            reason = f"{json.dumps(error.instance)[:80]}: expected {_ONE_OF[str(error.absolute_path[0])]}"
        else:
            reason = error.message
        found.append({"pointer": where, "reason": reason[:300]})
    return found


def _checks(doc: dict[str, Any]) -> list[dict[str, str]]:
    """What a schema cannot say: durations in range, regexes that compile, paths that exist."""
    found = []
    for name in ("timeout", "grace"):
        value = doc.get(name)
        if isinstance(value, str):
            try:
                parse_duration(value, f"--{name}")
            except UsageError as exc:
                found.append({"pointer": f"/{name}", "reason": exc.detail})
    for i, answer in enumerate(doc.get("answers") or []):
        if isinstance(answer, dict) and isinstance(answer.get("pattern"), str):
            try:
                re.compile(answer["pattern"])
            except re.error as exc:
                found.append({"pointer": f"/answers/{i}/pattern", "reason": f"invalid regular expression: {exc}"})
    cwd = doc.get("cwd")
    if isinstance(cwd, str) and not os.path.isdir(cwd):
        found.append({"pointer": "/cwd", "reason": f"{cwd}: " + ("not a directory" if os.path.exists(cwd)
                                                                 else "no such directory")})
    stdin = doc.get("stdin")
    if isinstance(stdin, dict) and isinstance(stdin.get("file"), str):
        path = os.path.join(cwd if isinstance(cwd, str) else "", stdin["file"])
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            found.append({"pointer": "/stdin/file", "reason": f"{stdin['file']}: not a readable file"})
    adapter = doc.get("adapter")
    if isinstance(adapter, str):
        from agentwrap import registry

        if adapter not in registry.names():
            found.append({"pointer": "/adapter",
                          "reason": f"no such adapter {adapter!r}; see `agentwrap adapter list`"})
    if doc.get("adapter") and doc.get("no_adapter"):
        found.append({"pointer": "/no_adapter", "reason": "adapter and no_adapter conflict"})
    for i, field in enumerate(doc.get("fields") or []):
        from agentwrap.options import ENVELOPE_KEYS

        if isinstance(field, str) and field.split(".")[0] not in ENVELOPE_KEYS:
            found.append({"pointer": f"/fields/{i}", "reason": f"{field!r} names no envelope field"})
    return found


def load(source: str, opts: Options, argv: list[str]) -> tuple[Options, list[str]]:
    """The options and argv of the request in `source`, on top of the command line's own options."""
    if argv:
        raise UsageError("--input takes the whole request: give the program in its argv or shell, not after it")
    raw = _read(source)
    if len(raw) > MAX_REQUEST_BYTES:
        raise UsageError(f"--input {source}: larger than {MAX_REQUEST_BYTES >> 20} MiB")
    try:
        doc = json.loads(raw)
    except UnicodeDecodeError:
        raise RequestInvalid("the request is not UTF-8 JSON", extra={"invalid_params": [
            {"pointer": "", "reason": "not UTF-8"}]}) from None
    except ValueError as exc:
        raise RequestInvalid(f"the request is not JSON: {exc}", extra={"invalid_params": [
            {"pointer": "", "reason": str(exc)}]}) from None
    errors = _schema_errors(doc)
    if isinstance(doc, dict):
        flagged = {e["pointer"] for e in errors}
        errors += [e for e in _checks(doc) if e["pointer"] not in flagged]
    if errors:
        said = "; ".join(f"{e['pointer'] or '(root)'}: {e['reason']}" for e in errors[:5])
        more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
        raise RequestInvalid(f"the request has {len(errors)} error{'s' if len(errors) > 1 else ''}, nothing was "
                             f"run: {said}{more}"[:1000], extra={"invalid_params": errors},
                             suggested_fix="Fix each member named in invalid_params; `agentwrap schema request` "
                                           "is the schema.")
    return _options(doc, opts), _argv(doc)


def _argv(doc: dict[str, Any]) -> list[str]:
    if "argv" in doc:
        return [str(a) for a in doc["argv"]]
    # The shell-line engine (issue 10) will take the line itself; until then bash runs it, as `bash -c`.
    return ["bash", "-c", str(doc["shell"])]


def _seconds(value: Any, option: str) -> float | None:
    if isinstance(value, int | float):
        return float(value) or None
    return parse_duration(str(value), option)


def _options(doc: dict[str, Any], opts: Options) -> Options:
    simple = {"cwd": "cwd", "format": "format", "fields": "fields", "max_inline_bytes": "max_inline_bytes",
              "adapter": "adapter", "no_adapter": "no_adapter", "read_only": "read_only", "detach": "detach",
              "idempotency_key": "idempotency_key"}
    for member, attr in simple.items():
        if member in doc:
            setattr(opts, attr, doc[member])
    if "detail" in doc:
        opts.detail, opts.detail_given = doc["detail"], True
    if "timeout" in doc:
        opts.timeout, opts.timeout_given = _seconds(doc["timeout"], "--timeout"), True
    if "grace" in doc:
        opts.grace = _seconds(doc["grace"], "--grace") or 0.0
    if "pty" in doc:
        opts.no_pty = not doc["pty"]
    opts.env.update(doc.get("env") or {})
    opts.answers.extend((a["pattern"], a["reply"]) for a in doc.get("answers") or [])
    stdin = doc.get("stdin")
    if isinstance(stdin, dict) and "file" in stdin:
        opts.stdin = os.path.join(doc.get("cwd") or "", stdin["file"])
    elif isinstance(stdin, dict):
        opts.stdin = _text_file(stdin["text"])
    return opts


def _text_file(text: str) -> str:
    """`stdin.text` as a private file the run feeds from (removed when agentwrap exits)."""
    import tempfile

    fd, path = tempfile.mkstemp(prefix="agentwrap-stdin-")
    with os.fdopen(fd, "wb") as f:
        f.write(text.encode())
    atexit.register(_remove, path)
    return path


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)
