"""Validation of adapter specs: every mistake is reported with its file, its key and what is wrong."""

from __future__ import annotations

import math
import os
import re
from typing import Any

from agentwrap import codes
from agentwrap.problem import APPLICABILITY
from agentwrap.records import EFFECT_FIELDS


class SpecError(ValueError):
    """A spec that cannot be used: the message names the file, the key and what is wrong."""


# The keys of each table of a spec (TOML or dict): the one statement of the format.
TOP = {"name", "matches", "descriptor", "env", "effects", "prompts", "rules", "success_exit_codes",
       "global_options_with_value", "nested_subcommands", "has_subcommands", "schema_version", "noise",
       "parsed_whole", "layout", "concise_omit", "concise_shared", "concise_written", "columns", "launcher",
       "secrets", "argv_values"}
LAUNCHER = {"programs", "subcommands", "options_with_value"}
NOISE = {"pattern", "stream", "subcommands"}
SECRET = {"pattern", "stream", "subcommands"}  # group 1 of the pattern is a secret value
DESCRIPTOR = {"purpose", "use_when", "do_not_use_when", "returns", "limitations"}
EFFECT_KEYS = set(EFFECT_FIELDS)
ACTION = {"title", "kind", "command", "applicability", "is_preferred"}
PROMPT = {"pattern", "input_kind", "subcommands", "programs", "suggested_fix", "code_actions"}
RULE = {"code", "pattern", "stream", "title", "category", "status", "retryable", "safe_to_retry",
        "suggested_fix", "retry_after", "docs_url", "subcommands", "severity", "on_success", "detail",
        "code_actions", "exit_codes"}
_KINDS = ("confirmation", "password", "text", "editor", "pager", "credential", "selection")
_NAME = re.compile(r"[a-z0-9][a-z0-9_.+-]*\Z")
_CODE = re.compile(r"[A-Z][A-Z0-9_]*\Z")
# What spec._fill replaces (`${NAME}` is the shell's, left as written; `{args...}` is a whole word).
_PLACEHOLDER = re.compile(r"(?<!\$)\{(\w+)\}")
_QUOTED_PLACEHOLDER = re.compile(r"""['"]\{\w+\}|(?<!\$)\{\w+\}['"]""")
# The values every template may name besides the pattern's groups (spec.Spec.problem, prompt_help).
RULE_VALUES = frozenset(("prog", "subcommand", "match"))
PROMPT_VALUES = frozenset(("prog", "subcommand"))
SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"))


def valid_name(name: str) -> bool:
    """An adapter name: a lower-case program name (letters, digits, . _ + -)."""
    return _NAME.match(name) is not None


def shell_script_at(command: list[str]) -> int | None:
    """The index of the script in a `sh -c SCRIPT` command template, else None. A value put there is
    parsed by the shell: `eve;date>X` spliced bare would run `date`, `o'brien` would break the quoting."""
    if not command or os.path.basename(command[0]) not in SHELLS:
        return None
    at = 1
    while at < len(command) and command[at][:1] in ("-", "+") and command[at] != "--":
        word = command[at]
        if word[1:] in ("o", "O"):  # `bash -o pipefail -c ...`: the option's value is no script
            at += 2
            continue
        if not word.startswith("--") and "c" in word[1:]:
            return at + 1 if at + 1 < len(command) else None
        at += 1
    return None



def _fail(source: str, where: str, what: str) -> None:
    raise SpecError(f"{source}: {where}: {what}")


def _keys(source: str, where: str, table: Any, allowed: set[str], required: tuple[str, ...] = ()) -> None:
    if not isinstance(table, dict):
        _fail(source, where, f"expected a table, got {type(table).__name__}")
    for key in table:
        if key not in allowed:
            import difflib  # ~1 ms to import, and only a misspelt key needs it

            near = difflib.get_close_matches(key, sorted(allowed), n=1)
            _fail(source, where, f"unknown key {key!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
    for key in required:
        if key not in table:
            _fail(source, where, f"missing required key {key!r}")


def _type(source: str, where: str, value: Any, kind: type | tuple[type, ...], label: str) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        _fail(source, where, f"{label} must be {getattr(kind, '__name__', kind)}, got {value!r}")


def _regex(source: str, where: str, pattern: Any) -> None:
    _type(source, where, pattern, str, "pattern")
    try:
        re.compile(pattern)
    except re.error as exc:
        _fail(source, where, f"invalid regular expression {pattern!r}: {exc}")


def _strings(source: str, where: str, value: Any, label: str) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        _fail(source, where, f"{label} must be a list of strings, got {value!r}")


def _named(source: str, where: str, label: str, template: Any, known: frozenset[str]) -> None:
    """A template naming a value no run has would reach the agent as a literal `{nosuch}`."""
    for name in _PLACEHOLDER.findall(template) if isinstance(template, str) else ():
        if name not in known:
            names = ", ".join(sorted(known))
            _fail(source, where, f"{label} names {{{name}}}, which is neither a group of the pattern nor one "
                                 f"of the values every template has ({names})")


def _script(source: str, where: str, command: list[str]) -> None:
    """agentwrap shell-quotes the values it puts in a `sh -c` script; quotes around them would undo that."""
    script = shell_script_at(command)
    if script is not None and _QUOTED_PLACEHOLDER.search(command[script]):
        _fail(source, where, f"command: leave the quotes out around a placeholder in {command[script]!r}: "
                             "agentwrap quotes each value it puts in a shell script")


def _actions(source: str, where: str, actions: Any, known: frozenset[str] = PROMPT_VALUES) -> None:
    if not isinstance(actions, list):
        _fail(source, where, "code_actions must be a list of tables")
    for i, action in enumerate(actions, 1):
        at = f"{where}.code_actions[{i}]"
        _keys(source, at, action, ACTION, ("title",))
        _named(source, at, "title", action["title"], known)
        if "command" in action:
            _strings(source, at, action["command"], "command")
            for word in action["command"]:
                _named(source, at, "command", word, known)
            _script(source, at, action["command"])
        if action.get("applicability", "unspecified") not in APPLICABILITY:
            _fail(source, at, f"applicability must be one of {', '.join(APPLICABILITY)}")
        if action.get("kind", "command") not in ("quickfix", "command", "edit"):
            _fail(source, at, "kind must be quickfix, command or edit")


def check(data: Any, source: str) -> None:
    """Raise SpecError naming the first problem in `data`, an adapter spec read from `source`."""
    _keys(source, "top level", data, TOP, ("name",))
    if not isinstance(data["name"], str) or not _NAME.match(data["name"]):
        _fail(source, "name", f"must be a lower-case word (letters, digits, . _ + -), got {data['name']!r}")
    for key in ("matches", "global_options_with_value", "nested_subcommands", "parsed_whole",
                "concise_omit", "concise_shared", "concise_written", "columns", "argv_values"):
        if key in data:
            _strings(source, key, data[key], key)
    for key in ("has_subcommands", "layout"):
        if key in data:
            _type(source, key, data[key], bool, key)
    for i, noise in enumerate(_list(source, "noise", data.get("noise", [])), 1):
        where = f"noise[{i}]"
        _keys(source, where, noise, NOISE, ("pattern",))
        _regex(source, where, noise["pattern"])
        if noise.get("stream", "any") not in ("any", "stdout", "stderr"):
            _fail(source, where, "stream must be any, stdout or stderr")
        if "subcommands" in noise:
            _strings(source, where, noise["subcommands"], "subcommands")
    for i, secret in enumerate(_list(source, "secrets", data.get("secrets", [])), 1):
        _secret(source, f"secrets[{i}]", secret)
    _keys(source, "launcher", data.get("launcher", {}), LAUNCHER)
    for key, value in data.get("launcher", {}).items():
        _strings(source, f"launcher.{key}", value, key)
    _keys(source, "descriptor", data.get("descriptor", {}), DESCRIPTOR)
    for key, value in data.get("descriptor", {}).items():
        _type(source, f"descriptor.{key}", value, str, key)
    env = data.get("env", {})
    _keys(source, "env", env, set(env))
    for key, value in env.items():
        _type(source, f"env.{key}", value, str, "an environment value")
    exits = data.get("success_exit_codes", [0])
    if not (isinstance(exits, list) and all(isinstance(c, int) for c in exits)):
        _fail(source, "success_exit_codes", "must be a list of integers")
    # names the adapter's Python reads off the command line (BaseAdapter.argv_values: ssh's {host})
    from_argv = frozenset(data.get("argv_values", []))
    effects = data.get("effects", {})
    _keys(source, "effects", effects, set(effects))
    for sub, table in effects.items():
        _keys(source, f"effects.{sub}", table, EFFECT_KEYS)
        for key, value in table.items():
            _type(source, f"effects.{sub}.{key}", value, bool, key)
    for i, prompt in enumerate(_list(source, "prompts", data.get("prompts", [])), 1):
        where = f"prompts[{i}]"
        _keys(source, where, prompt, PROMPT, ("pattern",))
        _regex(source, where, prompt["pattern"])
        for key in ("subcommands", "programs"):
            if key in prompt:
                _strings(source, where, prompt[key], key)
        if prompt.get("input_kind", "text") not in _KINDS:
            _fail(source, where, f"input_kind must be one of {', '.join(_KINDS)}")
        _actions(source, where, prompt.get("code_actions", []), PROMPT_VALUES | from_argv)
    for i, rule in enumerate(_list(source, "rules", data.get("rules", [])), 1):
        _rule(source, f"rules[{i}] ({rule.get('code', '?') if isinstance(rule, dict) else '?'})", rule, RULE,
              from_argv)


def _secret(source: str, where: str, secret: Any) -> None:
    """A `[[secrets]]` entry: a pattern whose group 1 is the value to hide (a pattern without a group would
    say nothing of which part of the line is the secret)."""
    _keys(source, where, secret, SECRET, ("pattern",))
    _regex(source, where, secret["pattern"])
    if re.compile(secret["pattern"]).groups < 1:
        _fail(source, where, f"pattern {secret['pattern']!r} has no group: group 1 is the secret's value")
    if secret.get("stream", "any") not in ("any", "stdout", "stderr"):
        _fail(source, where, "stream must be any, stdout or stderr")
    if "subcommands" in secret:
        _strings(source, where, secret["subcommands"], "subcommands")


def _list(source: str, where: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        _fail(source, where, "must be a list of tables ([[...]] in TOML)")
    return list(value)


def _rule(source: str, where: str, rule: Any, allowed: set[str], from_argv: frozenset[str] = frozenset()) -> None:
    _keys(source, where, rule, allowed, ("code", "pattern", "title", "category", "status", "retryable",
                                         "safe_to_retry"))
    if not isinstance(rule["code"], str) or not _CODE.match(rule["code"]):
        _fail(source, where, f"code must be UPPER_SNAKE_CASE, got {rule['code']!r}")
    _regex(source, where, rule["pattern"])
    pattern = re.compile(rule["pattern"], re.M)
    if pattern.search("") is not None:  # it would match every output, the first line made a problem
        _fail(source, where, f"pattern {rule['pattern']!r} matches the empty string: make a part of it "
                             "required")
    if rule["category"] not in codes.CATEGORIES:
        _fail(source, where, f"category {rule['category']!r} is not one of {', '.join(codes.CATEGORIES)}")
    _type(source, where, rule["status"], int, "status")
    if not 400 <= rule["status"] <= 599:
        _fail(source, where, "status must be an HTTP-like 4xx (caller) or 5xx (environment) number")
    for key in ("retryable", "safe_to_retry", "on_success"):
        if key in rule:
            _type(source, where, rule[key], bool, key)
    if rule.get("stream", "any") not in ("any", "stdout", "stderr"):
        _fail(source, where, "stream must be any, stdout or stderr")
    if rule.get("severity", "error") not in ("error", "warning", "note"):
        _fail(source, where, "severity must be error, warning or note")
    _retry_after(source, where, rule, pattern)
    known = RULE_VALUES | from_argv | set(pattern.groupindex)
    for key in ("detail", "suggested_fix"):
        _named(source, where, key, rule.get(key), known)
    for key in ("subcommands",):
        if key in rule:
            _strings(source, where, rule[key], key)
    if "exit_codes" in rule and not all(isinstance(c, int) for c in rule["exit_codes"]):
        _fail(source, where, "exit_codes must be a list of integers")
    _actions(source, where, rule.get("code_actions", []), known)


def _retry_after(source: str, where: str, rule: dict[str, Any], pattern: re.Pattern[str]) -> None:
    if "retry_after" not in rule:
        return
    wait = rule["retry_after"]
    if isinstance(wait, bool) or not isinstance(wait, int | float | str):
        _fail(source, where, "retry_after must be seconds or the name of a regex group")
    if isinstance(wait, str) and wait not in pattern.groupindex:
        _fail(source, where, f"retry_after names group {wait!r}, which the pattern does not define")
    if not isinstance(wait, str) and not (math.isfinite(wait) and wait >= 0):
        _fail(source, where, f"retry_after must be a finite number of seconds, 0 or more, got {wait!r}")
