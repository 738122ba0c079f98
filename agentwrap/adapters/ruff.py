"""agentwrap adapter for ruff (`ruff check`, `ruff format`): each violation as a located problem with its rule
code, a `ruff check --fix` code action where ruff says a fix exists, and the summary as counts.

Python rather than TOML: ruff's default "full" format spreads one diagnostic over several lines (header, arrow,
code frame, help, unsafe-fix note), the rule must become a field of its own, the fix applicability depends on
ruff's `[*]` marker, effects depend on --fix/--check/--diff, and the counts are data on failure too.
"""

from __future__ import annotations

import os
import re
from typing import Any

from agentwrap.adapters import _ruff_parse as rp
from agentwrap.lazyre import lazy
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Problem,
    ProblemCode,
    Spec,
    problem,
)

DOCS = "https://docs.astral.sh/ruff/"
_READ_ONLY = {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "ruff.spec.toml")

# Problems read from ruff's diagnostics: code -> (title, category, status, fix)
_DIAG: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="RUFF_VIOLATION", title="ruff: lint rule violated", category="validation", status=422,
                suggested_fix="Fix the code at the location (`ruff rule CODE` explains the rule), apply the fix "
                              "action when there is one, or add `# noqa: CODE` if the rule does not apply here."),
    ProblemCode(code="RUFF_SYNTAX_ERROR", title="ruff: syntax error", category="validation", status=400,
                suggested_fix="Fix the syntax at the location; ruff cannot lint or format a file it cannot parse."),
    ProblemCode(code="RUFF_IO_ERROR", title="ruff: file cannot be read", category="not_found", status=404,
                suggested_fix="Check the path (and permissions) of the file named on the command line."),
    ProblemCode(code="RUFF_UNFORMATTED", title="ruff: file is not formatted", category="validation", status=422,
                suggested_fix="Run `ruff format FILE` to reformat it."),
    ProblemCode(code="RUFF_UNKNOWN_RULE", title="ruff: unknown rule selector", category="usage", status=400,
                suggested_fix="Fix the rule code in --select/--ignore or the config (`ruff linter` lists prefixes, "
                              "`ruff rule --all` the rules)."),
    ProblemCode(code="RUFF_CONFIG_INVALID", title="ruff: configuration file is invalid", category="validation",
                status=400, suggested_fix="Fix the setting named in the message (misspelt keys are the usual cause)."),
    ProblemCode(code="RUFF_FAILED", title="ruff failed", category="dependency", status=502,
                suggested_fix="Read the causes in the message."),
)}
_SYNTAX_RULES = frozenset({"invalid-syntax", "SyntaxError", "E999"})


def _code(rule: str) -> str:
    if rule in _SYNTAX_RULES:
        return "RUFF_SYNTAX_ERROR"
    if rule == "E902":
        return "RUFF_IO_ERROR"
    if rule == "unformatted":
        return "RUFF_UNFORMATTED"
    return "RUFF_VIOLATION"


def _make(code: str, detail: str, location: dict[str, Any] | None = None, extra: dict[str, Any] | None = None,
          actions: tuple[CodeAction, ...] = (), fix: str | None = None) -> Problem:
    declared = _DIAG[code]
    # A link only where it is specific: ruff's full output does not name a rule's page, and the index of all
    # rules says nothing `ruff rule CODE` does not.
    docs = DOCS + "settings/" if code == "RUFF_CONFIG_INVALID" else None
    return problem("ruff", declared, detail, suggested_fix=fix or declared.suggested_fix, docs_url=docs,
                   code_actions=actions, location=location, extra=extra)


def _actions(d: rp.Diagnostic, ruff: str) -> tuple[CodeAction, ...]:
    if d.rule == "unformatted":
        return (CodeAction(title=f"Reformat {d.file}", command=(ruff, "format", d.file),
                           applicability="machine_applicable", is_preferred=True),)
    if d.fixable:  # ruff's [*]: a safe fix; --select limits the run to this rule
        return (CodeAction(title=f"Apply ruff's safe fix for {d.rule}",  # the command names the file
                           command=(ruff, "check", "--fix", "--select", d.rule, d.file),
                           applicability="machine_applicable", is_preferred=True),)
    if d.unsafe_fix:
        return (CodeAction(title=f"Apply ruff's unsafe fix for {d.rule} (may change behaviour)",
                           command=(ruff, "check", "--fix", "--unsafe-fixes", "--select", d.rule, d.file),
                           applicability="maybe_incorrect"),)
    return ()


def _problem(d: rp.Diagnostic, ruff: str) -> Problem:
    code = _code(d.rule)
    location: dict[str, Any] = {"file": d.file}
    if d.line:
        location.update(line=d.line, column=d.column)
    extra: dict[str, Any] = {"rule": d.rule, "fixable": d.fixable}
    if d.cell is not None:
        extra["cell"] = d.cell
    actions = _actions(d, ruff)
    fix = None
    if code == "RUFF_VIOLATION":  # ruff's own `help:` line, else the declared fix with this rule filled in
        fix = d.help or _violation_fix(d.rule, bool(actions))
    if evidence := d.evidence():
        extra["evidence"] = evidence
    # the problem stands for the snippet it was read from
    return _make(code, d.text, location, extra, actions, fix)._replace(matched=d.block)


# `ruff format --diff` shows each file it would change as a diff, `--- FILE` over `+++ FILE`, and no
# `unformatted:` diagnostic: each such file is the problem --check would report
_DIFF_FILE = lazy(r"^--- (\S.*)\n\+\+\+ \1$", re.M)


def _unformatted(file: str, ruff: str) -> Problem:
    action = CodeAction(title=f"Reformat {file}", command=(ruff, "format", file), applicability="machine_applicable",
                        is_preferred=True)
    return _make("RUFF_UNFORMATTED", "unformatted: File would be reformatted", {"file": file},
                 {"rule": "unformatted", "fixable": False}, (action,))


def _would_fix(file: str, ruff: str) -> Problem:
    """A file `ruff check --diff` shows fixes for: its violations, which the diff fixes (it names no rule)."""
    action = CodeAction(title=f"Apply the fixes to {file}", command=(ruff, "check", "--fix", file),
                        applicability="machine_applicable", is_preferred=True)
    return _make("RUFF_VIOLATION", f"{file}: violations ruff can fix (the diff shows the fix)", {"file": file},
                 {"fixable": True}, (action,), "Apply the diff: run `ruff check --fix` on the file.")


def _violation_fix(rule: str, has_action: bool) -> str:
    """The declared fix of a violation, naming its rule (`ruff rule F401`, `# noqa: F401`), not `CODE`."""
    first = "apply the fix action" if has_action else "change the code"
    return (f"`ruff rule {rule}` explains the rule: {first}, or add `# noqa: {rule}` if it does not "
            "apply here.")


def _failure(detail: str, causes: str, location: dict[str, Any] | None) -> Problem:
    if "Unknown rule selector" in causes:
        return _make("RUFF_UNKNOWN_RULE", detail, location)
    if any(word in causes for word in ("Failed to parse", "TOML parse error", "unknown field", "invalid type")):
        return _make("RUFF_CONFIG_INVALID", detail, location)
    return _make("RUFF_FAILED", detail, location)


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


class RuffAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)
    codes = tuple(_DIAG.values())

    def effects(self, argv: list[str]) -> Effects:
        sub = self.subcommand(argv)
        args = set(argv[1:])
        if sub == "check":
            writes = bool(args & {"--fix", "--unsafe-fixes", "--fix-only"}) and "--no-fix" not in args
            if writes and "--diff" not in args:
                return Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
        if any(a in ("-o", "--output-file", "--add-noqa") or a.startswith("--output-file=") for a in args):
            return Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
        if sub == "format" and args & {"--check", "--diff"}:
            return Effects(**_READ_ONLY)
        return super().effects(argv)

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        ruff = run.argv[0] if os.path.basename(run.argv[0]) == "ruff" else "ruff"
        text = run.text()
        out = [_problem(d, ruff) for d in rp.diagnostics(text)[:1000]]
        out.extend(_failure(*failure) for failure in rp.failures(text))
        if run.subcommand == "format" and run.exit_code == 1 and not any(p.code == "RUFF_UNFORMATTED" for p in out):
            out.extend(_unformatted(file, ruff) for file in _DIFF_FILE.findall(run.stdout_text))
        if run.subcommand == "check" and run.exit_code == 1 and "--diff" in run.argv and not out:
            out.extend(_would_fix(file, ruff) for file in _DIFF_FILE.findall(run.stdout_text))
        return out

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        seen: set[tuple[Any, ...]] = set()
        out = []
        for p in super().find_problems(run):  # `ruff format` names a syntax error twice (frame and error: line)
            loc = p.location or {}
            # a violation is its rule and its message: `import os, sys` is two F401 at one place (flake8's too)
            rule = ((p.extra or {}).get("rule"), " ".join(p.detail.split())) if p.code == "RUFF_VIOLATION" else None
            key = (p.code, loc.get("file"), loc.get("line"), loc.get("column"), rule)
            if p.location is None or key not in seen:
                seen.add(key)
                out.append(p)
        return out

    def interpret(self, run: CapturedRun) -> Interpretation:
        interp = super().interpret(run)
        if run.subcommand != "format" and "--diff" not in run.argv:
            return interp
        # a diff's `--- FILE` / `+++ FILE` say which file each hunk changes: kept though a problem names the file
        heads = [line for m in _DIFF_FILE.finditer(run.stdout_text) for line in m.group(0).splitlines()]
        return interp._replace(kept_lines=(*interp.kept_lines, *heads)) if heads else interp

    def parse(self, run: CapturedRun) -> Any:
        return rp.counts(run.text(), rp.diagnostics(run.text()))

    summarize_failures = True

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not data:
            return None
        if "would_reformat" in data or "reformatted" in data:
            if data.get("would_reformat"):
                return f"ruff format: {_n(data['would_reformat'], 'file')} would be reformatted"
            return f"ruff format: {data.get('reformatted', 0)} reformatted, {data['unchanged']} unchanged"
        if data.get("would_fix") and not data["errors"]:
            files = len(set(_DIFF_FILE.findall(run.stdout_text)))
            return f"ruff: would fix {_n(data['would_fix'], 'error')}" + (f" in {_n(files, 'file')}" if files else "")
        if data["errors"]:
            fixed = f", {data['fixed']} fixed" if data.get("fixed") else ""
            return (f"ruff: {_n(data['errors'], 'error')} in {_n(data['files'], 'file')} "
                    f"({data['fixable']} fixable{fixed})")
        return "ruff: all checks passed" + (f" ({data['fixed']} fixed)" if data.get("fixed") else "")


ADAPTER: Adapter = RuffAdapter()
