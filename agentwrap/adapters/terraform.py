"""terraform and OpenTofu (`tofu`): each Error/Warning diagnostic becomes one located problem, plans and applies
become counts and per-resource actions, outputs become data, and the approval prompt gets the saved-plan workflow.

Python rather than TOML: the diagnostics are boxed multi-line blocks (each is matched on its own, so a rule never
reads a neighbour's detail), `-json` output carries the same diagnostics with columns, and the approval prompt's
alternatives are built from the original command line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from typing import Any

from agentwrap.adapters import _terraform_parse as tp
from agentwrap.adapters import _terraform_state
from agentwrap.lazyre import lazy
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Parser,
    Presentation,
    Problem,
    Spec,
    secret_forms,
)

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "terraform.spec.toml")

def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()][:1000]


def _workspaces(text: str) -> dict[str, Any]:
    names, current = [], None
    for line in _lines(text):
        name = line.removeprefix("* ").strip()
        if line.startswith("* "):
            current = name
        names.append(name)
    return {"workspaces": names, "current": current}


_LOCK_INFO = lazy(r"\b(ID|Operation|Who|Created):\s+(\S+(?: \S+ \S+ \S+(?= Info:))?)")
# one boxed diagnostic at a time
_BLOCKS = Spec.from_toml(os.path.join(os.path.dirname(__file__), "terraform.blocks.toml"))
_PARSERS: dict[str, Parser] = {
    "plan": lambda run: tp.plan(run.stdout_text),
    "apply": lambda run: tp.applied(run.stdout_text),
    "destroy": lambda run: tp.applied(run.stdout_text),
    "output": lambda run: tp.outputs(run.stdout_text, run.argv),
    "version": lambda run: tp.version(run.stdout_text),
    "init": lambda run: tp.init(run.stdout_text),
    "validate": lambda run: tp.validate(run.stdout_text),
    "state list": lambda run: {"resources": _lines(run.stdout_text)},
    "workspace list": lambda run: _workspaces(run.stdout_text),
    "workspace show": lambda run: {"workspace": run.stdout_text.strip()},
    "fmt": lambda run: {"files": _lines(run.stdout_text)},
}


def _saved_plan(argv: list[str], sub: str) -> list[CodeAction]:
    """`terraform plan -out=tfplan` with the same options, then `terraform apply tfplan`."""
    prog = argv[0]
    rest = [a for a in argv[1:] if a not in (sub, "-auto-approve", "-input=false")]
    destroy = ["-destroy"] if sub == "destroy" and "-destroy" not in rest else []
    return [CodeAction(title="Save the plan (read-only) so it can be reviewed and applied exactly",
                       command=(prog, "plan", *destroy, *rest, "-input=false", "-out=tfplan"),
                       applicability="machine_applicable", is_preferred=True),
            CodeAction(title="After reviewing it (`terraform show tfplan`), apply exactly that plan",
                       command=(prog, "apply", "-input=false", "tfplan"), applicability="maybe_incorrect")]


_WRITES_FILE = frozenset({"out", "generate-config-out", "state-out"})
# `fmt` options that only report (or keep it from writing): the fix is the same command without them
_FMT_REPORTS = frozenset({"check", "diff", "list", "write"})
# a plan shows what it would change even when the run then fails (an apply or destroy stopped at its prompt)
_PLANS = frozenset({"plan", "apply", "destroy"})
# -json answers whose data (with the problems) says every fact: their text goes whole to the artifact
_JSON_WHOLE = frozenset({"output", "validate"})
# -json documents that print the values the configuration marks sensitive (and say which they are)
_SENSITIVE_JSON = frozenset({"output", "show"})
# the state itself, JSON without -json: every value in clear, the sensitive ones marked (outputs'
# `"sensitive": true`, each resource instance's `sensitive_attributes` paths)
_STATE_JSON = frozenset({"state pull"})
# the state for a person: `(sensitive value)` where terraform knows, in clear where a provider copied it
_STATE_SHOWN = frozenset({"show", "state show"})


def _one_output(argv: list[str] | tuple[str, ...]) -> str | None:
    """NAME of `terraform output [-raw|-json] NAME`: the one value it prints bare, sensitive or not."""
    words = [a for a in argv[1:] if not a.startswith("-")]
    return words[1] if len(words) > 1 and words[0] == "output" else None


def _one_output_secrets(run: CapturedRun) -> tuple[str, ...]:
    """The value `output NAME` printed, when the state marks NAME sensitive or cannot be read to say (a
    remote backend): the text says neither. A replay's folder is not this machine's (its fixture holds no
    secret: capture hid it)."""
    name = _one_output(run.argv)
    if name is None or run.cwd is None or run.failed:
        return ()
    state = _terraform_state.outputs(run.argv, run.cwd)
    entry = state.get(name) if state is not None else None
    if state is not None and not (isinstance(entry, dict) and entry.get("sensitive")):
        return ()
    printed = run.stdout_text.strip()
    values: list[Any] = [entry.get("value")] if isinstance(entry, dict) else []
    if "-json" in run.argv:
        with contextlib.suppress(ValueError):
            values.append(json.loads(printed))
    # `output NAME` writes a string as HCL does: JSON's escapes, and `${`/`%{` doubled
    hcl = [f.replace("${", "$${").replace("%{", "%%{") for f in secret_forms(*values)]
    return tuple(dict.fromkeys(f for f in (*secret_forms(*values), *hcl, printed) if f))


def _state_secrets(run: CapturedRun) -> tuple[str, ...]:
    """`show` and `state show` of the local state: the values it marks sensitive, read from the state file
    (live runs only: a replay's folder is not this machine's)."""
    if run.subcommand not in _STATE_SHOWN or "-json" in run.argv or run.cwd is None:
        return ()
    return secret_forms(*tp.marked(_terraform_state.document(run.argv, run.cwd)))


def _fmt_command(argv: list[str]) -> tuple[str, ...]:
    """The caller's `fmt` as one that rewrites: its targets, -recursive and -chdir kept; -check and kin gone."""
    return tuple(a for a in argv if not _reports_only(a))


def _reports_only(arg: str) -> bool:
    return arg.startswith("-") and arg.lstrip("-").partition("=")[0] in _FMT_REPORTS


def _with_fmt_fix(problem: Problem, argv: list[str]) -> Problem:
    command = _fmt_command(argv)
    actions = tuple(a._replace(command=command) if a.command and "fmt" in a.command else a
                    for a in problem.code_actions)
    return problem._replace(code_actions=actions)


def _counted(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _listed(prog: str, sub: str, data: dict[str, Any]) -> str | None:
    """The summary of a read command: how many outputs, resources or workspaces it listed."""
    if isinstance(data.get("outputs"), dict):
        return f"{prog} output: {_counted(len(data['outputs']), 'output')}"
    if "name" in data and sub == "output":
        return f"{prog} output: the value of {data['name']}"
    if sub == "state list" and isinstance(data.get("resources"), list):
        return f"{prog} state list: {_counted(len(data['resources']), 'resource')}"
    if sub == "workspace list" and isinstance(data.get("workspaces"), list):
        listed = _counted(len(data["workspaces"]), "workspace")
        return f"{prog} workspace list: {listed}, {data.get('current')} selected"
    if sub == "workspace show" and data.get("workspace"):
        return f"{prog} workspace show: {data['workspace']}"
    return None


class TerraformAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)
    # the block rules' codes, declared where `explain` and docs/problems.md read them, beside the spec's
    codes = tuple(_BLOCKS.declarations())

    def effects(self, argv: list[str]) -> Effects:
        found = super().effects(argv)
        # `plan -out=FILE` saves the plan, `-generate-config-out=FILE` writes HCL: local files only
        writes = any(a.lstrip("-").partition("=")[0] in _WRITES_FILE for a in argv[1:] if a.startswith("-"))
        return found._replace(read_only=False) if found.read_only and writes else found

    def interpret(self, run: CapturedRun) -> Interpretation:
        if run.exit_code == 2 and run.signal is None and (run.subcommand or "") == "plan" \
                and "-detailed-exitcode" in run.argv:
            run = dataclasses.replace(run, exit_code=0)  # 2 is "succeeded, and there are changes" here
        found = super().interpret(run)
        marked = tp.sensitive(run.stdout_text) if "-json" in run.argv or run.subcommand in _STATE_JSON else []
        secrets = (*secret_forms(*marked), *_one_output_secrets(run), *_state_secrets(run))
        return found.replace(secrets=secrets) if secrets else found

    def presentation(self, argv: list[str]) -> Presentation:
        """`output -json` and `validate -json` are parsed whole: their text goes to the artifact, never cut
        line by line into something that is no longer JSON; and output's data withholds the values the
        configuration marked sensitive, which terraform's -json prints."""
        shown = super().presentation(argv)
        sub = self.subcommand(argv)
        if sub in _SENSITIVE_JSON and "-json" in argv or sub in _STATE_JSON | _STATE_SHOWN or _one_output(argv):
            shown = dataclasses.replace(shown, names_secrets=True)  # values marked sensitive, hidden after
        if self.subcommand(argv) in _JSON_WHOLE and "-json" in argv:
            return dataclasses.replace(shown, parsed_whole=True)
        return shown

    def parse(self, run: CapturedRun) -> Any:
        sub = run.subcommand or ""
        parser = _PARSERS.get(sub) or _PARSERS.get(sub.split(" ")[0])
        if parser is None:
            return None
        if run.failed:
            # what the plan shown before the failure would have changed (`destroy` at its prompt)
            # and the counts of `validate -json`, whose diagnostics are the problems
            shown = sub in _PLANS or (sub == "validate" and "-json" in run.argv)
            found = parser(run) if shown else None
            return found or None
        return parser(run)

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        prog = run.argv[0].rsplit("/", 1)[-1]
        if "applied" in data:
            done = ", ".join(f"{v} {k}" for k, v in data["applied"].items())
            return f"{prog} {run.subcommand}: {done}"
        if "changes" in data:
            c = data["changes"]
            if data.get("no_changes"):
                return f"{prog} plan: no changes"
            return f"{prog} plan: {c['add']} to add, {c['change']} to change, {c['destroy']} to destroy"
        if "valid" in data:
            return f"{prog} validate: the configuration is {'valid' if data['valid'] else 'invalid'}"
        return _listed(prog, run.subcommand or "", data)

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        fix, actions = super().prompt_help(argv, prompt, input_kind)
        sub = self.subcommand(argv) or ""
        if sub in ("apply", "destroy") and not any(a.endswith("tfplan") or a.endswith(".tfplan") for a in argv[2:]):
            actions = [*_saved_plan(argv, sub), *actions]
        return fix, actions

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        found = super().find_problems(run)
        return [_with_fmt_fix(p, list(run.argv)) if p.code == "TERRAFORM_FMT_NEEDED" else p for p in found]

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        """One problem per terraform diagnostic (boxed, plain or -json), matched against terraform.blocks.toml."""
        found = tp.json_diagnostics(tp.json_values(run.stdout_text))
        if not found:
            found = tp.diagnostics(run.stderr_text) + tp.diagnostics(run.stdout_text)
        problems = []
        sub = (run.subcommand or "").split(" ")[0]
        read_only = self.effects(list(run.argv)).read_only is True
        for diag in found:
            text = diag.text()
            for rule in _BLOCKS.rules:
                if rule.subcommands is not None and sub not in rule.subcommands:
                    continue
                match = rule.pattern.search(text)
                if match is None or (rule.severity == "error") != (diag.severity == "error"):
                    continue
                problem = _BLOCKS.problem(rule, match, run)
                problems.append(_finish(problem, diag, rule.detail is None, read_only, list(run.argv), sub))
                break
        return problems


def _finish(problem: Problem, diag: tp.Diagnostic, default_detail: bool, read_only: bool, argv: list[str],
            sub: str) -> Problem:
    """The block's own location, words and evidence; actions that depend on the invocation."""
    changes: dict[str, Any] = {"location": diag.location(), "extra": _evidence(problem, diag)}
    full = diag.summary + (f": {diag.detail}" if diag.detail else "")
    if default_detail:
        changes["detail"] = full[:1000]
    holds_detail = default_detail and len(full) <= 1000 and problem.code != "TERRAFORM_STATE_LOCKED"
    if diag.framing:  # the problem stands for the lines it holds: the text need not say them again
        changes["matched"] = "\n".join([*diag.framing, *(diag.body if holds_detail else ())])
    if problem.code == "TERRAFORM_WARNING":
        changes["suggested_fix"] = None  # "read the detail" says nothing: the detail is the warning
    if problem.code == "TERRAFORM_ERROR" and read_only:
        # a read-only command changed nothing, whatever failed: running it again is harmless
        changes.update(safe_to_retry=True, suggested_fix=_READ_ONLY_FIX)
    actions = list(problem.code_actions)
    if problem.code == "TERRAFORM_STATE_LOCKED":
        info = dict(_LOCK_INFO.findall(diag.detail))
        held = ", ".join(f"{k.lower()} {info[k]}" for k in ("Operation", "Who", "Created") if info.get(k))
        changes["detail"] = f"the state is locked by another run (lock ID {info.get('ID', 'unknown')}" + (
            f"; {held})" if held else ")")
    if problem.code == "TERRAFORM_STATE_LOCKED" and read_only and actions:
        actions[0] = actions[0]._replace(applicability="machine_applicable")  # waiting, then reading: harmless
    if problem.code == "TERRAFORM_APPROVAL_REQUIRED" and sub in ("apply", "destroy"):
        actions = [*_saved_plan(argv, sub), CodeAction(
            title="Approve without a prompt (only after reviewing the plan)",
            command=(*argv, "-auto-approve"), applicability="maybe_incorrect")]
    changes["code_actions"] = tuple(actions)
    return problem._replace(**changes)


_READ_ONLY_FIX = "Read the error's detail: this command changes nothing, so run it again once its cause is gone."


def _evidence(problem: Problem, diag: tp.Diagnostic) -> dict[str, Any] | None:
    extra = dict(problem.extra or {})
    if diag.context:
        extra["context"] = diag.context
    if diag.evidence:
        extra["evidence"] = list(diag.evidence)
    return extra or None


ADAPTER: Adapter = TerraformAdapter()
