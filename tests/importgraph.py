"""The import graph of the agentwrap package, read with `ast` (no module is imported).

Every import counts, at module level or inside a function (an import inside a function is still a
dependency; moving it there only hides a cycle), except those under `if TYPE_CHECKING:`, which never run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agentwrap"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    target: str  # the imported module, dotted
    names: tuple[str, ...]  # names taken from it (`from m import a, b`), () for `import m`
    line: int


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _walk(node: ast.AST):
    for child in ast.iter_child_nodes(node):
        if _type_checking(child):
            for orelse in child.orelse:  # `else:` of a TYPE_CHECKING block runs
                yield orelse
                yield from _walk(orelse)
            continue
        yield child
        yield from _walk(child)


def imports(known: dict[str, Path] | None = None) -> list[Import]:
    known = known or modules()
    out = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                out += [Import(name, a.name, (), node.lineno) for a in node.names if a.name.startswith("agentwrap")]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                if not base.startswith("agentwrap"):
                    continue
                names = tuple(a.name for a in node.names)
                submodules = [f"{base}.{n}" for n in names if f"{base}.{n}" in known]
                if submodules:  # `from agentwrap.adapters import pip`: the submodule is the dependency
                    out += [Import(name, s, (), node.lineno) for s in submodules]
                rest = tuple(n for n in names if f"{base}.{n}" not in known)
                if rest or not submodules:
                    out.append(Import(name, base, rest, node.lineno))
    return out


def graph(edges: list[Import]) -> dict[str, set[str]]:
    """source -> the modules importing it runs. Importing `a.b.c` runs package `a.b`'s __init__ first, so
    that is an edge too (the root package's __init__ imports nothing of agentwrap, and is left out)."""
    out: dict[str, set[str]] = {}
    for edge in edges:
        parts = edge.target.split(".")
        for n in range(2, len(parts) + 1):
            target = ".".join(parts[:n])
            if target != edge.source and not edge.source.startswith(target + "."):
                out.setdefault(edge.source, set()).add(target)
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    import sys

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return found
