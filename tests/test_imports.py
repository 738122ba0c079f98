"""The package's import rules: no cycle, no private name of another module, and the rooms of
docs/architecture.md import only what that page allows."""

from __future__ import annotations

import ast

import importgraph as ig


def test_no_import_cycle_anywhere_in_the_package():
    assert ig.cycles(ig.graph(ig.imports())) == []


def _module_aliases(tree: ast.AST, known: dict) -> dict[str, str]:
    """Local names bound to an agentwrap module (`from agentwrap.adapters import _gcc_parse as gp`)."""
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
        found += [f"{edge.source}:{edge.line} imports {edge.target}.{n}" for n in edge.names
                  if n.startswith("_") and not n.startswith("__")]
        leaf = edge.target.rsplit(".", 1)[-1]
        if leaf.startswith("_") and not leaf.startswith("__"):
            home = edge.target.rsplit(".", 1)[0]
            if not (edge.source == home or edge.source.startswith(home + ".")):
                found.append(f"{edge.source}:{edge.line} imports the private module {edge.target}")
    for name, path in known.items():
        tree = ast.parse(path.read_text())
        aliases = _module_aliases(tree, known)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append(f"{name}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_module_uses_a_private_name_of_another():
    assert private_uses() == []
