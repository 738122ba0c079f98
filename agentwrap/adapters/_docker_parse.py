"""Reading docker's output: tabwriter tables and `--format json` lines (ps, images, context/volume/network ls,
compose ps), `inspect` JSON, `run -d` container IDs and `docker --version`. Pure functions of text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentwrap.adapters.tables import table
from agentwrap.lazyre import lazy

_MAX = 500
_ID = lazy(r"^[0-9a-f]{12,64}$")
_VERSION = lazy(r"^Docker version (?P<version>[^,\s]+)(?:, build (?P<build>\S+))?", re.M)
_KEYS = {"ID": "id", "Names": "names", "Image": "image", "Command": "command", "CreatedAt": "created_at",
         "RunningFor": "created", "Status": "status", "State": "state", "Ports": "ports", "Repository": "repository",
         "Tag": "tag", "CreatedSince": "created", "Size": "size", "Name": "name", "Driver": "driver",
         "Scope": "scope", "Mountpoint": "mountpoint", "Current": "current", "Description": "description",
         "DockerEndpoint": "docker_endpoint", "Error": "error", "Service": "service", "Project": "project",
         "Publishers": "publishers", "Digest": "digest", "ExitCode": "exit_code", "Health": "health"}


def _json_lines(text: str) -> list[dict[str, Any]] | None:
    """`--format json` (one object per line) or `compose ps --format json` (one array); None if not JSON."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        whole = json.loads(stripped)
        if isinstance(whole, list):
            return [v for v in whole if isinstance(v, dict)]
        if isinstance(whole, dict):
            return [whole]
    except ValueError:
        pass
    out = []
    for line in stripped.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            return None
        if isinstance(value, dict):
            out.append(value)
    return out


def _row(value: dict[str, Any]) -> dict[str, Any]:
    return {_KEYS.get(k, k.lower()): v for k, v in value.items() if not isinstance(v, dict | list) or k in
            ("Publishers",)}


def listing(stdout: str) -> dict[str, Any] | None:
    """ps / images / ls-style output: rows with lower_snake keys, from a table or --format json."""
    values = _json_lines(stdout)
    if values is not None:
        rows: list[dict[str, Any]] = [_row(v) for v in values[:_MAX]]
    else:
        parsed = table(stdout, max_rows=_MAX)
        if parsed is None:
            lines = [line.strip() for line in stdout.splitlines() if line.strip()]
            if lines and all(_ID.match(line) for line in lines):  # -q: IDs only
                return {"count": len(lines), "items": [{"id": line} for line in lines[:_MAX]]}
            return {"count": 0, "items": []} if not lines else None
        rows = [dict(r) for r in parsed]
    for row in rows:  # `docker context ls` marks the current context with "default *"
        for key in ("container_id", "image_id", "volume_id", "network_id"):
            if key in row and "id" not in row:
                row["id"] = row.pop(key)
        name = row.get("name")
        if isinstance(name, str) and name.endswith(" *"):
            row["name"], row["current"] = name[:-2], True
    return {"count": len(rows), "items": rows}


def inspect(stdout: str) -> dict[str, Any] | None:
    """`docker inspect`: per object its id, name, and the state or image facts an agent asks for."""
    try:
        value = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(value, list):
        return None
    items = []
    for obj in value[:_MAX]:
        if not isinstance(obj, dict):
            continue
        item: dict[str, Any] = {"id": obj.get("Id"), "name": str(obj.get("Name") or "").lstrip("/") or None}
        state = obj.get("State")
        if isinstance(state, dict):
            item.update(status=state.get("Status"), running=state.get("Running"), exit_code=state.get("ExitCode"),
                        error=state.get("Error") or None)
            health = state.get("Health")
            if isinstance(health, dict):
                item["health"] = health.get("Status")
        config: dict[str, Any] = obj["Config"] if isinstance(obj.get("Config"), dict) else {}
        if obj.get("RepoTags") is not None:
            item.update(tags=obj.get("RepoTags"), size=obj.get("Size"), architecture=obj.get("Architecture"))
        elif config.get("Image"):
            item["image"] = config["Image"]
        items.append(item)
    return {"count": len(items), "items": items}


def run_detached(stdout: str) -> dict[str, Any] | None:
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if lines and _ID.match(lines[-1]):
        return {"container_id": lines[-1]}
    return None


def version(stdout: str) -> dict[str, Any] | None:
    m = _VERSION.search(stdout)
    return {"version": m.group("version"), "build": m.group("build")} if m else None
