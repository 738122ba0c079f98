"""docker's problem rules (the CLI's own errors and the daemon's `Error response from daemon:` answers).
Order matters: the first error found decides the run, so specific daemon answers precede the catch-all.
"""

from __future__ import annotations

from typing import Any

from agentwrap.spec import rule as _rule

_DOCS = "https://docs.docker.com/"
_LOGIN = {"title": "Log in to the registry without a prompt (token on stdin; replace <USER> and <REGISTRY>)",
          "command": ["agentwrap", "--stdin", "<TOKEN_FILE>", "--", "docker", "login", "-u", "<USER>",
                      "--password-stdin", "<REGISTRY>"], "applicability": "has_placeholders"}




RULES: list[dict[str, Any]] = [
    _rule("DOCKER_SOCKET_PERMISSION_DENIED",
          r"^(?:docker: )?permission denied while trying to connect to the Docker daemon socket at (?P<host>[^\s:]+:"
          r"//[^\s:]+)", "No permission to use the Docker daemon socket", "authorization", 403, False, True,
          "This user may not use {host}: add it to the `docker` group (`sudo usermod -aG docker $USER`, then log in "
          "again), use rootless Docker, or run docker with sudo.",
          detail="permission denied on the Docker daemon socket {host}",
          docs_url=_DOCS + "engine/install/linux-postinstall/",
          code_actions=[{"title": "Add a user to the docker group (replace <USER>; takes effect at the next login)",
                         "command": ["sudo", "usermod", "-aG", "docker", "<USER>"],
                         "applicability": "has_placeholders"}]),
    _rule("DOCKER_DAEMON_UNREACHABLE",
          r"^(?:docker: )?(?:Cannot connect to the Docker daemon at (?P<host>\S+?)\.? Is the docker daemon running\?"
          r"|failed to connect to the docker API at (?P<api>[^\s;]+)|error during connect: .*)",
          "Docker daemon not reachable", "dependency", 503, True, True,
          "No Docker daemon answers at the configured endpoint: start it (`sudo systemctl start docker`, or Docker "
          "Desktop), or point the CLI at a running one (DOCKER_HOST, `docker context use NAME`).",
          detail="the Docker daemon is not reachable: {match}", docs_url=_DOCS + "engine/daemon/start/",
          code_actions=[{"title": "Show the configured daemon endpoints (docker contexts)",
                         "command": ["docker", "context", "ls"], "applicability": "machine_applicable"},
                        {"title": "Start the Docker daemon (systemd hosts; needs root)",
                         "command": ["sudo", "systemctl", "start", "docker"], "applicability": "maybe_incorrect"}]),
    _rule("DOCKER_RATE_LIMITED",
          r"^.*\btoomanyrequests: (?P<message>.+)$", "Registry pull rate limit", "rate_limit", 429, True, True,
          "The registry's pull rate limit was reached: wait, log in (authenticated pulls have higher limits) or use "
          "a mirror.", docs_url=_DOCS + "docker-hub/download-rate-limit/", code_actions=[_LOGIN]),
    _rule("DOCKER_PULL_ACCESS_DENIED",
          r"^.*\bpull access denied for (?P<image>[^,\s]+), repository does not exist or may require 'docker login'.*$",
          "Image not found or access denied", "not_found", 404, False, True,
          "The registry has no image '{image}' that this client may pull: check the name and tag (a typo is the "
          "usual cause); if it is private, `docker login` to its registry first.",
          detail="cannot pull {image}: the repository does not exist or needs `docker login`",
          code_actions=[_LOGIN]),
    _rule("DOCKER_IMAGE_NOT_FOUND",
          r"^.*\b(?:manifest for (?P<image>\S+) not found: manifest unknown|No such image: (?P<local>[^\s\"]+)).*$",
          "Image not found", "not_found", 404, False, True,
          "No such image (or tag): check the name and tag; `docker images` lists local images.",
          code_actions=[{"title": "List local images", "command": ["docker", "images"],
                         "applicability": "machine_applicable"}]),
    _rule("DOCKER_UNAUTHORIZED",
          r"^.*\b(?:unauthorized: (?:authentication required|incorrect username or password)[^\n]*|no basic auth "
          r"credentials|denied: requested access to the resource is denied|unauthorized: access token has "
          r"insufficient scopes)\b.*$", "Registry authentication required", "authentication", 401, True, True,
          "The registry needs credentials this client does not have (or has wrong): `docker login REGISTRY` with a "
          "token that may push/pull this repository.", docs_url=_DOCS + "reference/cli/docker/login/",
          code_actions=[_LOGIN]),
    _rule("DOCKER_NO_SUCH_CONTAINER", r"^.*\bNo such container: (?P<container>[^\s\"]+).*$", "No such container",
          "not_found", 404, False, True, "No container '{container}': `docker ps -a` lists them (names and IDs).",
          detail="no such container: {container}",
          code_actions=[{"title": "List all containers", "command": ["docker", "ps", "-a"],
                         "applicability": "machine_applicable"}]),
    _rule("DOCKER_PORT_ALLOCATED",
          r"^.*\bBind for (?P<address>\S*?:(?P<port>\d+)) failed: port is already allocated.*$",
          "Host port already in use", "conflict", 409, True, False,
          "Another container already publishes host port {port}: publish a different one (-p OTHER:CONTAINER) or "
          "stop that container. The failed `docker run` may have left a created container behind (`docker ps -a`).",
          detail="host port {port} is already allocated (bind for {address} failed)",
          code_actions=[{"title": "Show the container publishing port {port}",
                         "command": ["docker", "ps", "--filter", "publish={port}"],
                         "applicability": "machine_applicable"}]),
    _rule("DOCKER_PORT_ALLOCATED",
          r"^.*\blisten tcp[46]? (?P<address>\S*?:(?P<port>\d+)): bind: address already in use.*$",
          "Host port already in use", "conflict", 409, True, False,
          "Another process on the host listens on port {port}: publish a different one (-p OTHER:CONTAINER) or stop "
          "that process (`ss -ltnp` shows it).", detail="host port {port} is already in use ({address})"),
    _rule("DOCKER_NAME_CONFLICT",
          r"^.*\bThe container name \"(?P<name>[^\"]+)\" is already in use by container \"(?P<id>\w+)\".*$",
          "Container name already in use", "conflict", 409, False, True,
          "A container named {name} exists: choose another --name, or remove the old one first.",
          detail="the container name {name} is already in use",
          code_actions=[{"title": "Remove the existing container {name} (its data is lost)",
                         "command": ["docker", "rm", "-f", "{name}"], "applicability": "maybe_incorrect"}]),
    _rule("DOCKER_INVALID_REFERENCE", r"^(?:docker: )?(?:Error response from daemon: )?invalid reference format"
          r"(?:: (?P<reason>.+))?$", "Invalid image reference", "validation", 422, False, True,
          "The image name is malformed: repository names are lower-case, `[REGISTRY/]NAME[:TAG][@DIGEST]`, and an "
          "option placed after the image is read as its command."),
    _rule("DOCKER_PLUGIN_MISSING",
          r"^docker: (?:unknown command: docker |')(?P<plugin>compose|buildx|scout|init|debug)\b.*$",
          "Docker CLI plugin not installed", "dependency", 424, True, True,
          "This docker subcommand is a CLI plugin that is not installed: install it (Debian/Ubuntu: "
          "docker-compose-plugin or docker-buildx-plugin from Docker's repository, or docker-compose-v2).",
          detail="the docker CLI plugin `{plugin}` is not installed", docs_url=_DOCS + "compose/install/linux/"),
    # Without the plugin, `docker compose up -d` fails in docker's own flag parser, before "unknown command".
    _rule("DOCKER_PLUGIN_MISSING",
          r"^(?:docker: )?unknown (?:shorthand )?flag: [^\n]*\n+Usage:\s+docker \[OPTIONS\] COMMAND",
          "Docker CLI plugin not installed", "dependency", 424, True, True,
          "`docker {subcommand}` is a CLI plugin that is not installed (docker parsed its flags itself): install it "
          "(Debian/Ubuntu: docker-compose-plugin or docker-buildx-plugin from Docker's repository, or "
          "docker-compose-v2).", subcommands=["compose", "buildx"],
          detail="the docker CLI plugin for `{subcommand}` is not installed",
          docs_url=_DOCS + "compose/install/linux/"),
    _rule("DOCKER_UNKNOWN_COMMAND",
          r"^docker: (?:unknown command: docker (?P<command>\S+)|'(?P<cmd>[^']+)' is not a docker command).*$",
          "Unknown docker command", "usage", 400, False, True, "Not a docker command: see `docker --help`."),
    _rule("DOCKER_USAGE", r"^(?:docker: )?(?:unknown (?:shorthand )?flag: .*|\"docker \S+\" requires (?:at least |"
          r"exactly )?\d+ arguments?\.?|invalid argument \".*)$", "Invalid docker command line", "usage", 400, False,
          True, "Fix the command line (see `docker COMMAND --help`)."),
    _rule("DOCKER_EXECUTABLE_NOT_FOUND",
          r"^.*\bexec: \"(?P<command>[^\"]+)\": executable file not found in \$PATH.*$",
          "Command not found in the container", "not_found", 404, False, False,
          "The image has no `{command}` on its PATH: use a command the image contains (or an image that has it).",
          detail="the container has no executable {command}"),
    _rule("DOCKER_CONTAINER_NOT_RUNNING", r"^.*\bContainer (?P<container>\w+) is (?:not running|paused|restarting).*$",
          "Container not running", "precondition", 409, True, True,
          "Start the container first (`docker start {container}`) or look at why it stopped (`docker logs`).",
          code_actions=[{"title": "Show the container's last output", "command": ["docker", "logs", "--tail", "50",
                                                                                 "{container}"],
                         "applicability": "machine_applicable"}]),
    _rule("DOCKER_DOCKERFILE_NOT_FOUND",
          r"^.*failed to (?:solve|read dockerfile|compute cache key)[^\n]*?: open (?P<path>[^\s:]*Dockerfile[^\s:]*): "
          r"no such file or directory.*$", "Dockerfile not found", "not_found", 404, False, True,
          "No Dockerfile at {path}: run the build in the folder that has it, or name it with -f PATH."),
    _rule("DOCKER_BUILD_STEP_FAILED",
          r"^(?P<file>[^\s:]*Dockerfile[^\s:]*):(?P<line>\d+)\n-{8,}", "A build step failed", "dependency", 502,
          False, True, "A Dockerfile instruction failed: read the step's output above the error and fix the command "
          "or its inputs.", detail="the build failed at {file} line {line}"),
    _rule("DOCKER_BUILD_STEP_FAILED",
          r"^.*(?:failed to solve: process \"(?P<command>.+)\" did not complete successfully: exit code: "
          r"(?P<status>\d+)|The command '(?P<legacy>.+)' returned a non-zero code: (?P<code>\d+)).*$",
          "A build step failed", "dependency", 502, False, True,
          "A Dockerfile instruction failed: read the step's output above the error and fix the command or its "
          "inputs."),
    _rule("DOCKER_NO_SPACE", r"^.*\bno space left on device\b.*$", "Docker storage is full", "dependency", 507, True,
          False, "Docker's storage is full: remove unused images, containers and build cache (`docker system df` "
          "shows what uses it).",
          code_actions=[{"title": "Show Docker's disk usage", "command": ["docker", "system", "df"],
                         "applicability": "machine_applicable"},
                        {"title": "Remove stopped containers, unused networks, dangling images and build cache",
                         "command": ["docker", "system", "prune", "-f"], "applicability": "maybe_incorrect"}]),
    _rule("DOCKER_DAEMON_ERROR", r"^(?:docker: )?Error response from daemon: (?P<message>.+)$",
          "The Docker daemon refused the request", "dependency", 502, False, False,
          "Read the daemon's message; fix the request (names, options) or the daemon's state, then retry."),
]
