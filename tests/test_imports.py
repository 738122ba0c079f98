"""The package's import rules: no cycle, no private name of another module, and the rooms of
docs/architecture.md import only what that page allows."""

from __future__ import annotations

import ast

import importgraph as ig


def test_no_import_cycle_anywhere_in_the_package():
    assert ig.cycles(ig.graph(ig.imports())) == []


def _module_aliases(tree: ast.AST, known: dict) -> dict[str, str]:
    """Local names bound to an agentwrap module (`from agentwrap.adapters import compiler_diagnostics as gp`)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agentwrap"):
            for a in node.names:
                if f"{node.module}.{a.name}" in known:
                    out[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("agentwrap") and a.asname:
                    out[a.asname] = a.name
    return out


def private_uses() -> list[str]:
    """`from m import _x`, `m._x` on an imported module, and a `_private` module imported from outside
    its own package."""
    known = ig.modules()
    found = []
    for edge in ig.imports(known):
        found += [
            f"{edge.source}:{edge.line} imports {edge.target}.{n}"
            for n in edge.names
            if n.startswith("_") and not n.startswith("__")
        ]
        leaf = edge.target.rsplit(".", 1)[-1]
        if leaf.startswith("_") and not leaf.startswith("__"):
            home = edge.target.rsplit(".", 1)[0]
            if not (edge.source == home or edge.source.startswith(home + ".")):
                found.append(f"{edge.source}:{edge.line} imports the private module {edge.target}")
    for name, path in known.items():
        tree = ast.parse(path.read_text())
        aliases = _module_aliases(tree, known)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{name}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_module_uses_a_private_name_of_another():
    assert private_uses() == []


def _rooms() -> tuple[dict[str, list[str]], dict[str, set[str]], set[tuple[str, str]]]:
    """docs/architecture.md's tables: room -> modules, room -> rooms it may import, and the exceptions."""
    import re

    page = (ig.ROOT / "docs" / "architecture.md").read_text()
    modules: dict[str, list[str]] = {}
    allowed: dict[str, set[str]] = {}
    exceptions: set[tuple[str, str]] = set()
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`agentwrap"):
            modules[cells[0]] = re.findall(r"`([\w.]+)`", cells[1])
            allowed[cells[0]] = {cells[0], *re.findall(r"[a-z]+", cells[2])} - {"nothing", "of", "agentwrap"}
        elif len(cells) == 2 and "→" in cells[0]:
            source, target = re.findall(r"`([\w.]+)`", cells[0])
            exceptions.add((source, target))
    return modules, allowed, exceptions


def room_of(module: str, modules: dict[str, list[str]]) -> str | None:
    best: tuple[int, str] | None = None
    for room, prefixes in modules.items():
        for prefix in prefixes:
            inside = module == prefix or (prefix != "agentwrap" and module.startswith(prefix + "."))
            if inside and (best is None or len(prefix) > best[0]):
                best = (len(prefix), room)
    return best[1] if best else None


def test_every_module_has_a_room():
    modules, _, _ = _rooms()
    assert len(modules) >= 10
    assert [m for m in ig.modules() if room_of(m, modules) is None] == []


def test_each_room_imports_only_what_architecture_md_allows():
    modules, allowed, exceptions = _rooms()
    wrong = []
    for source, targets in sorted(ig.graph(ig.imports()).items()):
        for target in sorted(targets):
            here, there = room_of(source, modules), room_of(target, modules)
            excused = any(s == source and (t == target or t.startswith(target + ".")) for s, t in exceptions)
            if there not in allowed[here] and not excused:
                wrong.append(f"{source} ({here}) imports {target} ({there})")
    assert wrong == []


def test_records_import_nothing_of_agentwrap():
    assert [e for e in ig.imports() if e.source == "agentwrap.records"] == []
