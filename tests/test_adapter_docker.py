"""docker through agentwrap, end to end, without a Docker engine: the real docker CLI against no daemon (the most
common failure), and against a tiny stand-in for the Engine API on 127.0.0.1 (`docker -H tcp://...`) that answers
like dockerd (lists, and the daemon's own error messages)."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

import pytest
from conftest import ROOT, aw

from agentwrap import registry

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="the docker CLI is not installed")

NOW = int(time.time())
CONTAINERS = [{"Id": "3f4e5d6c7b8a" + "0" * 52, "Names": ["/web"], "Image": "nginx:1.27", "ImageID": "",
               "Command": "nginx -g 'daemon off;'", "Created": NOW - 7200, "Labels": {}, "State": "running",
               "Status": "Up 2 hours", "Ports": [{"IP": "0.0.0.0", "PrivatePort": 80, "PublicPort": 8080,
                                                   "Type": "tcp"}], "Mounts": [], "NetworkSettings": {}}]
IMAGES = [{"Id": "sha256:" + "a" * 64, "ParentId": "", "RepoTags": ["nginx:1.27"], "RepoDigests": [],
           "Created": NOW - 86400, "Size": 192000000, "SharedSize": -1, "Labels": {}, "Containers": -1}]


class FakeEngine(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, code: int, body: object) -> None:
        data = body if isinstance(body, bytes) else (json.dumps(body) + "\n").encode()
        self.send_response(code)
        self.send_header("Api-Version", "1.47")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _any(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(size) or b"{}") if size else {}
        path = self.path.split("?")[0]
        if path.startswith("/v1."):
            path = "/" + path.split("/", 2)[2]
        if path == "/_ping":
            return self._send(200, b"OK")
        if path == "/containers/json":
            return self._send(200, CONTAINERS)
        if path == "/images/json":
            return self._send(200, IMAGES)
        if path == "/containers/create":
            if body.get("Image") not in IMAGES[0]["RepoTags"]:
                return self._send(404, {"message": f"No such image: {body.get('Image')}"})
            return self._send(201, {"Id": "c" * 64, "Warnings": []})
        if path.endswith("/wait"):
            return self._send(200, {"StatusCode": 0})
        if path.endswith("/start"):
            return self._send(500, {"message": "driver failed programming external connectivity on endpoint x ("
                                    + "c" * 64 + "): Bind for 0.0.0.0:8080 failed: port is already allocated"})
        if path.startswith("/images/create"):
            image = unquote(self.path.split("fromImage=")[1].split("&")[0]).removeprefix("docker.io/library/")
            return self._send(404, {"message": f"pull access denied for {image}, repository does not exist or may "
                                    "require 'docker login': denied: requested access to the resource is denied"})
        if path.startswith("/containers/"):
            return self._send(404, {"message": f"No such container: {path.split('/')[2]}"})
        return self._send(404, {"message": "page not found"})

    do_GET = do_POST = do_DELETE = do_HEAD = _any


@pytest.fixture
def engine() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeEngine)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_no_daemon_is_named_and_retryable(tmp_path):
    error = aw("--", "docker", "-H", f"unix://{tmp_path}/docker.sock", "ps").error
    assert error["code"] == "DOCKER_DAEMON_UNREACHABLE"
    assert error["retryable"] is True and error["safe_to_retry"] is True
    assert error["code_actions"][0]["command"] == ["docker", "context", "ls"]
    assert all(a["applicability"] != "machine_applicable" for a in error["code_actions"] if a["command"][0] == "sudo")


def test_ps_and_images_become_rows(engine):
    ps = aw("--", "docker", "-H", engine, "ps").env
    assert ps["status"] == "success"
    row = ps["data"]["items"][0]
    assert (row["id"], row["image"], row["names"], row["ports"]) == ("3f4e5d6c7b8a", "nginx:1.27", "web",
                                                                    "0.0.0.0:8080->80/tcp")
    as_json = aw("--", "docker", "-H", engine, "ps", "--format", "json").env["data"]["items"][0]
    assert (as_json["id"], as_json["state"], as_json["names"]) == ("3f4e5d6c7b8a", "running", "web")
    images = aw("--", "docker", "-H", engine, "images").env["data"]
    assert images["items"][0]["repository"] == "nginx" and images["items"][0]["tag"] == "1.27"


def test_daemon_errors_name_the_cause(engine):
    missing = aw("--", "docker", "-H", engine, "rm", "nosuch").error
    assert missing["code"] == "DOCKER_NO_SUCH_CONTAINER" and missing["category"] == "not_found"
    assert missing["code_actions"][0]["command"] == ["docker", "-H", engine, "ps", "-a"]
    pull = aw("--", "docker", "-H", engine, "pull", "nosuchimage").error
    assert pull["code"] == "DOCKER_PULL_ACCESS_DENIED" and "nosuchimage" in pull["detail"]
    port = aw("--", "docker", "-H", engine, "run", "-d", "-p", "8080:80", "nginx:1.27").error
    assert port["code"] == "DOCKER_PORT_ALLOCATED" and port["safe_to_retry"] is False
    assert port["code_actions"][0]["command"][-2:] == ["--filter", "publish=8080"]


def test_invalid_reference_is_caught_client_side():
    error = aw("--", "docker", "run", "UPPER/Case").error
    assert error["code"] == "DOCKER_INVALID_REFERENCE" and error["category"] == "validation"


def test_prune_prompt_is_input_required_with_force(tmp_path):
    answer = aw("--timeout", "20", "--", "docker", "-H", f"unix://{tmp_path}/docker.sock", "system", "prune")
    error = answer.error
    assert error["code"] == "INPUT_REQUIRED" and error["input_kind"] == "confirmation"
    force = error["code_actions"][0]
    assert force["command"][-3:] == ["system", "prune", "--force"] and force["applicability"] == "maybe_incorrect"


@pytest.mark.parametrize(("argv", "read_only", "destructive", "open_world"), [
    (["docker", "ps", "-a"], True, False, False),
    (["docker", "-H", "tcp://h:1", "images"], True, False, False),
    (["docker", "inspect", "web"], True, False, False),
    (["docker", "logs", "web"], True, False, False),
    (["docker", "run", "nginx"], False, False, True),
    (["docker", "build", "."], False, False, True),
    (["docker", "push", "x/y"], False, False, True),
    (["docker", "rm", "web"], False, True, False),
    (["docker", "rmi", "nginx"], False, True, False),
    (["docker", "system", "prune", "-f"], False, True, False),
    (["docker", "compose", "-f", "c.yml", "ps"], True, False, False),
    (["docker", "compose", "down"], False, True, False),
    (["docker", "--version"], True, False, False),
])
def test_effects_per_subcommand(argv, read_only, destructive, open_world):
    from agentwrap import registry

    effects = registry.find("docker")[0].effects(argv)
    assert (effects.read_only, effects.destructive, effects.open_world) == (read_only, destructive, open_world)


def _concise(case_name: str) -> dict:
    from agentwrap import fixtures
    from agentwrap.render import views

    case = next(c for c in fixtures.cases(ROOT / "fixtures") if c.adapter == "docker" and c.name == case_name)
    return views.concise(fixtures.replay_record(registry.builtin("docker"), case))


def test_legacy_builder_missing_dockerfile_is_named_without_the_buildx_notice():
    """A real `docker build .` in a folder without a Dockerfile, no buildx installed (captured): the
    legacy builder's `unable to prepare context ... lstat PATH` is DOCKER_DOCKERFILE_NOT_FOUND with the
    path, not a bare COMMAND_FAILED, and its three-line DEPRECATED notice is no text of the envelope."""
    env = _concise("build-no-dockerfile-legacy")
    assert env["error"]["code"] == "DOCKER_DOCKERFILE_NOT_FOUND"
    assert "-f PATH" in env["error"]["suggested_fix"] and "/Dockerfile" in env["error"]["suggested_fix"]
    assert "output" not in env, env.get("output")


def test_a_usage_pointer_to_help_is_no_text_beside_the_daemon_problem():
    env = _concise("run-daemon-unreachable")
    assert env["error"]["code"] == "DOCKER_DAEMON_UNREACHABLE"
    assert "output" not in env, env.get("output")
