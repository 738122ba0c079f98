"""kubectl through agentwrap, end to end, without a cluster: the real kubectl against nothing (no kubeconfig, a
refused port) and against a tiny stand-in API server on 127.0.0.1 that answers like the real one (discovery
documents, Tables, and Status objects for 404/403)."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import aw

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")


def _pod(name: str, phase: str, ready: bool, restarts: int) -> dict:
    state = {"running": {}} if ready else {"waiting": {"reason": "CrashLoopBackOff"}}
    return {"kind": "Pod", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "resourceVersion": "7",
                         "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            "status": {"phase": phase, "containerStatuses": [{"name": "app", "ready": ready, "restartCount": restarts,
                                                               "image": "nginx", "imageID": "", "state": state}]}}


RESOURCES = {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
    {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod", "shortNames": ["po"],
     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}]}


class FakeAPI(BaseHTTPRequestHandler):
    pods: dict[str, dict] = {}

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _status(self, code: int, reason: str, message: str) -> None:
        self._send(code, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "message": message, "reason": reason, "code": code})

    def _any(self) -> None:
        url = urlsplit(self.path)
        path = url.path.rstrip("/")
        selector = (parse_qs(url.query).get("fieldSelector") or [""])[0]
        if path == "/api":
            return self._send(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
        if path == "/apis":
            return self._send(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": []})
        if path == "/api/v1":
            return self._send(200, RESOURCES)
        parts = path.split("/")
        if len(parts) < 6 or parts[5] != "pods":
            return self._status(404, "NotFound", "the server could not find the requested resource")
        namespace, name = parts[4], (parts[6] if len(parts) > 6 else None)
        if namespace == "kube-system":
            return self._status(403, "Forbidden", 'pods is forbidden: User "system:serviceaccount:default:agent" '
                                'cannot list resource "pods" in API group "" in the namespace "kube-system"')
        if name is None:
            items = [p for n, p in self.pods.items() if not selector or selector == f"metadata.name={n}"]
            if "as=Table" in self.headers.get("Accept", ""):
                cols = [{"name": c, "type": "string", "format": "", "description": "", "priority": 0}
                        for c in ("Name", "Ready", "Status", "Restarts", "Age")]
                rows = [{"cells": [p["metadata"]["name"], f"{int(p['status']['containerStatuses'][0]['ready'])}/1",
                                   p["status"]["phase"], p["status"]["containerStatuses"][0]["restartCount"], "5m"],
                         "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                    "metadata": p["metadata"]}} for p in items]
                return self._send(200, {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
                                        "columnDefinitions": cols, "rows": rows})
            return self._send(200, {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items})
        if name not in self.pods:
            return self._status(404, "NotFound", f'pods "{name}" not found')
        if self.command == "DELETE":
            return self._send(200, self.pods.pop(name))
        return self._send(200, self.pods[name])

    do_GET = do_DELETE = do_PATCH = do_POST = _any


@pytest.fixture
def server() -> Iterator[str]:
    FakeAPI.pods = {"web": _pod("web", "Running", True, 0), "worker": _pod("worker", "Pending", False, 3)}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeAPI)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def home(tmp_path) -> dict[str, str]:
    """No kubeconfig anywhere: an empty HOME and no KUBECONFIG."""
    return {"HOME": str(tmp_path), "KUBECONFIG": str(tmp_path / "no-such-kubeconfig")}


def test_no_kubeconfig_is_a_precondition_not_a_network_blip(home):
    error = aw("--", "kubectl", "get", "pods", env=home).error
    assert error["code"] == "KUBECTL_NO_CONFIGURATION" and error["category"] == "precondition"
    assert error["code_actions"][0]["command"] == ["kubectl", "config", "get-contexts"]


def test_refused_server_is_unreachable_and_safe_to_retry(home):
    error = aw("--", "kubectl", "--server", "http://127.0.0.1:9", "get", "pods", env=home).error
    assert error["code"] == "KUBECTL_CLUSTER_UNREACHABLE"
    assert error["category"] == "network" and error["retryable"] is True and error["safe_to_retry"] is True


def test_get_table_and_json_become_rows(server, home):
    table = aw("--", "kubectl", "--server", server, "get", "pods", env=home).env
    assert table["data"]["items"] == [
        {"name": "web", "ready": "1/1", "status": "Running", "restarts": "0", "age": "5m"},
        {"name": "worker", "ready": "0/1", "status": "Pending", "restarts": "3", "age": "5m"}]
    as_json = aw("--", "kubectl", "--server", server, "get", "pods", "-o", "json", env=home).env["data"]
    assert as_json["count"] == 2
    assert as_json["items"][1] == {"kind": "Pod", "name": "worker", "namespace": "default", "phase": "Pending",
                                   "ready": "0/1", "restarts": 3, "waiting": ["CrashLoopBackOff"]}


def test_not_found_and_forbidden_name_the_cause(server, home):
    missing = aw("--", "kubectl", "--server", server, "get", "pod", "nope", env=home).error
    assert missing["code"] == "KUBECTL_NOT_FOUND" and missing["detail"] == 'pods "nope" not found'
    listing = missing["code_actions"][0]
    assert listing["command"] == ["kubectl", "--server", server, "get", "pods"]
    assert aw("--", *listing["command"], env=home).env["data"]["count"] == 2
    forbidden = aw("--", "kubectl", "--server", server, "-n", "kube-system", "get", "pods", env=home).error
    assert forbidden["code"] == "KUBECTL_FORBIDDEN" and forbidden["category"] == "authorization"
    assert forbidden["code_actions"][0]["command"] == ["kubectl", "--server", server, "-n", "kube-system", "auth",
                                                       "can-i", "list", "pods"]


def test_unknown_resource_type(server, home):
    error = aw("--", "kubectl", "--server", server, "get", "gizmos", env=home).error
    assert error["code"] == "KUBECTL_UNKNOWN_RESOURCE_TYPE"
    assert error["code_actions"][0]["command"][-1] == "api-resources"


def test_delete_reports_the_effect_and_a_second_delete_offers_ignore_not_found(server, home):
    done = aw("--", "kubectl", "--server", server, "delete", "pod", "web", env=home).env
    assert done["status"] == "success"
    assert done["effects"] == [{"resource": "pod/web", "action": "delete"}]
    again = aw("--", "kubectl", "--server", server, "delete", "pod", "web", env=home).error
    assert again["code"] == "KUBECTL_NOT_FOUND"
    fix = again["code_actions"][0]
    assert fix["command"][-1] == "--ignore-not-found" and fix["applicability"] == "machine_applicable"
    assert aw("--", *fix["command"], env=home).env["status"] == "success"


def test_edit_asks_for_an_editor_and_gets_patch_and_apply(server, home):
    error = aw("--", "kubectl", "--server", server, "edit", "pod", "worker", env=home).error
    assert error["code"] == "INPUT_REQUIRED" and error["input_kind"] == "editor"
    patch, get_yaml, apply = error["code_actions"][:3]
    assert patch["command"][:5] == ["kubectl", "--server", server, "patch", "pod"]
    assert patch["applicability"] == "has_placeholders"
    assert get_yaml["command"] == ["kubectl", "--server", server, "get", "pod", "worker", "-o", "yaml"]
    assert apply["command"][-2:] == ["-f", "<FILE>"]


@pytest.mark.parametrize(("argv", "read_only", "destructive"), [
    (["kubectl", "get", "pods"], True, False),
    (["kubectl", "-n", "prod", "describe", "pod", "x"], True, False),
    (["kubectl", "--context", "c", "logs", "x"], True, False),
    (["kubectl", "apply", "-f", "x.yaml"], False, False),
    (["kubectl", "delete", "pod", "x"], False, True),
    (["kubectl", "config", "view"], True, False),
    (["kubectl", "rollout", "restart", "deploy/x"], False, False),
    (["kubectl", "exec", "x", "--", "ls"], None, None),
])
def test_effects_per_verb(argv, read_only, destructive):
    from agentwrap import registry

    effects = registry.find("kubectl")[0].effects(argv)
    assert (effects.read_only, effects.destructive) == (read_only, destructive)


def test_no_resources_is_an_empty_list_not_a_failure():
    from agentwrap.adapters import _kubectl_parse as kp

    assert kp.get("", "No resources found in default namespace.\n", ("kubectl", "get", "pods")) == {
        "count": 0, "items": []}
