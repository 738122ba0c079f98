"""The declarative form of an adapter (TOML, or the same dict in Python), validated with precise messages.

One spec drives both entry points: live runs and (later) saved logs, so a tool's knowledge is written once.
See docs/adapters.md for the format; `agentwrap adapter new NAME --toml` writes a commented example.
"""

from __future__ import annotations

import math
import os
import re
import shlex
from typing import Any

from agentwrap import spec_cache
from agentwrap.lazyre import lazy
from agentwrap.problem import adapter_problem
from agentwrap.records import CapturedRun, CodeAction, Effects, Frozen, Presentation, Problem, ProblemCode
from agentwrap.retry import retry_after_in
from agentwrap.spec_check import SpecError as SpecError  # re-exported: raised here too
from agentwrap.spec_check import check, shell_script_at

_FIELD = re.compile(r"(?<!\$)\{(\w+)\}")  # `${NAME}` is the shell's variable, left as written
# A group's wait, in the units tools print and --timeout reads (`30`, `30s`, `2m`, `500ms`, `1.5 minutes`).
_WAIT = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|secs?|seconds?|m|mins?|minutes?|h|hours?)?", re.I)
_WAIT_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


class Rule(Frozen):  # a frozen kw-only dataclass to the dataclasses module, without its start-up cost
    """One `[[rules]]` table, compiled: a pattern and the problem it makes."""

    code: str
    pattern: re.Pattern[str]
    title: str
    category: str
    status: int
    retryable: bool
    safe_to_retry: bool
    stream: str = "any"
    suggested_fix: str | None = None
    retry_after: float | str | None = None
    docs_url: str | None = None
    subcommands: frozenset[str] | None = None
    severity: str = "error"
    on_success: bool = False
    detail: str | None = None
    code_actions: tuple[dict[str, Any], ...] = ()
    exit_codes: frozenset[int] | None = None

    def declared(self) -> ProblemCode:
        """The code this rule emits, as a declaration (its facts are the rule's)."""
        return ProblemCode(code=self.code, title=self.title, category=self.category, status=self.status,
                           retryable=self.retryable, safe_to_retry=self.safe_to_retry,
                           suggested_fix=self.suggested_fix if self.suggested_fix and "{" not in self.suggested_fix
                           else None, docs_url=self.docs_url)


class PromptRule(Frozen):
    """One `[[prompts]]` table, compiled: the tool's own way past a prompt it shows."""

    pattern: re.Pattern[str]
    input_kind: str | None
    subcommands: frozenset[str] | None
    suggested_fix: str | None
    code_actions: tuple[dict[str, Any], ...]
    programs: frozenset[str] | None = None  # the entry is for these programs only (the generic catalog's)


def rule(code: str, pattern: str, title: str, category: str, status: int, retryable: bool, safe: bool,
         fix: str, **more: Any) -> dict[str, Any]:
    """A rule as spec data, positionally: the shorthand Python adapters use for long rule tables."""
    return {"code": code, "pattern": pattern, "title": title, "category": category, "status": status,
            "retryable": retryable, "safe_to_retry": safe, "suggested_fix": fix, **more}


def _fill(template: str, values: dict[str, str], quote: bool = False) -> str:
    """`template` with its `{name}`s replaced; `quote`: shell-quoted, for a word a shell parses."""
    def value(m: re.Match[str]) -> str:
        found = values.get(m.group(1))
        if found is None:
            return m.group(0)
        return shlex.quote(found) if quote else found

    return _FIELD.sub(value, template)


def wait_seconds(text: str) -> float | None:
    """A rule's `retry_after` group as seconds, or None when it is no finite, non-negative wait
    (`soon`, `nan`, `1e400`, `-5`): the problem then says nothing of when, rather than being lost."""
    match = _WAIT.fullmatch(text.strip())
    if match is None:
        return None
    unit = (match.group(2) or "s").lower()
    seconds = float(match.group(1)) * (_WAIT_UNIT["ms"] if unit == "ms" else _WAIT_UNIT[unit[0]])
    return seconds if math.isfinite(seconds) else None


def _actions(raw: tuple[dict[str, Any], ...], argv: list[str], values: dict[str, str]) -> list[CodeAction]:
    """Code actions from templates: `{args...}` splices the original arguments, `{name}` a regex group."""
    out = []
    for action in raw:
        command: list[str] | None = None
        if "command" in action:
            command = []
            script = shell_script_at(action["command"])
            for at, word in enumerate(action["command"]):
                if word == "{argv...}":
                    command.extend(argv)
                elif word == "{args...}":
                    command.extend(argv[1:])
                else:
                    command.append(_fill(word, values, quote=at == script))
        if command is not None and any(_FIELD.search(word) for word in command):
            continue  # it names a regex group that did not match: no honest command to offer
        out.append(CodeAction(title=_fill(action["title"], values), kind=action.get("kind", "command"),
                              command=tuple(command) if command is not None else None,
                              applicability=action.get("applicability", "unspecified"),
                              is_preferred=bool(action.get("is_preferred", False))))
    return out


class Spec:
    """A validated adapter spec. Build with `Spec.from_dict(data, source)`."""

    def __init__(self, data: dict[str, Any], source: str) -> None:
        self.source = source
        self.name: str = data["name"]
        self.matches: tuple[str, ...] = tuple(data.get("matches", [self.name]))
        self.descriptor: dict[str, str] = dict(data.get("descriptor", {}))
        self.env: dict[str, str] = dict(data.get("env", {}))
        self.success_exit_codes: tuple[int, ...] = tuple(data.get("success_exit_codes", [0]))
        self.options_with_value = frozenset(data.get("global_options_with_value", []))
        self.nested = frozenset(data.get("nested_subcommands", []))
        self.has_subcommands = bool(data.get("has_subcommands", True))
        # `[launcher]`: how this tool's argv names another it runs (`npx tsc`, `uv run pytest`), whose
        # adapter then reads the run (docs/adapters.md, "Launchers"). None: not a launcher.
        self.launcher: dict[str, frozenset[str]] | None = None
        if "launcher" in data:
            self.launcher = {key: frozenset(data["launcher"].get(key, []))
                             for key in ("programs", "subcommands", "options_with_value")}
        raw_effects = data.get("effects", {})
        self.default_effects = Effects(**raw_effects.get("default", {}))
        self.effects = {k: self.default_effects._replace(**v) for k, v in raw_effects.items() if k != "default"}
        self.data = data  # as given (validated by from_dict)
        self.prompts = tuple(PromptRule(pattern=lazy(p["pattern"], re.I), input_kind=p.get("input_kind"),
                                        subcommands=frozenset(p["subcommands"]) if "subcommands" in p else None,
                                        suggested_fix=p.get("suggested_fix"),
                                        code_actions=tuple(p.get("code_actions", [])),
                                        programs=frozenset(p["programs"]) if "programs" in p else None)
                             for p in data.get("prompts", []))
        self.noise = tuple((lazy(n["pattern"]), n.get("stream", "any"),
                            frozenset(n["subcommands"]) if "subcommands" in n else None)
                           for n in data.get("noise", []))
        # `[[secrets]]`: group 1 of each pattern's matches is a value the envelope must never show
        self.secrets = tuple((lazy(n["pattern"], re.M), n.get("stream", "any"),
                              frozenset(n["subcommands"]) if "subcommands" in n else None)
                             for n in data.get("secrets", []))
        self.parsed_whole = frozenset(data.get("parsed_whole", []))
        self.layout = bool(data.get("layout", False))
        self.concise_omit = tuple(data.get("concise_omit", []))
        self.concise_shared = tuple(data.get("concise_shared", []))
        self.concise_written = tuple(data.get("concise_written", []))
        self.columns = frozenset(data.get("columns", []))
        self.rules = tuple(Rule(**{**r, "pattern": lazy(r["pattern"], re.M),
                                   "subcommands": frozenset(r["subcommands"]) if "subcommands" in r else None,
                                   "exit_codes": frozenset(r["exit_codes"]) if "exit_codes" in r else None,
                                   "code_actions": tuple(r.get("code_actions", []))})
                           for r in data.get("rules", []))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str) -> Spec:
        """A validated spec (every source alike: a user's, a plugin's, a built-in's)."""
        check(data, source)
        return cls(data, source)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Spec:
        """A validated spec from a TOML file: a user's, a plugin's or a built-in's, with the same checks.
        The checked data is kept (`agentwrap.spec_cache`): parsing and checking cost 12-20 ms of a git run,
        and a file is parsed and checked again whenever it, agentwrap or the checker changes."""
        source = os.fspath(path)
        kept = spec_cache.load(os.path.abspath(source))
        if kept is not None:
            return cls(kept, source)
        import tomllib

        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except tomllib.TOMLDecodeError as exc:
            raise SpecError(f"{path}: not valid TOML: {exc}") from None
        spec = cls.from_dict(data, source)
        spec_cache.keep(os.path.abspath(source), data)
        return spec

    # --- invocation ---------------------------------------------------------------------------
    def subcommand_of(self, argv: list[str]) -> str | None:
        """The first word after global options (`git -C dir --no-pager push` -> push)."""
        if not self.has_subcommands:
            return None
        words: list[str] = []
        skip = False
        for arg in argv[1:]:
            if skip:
                skip = False
                continue
            if arg == "--":
                break
            if arg.startswith("-"):
                skip = arg in self.options_with_value
                continue
            words.append(arg)
            if len(words) == 2 or words[0] not in self.nested:
                break
        return " ".join(words) or None

    def inner_command(self, argv: list[str]) -> list[str] | None:
        """The command line a launcher's argv names (`npx -y tsc -p .` -> tsc -p .), per `[launcher]`."""
        if self.launcher is None or not argv:
            return None
        own = self.launcher["options_with_value"]
        at = self._words_start(argv, 1, self.options_with_value | own)
        if os.path.basename(argv[0]) not in self.launcher["programs"]:  # `npm exec`, `uv run`: after the word
            if at >= len(argv) or argv[at] not in self.launcher["subcommands"]:
                return None
            at = self._words_start(argv, at + 1, own)
        if at < len(argv) and argv[at] == "--":
            at += 1
        return argv[at:] or None

    @staticmethod
    def _words_start(argv: list[str], at: int, valued: frozenset[str]) -> int:
        """Where the options starting at `at` end: the next word, or a `--`."""
        while at < len(argv) and argv[at].startswith("-") and argv[at] != "--":
            at += 2 if argv[at] in valued else 1
        return at

    def effects_of(self, subcommand: str | None) -> Effects:
        if subcommand is None:
            return self.default_effects
        return self.effects.get(subcommand) or self.effects.get(subcommand.split()[0], self.default_effects)

    def prompt_help(self, argv: list[str], subcommand: str | None, prompt: str, kind: str,
                    from_argv: dict[str, str] | None = None) -> tuple[str | None, list[CodeAction]]:
        """The tool's own way past a prompt: an entry whose pattern matches the prompt wins; else an
        entry for this input kind (an editor request has no prompt text to match). `from_argv`: the
        `argv_values` the adapter read off the command line."""
        first = (subcommand or "").split(" ")[0]
        prog = os.path.basename(argv[0]) if argv else ""
        usable = [r for r in self.prompts if (r.subcommands is None or first in r.subcommands)
                  and (r.programs is None or prog in r.programs)]
        chosen = next((r for r in usable if r.input_kind in (None, kind) and r.pattern.search(prompt)), None)
        if chosen is None and kind == "editor":
            chosen = next((r for r in usable if r.input_kind == "editor"), None)
        if chosen is None:
            return None, []
        values = {**(from_argv or {}), "prog": argv[0], "subcommand": subcommand or ""}
        fix = _fill(chosen.suggested_fix, values) if chosen.suggested_fix else None  # ssh's `-p {port} {host}`
        return fix, _actions(chosen.code_actions, argv, values)

    def presentation(self, subcommand: str | None) -> Presentation:
        """How this tool's text reads for a model: its noise lines, and whether its data says it all."""
        first = (subcommand or "").split(" ")[0]
        noise = tuple((pattern, stream) for pattern, stream, subs in self.noise if subs is None or first in subs)
        whole = subcommand in self.parsed_whole or first in self.parsed_whole or "*" in self.parsed_whole
        return Presentation(noise=noise, parsed_whole=whole, layout=self.layout, concise_omit=self.concise_omit,
                            concise_shared=self.concise_shared, concise_written=self.concise_written,
                            columns=first in self.columns or "*" in self.columns,
                            names_secrets=any(subs is None or first in subs for _, _, subs in self.secrets))

    def secrets_in(self, run: CapturedRun) -> tuple[str, ...]:
        """The values the `[[secrets]]` patterns find in the run's output (group 1 of each match)."""
        first = (run.subcommand or "").split(" ")[0]
        found = [m.group(1) for pattern, stream, subs in self.secrets if subs is None or first in subs
                 for m in pattern.finditer(run.text("both" if stream == "any" else stream)) if m.group(1)]
        return tuple(dict.fromkeys(found))

    # --- outcome ------------------------------------------------------------------------------
    def declarations(self) -> list[ProblemCode]:
        """The problem codes this spec's rules emit, each declared by its first rule."""
        first: dict[str, ProblemCode] = {}
        for rule in self.rules:
            first.setdefault(rule.code, rule.declared())
        return list(first.values())

    def problem_codes(self) -> list[str]:
        return sorted({r.code for r in self.rules})

    def match_rules(self, run: CapturedRun, *, one_per_line: bool = False,
                    from_argv: dict[str, str] | None = None) -> list[Problem]:
        """A problem per match of every rule that applies to this run. `one_per_line`: a line an earlier
        (more specific) rule explained is not matched again by a later catch-all (kubectl's and docker's
        `Error from server (NotFound): ...` is one problem, not also a generic server rejection)."""
        found: list[Problem] = []
        claimed: set[str] = set()
        sub = (run.subcommand or "").split(" ")[0]
        for rule in self.rules:
            if rule.subcommands is not None and sub not in rule.subcommands:
                continue
            if rule.exit_codes is not None and run.exit_code not in rule.exit_codes:
                continue
            if not run.failed and not rule.on_success and rule.severity == "error":
                continue
            text = run.text(rule.stream)
            for match in rule.pattern.finditer(text):
                if one_per_line:
                    start = text.rfind("\n", 0, match.start()) + 1
                    end = text.find("\n", match.start())
                    line = text[start:end if end >= 0 else len(text)].strip()
                    if line in claimed:
                        continue
                    claimed.add(line)
                found.append(self.problem(rule, match, run, from_argv))
                if len(found) >= 200:
                    return found
        return found

    def problem(self, rule: Rule, match: re.Match[str], run: CapturedRun,
                from_argv: dict[str, str] | None = None) -> Problem:
        """The Problem a rule makes of one match (public: Python adapters build problems from their own
        matches with it, so every adapter's problems share one shape). `from_argv`: the `argv_values` the
        adapter read off the command line; a group of the same name wins (what the tool said it used)."""
        groups = {k: v for k, v in match.groupdict().items() if v is not None}
        values = {**(from_argv or {}), "prog": run.argv[0], "subcommand": run.subcommand or "",
                  "match": match.group(0).strip(), **groups}
        # An optional group that did not match says nothing in a text (`x={x}` reads `x=`); a command
        # naming it is dropped instead (`_actions`), as no honest command can be made without it.
        text_values = {**dict.fromkeys(match.re.groupindex, ""), **values}
        line_start = match.string.rfind("\n", 0, match.start()) + 1
        line_end = match.string.find("\n", match.end())
        line = match.string[line_start:line_end if line_end >= 0 else len(match.string)].strip()
        detail = _fill(rule.detail, text_values) if rule.detail else line[:1000]
        retry_after: float | None = None
        if isinstance(rule.retry_after, int | float):
            retry_after = float(rule.retry_after)
        elif isinstance(rule.retry_after, str) and groups.get(rule.retry_after):
            retry_after = wait_seconds(groups[rule.retry_after])
        elif rule.category == "rate_limit":
            retry_after = retry_after_in(run.text())
        location = None
        if "file" in groups:
            location = {"file": groups["file"]}
            for key in ("line", "column", "end_line", "end_column"):
                if groups.get(key, "").isdigit():
                    location[key] = int(groups[key])
        return adapter_problem(
            self.name, rule.declared(), detail, exit_code=run.exit_code, retry_after=retry_after,
            suggested_fix=_fill(rule.suggested_fix, text_values) if rule.suggested_fix else None,
            code_actions=tuple(_actions(rule.code_actions, list(run.argv), values)),
            location=location, severity=rule.severity, matched=line,
            extra={"fatal_on_success": True} if rule.on_success else None)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name, **self.descriptor, "matches": list(self.matches), "source": self.source,
            "effects": {"default": self.default_effects.to_dict(),
                        **{k: v.to_dict() for k, v in sorted(self.effects.items())}},
            "problem_codes": self.problem_codes(),
            "prompts": [p.pattern.pattern for p in self.prompts],
            "env": self.env,
        }
