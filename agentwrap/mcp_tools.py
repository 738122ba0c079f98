"""The tools `agentwrap mcp` offers: their JSON Schemas, honest annotations, and the agentwrap command
line each call becomes. Pure data and argv building; the SDK glue is `agentwrap.mcp_server`.

Every call runs `python -m agentwrap --agent ...`, the same code path as the command line, in a child
process, so a tool's answer is exactly the CLI's envelope (CONTRACT section 10: `structuredContent` is
the envelope, `outputSchema` the result schema). A host puts the tool list in the model's context every
session, so `outputSchema` is the result schema made lean (`output_schema`): the concise envelope's
members for the tools that answer with a run's envelope, the envelope's frame for the others; the
complete schema stays `agentwrap schema result`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from agentwrap import options
from agentwrap.safety.readonly_env import env_schema
from agentwrap.schema_files import load

_DETAIL = {"type": "string", "enum": list(options.DETAILS),
           "description": "envelope projection: concise (default, each fact once), standard (the complete "
                          "record), detailed (plus the prevention environment)"}

ENV_NAME = "^[A-Za-z_][A-Za-z0-9_]*$"  # a variable's name: `A=B` would reach --env as A set to `B=...`

# The run options, as JSON Schema properties: each maps to one wrapper option of CONTRACT section 1.
RUN_PROPERTIES: dict[str, Any] = {
    "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1,
             "description": "the program and its arguments, passed untouched (no shell)"},
    "shell": {"type": "string", "minLength": 1,
              "description": "a shell command line (pipes, &&, cd, redirections), run with bash's semantics"},
    "cwd": {"type": "string", "description": "working directory (--cwd)"},
    "timeout": {"type": ["string", "number"],
                "description": "wall-clock limit, seconds or 90s/5m/1h (--timeout; default 10m); ends the tree"},
    "answers": {"type": "array", "description": "replies authorised for prompts (--answer REGEX=REPLY)",
                "items": {"type": "object", "required": ["pattern", "reply"], "additionalProperties": False,
                          "properties": {"pattern": {"type": "string", "description": "regex of the prompt"},
                                         "reply": {"type": "string"}}}},
    "detail": _DETAIL,
    "max_inline_bytes": {"type": "integer", "minimum": 256,
                         "description": "inline budget per stream (--max-inline-bytes); the rest to an artifact"},
    "env": {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"pattern": ENV_NAME},
            "description": "extra environment variables (--env K=V)"},
    "adapter": {"type": "string", "description": "force an adapter (--adapter NAME)"},
    "no_adapter": {"type": "boolean", "description": "use the generic adapter only (--no-adapter)"},
    "no_pty": {"type": "boolean", "description": "run on pipes instead of a pseudo-terminal (--no-pty)"},
    "stdin": {"type": "string", "description": "text fed to the program's standard input (--stdin)"},
}


# run_read_only's `env` holds no variable that makes a read-only program run code (GIT_CONFIG_*, PATH,
# GIT_SSH_COMMAND, LD_PRELOAD, a pager other than cat): the schema check refuses it before anything starts.
READ_ONLY_RUN_PROPERTIES: dict[str, Any] = {
    **RUN_PROPERTIES,
    "env": env_schema("extra environment variables (--env K=V); none that names a program to run, "
                      "code to load or the configuration to read (PATH, GIT_CONFIG_*, GIT_SSH_COMMAND, "
                      "LD_PRELOAD, HOME)"),
}


def _object(properties: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    schema.update(extra)
    return schema


# No oneOf/anyOf at the top of an input schema: some hosts' model APIs reject it. Exactly one of
# argv/shell (text/path) is checked by the server instead, and said in the description.
@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("run", "Run a command",
             "Run a program (argv) or a shell line under agentwrap (give exactly one of the two): no prompts "
             "(refused unless `answers` authorise them), no escape codes, bounded output; answers with one JSON "
             "envelope whose `error` is an RFC 9457 problem with a fix. The command may change anything the "
             "program can.",
             _object(RUN_PROPERTIES), read_only=False, destructive=True, idempotent=False,
             open_world=True),
    ToolSpec("run_read_only", "Run a read-only command",
             "Like `run`, but only for invocations the program's adapter classes as read-only (git status, "
             "git log, grep, ...): anything classed as mutating, or whose effects agentwrap does not know, "
             "is refused before it starts with MUTATION_REFUSED. Shell lines are refused (not classifiable).",
             _object(READ_ONLY_RUN_PROPERTIES), read_only=True, destructive=False, idempotent=True,
             open_world=True),
    ToolSpec("artifact_show", "Read a spilled output",
             "Page through the complete output a run spilled to an artifact (id from `artifacts` or a "
             "stream's `artifact`): byte ranges, line ranges, or lines matching a regex.",
             _object({"id": {"type": "string", "pattern": "^art_"},
                      "offset": {"type": "integer", "minimum": 0}, "limit": {"type": "integer", "minimum": 1},
                      "lines": {"type": "string", "description": "A:B, 1-based, inclusive"},
                      "grep": {"type": "string", "description": "only lines matching this regex"},
                      "cursor": {"type": "string", "description": "a previous page's next_cursor"}}),
             read_only=True, destructive=False, idempotent=True, open_world=False),
    ToolSpec("describe", "Describe an adapter",
             "What agentwrap knows about one tool: purpose, when to use it, effects per subcommand, "
             "prevention environment and problem codes.",
             _object({"name": {"type": "string", "description": "a program or adapter name (git, pytest)"}},
                     ("name",)), read_only=True, destructive=False, idempotent=True, open_world=False),
    ToolSpec("capabilities", "List capabilities",
             "agentwrap's features and adapters, one line each.",
             _object({}), read_only=True, destructive=False, idempotent=True, open_world=False),
    ToolSpec("explain", "Explain a problem code",
             "Meaning, category, retry facts and fixes of a problem or warning code; every code without one.",
             _object({"code": {"type": "string", "description": "TIMEOUT, input-required, a problem type URI"}}),
             read_only=True, destructive=False, idempotent=True, open_world=False),
    ToolSpec("normalize", "Read a CI log",
             "Turn a saved build or CI log (GitHub Actions, GitLab, make output) into located problems "
             "(give exactly one of text and path).",
             _object({"text": {"type": "string", "description": "the log itself"},
                      "path": {"type": "string", "description": "or a log file to read"},
                      "adapter": {"type": "string", "description": "an adapter name, or auto (default)"},
                      "root": {"type": "string", "description": "make paths relative to this folder"}}),
             read_only=True, destructive=False, idempotent=True, open_world=False),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
RUN_ENVELOPES = ("run", "run_read_only", "normalize")  # answered with a run's envelope: problems, streams

# What a lean schema keeps of the result schema: types, enums, structure. Descriptions, formats and bounds
# are the complete schema's (`agentwrap schema result`), which every answer also validates against.
_LEAN_DROP = frozenset({"$schema", "$id", "title", "description", "format", "pattern", "minimum", "maximum",
                        "minLength", "minItems", "if", "then", "else", "not"})


def _lean(schema: dict[str, Any]) -> dict[str, Any]:
    if schema.get("$ref") == "#/$defs/timestamp":
        return {"type": "string"}
    out = {key: value for key, value in schema.items() if key not in _LEAN_DROP}
    if "properties" in out:
        out["properties"] = {name: _lean(sub) for name, sub in out["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _lean(out[key])
    if "anyOf" in out:
        out["anyOf"] = [_lean(sub) for sub in out["anyOf"]]
    return out


def output_schema(name: str) -> dict[str, Any]:
    """A tool's `outputSchema`: the result schema, lean. A run's envelope is described by its concise
    members (the default), typed so that the `standard` and `detailed` envelopes a `detail` argument asks
    for validate too; the other tools' answers by the envelope's frame, the answer being in `data`."""
    full = load("result")
    props, defs = full["properties"], full["$defs"]
    if name not in RUN_ENVELOPES:
        return {"type": "object", "description": "The envelope (`agentwrap schema result`); the answer is `data`.",
                "required": ["schema_version", "status", "summary"],
                "properties": {"status": props["status"], "summary": props["summary"], "data": {}}}
    stream = _lean(defs["any_stream"])
    stream["properties"] = {key: stream["properties"][key] for key in defs["concise_stream"]["properties"]}
    problem = {**_lean(defs["concise_error"]), "required": ["code"]}
    lean = {key: _lean(props[key]) for key in ("schema_version", "status", "summary", "exit", "data")}
    lean["exit"]["properties"].pop("duration_ms")
    decided_by = _lean(props["command"]["properties"]["decided_by"])
    lean |= {
        "command": {"type": ["object", "null"], "description": "concise: only `decided_by`, when a shell line "
                    "failed", "properties": {"decided_by": decided_by}},
        "output": {"type": "object", "properties": {"stdout": {"$ref": "#/$defs/stream"},
                                                    "stderr": {"$ref": "#/$defs/stream"}}},
        "error": {"anyOf": [{"$ref": "#/$defs/problem"}, {"type": "null"}],
                  "description": "the problem that decided the run (RFC 9457)"},
        "problems": {"type": "array", "items": {"$ref": "#/$defs/problem"},
                     "description": "concise: the problems other than `error`"},
    }
    lean |= {key: _lean(props[key]) for key in ("problems_omitted", "warnings", "effects", "verification",
                                                "artifacts")}
    return {"$schema": full["$schema"], "type": "object",
            "description": "The envelope, at `detail` concise (the default): each fact once; nothing empty, null "
                           "or default. standard and detailed add request_id, context, metrics and the empty "
                           "members. The complete schema: `agentwrap schema result`.",
            "required": ["schema_version", "status", "summary"], "properties": lean,
            "if": {"properties": {"status": {"const": "error"}}}, "then": {"required": ["error"]},
            "$defs": {"problem": problem, "stream": stream}}


def _duration(value: Any) -> str:
    """A number of seconds as `--timeout` reads it: plain decimal digits, since `1e-05s` is no duration."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return format(Decimal(repr(value)), "f") + "s"
    return str(value)


def timeout_problem(value: Any) -> str | None:
    """Why a `timeout` number cannot be a limit, in the caller's own number (`-5`, not the `-5s` we would
    pass on); a string is `--timeout`'s to judge, which quotes it as given."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    if not math.isfinite(value) or value < 0:
        return f"timeout: {value!r} is not a number of seconds agentwrap can wait (give 0 for no limit, or more)"
    return None


def shell_argv(line: str) -> list[str]:
    """A shell line through `agentwrap --shell` when this agentwrap has it, else `bash -c` (the same
    semantics; only the per-stage reading of the line is missing)."""
    if "--shell" in options.OPTION_NAMES:
        return ["--shell", line]
    return ["--", "bash", "-c", line]


def run_args(args: dict[str, Any], stdin_file: str | None, *, read_only: bool = False) -> list[str]:
    """The agentwrap command line (after `agentwrap`) for a `run` call; `read_only` (run_read_only) adds
    `--read-only`, so the run itself refuses what the server's own check let through."""
    out = ["--agent", *["--read-only"] * read_only]
    if "detail" in args:
        out += ["--detail", str(args["detail"])]
    if "timeout" in args:
        out += ["--timeout", _duration(args["timeout"])]
    if "cwd" in args:
        out += ["--cwd", str(args["cwd"])]
    for answer in args.get("answers", []):
        out += ["--answer", str(answer["pattern"]).replace("=", "\\=") + "=" + str(answer["reply"])]
    if "max_inline_bytes" in args:
        out += ["--max-inline-bytes", str(args["max_inline_bytes"])]
    for key, value in sorted(args.get("env", {}).items()):
        out += ["--env", f"{key}={value}"]
    if "adapter" in args:
        out += ["--adapter", str(args["adapter"])]
    if args.get("no_adapter"):
        out.append("--no-adapter")
    if args.get("no_pty"):
        out.append("--no-pty")
    if stdin_file is not None:
        out += ["--stdin", stdin_file]
    if "shell" in args:
        return out + shell_argv(str(args["shell"]))
    return out + ["--", *[str(a) for a in args["argv"]]]


def other_args(name: str, args: dict[str, Any], stdin_file: str | None) -> list[str]:
    """The agentwrap command line for the read-only tools other than the runs."""
    if name == "artifact_show":
        out = ["--agent", "artifact", "show"]
        if "id" in args:
            out.append(str(args["id"]))
        for key in ("offset", "limit", "lines", "grep", "cursor"):
            if key in args:
                out += [f"--{key}", str(args[key])]
        return out
    if name == "describe":
        return ["--agent", "describe", str(args["name"])]
    if name == "capabilities":
        return ["--agent", "capabilities"]
    if name == "explain":
        return ["--agent", "explain", *([str(args["code"])] if "code" in args else [])]
    if name == "normalize":
        out = ["--agent", "normalize"]  # the --agent projection, concise; `--format json` is the standard one
        for key in ("adapter", "root"):
            if key in args:
                out += [f"--{key}", str(args[key])]
        return [*out, str(args["path"]) if "path" in args else (stdin_file or "-")]
    raise KeyError(name)
