"""Reading kubectl's output: column tables (adapters/tables.py), -o json/name, versions, contexts, and the
`<kind>/<name> created|configured|deleted` lines of mutating commands. Pure functions of text.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from agentwrap.adapters.tables import table
from agentwrap.lazyre import lazy

_MAX_ROWS = 500


def _summary(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    out: dict[str, Any] = {"kind": obj.get("kind"), "name": meta.get("name")}
    if meta.get("namespace"):
        out["namespace"] = meta["namespace"]
    status: dict[str, Any] = obj["status"] if isinstance(obj.get("status"), dict) else {}
    if status.get("phase"):
        out["phase"] = status["phase"]
    containers = status.get("containerStatuses") or []
    if containers:
        out["ready"] = f"{sum(1 for c in containers if c.get('ready'))}/{len(containers)}"
        out["restarts"] = sum(int(c.get("restartCount") or 0) for c in containers)
        waiting = [c["state"]["waiting"].get("reason") for c in containers
                   if isinstance(c.get("state"), dict) and isinstance(c["state"].get("waiting"), dict)]
        if any(waiting):
            out["waiting"] = [w for w in waiting if w]
    for key in ("replicas", "readyReplicas", "availableReplicas"):
        if key in status:
            out[key] = status[key]
    if meta.get("labels"):
        out["labels"] = meta["labels"]
    return out


def objects(text: str) -> dict[str, Any] | None:
    """`-o json`: a compact summary of each object (kind, name, namespace, phase, readiness, labels)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("items"), list):
        items = [_summary(i) for i in value["items"][:_MAX_ROWS] if isinstance(i, dict)]
        return {"kind": value.get("kind"), "count": len(value["items"]), "items": items}
    return {"kind": value.get("kind"), "count": 1, "items": [_summary(value)]}


_NO_RESOURCES = lazy(r"^No resources found(?: in (?P<namespace>\S+) namespace)?\.", re.M)


def get(stdout: str, stderr: str, argv: tuple[str, ...]) -> dict[str, Any] | None:
    output = _output_format(argv)
    if _NO_RESOURCES.search(stderr + "\n" + stdout):
        return {"count": 0, "items": []}
    if output == "json":
        return objects(stdout)
    if output == "name":
        names = [line.strip() for line in stdout.splitlines() if line.strip()]
        return {"count": len(names), "items": [{"name": n} for n in names[:_MAX_ROWS]]}
    if output in (None, "wide"):
        rows = table(stdout)
        return None if rows is None else {"count": len(rows), "items": rows}
    return None


def _output_format(argv: tuple[str, ...] | list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg in ("-o", "--output") and i + 1 < len(argv):
            return argv[i + 1].split("=")[0]
        for prefix in ("-o=", "--output=", "-o"):
            if arg.startswith(prefix) and len(arg) > len(prefix):
                return arg[len(prefix):].split("=")[0]
    return None


_CLIENT = lazy(r"^Client Version: (?P<v>\S+)", re.M)
_SERVER = lazy(r"^Server Version: (?P<v>\S+)", re.M)


def version(stdout: str) -> dict[str, Any] | None:
    try:
        value = json.loads(stdout)
    except ValueError:
        value = None
    if isinstance(value, dict):
        client = value.get("clientVersion") or {}
        server = value.get("serverVersion") or {}
        return {"client": client.get("gitVersion"), "server": server.get("gitVersion")}
    c, s = _CLIENT.search(stdout), _SERVER.search(stdout)
    if not c:
        return None
    return {"client": c.group("v"), "server": s.group("v") if s else None}


def contexts(stdout: str) -> dict[str, Any] | None:
    rows = table(stdout)
    if rows is None:
        return None
    current = next((r.get("name") for r in rows if r.get("current") == "*"), None)
    return {"current": current, "contexts": [{k: v for k, v in r.items() if k != "current"} for r in rows]}


_CHANGED = lazy(r"^(?P<resource>[\w.-]+(?:/[\w.:-]+| \"[^\"]+\")) (?P<what>created|configured|unchanged|deleted|"
                      r"patched|scaled|labeled|annotated|replaced|restarted|exposed|autoscaled|cordoned|uncordoned|"
                      r"drained|evicted|tainted|untainted|image updated|resource requirements updated|rolled back|"
                      r"paused|resumed|edited)(?: \(.*\))?\s*$", re.M)
_ACTION = {"created": "create", "deleted": "delete", "unchanged": "none", "evicted": "delete", "drained": "update"}


def changes(stdout: str) -> list[dict[str, str]]:
    """`deployment.apps/web created`, `pod "web" deleted` -> [{resource, result}]."""
    out = []
    for m in _CHANGED.finditer(stdout):
        resource = m.group("resource")
        if ' "' in resource:  # pod "web" -> pod/web
            kind, _, name = resource.partition(' "')
            resource = f"{kind}/{name.rstrip(chr(34))}"
        out.append({"resource": resource, "result": m.group("what")})
        if len(out) >= _MAX_ROWS:
            break
    return out


def effect_action(result: str) -> str:
    return _ACTION.get(result, "update")


# --- a Secret's values -------------------------------------------------------------------------------------

_ITEM = lazy(r"^- ", re.M)  # an item of a YAML List (`kubectl get secrets -o yaml`)
_SECRET_KIND = lazy(r"^[ \t]*(?:- )?kind: Secret[ \t]*$", re.M)
_DATA_KEY = lazy(r"^(?P<indent>[ \t]*(?:- )?)(?:data|stringData):[ \t]*$")
_ENTRY = lazy(r"^[ \t]*[^\s:#][^:]*:[ \t]+(?P<value>.+?)[ \t]*$")
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def secret_values(text: str) -> list[str]:
    """The values of every Secret the text shows (`get secret -o yaml|json`, `create secret --dry-run -o
    yaml`): each `data:` value as printed (base64) and decoded, when it decodes to text, and each
    `stringData:` value, also inside the last-applied-configuration annotation. Whatever their names say,
    they are secrets: agentwrap hides them everywhere (Interpretation.secrets)."""
    if "Secret" not in text:
        return []
    stripped = text.strip()
    found: list[str] = []
    if stripped.startswith("{"):
        with contextlib.suppress(ValueError):
            _json_secrets(json.loads(stripped), found)
        return found
    starts = [0, *(m.start() for m in _ITEM.finditer(text)), len(text)]
    for start, end in zip(starts, starts[1:], strict=False):
        item = text[start:end]
        if _SECRET_KIND.search(item):
            _yaml_secrets(item, found)
    return found


def _json_secrets(node: Any, found: list[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _json_secrets(item, found)
        return
    if not isinstance(node, dict):
        return
    if node.get("kind") == "Secret":
        for key, decode in (("data", True), ("stringData", False)):
            values = node.get(key)
            if isinstance(values, dict):
                for value in values.values():
                    if isinstance(value, str):
                        found.extend(_forms(value, decode))
        applied = ((node.get("metadata") or {}).get("annotations") or {}).get(_LAST_APPLIED)
        if isinstance(applied, str) and applied.strip().startswith("{"):
            with contextlib.suppress(ValueError):
                _json_secrets(json.loads(applied), found)
    for key, value in node.items():
        if key != "metadata":
            _json_secrets(value, found)


def _yaml_secrets(item: str, found: list[str]) -> None:
    lines = item.splitlines()
    for i, line in enumerate(lines):
        m = _DATA_KEY.match(line)
        if m is None:
            continue
        decode = line.rstrip().endswith("data:") and not line.rstrip().endswith("stringData:")
        depth = len(m["indent"])
        for child in lines[i + 1:]:
            if child.strip() and len(child) - len(child.lstrip(" \t-")) <= depth:
                break  # the mapping's next key: the block ended
            entry = _ENTRY.match(child)
            value = entry["value"] if entry else child.strip()
            if value in ("|", "|-", "|+", ">", ">-", ">+"):
                continue  # a block scalar: its lines follow, each one taken as it is
            found.extend(_forms(value.strip("'\"") if entry else value, decode and entry is not None))
    for m in re.finditer(re.escape(_LAST_APPLIED) + r":[ \t]*\|\s*\n[ \t]*(\{.*)", item):
        with contextlib.suppress(ValueError):
            _json_secrets(json.loads(m.group(1)), found)


def _forms(value: str, decode: bool) -> list[str]:
    """`value`, and the text it encodes when it is base64 (a Secret's `data:`)."""
    if not decode:
        return [value]
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return [value]
    return [value, decoded] if decoded.isprintable() or "\n" in decoded else [value]


_SHOWS_VALUES = frozenset({"yaml", "json", "jsonpath", "jsonpath-as-json", "jsonpath-file", "go-template",
                           "go-template-file", "template", "templatefile", "custom-columns", "custom-columns-file"})
_TEMPLATES = frozenset(_SHOWS_VALUES - {"yaml", "json"})
_READS_DATA = lazy(r"(?<![A-Za-z])(?:data|stringData)\b")


def names_a_secret(argv: tuple[str, ...] | list[str]) -> bool:
    """Whether the command prints Secrets' values: it names the resource (`secret`, `secrets/x`,
    `configmap,secret`) and an output format that shows them (`-o yaml|json|jsonpath=...`)."""
    named = any(part.split("/")[0].lower() in ("secret", "secrets") for word in argv[1:] if not word.startswith("-")
                for part in word.split(","))
    return named and _output_format(argv) in _SHOWS_VALUES


def picked_values(text: str, argv: tuple[str, ...] | list[str]) -> list[str]:
    """`get secret X -o jsonpath='{.data.k}'` (or a template reading `.data`): the output is the value
    itself, each line and word of it, as printed and decoded."""
    if _output_format(argv) not in _TEMPLATES or not names_a_secret(argv):
        return []
    if not any(_READS_DATA.search(a) for a in argv):  # `.metadata.name` reads no value
        return []
    found: list[str] = []
    for line in text.splitlines():
        found.append(line.strip())
        for word in line.split():
            found.extend(_forms(word, True))
    return found
