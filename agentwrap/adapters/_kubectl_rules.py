"""kubectl's problem rules: client-side errors (`error: ...`), API server answers (`Error from server (Reason):`)
and the ways a cluster is unreachable. Order matters: the first error found decides the run.
"""

from __future__ import annotations

from typing import Any

from agentwrap.spec import rule as _rule

_DOCS = "https://kubernetes.io/docs/"
_CONTEXTS = {"title": "List the contexts in your kubeconfig", "command": ["{prog}", "config", "get-contexts"],
             "applicability": "machine_applicable"}




RULES: list[dict[str, Any]] = [
    _rule("KUBECTL_NO_CONFIGURATION",
          r"^The connection to the server localhost:8080 was refused - did you specify the right host or port\?",
          "No cluster configured (no kubeconfig)", "precondition", 412, True, True,
          "kubectl has no kubeconfig, so it tried the built-in default localhost:8080. Point it at a cluster: set "
          "KUBECONFIG (or ~/.kube/config), or pass --kubeconfig FILE / --context NAME.",
          detail="kubectl has no cluster configured (no kubeconfig): it fell back to localhost:8080, where nothing "
                 "listens",
          docs_url=_DOCS + "concepts/configuration/organize-cluster-access-kubeconfig/",
          code_actions=[_CONTEXTS, {"title": "Use a kubeconfig file (replace <KUBECONFIG>)",
                                    "command": ["{prog}", "--kubeconfig", "<KUBECONFIG>", "{args...}"],
                                    "applicability": "has_placeholders"}]),
    _rule("KUBECTL_CLUSTER_UNREACHABLE",
          r"^The connection to the server (?P<server>\S+) was refused - did you specify the right host or port\?",
          "Cluster API server unreachable", "network", 503, True, True,
          "Nothing answered at {server}: check that the cluster is running and that the current context "
          "(`kubectl config current-context`) points at the right server.",
          detail="the connection to the API server {server} was refused", code_actions=[_CONTEXTS]),
    _rule("KUBECTL_TLS_ERROR",
          r"^Unable to connect to the server: (?P<reason>x509: .*|tls: .*|.*server gave HTTP response to HTTPS "
          r"client.*|remote error: tls: .*)$",
          "TLS handshake with the API server failed", "precondition", 412, False, True,
          "The API server's certificate or protocol does not match the kubeconfig: check the server URL (https and "
          "port) and certificate-authority-data of the cluster entry.",
          detail="TLS with the API server failed: {reason}"),
    _rule("KUBECTL_CLUSTER_UNREACHABLE", r"^Unable to connect to the server: (?P<reason>.+)$",
          "Cluster API server unreachable", "network", 503, True, False,
          "The API server did not answer ({reason}): check network access, VPN/proxy settings and that the cluster "
          "is up, then retry.", detail="unable to connect to the API server: {reason}", code_actions=[_CONTEXTS]),
    _rule("KUBECTL_UNAUTHORIZED",
          r"^(?:error: You must be logged in to the server \((?P<reason>[^\n]*)\)|Error from server \(Unauthorized\)"
          r": (?P<message>.+))$",
          "Not authenticated to the cluster", "authentication", 401, True, True,
          "The cluster rejected the credentials (expired token or certificate): refresh them (e.g. `aws eks "
          "update-kubeconfig`, `gcloud container clusters get-credentials`, `az aks get-credentials`) or log in "
          "again.", docs_url=_DOCS + "reference/access-authn-authz/authentication/",
          code_actions=[{"title": "Show which user and cluster the current context uses",
                         "command": ["{prog}", "config", "view", "--minify"], "applicability": "machine_applicable"}]),
    _rule("KUBECTL_FORBIDDEN",
          r"^Error from server \(Forbidden\): (?P<message>.*?User \"(?P<user>[^\"]+)\" cannot (?P<verb>[\w-]+) "
          r"resource \"(?P<resource>[^\"]+)\"(?: in API group \"(?P<group>[^\"]*)\")?(?: in the namespace "
          r"\"(?P<namespace>[^\"]+)\")?.*)$",
          "Forbidden by RBAC", "authorization", 403, False, True,
          "User {user} may not {verb} {resource} here: ask a cluster admin for a Role/ClusterRole and binding that "
          "allows it, or use a context with that permission.",
          detail="{message}", docs_url=_DOCS + "reference/access-authn-authz/rbac/",
          code_actions=[{"title": "Check what the current user may do", "command": ["{prog}", "auth", "can-i",
                                                                                 "{verb}", "{resource}"],
                         "applicability": "machine_applicable"}]),
    _rule("KUBECTL_FORBIDDEN", r"^Error from server \(Forbidden\): (?P<message>.+)$", "Forbidden", "authorization",
          403, False, True, "The API server refused this request for this user (RBAC or an admission policy): "
          "read the message, then ask a cluster admin or use another context."),
    _rule("KUBECTL_CONTEXT_NOT_FOUND", r"^error: context \"(?P<context>[^\"]+)\" does not exist",
          "Context not found", "not_found", 404, False, True,
          "There is no context '{context}' in the kubeconfig: pick one from `kubectl config get-contexts`.",
          code_actions=[_CONTEXTS]),
    _rule("KUBECTL_CONTEXT_NOT_FOUND",
          r"^(?:error: no context exists with the name: \"(?P<name>[^\"]+)\"|Error in configuration: context was not "
          r"found for specified context: (?P<context>\S+))", "Context not found", "not_found", 404, False, True,
          "That context is not in the kubeconfig: pick one from `kubectl config get-contexts`.",
          code_actions=[_CONTEXTS]),
    _rule("KUBECTL_NOT_FOUND",
          r"^Error from server \(NotFound\): (?P<message>(?:(?P<kind>[\w.-]+) \"(?P<name>[^\"]+)\" not found)?.*)$",
          "Resource not found", "not_found", 404, False, True,
          "Check the name, the namespace (-n) and the context; `kubectl get` lists what exists.",
          detail="{message}"),
    _rule("KUBECTL_UNKNOWN_RESOURCE_TYPE", r"^error: the server doesn't have a resource type \"(?P<type>[^\"]+)\"",
          "Unknown resource type", "not_found", 404, False, True,
          "'{type}' is not a resource type on this cluster: check the spelling (`kubectl api-resources` lists them); a "
          "custom resource needs its CRD installed first.", detail="the cluster has no resource type \"{type}\"",
          code_actions=[{"title": "List the resource types this cluster serves",
                         "command": ["{prog}", "api-resources"], "applicability": "machine_applicable"}]),
    _rule("KUBECTL_KIND_NOT_INSTALLED",
          r"^(?:error: )?resource mapping not found for name: .*no matches for kind \"(?P<kind>[^\"]+)\" in version "
          r"\"(?P<version>[^\"]+)\"", "Kind not installed on the cluster", "dependency", 424, True, True,
          "The cluster does not serve {kind} ({version}): install its CustomResourceDefinition (or operator) first, "
          "or fix apiVersion.", detail="no matches for kind \"{kind}\" in version \"{version}\""),
    _rule("KUBECTL_ALREADY_EXISTS", r"^Error from server \(AlreadyExists\): (?P<message>.+)$", "Already exists",
          "conflict", 409, False, True,
          "The object already exists: use `kubectl apply -f` to create-or-update, or delete it first."),
    _rule("KUBECTL_CONFLICT", r"^Error from server \(Conflict\): (?P<message>.+)$", "Update conflict", "conflict", 409,
          True, True, "Someone changed the object since it was read: read it again and re-apply your change."),
    _rule("KUBECTL_INVALID",
          r"^(?:Error from server \(Invalid\): |The \S+ \"[^\"]+\" is invalid: )(?P<message>.+)$",
          "Invalid object", "validation", 422, False, True, "Fix the field named in the message and re-apply."),
    _rule("KUBECTL_MANIFEST_INVALID",
          r"^error: error (?:parsing|validating) \"?(?P<file>[^\":\s]+)\"?: (?:error converting YAML to JSON: )?"
          r"(?:yaml: line (?P<line>\d+): )?(?P<message>.+)$", "Invalid manifest", "validation", 422, False, True,
          "Fix the manifest {file}; `kubectl apply --dry-run=client -f {file}` re-checks it without a cluster change."),
    _rule("KUBECTL_FILE_NOT_FOUND", r"^error: the path \"(?P<file>[^\"]+)\" does not exist", "Manifest not found",
          "not_found", 404, False, True, "No file or folder {file}: check the path given to -f.",
          detail="the path {file} does not exist"),
    _rule("KUBECTL_BAD_REQUEST", r"^Error from server \(BadRequest\): (?P<message>.+)$", "Request not possible now",
          "precondition", 400, True, True,
          "The API server refused the request in the object's current state (e.g. logs of a container that has not "
          "started): check `kubectl describe` and retry when it is ready."),
    _rule("KUBECTL_RATE_LIMITED", r"^Error from server \(TooManyRequests\): (?P<message>.+)$", "Rate limited",
          "rate_limit", 429, True, True, "The API server is throttling: wait and retry."),
    _rule("KUBECTL_SERVER_ERROR",
          r"^Error from server(?: \((?P<reason>InternalError|ServiceUnavailable|Timeout|ServerTimeout)\))?: "
          r"(?P<message>.+)$", "API server error", "dependency", 503, True, False,
          "The API server failed to handle the request: retry; if it persists, check the cluster's health."),
    _rule("KUBECTL_SERVER_REJECTED", r"^Error from server \((?P<reason>\w+)\): (?P<message>.+)$",
          "API server rejected the request", "dependency", 502, False, True,
          "Read the API server's reason ({reason}) and message, fix the request or the object, then retry."),
    _rule("KUBECTL_EDITOR_FAILED", r"^error: there was a problem with the editor", "Editor not available",
          "input_required", 428, True, True,
          "kubectl edit needs an interactive editor: change the object with `kubectl patch` or "
          "`kubectl apply -f FILE` instead."),
    _rule("KUBECTL_USAGE",
          r"^(?:error: unknown (?:command|shorthand flag|flag)[^\n]*|Error: unknown (?:command|shorthand flag|flag)"
          r"[^\n]*|error: (?:You must provide one or more resources|Required resource not specified|arguments in "
          r"resource/name form)[^\n]*)$", "Invalid kubectl command line", "usage", 400, False, True,
          "Fix the command line (see `kubectl COMMAND --help`)."),
    _rule("KUBECTL_WARNING", r"^Warning: (?P<message>.+)$", "Warning from kubectl or the API server", "validation",
          422, False, True, "Not fatal; consider the warning (often a deprecated API version).", severity="warning"),
]
