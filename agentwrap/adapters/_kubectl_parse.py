"""Reading kubectl's output: column tables (shared with docker), -o json/name, versions, contexts, and the
`<kind>/<name> created|configured|deleted` lines of mutating commands. Pure functions of text.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentwrap.adapter import CapturedRun
    from agentwrap.problem import Problem
    from agentwrap.spec import Spec

_MAX_ROWS = 500
_GAP = re.compile(r"\S+(?: \S+)*")  # a header cell: words separated by single spaces
_HEADER_CELL = re.compile(r"^[A-Z][A-Z0-9 ()%./_-]*$")


def table(text: str, *, max_rows: int = _MAX_ROWS) -> list[dict[str, str]] | None:
    """A tabwriter table (kubectl get, docker ps): the header's column starts cut every row.

    Column names become lower_snake keys (`CONTAINER ID` -> container_id). None when the first line does not
    look like a header (upper-case words separated by two or more spaces).
    """
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    header = lines[0]
    cells = [(m.start(), m.group(0)) for m in _GAP.finditer(header)]
    if not cells or any(not _HEADER_CELL.match(c) for _, c in cells):
        return None
    keys = [re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") for _, name in cells]
    starts = [start for start, _ in cells]
    rows = []
    for line in lines[1:max_rows + 1]:
        row = {}
        for i, key in enumerate(keys):
            end = starts[i + 1] if i + 1 < len(starts) else None
            row[key] = (line[starts[i]:end] if end is not None else line[starts[i]:]).strip()
        rows.append(row)
    return rows


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


_NO_RESOURCES = re.compile(r"^No resources found(?: in (?P<namespace>\S+) namespace)?\.", re.M)


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


_CLIENT = re.compile(r"^Client Version: (?P<v>\S+)", re.M)
_SERVER = re.compile(r"^Server Version: (?P<v>\S+)", re.M)


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


_CHANGED = re.compile(r"^(?P<resource>[\w.-]+(?:/[\w.:-]+| \"[^\"]+\")) (?P<what>created|configured|unchanged|deleted|"
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


def first_rule_per_line(spec: Spec, run: CapturedRun) -> list[Problem]:
    """Spec.match_rules, except that a line an earlier (more specific) rule explained is not matched again by a
    later catch-all: `Error from server (NotFound): ...` is one problem, not also KUBECTL_SERVER_REJECTED."""
    found: list[Problem] = []
    claimed: set[str] = set()
    sub = (run.subcommand or "").split(" ")[0]
    for rule in spec.rules:
        if rule.subcommands is not None and sub not in rule.subcommands:
            continue
        if rule.exit_codes is not None and run.exit_code not in rule.exit_codes:
            continue
        if not run.failed and not rule.on_success and rule.severity == "error":
            continue
        text = run.text(rule.stream)
        for match in rule.pattern.finditer(text):
            start = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", match.start())
            line = text[start:end if end >= 0 else len(text)].strip()
            if line in claimed:
                continue
            claimed.add(line)
            found.append(spec.problem(rule, match, run))
            if len(found) >= 200:
                return found
    return found
