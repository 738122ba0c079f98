"""kubectl with no cluster answering, on captured runs (fixtures/kubectl): the cluster is named as the cause
(never the manifest), kubectl's own line decides, and the discovery cache's repeated klog lines stay out of
the inline text (the artifact keeps them)."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

from agentwrap import fixtures, registry
from agentwrap.render import views


def _replay(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = next(c for c in fixtures.cases(ROOT / "fixtures", "kubectl") if c.name == name)
    record = fixtures.replay_record(registry.builtin("kubectl"), case)
    return record.standard(), views.concise(record)


def _inline(view: dict[str, Any]) -> str:
    return "\n".join(stream["text"] for stream in view.get("output", {}).values())


def test_a_dry_run_that_cannot_reach_the_cluster_does_not_blame_the_manifest():
    for name in ("apply-dry-run-cluster-unreachable", "create-dry-run-cluster-unreachable"):
        env, _ = _replay(name)
        error = env["error"]
        assert error["code"] == "KUBECTL_CLUSTER_UNREACHABLE"
        assert error["retryable"] is True and error["safe_to_retry"] is True
        assert "location" not in error  # good.yaml is not where the fault is
        assert not error["suggested_fix"].startswith("Fix the manifest")
        assert "127.0.0.1:6443" in error["detail"]


def test_diff_without_a_cluster_is_decided_by_kubectls_own_line_and_safe_to_retry():
    env, view = _replay("diff-cluster-unreachable")
    assert [p["code"] for p in env["problems"]] == ["KUBECTL_CLUSTER_UNREACHABLE"]
    error = env["error"]
    assert error["safe_to_retry"] is True  # diff only reads
    assert "memcache.go" not in error["detail"]
    assert "good.yaml" in error["detail"]
    assert "memcache.go" not in _inline(view)


def test_the_repeated_discovery_klog_lines_are_noise_inline_but_kept_whole():
    env, view = _replay("get-pods-no-kubeconfig")
    assert env["output"]["stderr"]["text"].count("memcache.go:265") == 5
    assert "memcache.go" not in _inline(view)
    assert "not shown" not in _inline(view)  # no elision line either: nothing of it is inline
    assert view["error"]["code"] == "KUBECTL_NO_CONFIGURATION"


def test_a_schema_the_server_does_not_serve_is_not_an_invalid_manifest():
    env, _ = _replay("apply-schema-unavailable")
    error = env["error"]
    assert error["code"] == "KUBECTL_SCHEMA_UNAVAILABLE"
    assert error["retryable"] is True
    assert error["code_actions"][0]["command"][-1] == "--validate=false"


def test_rbac_check_for_a_refused_all_namespaces_listing_asks_about_all_namespaces():
    env, _ = _replay("get-pods-all-namespaces-forbidden")
    can_i = env["error"]["code_actions"][0]["command"]
    assert can_i[-4:] == ["can-i", "list", "pods", "--all-namespaces"]
