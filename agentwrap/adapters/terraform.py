"""terraform and OpenTofu (`tofu`): each Error/Warning diagnostic becomes one located problem, plans and applies
become counts and per-resource actions, outputs become data, and the approval prompt gets the saved-plan workflow.

Python rather than TOML: the diagnostics are boxed multi-line blocks (each is matched on its own, so a rule never
reads a neighbour's detail), `-json` output carries the same diagnostics with columns, and the approval prompt's
alternatives are built from the original command line.
"""

from __future__ import annotations

import re
from typing import Any

from agentwrap.adapters import _terraform_parse as tp
from agentwrap.adapters._terraform_rules import BLOCK_RULES, TEXT_RULES
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, CodeAction, Parser, Problem, ProblemCode, Spec, merge_codes

_RO = {"read_only": True, "destructive": False, "idempotent": True}
_LOCAL_RO = {**_RO, "open_world": False}
_WRITES = {"read_only": False, "destructive": False, "idempotent": True}
_APPROVE = ("Only 'yes' will be accepted|Do you want to perform these actions|Do you really want to destroy|"
            "Enter a value")

SPEC: dict[str, Any] = {
    "name": "terraform",
    "matches": ["terraform", "tofu"],
    "descriptor": {
        "purpose": "Plan and apply infrastructure as code (terraform, OpenTofu); each diagnostic is a located problem.",
        "use_when": "Running terraform init/validate/plan/apply/output in a configuration folder.",
        "do_not_use_when": "You only need to read .tf files (read them directly) or query cloud APIs (their own CLIs).",
        "returns": "data: plan counts and per-resource actions, apply results, outputs, validate/version facts; "
                   "problems: each Error/Warning with file and line.",
        "limitations": "Provider API errors are reported as terraform prints them (TERRAFORM_ERROR) unless a rule "
                       "knows them; apply/destroy always need -auto-approve or a saved plan to run unattended.",
    },
    # TF_INPUT=0 (set for every program) stops variable prompts; the approval prompt of apply/destroy cannot be
    # switched off by any variable: it is caught as a prompt and answered with the saved-plan workflow below.
    "env": {"TF_IN_AUTOMATION": "1"},
    "nested_subcommands": ["state", "workspace", "providers"],
    "effects": {
        "default": {"read_only": False, "open_world": True},  # destructive, idempotent: unknown
        "init": {**_WRITES, "open_world": True},
        "get": {**_WRITES, "open_world": True},
        "plan": {**_RO, "open_world": True},
        "validate": _LOCAL_RO, "version": _LOCAL_RO, "output": _LOCAL_RO, "show": _LOCAL_RO, "graph": _LOCAL_RO,
        "console": _LOCAL_RO, "providers": _LOCAL_RO, "providers schema": _LOCAL_RO,
        "providers lock": {**_WRITES, "open_world": True}, "providers mirror": {**_WRITES, "open_world": True},
        "fmt": {**_WRITES, "open_world": False},
        "apply": {"read_only": False, "idempotent": True, "open_world": True},  # destructive when the plan deletes
        "destroy": {"read_only": False, "destructive": True, "idempotent": True, "open_world": True},
        "refresh": {"read_only": False, "destructive": False, "idempotent": True, "open_world": True},
        "import": {"read_only": False, "destructive": False, "idempotent": False, "open_world": True},
        "taint": {**_WRITES, "open_world": False}, "untaint": {**_WRITES, "open_world": False},
        "force-unlock": {**_WRITES, "open_world": True},
        "test": {"read_only": False, "idempotent": False, "open_world": True},
        "login": {**_WRITES, "open_world": True}, "logout": {**_WRITES, "open_world": False},
        "state": {"read_only": False, "destructive": False, "idempotent": False, "open_world": True},
        "state list": _LOCAL_RO, "state show": _LOCAL_RO, "state pull": {**_RO, "open_world": True},
        "state rm": {"read_only": False, "destructive": True, "idempotent": True, "open_world": True},
        "workspace": {**_WRITES, "open_world": True},
        "workspace list": _LOCAL_RO, "workspace show": _LOCAL_RO,
        "workspace delete": {"read_only": False, "destructive": True, "idempotent": True, "open_world": True},
    },
    "prompts": [
        {"pattern": _APPROVE, "subcommands": ["apply"],
         "suggested_fix": "terraform wants a person to approve the plan. Save the plan, review it, and apply exactly "
                          "that file; or re-run with -auto-approve once the plan is what you want.",
         "code_actions": [{"title": "Apply without the approval prompt (only after reviewing the plan above)",
                           "command": ["{prog}", "{args...}", "-auto-approve"], "applicability": "maybe_incorrect"}]},
        {"pattern": _APPROVE, "subcommands": ["destroy"],
         "suggested_fix": "terraform wants a person to confirm destroying every resource. Save a destroy plan, "
                          "review it and apply it, or re-run with -auto-approve when destruction is intended.",
         "code_actions": [{"title": "Destroy without the confirmation prompt (destroys everything in the state)",
                           "command": ["{prog}", "{args...}", "-auto-approve"], "applicability": "maybe_incorrect"}]},
        {"pattern": r"Do you really want to force-unlock", "subcommands": ["force-unlock"],
         "suggested_fix": "Confirm non-interactively with -force, only if the lock holder is certainly gone.",
         "code_actions": [{"title": "Force-unlock without the prompt", "command": ["{prog}", "{args...}", "-force"],
                           "applicability": "maybe_incorrect"}]},
        {"pattern": r"Enter a value|Token for \S+:", "subcommands": ["login"],
         "suggested_fix": "Provide the API token without a prompt: set TF_TOKEN_<host> (dots as underscores) in the "
                          "environment, or a credentials block in the CLI configuration."},
        {"pattern": r"Enter a value",
         "suggested_fix": "terraform asked for a variable value (input was re-enabled): pass every variable with "
                          "-var NAME=VALUE or a -var-file, and keep -input=false.",
         "code_actions": [{"title": "Pass the variable on the command line (replace <NAME> and <VALUE>)",
                           "command": ["{prog}", "{args...}", "-input=false", "-var", "<NAME>=<VALUE>"],
                           "applicability": "has_placeholders"}]},
    ],
    "rules": TEXT_RULES,
}

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


_LOCK_INFO = re.compile(r"\b(ID|Operation|Who|Created):\s+(\S+(?: \S+ \S+ \S+(?= Info:))?)")
_BLOCKS = Spec.from_dict({"name": "terraform", "rules": BLOCK_RULES}, __file__ + ":BLOCK_RULES")
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


class TerraformAdapter(BaseAdapter):
    spec = Spec.from_dict(SPEC, __file__)

    def parse(self, run: CapturedRun) -> Any:
        parser = _PARSERS.get(run.subcommand or "") or _PARSERS.get((run.subcommand or "").split(" ")[0])
        if parser is None or run.failed:
            return None
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
        return None

    def declarations(self) -> list[ProblemCode]:
        return merge_codes(super().declarations(), _BLOCKS.declarations())

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        fix, actions = super().prompt_help(argv, prompt, input_kind)
        sub = self.subcommand(argv) or ""
        if sub in ("apply", "destroy") and not any(a.endswith("tfplan") or a.endswith(".tfplan") for a in argv[2:]):
            actions = [*_saved_plan(argv, sub), *actions]
        return fix, actions

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        """One problem per terraform diagnostic (boxed, plain or -json), matched against BLOCK_RULES."""
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
    """The block's own location and words; actions that depend on the invocation."""
    changes: dict[str, Any] = {"location": diag.location()}
    if default_detail:
        changes["detail"] = (diag.summary + (f": {diag.detail}" if diag.detail else ""))[:1000]
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


ADAPTER: Adapter = TerraformAdapter()
