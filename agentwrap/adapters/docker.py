"""docker (and `docker compose`): daemon-unreachable, socket permission, registry, port and name conflicts as
problems; ps/images/ls tables and --format json as data; prune prompts answered with -f.

Python rather than TOML: the listings are parsed into `data`, `docker --version` has no subcommand, and the
alternative to an interactive `docker run -it` / `exec -it` is built from the original command line.
"""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters import _docker_parse as dp
from agentwrap.lazyre import lazy
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, CodeAction, Effects, Problem, Spec

_RO = {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "docker.spec.toml")

_LISTINGS = frozenset({"ps", "images", "container ls", "container ps", "container list", "image ls", "image list",
                       "volume ls", "volume list", "network ls", "network list", "context ls", "context list",
                       "compose ps", "compose ls", "compose images", "system df", "plugin ls", "builder ls",
                       "buildx ls", "service ls", "stack ls", "node ls", "secret ls", "config ls"})
_INTERACTIVE = frozenset({"-i", "-t", "-it", "-ti", "--interactive", "--tty"})
_CONNECTION = frozenset({"-H", "--host", "-c", "--context", "--config"})
#: A logrus line below warning level: an attempt the client reports in its own words once all have failed.
_PROGRESS_LOG = lazy(r'^time="[^"]*" level=(?:info|debug|trace) ')
#: `docker login`'s credential options, replaced by the non-interactive `-u USER --password-stdin`.
_LOGIN_VALUE = frozenset({"-u", "--username", "-p", "--password"})


def connection(argv: list[str] | tuple[str, ...]) -> list[str]:
    """The daemon-choosing options given before the subcommand (`docker -H tcp://... ps`)."""
    out: list[str] = []
    args = list(argv[1:])
    i = 0
    while i < len(args) and args[i].startswith("-"):
        name = args[i].split("=", 1)[0]
        if name in _CONNECTION and "=" in args[i]:
            out.append(args[i])
        elif args[i] in _CONNECTION and i + 1 < len(args):
            out.extend(args[i:i + 2])
            i += 1
        i += 1
    return out


def _decided_by_own_lines(problems: list[Problem]) -> list[Problem]:
    """Without the problems read from info-level log lines when the client's own lines name one: the log
    reports each attempt (https, then http), the last line the outcome."""
    own = [p for p in problems if not _PROGRESS_LOG.match(p.matched)]
    return own or problems


def _login_without_prompt(argv: list[str]) -> CodeAction:
    """`docker login [-u USER] REGISTRY` with the secret on standard input: the caller's user name kept, never
    a second -u (nor -p PASSWORD, which puts the secret in the process list)."""
    rest: list[str] = []
    user = "<USER>"
    words = iter(argv[1:])
    for word in words:
        name, eq, value = word.partition("=")
        if word in _LOGIN_VALUE:
            value = next(words, "")
        elif not (eq and name in _LOGIN_VALUE) and word != "--password-stdin":
            rest.append(word)
            continue
        if name in ("-u", "--username"):
            user = value
    placeholders = "<TOKEN_FILE>" + (" and <USER>" if user == "<USER>" else "")
    return CodeAction(title=f"Log in with a token on standard input (replace {placeholders})",
                      command=("agentwrap", "--stdin", "<TOKEN_FILE>", "--", argv[0], *rest, "-u", user,
                               "--password-stdin"), applicability="has_placeholders")


class DockerAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)

    def effects(self, argv: list[str]) -> Effects:
        if self.subcommand(argv) is None and any(a in ("--version", "-v", "--help", "-h") for a in argv[1:]):
            return Effects(**_RO)
        found = super().effects(argv)
        sub, args = self.subcommand(argv), argv[1:]
        writes = sub == "compose config" and any(a in ("-o", "--output") or a.startswith("--output=")
                                                  for a in args)
        starts = sub == "buildx inspect" and "--bootstrap" in args  # starts the builder's container
        return found._replace(read_only=False) if found.read_only and (writes or starts) else found

    def parse(self, run: CapturedRun) -> Any:
        if run.failed:
            return None
        sub = run.subcommand or ""
        if not sub and any(a in ("--version", "-v") for a in run.argv[1:]):
            return dp.version(run.stdout_text)
        if sub in _LISTINGS:
            return dp.listing(run.stdout_text)
        if sub in ("inspect", "container inspect", "image inspect", "volume inspect", "network inspect"):
            return dp.inspect(run.stdout_text)
        if sub in ("run", "container run") and ("-d" in run.argv or "--detach" in run.argv):
            return dp.run_detached(run.stdout_text)
        return None

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        if "count" in data:
            return f"docker {run.subcommand}: {data['count']} item{'s' * (data['count'] != 1)}"
        if "container_id" in data:
            return f"docker run: started container {data['container_id'][:12]}"
        if "version" in data:
            return f"Docker CLI {data['version']}"
        return None

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        """One problem per line (the most specific rule's); diagnostic commands offered as code actions ask the
        same daemon as the failed command."""
        assert self.spec is not None
        found = [*self.diagnostics(run), *self.spec.match_rules(run, one_per_line=True)]
        problems = _decided_by_own_lines(found)
        conn = connection(run.argv)
        if not conn:
            return problems
        out = []
        for p in problems:
            actions = tuple(a._replace(command=(a.command[0], *conn, *a.command[1:]))
                            if a.command and a.command[0] == "docker" and a.command[1:2] != ("context",) else a
                            for a in p.code_actions)
            out.append(p._replace(code_actions=actions))
        return out

    def prompt_help(self, argv: list[str], prompt: str, input_kind: str) -> tuple[str | None, list[CodeAction]]:
        fix, actions = super().prompt_help(argv, prompt, input_kind)
        sub = self.subcommand(argv) or ""
        if sub == "login":
            actions = [_login_without_prompt(argv) if "--password-stdin" in (a.command or ()) else a
                       for a in actions]
        if sub.split(" ")[-1] in ("run", "exec", "attach") and any(a in _INTERACTIVE for a in argv):
            kept = tuple(a for a in argv if a not in _INTERACTIVE)
            actions.insert(0, CodeAction(title="Run without -i/-t (give the command to run as arguments)",
                                         command=kept, applicability="maybe_incorrect"))
        return fix, actions


ADAPTER: Adapter = DockerAdapter()
