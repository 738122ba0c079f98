"""Reading terraform's (and OpenTofu's) output: diagnostics boxes, -json streams, plan/apply summaries, outputs.

Pure functions of text. Diagnostics come in three shapes, all read here: the boxed form a terminal gets
(`╷ │ Error: ... ╵`), the plain form of `-no-color`, and the JSON of `validate -json` / `plan -json`.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from agentwrap.lazyre import lazy


class Diagnostic(NamedTuple):
    severity: str  # "error" | "warning"
    summary: str
    detail: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    # the source lines the diagnostic points at (`6:   value = local.zzz`) and the values terraform shows
    # under them (`│ var.n is "abc"`): the evidence a fix starts from
    evidence: tuple[str, ...] = ()
    context: str | None = None  # the block it is in: `output "o"`, from `on main.tf line 6, in output "o":`
    # The block's lines as printed: `framing` (the Error line, its `on` line, its source lines) and `body`
    # (the detail's lines). The problem stands for them, so the text need not say them again.
    framing: tuple[str, ...] = ()
    body: tuple[str, ...] = ()

    def text(self) -> str:
        """The form block rules match: `Error: SUMMARY`, then `  on FILE line N`, then the detail."""
        where = f"\n  on {self.file} line {self.line}" if self.file else ""
        return f"{self.severity.capitalize()}: {self.summary}{where}\n{self.detail}"

    def location(self) -> dict[str, Any] | None:
        if not self.file:
            return None
        loc: dict[str, Any] = {"file": self.file}
        if self.line is not None:
            loc["line"] = self.line
        if self.column is not None:
            loc["column"] = self.column
        return loc


_START = lazy(r"^(Error|Warning): (.*\S)\s*$")
_ON = lazy(r"^\s*on (?P<file>.+?) line (?P<line>\d+)(?:, in (?P<context>.*))?:\s*$")
_SNIPPET = lazy(r"^\s*(?:\d+:|├|│|\(source code not available\))")
_EVIDENCE = lazy(r"^\s*(?:\d+:|│ )")  # a source line, or a value under it; not the `├──` rule
_MAX = 200


def _unbox(line: str) -> tuple[str, bool | None]:
    """A line without its box frame; True on `╷` (a box opens), False on `╵` (it closes)."""
    stripped = line.rstrip()
    if stripped == "╷":
        return "", True
    if stripped == "╵":
        return "", False
    if stripped.startswith("│"):
        return stripped[2:] if stripped.startswith("│ ") else stripped[1:], None
    return stripped, None


def diagnostics(text: str) -> list[Diagnostic]:
    """Every Error/Warning block in terraform's human output (boxed or -no-color), in order."""
    found: list[Diagnostic] = []
    current: list[tuple[str, str]] | None = None  # (unboxed, as printed) of each line after the Error line
    head: tuple[str, str, str] | None = None

    def close() -> None:
        if head is not None and current is not None and len(found) < _MAX:
            found.append(_block(head[0], head[1], current, head[2]))

    for raw in text.splitlines():
        line, box = _unbox(raw)
        start = _START.match(line)
        if start:
            close()
            head, current = (start.group(1).lower(), start.group(2), raw.rstrip()), []
        elif box is False or (box is True and current is not None):
            close()
            head, current = None, None
        elif current is not None:
            current.append((line, raw.rstrip()))
    close()
    return found


def _block(severity: str, summary: str, body: list[tuple[str, str]], printed: str) -> Diagnostic:
    file = line = context = None
    detail: list[str] = []
    framing, body_lines, evidence = [printed], [], []
    in_snippet = False
    for text, raw in body:
        on = _ON.match(text) if file is None else None
        if on:
            file, line, context = on.group("file"), int(on.group("line")), on.group("context")
            in_snippet = True
            framing.append(raw)
            continue
        if in_snippet and (_SNIPPET.match(text) or not text.strip()):
            if not text.strip() and detail:
                in_snippet = False
            elif _EVIDENCE.match(text):
                evidence.append(text.strip())
                framing.append(raw)
            continue
        in_snippet = False
        detail.append(text.strip())
        body_lines.append(raw)
    return Diagnostic(severity, summary, " ".join(w for w in detail if w)[:2000], file, line, None,
                      tuple(evidence[:20]), context, tuple(framing[:40]), tuple(body_lines[:200]))


def json_values(text: str) -> list[dict[str, Any]]:
    """The JSON objects in text: one whole document (`validate -json`) or one per line (`plan -json`)."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return []
    try:
        whole = json.loads(stripped)
        return [whole] if isinstance(whole, dict) else []
    except ValueError:
        pass
    out = []
    for line in stripped.splitlines():
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out


def json_diagnostics(values: list[dict[str, Any]]) -> list[Diagnostic]:
    """Diagnostics of `validate -json` (a `diagnostics` list) and of `-json` streams (`diagnostic` events)."""
    raw: list[Any] = []
    for value in values:
        raw.extend(value.get("diagnostics") or [])
        if isinstance(value.get("diagnostic"), dict):
            raw.append(value["diagnostic"])
    out = []
    for d in raw[:_MAX]:
        if not isinstance(d, dict):
            continue
        rng = d.get("range") or {}
        start = rng.get("start") or {}
        evidence, context = _json_snippet(d.get("snippet"))
        out.append(Diagnostic(str(d.get("severity", "error")), str(d.get("summary", "")),
                              " ".join(str(d.get("detail") or "").split())[:2000], rng.get("filename"),
                              start.get("line"), start.get("column"), evidence, context))
    return out


def _json_snippet(snippet: Any) -> tuple[tuple[str, ...], str | None]:
    """The evidence of a -json diagnostic, in the form the human output prints it: `N: code`, and each
    value terraform shows for the expression (`│ var.n is "abc"`)."""
    if not isinstance(snippet, dict) or not isinstance(snippet.get("code"), str):
        return (), None
    first = snippet.get("start_line")
    lines = str(snippet["code"]).splitlines()[:20]
    numbered = [f"{first + i}: {code}" if isinstance(first, int) else code for i, code in enumerate(lines)]
    values = [f"│ {v.get('traversal')} {v.get('statement')}" for v in snippet.get("values") or []
              if isinstance(v, dict)]
    context = snippet.get("context")
    return tuple([*numbered, *values[:20]]), context if isinstance(context, str) else None


# --- plan, apply, destroy ---------------------------------------------------------------------------------

_PLAN = lazy(r"^Plan: (?:(?P<import>\d+) to import, )?(?P<add>\d+) to add, (?P<change>\d+) to change, "
                   r"(?P<destroy>\d+) to destroy\.", re.M)
_NO_CHANGES = lazy(r"^No changes\. ", re.M)
_ACTION = lazy(r"^\s*# (?P<address>\S+) (?:will be|must be) (?P<what>created|updated in-place|destroyed|"
                     r"replaced|read during apply|imported)", re.M)
_ACTIONS = {"created": "create", "updated in-place": "update", "destroyed": "delete", "replaced": "replace",
            "read during apply": "read", "imported": "import"}
_APPLIED = lazy(r"^(?P<what>Apply|Destroy) complete! Resources: (?:(?P<imported>\d+) imported, )?"
                      r"(?:(?P<added>\d+) added, (?P<changed>\d+) changed, )?(?P<destroyed>\d+) destroyed\.", re.M)
_SCALAR = lazy(r'^(?:"(?:[^"\\\n]|\\.)*"|-?\d+(?:\.\d+)?|true|false)$')
_OUTPUT_LINE = lazy(r"^(?P<name>[A-Za-z_][\w-]*) = (?P<value>.*)$")


def plan(text: str) -> dict[str, Any]:
    """Counts and per-resource actions of a plan (`plan`, and the plan `apply`/`destroy` print first)."""
    values = json_values(text)
    if values:
        return _plan_json(values)
    data: dict[str, Any] = {}
    m = _PLAN.search(text)
    if m:
        data["changes"] = {k: int(v) for k, v in m.groupdict().items() if v is not None}
    elif _NO_CHANGES.search(text):
        data["changes"] = {"add": 0, "change": 0, "destroy": 0}
    if "changes" in data:
        data["no_changes"] = not any(data["changes"].values())
    actions = [{"address": a.group("address"), "action": _ACTIONS[a.group("what")]} for a in _ACTION.finditer(text)]
    if actions:
        data["resources"] = actions[:_MAX]
    return data


def _plan_json(values: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    actions = []
    for v in values:
        if v.get("type") == "change_summary" and isinstance(v.get("changes"), dict):
            c = v["changes"]
            data["changes"] = {"add": c.get("add", 0), "change": c.get("change", 0), "destroy": c.get("remove", 0)}
            if c.get("import"):
                data["changes"]["import"] = c["import"]
            data["no_changes"] = not any(data["changes"].values())
        elif v.get("type") == "planned_change" and isinstance(v.get("change"), dict):
            change = v["change"]
            addr = (change.get("resource") or {}).get("addr")
            if addr:
                actions.append({"address": addr, "action": str(change.get("action", ""))})
    if actions:
        data["resources"] = actions[:_MAX]
    return data


def applied(text: str) -> dict[str, Any]:
    """`apply`/`destroy`: the plan they showed, what they did, and the outputs they printed."""
    data = plan(text)
    m = _APPLIED.search(text)
    if m:
        data["applied"] = {k: int(v) for k, v in m.groupdict().items() if v is not None and k != "what"}
    outputs = _outputs_section(text)
    if outputs:
        data["outputs"] = outputs
    return data


def _outputs_section(text: str) -> dict[str, str]:
    _, sep, rest = text.rpartition("\nOutputs:\n")
    return outputs_text(rest) if sep else {}


def outputs_text(text: str) -> dict[str, Any]:
    """`name = value` lines: a quoted string or a number as its value, anything else as terraform printed it."""
    out: dict[str, Any] = {}
    name: str | None = None
    for line in text.splitlines():
        m = _OUTPUT_LINE.match(line)
        if m:
            name = m.group("name")
            out[name] = m.group("value").strip()
        elif name is not None and line.strip():
            out[name] += "\n" + line.rstrip()
        if len(out) > _MAX:
            break
    return {k: _scalar(v) for k, v in out.items()}


def _scalar(value: str) -> Any:
    if _SCALAR.match(value):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def outputs(text: str, argv: tuple[str, ...]) -> dict[str, Any] | None:
    """`terraform output`: -json gives typed values (sensitive ones are withheld here), else the text."""
    words = [a for a in argv[2:] if not a.startswith("-")]
    stripped = text.strip()
    if "-json" in argv:
        try:
            value = json.loads(stripped)
        except ValueError:
            return None
        if words:
            return {"name": words[0], "value": value}
        if not isinstance(value, dict):
            return None
        return {"outputs": {k: ("<sensitive>" if isinstance(v, dict) and v.get("sensitive") else
                                (v.get("value") if isinstance(v, dict) else v)) for k, v in value.items()}}
    if words:
        return {"name": words[0], "value": stripped}
    return {"outputs": outputs_text(text)}


# --- other read commands ----------------------------------------------------------------------------------

_VERSION = lazy(r"^(?:Terraform|OpenTofu) v(?P<version>\S+)\s*$(?:\non (?P<platform>\S+))?", re.M)
_PROVIDER_VERSION = lazy(r"^\+ provider (?P<name>\S+) v(?P<version>\S+)", re.M)
_INSTALLED = lazy(r"^- Install(?:ed|ing) (?P<name>\S+) v(?P<version>[^\s.]\S*?)(?:\.\.\.|\s|$)", re.M)
_REUSED = lazy(r"^- (?:Reusing previous version of|Using previously-installed) (?P<name>\S+?)"
                     r"(?: v(?P<version>\S+?))?(?: from the dependency lock file)?\s*$", re.M)


def version(text: str) -> dict[str, Any] | None:
    values = json_values(text)
    if values:
        v = values[0]
        return {"version": v.get("terraform_version"), "platform": v.get("platform"),
                "providers": v.get("provider_selections") or {}}
    m = _VERSION.search(text)
    if not m:
        return None
    return {"version": m.group("version"), "platform": m.group("platform"),
            "providers": {p.group("name"): p.group("version") for p in _PROVIDER_VERSION.finditer(text)}}


def init(text: str) -> dict[str, Any]:
    providers: dict[str, str | None] = {}
    for m in _INSTALLED.finditer(text):
        providers[m.group("name")] = m.group("version")
    for m in _REUSED.finditer(text):
        providers.setdefault(m.group("name"), m.group("version"))
    return {"initialized": "has been successfully initialized" in text,
            "providers": [{"name": k, "version": v} for k, v in providers.items()]}


def validate(text: str) -> dict[str, Any]:
    values = json_values(text)
    if values and "valid" in values[0]:
        v = values[0]
        return {"valid": bool(v["valid"]), "error_count": v.get("error_count", 0),
                "warning_count": v.get("warning_count", 0)}
    return {"valid": "The configuration is valid" in text}


# --- what terraform marks sensitive ------------------------------------------------------------------------

_MASKS = (("values", "sensitive_values"), ("before", "before_sensitive"), ("after", "after_sensitive"))


def sensitive(text: str) -> list[Any]:
    """The values terraform's -json documents mark sensitive (`output -json`, `show -json` of the state or a
    plan): an output's or a variable's `"sensitive": true`, a resource's `sensitive_values` and a change's
    `before_sensitive`/`after_sensitive` masks. agentwrap hides them everywhere (Interpretation.secrets)."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return []
    try:
        doc = json.loads(stripped)
    except ValueError:
        return []
    found = marked(doc)
    variables = ((doc.get("configuration") or {}).get("root_module") or {}).get("variables") or {}
    for name, given in (doc.get("variables") or {}).items():  # a plan's variables: the configuration says which
        if isinstance(given, dict) and isinstance(variables.get(name), dict) and variables[name].get("sensitive"):
            found.append(given.get("value"))
    return found


def marked(doc: Any) -> list[Any]:
    """The values a terraform JSON document (a state, `show -json`) marks sensitive."""
    found: list[Any] = []
    _marked(doc, found)
    return found


def _marked(node: Any, found: list[Any]) -> None:
    if isinstance(node, list):
        for item in node:
            _marked(item, found)
        return
    if not isinstance(node, dict):
        return
    if node.get("sensitive") is True:  # an output (`output -json`, a state's outputs), a variable's default
        found.extend(node[key] for key in ("value", "default") if key in node)
    if isinstance(node.get("sensitive_attributes"), list):  # a state's resource instance (`state pull`)
        for path in node["sensitive_attributes"]:
            _at_path(node.get("attributes"), path, found)
    for values, mask in _MASKS:
        if mask in node:
            _masked(node.get(values), node[mask], found)
    for value in node.values():
        _marked(value, found)


def _at_path(attributes: Any, path: Any, found: list[Any]) -> None:
    """The value a state's `sensitive_attributes` path names (`[{"type": "get_attr", "value": "input"},
    {"type": "get_attr", "value": "password"}]`), through the `{"value", "type"}` wrapper a dynamic attribute
    is stored in; a path that does not lead anywhere hides the whole attribute it starts at."""
    steps = [s.get("value") for s in path if isinstance(s, dict)] if isinstance(path, list) else []
    if not steps or not isinstance(attributes, dict) or steps[0] not in attributes:
        return
    start = value = _unwrapped(attributes[steps[0]])
    for step in steps[1:]:
        if isinstance(value, dict) and step in value:
            value = _unwrapped(value[step])
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            value = _unwrapped(value[step])  # noqa: SIM114 - one branch cannot type both indexes
        else:
            found.append(start)
            return
    found.append(value)


def _unwrapped(value: Any) -> Any:
    """A dynamic attribute's value without the type stored beside it (its words are no secret)."""
    return value["value"] if isinstance(value, dict) and set(value) == {"value", "type"} else value


def _masked(value: Any, mask: Any, found: list[Any]) -> None:
    """The parts of `value` that its mirror `mask` marks `true`."""
    if mask is True:
        found.append(value)
    elif isinstance(mask, dict) and isinstance(value, dict):
        for key, sub in mask.items():
            _masked(value.get(key), sub, found)
    elif isinstance(mask, list) and isinstance(value, list):
        for sub_value, sub in zip(value, mask, strict=False):
            _masked(sub_value, sub, found)
