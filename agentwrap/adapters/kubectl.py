"""kubectl: cluster-unreachable, no-kubeconfig, RBAC, not-found and manifest errors as problems; `get` tables and
`-o json` as data; `created/configured/deleted` lines as effects; kubectl edit's editor turned into patch/apply.

Python rather than TOML: the tables and JSON are parsed into `data`, the alternatives to `kubectl edit` and
`kubectl exec -it` are built from the original command line, and the diagnostic commands offered as code actions
keep the caller's connection options (--server, --context, -n) so they ask the same cluster.
"""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters import _kubectl_parse as kp
from agentwrap.adapters.tables import table
from agentwrap.lazyre import lazy
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Interpretation,
    Parser,
    Presentation,
    Problem,
    Spec,
)

#: Global options that take a value (`kubectl -n ns get pods`); the same ones choose the cluster for code actions.
_WITH_VALUE = ["-n", "--namespace", "--context", "--cluster", "--user", "--kubeconfig", "-s", "--server", "--token",
               "--as", "--as-group", "--as-uid", "--request-timeout", "--certificate-authority",
               "--client-certificate", "--client-key", "--tls-server-name", "--cache-dir", "-v", "--v",
               "--log-file", "--profile", "--profile-output"]
_CONNECTION = frozenset({"-n", "--namespace", "--context", "--cluster", "--user", "--kubeconfig", "-s", "--server",
                         "--as", "--as-group", "--certificate-authority", "--tls-server-name"})
_CONNECTION_FLAGS = frozenset({"--insecure-skip-tls-verify", "--insecure-skip-tls-verify=true"})

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "kubectl.spec.toml")

_PARSERS: dict[str, Parser] = {
    "get": lambda run: kp.get(run.stdout_text, run.stderr_text, run.argv),
    "version": lambda run: kp.version(run.stdout_text),
    "config get-contexts": lambda run: kp.contexts(run.stdout_text),
    "config current-context": lambda run: {"context": run.stdout_text.strip()},
    "api-resources": lambda run: {"items": table(run.stdout_text)},
    "top": lambda run: {"items": table(run.stdout_text)},
}
_CHANGES = frozenset({"apply", "create", "delete", "patch", "scale", "label", "annotate", "replace", "expose",
                      "autoscale", "set", "rollout", "cordon", "uncordon", "drain", "taint", "run", "edit"})
_MISSING = lazy(r'^(?P<kind>[\w.-]+) "(?P<name>[^"]+)" not found')
_INTERACTIVE = frozenset({"-i", "-t", "-it", "-ti", "--stdin", "--tty", "--interactive", "--interactive=true"})
_ALL_NAMESPACES = frozenset({"-A", "--all-namespaces", "--all-namespaces=true"})


def connection(argv: list[str] | tuple[str, ...]) -> list[str]:
    """The options of argv that choose the cluster, user and namespace (never a --token value)."""
    out: list[str] = []
    args = list(argv[1:])
    for i, arg in enumerate(args):
        name = arg.split("=", 1)[0]
        if arg in _CONNECTION_FLAGS or (name in _CONNECTION and "=" in arg):
            out.append(arg)
        elif arg in _CONNECTION and i + 1 < len(args):
            out.extend((arg, args[i + 1]))
        if arg == "--":
            break
    return out


def _positional(argv: list[str], sub: str) -> list[str]:
    """The words after the subcommand that are not options or option values."""
    words: list[str] = []
    args = argv[1:]
    seen_sub = False
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--":
            break
        if arg.startswith("-"):
            skip = arg in _WITH_VALUE or arg in ("-f", "--filename", "-o", "--output", "-l", "--selector")
            continue
        if not seen_sub:
            seen_sub = arg == sub
            continue
        words.append(arg)
    return words


def _in_all_namespaces(action: CodeAction) -> CodeAction:
    """`auth can-i list pods` asks about the current namespace; the refused `get pods -A` asked about all."""
    cmd = action.command or ()
    if "can-i" not in cmd or any(w in _ALL_NAMESPACES for w in cmd):
        return action
    return action._replace(command=(*cmd, "--all-namespaces"))


class KubectlAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)

    def presentation(self, argv: list[str]) -> Presentation:
        shown = super().presentation(argv)
        return shown.replace(names_secrets=True) if kp.names_a_secret(argv) else shown

    def parse(self, run: CapturedRun) -> Any:
        parser = _PARSERS.get(run.subcommand or "")
        if run.failed:
            return None
        if parser is not None:
            return parser(run)
        if (run.subcommand or "").split(" ")[0] in _CHANGES:
            changes = kp.changes(run.stdout_text)
            return {"changes": changes} if changes else None
        return None

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        if "changes" in data:
            return "kubectl " + "; ".join(f"{c['resource']} {c['result']}" for c in data["changes"][:5])
        if "count" in data:
            return f"kubectl {run.subcommand}: {data['count']} item{'s' * (data['count'] != 1)}"
        return None

    def interpret(self, run: CapturedRun) -> Interpretation:
        interp = super().interpret(run)
        # a Secret's data: secret whatever its names say
        secrets = kp.secret_values(run.stdout_text) + kp.picked_values(run.stdout_text, run.argv)
        if secrets:
            interp = interp.replace(secrets=tuple(secrets))
        data = interp.data
        if isinstance(data, dict) and data.get("changes"):
            effects = tuple({"resource": c["resource"], "action": kp.effect_action(c["result"])}
                            for c in data["changes"] if c["result"] != "unchanged")
            return interp._replace(effects=effects)
        return interp

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        assert self.spec is not None
        problems = [*self.diagnostics(run), *self.spec.match_rules(run, one_per_line=True)]
        if len(run.argv) < 2:  # a saved log: no command line to build on
            return problems
        argv = list(run.argv)
        conn = connection(argv)
        idempotent = self.effects(argv).idempotent is True
        out = []
        for p in problems:
            actions = [self._connected(a, conn) for a in p.code_actions]
            if p.code == "KUBECTL_FORBIDDEN" and any(a in _ALL_NAMESPACES for a in argv):
                actions = [_in_all_namespaces(a) for a in actions]
            if p.code == "KUBECTL_CLUSTER_UNREACHABLE" and idempotent:
                p = p._replace(safe_to_retry=True)  # repeating an idempotent request cannot duplicate it
            missing = _MISSING.match(p.detail) if p.code == "KUBECTL_NOT_FOUND" else None
            if missing and missing.group("kind") != "namespaces":
                actions.append(CodeAction(title=f"List the {missing.group('kind')} that exist here",
                                          command=(argv[0], *conn, "get", missing.group("kind")),
                                          applicability="machine_applicable"))
            if p.code == "KUBECTL_NOT_FOUND" and run.subcommand == "delete":
                actions.insert(0, CodeAction(title="Treat an already-absent object as deleted",
                                             command=(*argv, "--ignore-not-found"),
                                             applicability="machine_applicable"))
            if p.code == "KUBECTL_ALREADY_EXISTS" and run.subcommand == "create" and "-f" in argv:
                actions.insert(0, CodeAction(title="Create or update from the same manifest",
                                             command=tuple("apply" if w == "create" else w for w in argv),
                                             applicability="maybe_incorrect", is_preferred=True))
            out.append(p._replace(code_actions=tuple(actions)))
        return out

    @staticmethod
    def _connected(action: CodeAction, conn: list[str]) -> CodeAction:
        """A read-only diagnostic command asks the same cluster as the failed one."""
        cmd = action.command
        if not cmd or not conn or action.applicability != "machine_applicable" or len(cmd) < 2:
            return action
        return action._replace(command=(cmd[0], *conn, *cmd[1:]))

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        fix, actions = super().prompt_help(argv, prompt, input_kind)
        sub = (self.subcommand(argv) or "").split(" ")[0]
        prog, conn = argv[0], connection(argv)
        if sub == "edit":
            words = _positional(argv, "edit")
            target = words[:2] if len(words) >= 2 or not words else words[0].split("/", 1)
            actions = [
                CodeAction(title="Change the object with a merge patch (replace <PATCH_JSON>)",
                           command=(prog, *conn, "patch", *target, "--type", "merge", "-p", "<PATCH_JSON>"),
                           applicability="has_placeholders", is_preferred=True),
                CodeAction(title="Print the current object as YAML (to edit it in a file)",
                           command=(prog, *conn, "get", *target, "-o", "yaml"), applicability="machine_applicable"),
                CodeAction(title="Apply the edited file (replace <FILE>)",
                           command=(prog, *conn, "apply", "-f", "<FILE>"), applicability="has_placeholders"),
                *actions]
        elif sub == "delete" and any(a in _INTERACTIVE for a in argv):
            actions.insert(0, CodeAction(title="Delete without asking (the same selection, no prompt)",
                                         command=tuple(a for a in argv if a not in _INTERACTIVE),
                                         applicability="maybe_incorrect"))
        elif sub in ("exec", "attach", "run", "debug"):
            head = [a for a in argv[:argv.index("--")] if a not in _INTERACTIVE] if "--" in argv else [
                a for a in argv if a not in _INTERACTIVE]
            actions.insert(0, CodeAction(title="Run one command without a terminal (replace <COMMAND>)",
                                         command=(*head, "--", "<COMMAND>"), applicability="has_placeholders"))
        elif "Please enter" in prompt:
            actions.insert(0, CodeAction(title="Authenticate with a bearer token (replace <TOKEN>)",
                                         command=(prog, "--token", "<TOKEN>", *argv[1:]),
                                         applicability="has_placeholders"))
        return fix, actions


ADAPTER: Adapter = KubectlAdapter()
