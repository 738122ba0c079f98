"""docker (and `docker compose`): daemon-unreachable, socket permission, registry, port and name conflicts as
problems; ps/images/ls tables and --format json as data; prune prompts answered with -f.

Python rather than TOML: the listings are parsed into `data`, `docker --version` has no subcommand, and the
alternative to an interactive `docker run -it` / `exec -it` is built from the original command line.
"""

from __future__ import annotations

from typing import Any

from agentwrap.adapters import _docker_parse as dp
from agentwrap.adapters._docker_rules import RULES
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, CodeAction, Effects, Problem, Spec

_RO = {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}
_MUT = {"read_only": False, "destructive": False, "idempotent": True, "open_world": False}
_ONCE = {**_MUT, "idempotent": False}
_DEL = {"read_only": False, "destructive": True, "idempotent": True, "open_world": False}
_NET = {"read_only": False, "destructive": False, "idempotent": True, "open_world": True}
_GROUPS = ["compose", "container", "image", "volume", "network", "system", "builder", "buildx", "context", "plugin",
           "manifest", "trust", "swarm", "node", "service", "stack", "secret", "config"]
_READ = ["ps", "images", "inspect", "logs", "version", "info", "top", "stats", "port", "diff", "history", "events",
         "container ls", "container ps", "container list", "container inspect", "container logs", "container top",
         "container stats", "container port", "container diff", "image ls", "image list", "image inspect",
         "image history", "volume ls", "volume list", "volume inspect", "network ls", "network list",
         "network inspect", "context ls", "context list", "context inspect", "context show", "system df",
         "system info", "system events", "compose ps", "compose ls", "compose logs", "compose config",
         "compose images", "compose top", "compose version", "compose port", "buildx ls", "buildx inspect",
         "plugin ls", "builder ls", "manifest inspect", "service ls", "service ps", "service inspect",
         "service logs", "stack ls", "stack ps", "stack services", "node ls", "node inspect", "secret ls",
         "config ls"]
_PRUNE = ["system prune", "image prune", "container prune", "volume prune", "network prune", "builder prune",
          "buildx prune"]
_REMOVE = ["rm", "rmi", "container rm", "image rm", "volume rm", "network rm", "context rm", "compose down",
           "compose rm", "service rm", "stack rm", "secret rm", "config rm", "plugin rm", "buildx rm"]

SPEC: dict[str, Any] = {
    "name": "docker",
    "matches": ["docker"],
    "descriptor": {
        "purpose": "Run and manage containers and images with the docker CLI (and docker compose).",
        "use_when": "Listing, running, building, pulling or removing containers and images on a Docker daemon.",
        "do_not_use_when": "You need an interactive shell in a container (`docker exec -it`): run one command "
                           "instead (`docker exec NAME CMD`).",
        "returns": "data: ps/images/ls rows (table or --format json), inspect summaries, run -d container id; "
                   "problems: daemon unreachable, socket permission, image/registry, port and name conflicts.",
        "limitations": "Build output is not parsed step by step (the failing step's file and line are); compose "
                       "service logs are plain text.",
    },
    # BuildKit writes plain step logs instead of a redrawing tree; no CLI hints; compose up shows no key menu.
    "env": {"DOCKER_CLI_HINTS": "false", "BUILDKIT_PROGRESS": "plain", "COMPOSE_MENU": "false",
            "COMPOSE_ANSI": "never"},
    "global_options_with_value": ["-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert",
                                  "--tlscert", "--tlskey", "-f", "--file", "-p", "--project-name",
                                  "--project-directory", "--profile", "--env-file", "--ansi", "--progress"],
    "nested_subcommands": _GROUPS,
    "effects": {
        "default": {"read_only": False, "open_world": False},
        **{s: _RO for s in _READ},
        "search": {**_RO, "open_world": True},
        **{s: _DEL for s in _PRUNE + _REMOVE},
        **{s: _MUT for s in ("start", "stop", "restart", "pause", "unpause", "kill", "tag", "rename", "update",
                             "container start", "container stop", "container restart", "container kill",
                             "image tag", "compose start", "compose stop", "compose restart", "compose kill",
                             "compose pause", "compose unpause", "context use", "network connect",
                             "network disconnect")},
        **{s: _ONCE for s in ("create", "commit", "cp", "exec", "container create", "container exec",
                              "container commit", "volume create", "network create", "context create",
                              "compose exec", "compose create", "compose cp", "image import", "load", "import",
                              "save", "export")},
        "run": {**_ONCE, "open_world": True}, "container run": {**_ONCE, "open_world": True},
        "compose run": {**_ONCE, "open_world": True},
        **{s: _NET for s in ("pull", "push", "build", "login", "logout", "image pull", "image push", "image build",
                             "buildx build", "compose up", "compose pull", "compose push", "compose build",
                             "builder build", "manifest push")},
        "attach": {"open_world": False}, "container attach": {"open_world": False},
    },
    "prompts": [
        {"pattern": r"Are you sure you want to continue\?|\[y/N\]|Are you sure\? \[yN\]",
         "subcommands": ["system", "image", "container", "volume", "network", "builder", "buildx", "compose"],
         "suggested_fix": "docker asks before deleting; once the command's WARNING lists what you intend to remove, "
                          "re-run it with -f/--force.",
         "code_actions": [{"title": "Remove without the confirmation prompt (deletes what the warning listed)",
                           "command": ["{prog}", "{args...}", "--force"], "applicability": "maybe_incorrect"}]},
        {"pattern": r"Username|Password", "subcommands": ["login"],
         "suggested_fix": "Give docker login the credentials without a prompt: `-u USER --password-stdin` with the "
                          "token on standard input (agentwrap --stdin FILE), or a credential helper.",
         "code_actions": [{"title": "Log in with a token on standard input (replace <TOKEN_FILE> and <USER>)",
                           "command": ["agentwrap", "--stdin", "<TOKEN_FILE>", "--", "{prog}", "{args...}", "-u",
                                       "<USER>", "--password-stdin"], "applicability": "has_placeholders"}]},
        {"pattern": r".", "subcommands": ["run", "exec", "attach", "container", "compose"],
         "suggested_fix": "The container is waiting for typed input (-i/-t): run one command non-interactively "
                          "instead, without -i and -t (`docker exec NAME CMD ARGS`)."},
    ],
    "rules": RULES,
}

_LISTINGS = frozenset({"ps", "images", "container ls", "container ps", "container list", "image ls", "image list",
                       "volume ls", "volume list", "network ls", "network list", "context ls", "context list",
                       "compose ps", "compose ls", "compose images", "system df", "plugin ls", "builder ls",
                       "buildx ls", "service ls", "stack ls", "node ls", "secret ls", "config ls"})
_INTERACTIVE = frozenset({"-i", "-t", "-it", "-ti", "--interactive", "--tty"})
_CONNECTION = frozenset({"-H", "--host", "-c", "--context", "--config"})


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


class DockerAdapter(BaseAdapter):
    spec = Spec.from_dict(SPEC, __file__)

    def effects(self, argv: list[str]) -> Effects:
        if self.subcommand(argv) is None and any(a in ("--version", "-v", "--help", "-h") for a in argv[1:]):
            return Effects(**_RO)
        return super().effects(argv)

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
        problems = [*self.diagnostics(run), *self.spec.match_rules(run, one_per_line=True)]
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
        if sub.split(" ")[-1] in ("run", "exec", "attach") and any(a in _INTERACTIVE for a in argv):
            kept = tuple(a for a in argv if a not in _INTERACTIVE)
            actions.insert(0, CodeAction(title="Run without -i/-t (give the command to run as arguments)",
                                         command=kept, applicability="maybe_incorrect"))
        return fix, actions


ADAPTER: Adapter = DockerAdapter()
