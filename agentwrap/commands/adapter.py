"""`agentwrap adapter list | test [NAME|PATH] [--fixtures DIR] | new NAME [--toml] [--dir DIR] [--force]`"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentwrap import envelope, fixtures, registry
from agentwrap.adapter import Adapter
from agentwrap.adapters import INDEX
from agentwrap.commands import CommandContext
from agentwrap.commands._argparse import Parser
from agentwrap.errors import UsageError
from agentwrap.problem import wrapper_problem


def main(args: Sequence[str], ctx: CommandContext) -> envelope.Outcome:
    parser = Parser(prog="agentwrap adapter", description="List, test and scaffold adapters.")
    sub = parser.add_subparsers(dest="action", required=True, parser_class=Parser)
    sub.add_parser("list", help="every adapter: built-in, user folder, plugins")
    test = sub.add_parser("test", help="replay an adapter over its captured fixtures")
    test.add_argument("target", nargs="?", help="an adapter name or an adapter file (.toml/.py); default: all")
    test.add_argument("--fixtures", default=None,
                      help="fixtures folder (default ./fixtures, else the one beside the adapter's file)")
    new = sub.add_parser("new", help="scaffold an adapter in the user folder (or --dir)")
    new.add_argument("name")
    new.add_argument("--toml", action="store_true", help="a data-only TOML adapter (default: Python)")
    new.add_argument("--dir", default=None, help="where to write it (default: the user adapter folder)")
    new.add_argument("--force", "--shadow", dest="shadow", action="store_true",
                     help="write it even when NAME is a built-in adapter's (the new file then replaces it)")
    ns = parser.parse_args(list(args))
    if ns.action == "list":
        return _list(ctx)
    if ns.action == "test":
        return _test(ctx, ns.target, ns.fixtures)
    from agentwrap.commands.scaffold import scaffold

    return scaffold(ctx, ns.name, toml=ns.toml, folder=ns.dir, shadow=ns.shadow)


def _list(ctx: CommandContext) -> envelope.Outcome:
    rows: list[dict[str, Any]] = []
    by_stem: dict[str, list[str]] = {}
    for program, stem in INDEX.items():
        by_stem.setdefault(stem, []).append(program)
    for stem, programs in sorted(by_stem.items()):
        rows.append({"name": stem, "source": "builtin", "matches": sorted(programs)})
    user_rows, warnings = registry.user_listing()
    rows.extend(user_rows)
    rows.append({"name": "generic", "source": "builtin", "matches": ["*"]})
    folder = registry.user_dir()
    return envelope.Outcome(envelope.build(request_id=ctx.request_id, summary=f"{len(rows)} adapters",
                                           data={"adapters": rows, "user_dir": str(folder)}, warnings=warnings), 0)


def _resolve(target: str | None, fixtures_dir: str | None) -> list[tuple[Adapter, Path]]:
    if target and (target.endswith((".toml", ".py")) or "/" in target):
        path = Path(target)
        if not path.is_file():
            raise UsageError(f"adapter test: {target}: no such adapter file")
        try:
            adapter = registry.load_file(path)
        except Exception as exc:
            raise UsageError(f"adapter test: {exc}") from None
        return [(adapter, Path(fixtures_dir) if fixtures_dir else path.parent / "fixtures")]
    root = Path(fixtures_dir or "fixtures")
    names = [target] if target else sorted({c.adapter for c in fixtures.cases(root)})
    return [(adapter, _fixtures_of(adapter, root, fixtures_dir)) for adapter in map(_named, names)]


def _named(name: str) -> Adapter:
    try:
        return registry.find("", forced=name)[0]
    except registry.NoSuchAdapter as exc:
        raise UsageError(f"adapter test {name}: no adapter is named {name!r}{exc.hint}") from None


def _fixtures_of(adapter: Adapter, root: Path, given: str | None) -> Path:
    """Where a named adapter's cases are: --fixtures, else ./fixtures when it holds some, else the
    `fixtures` folder beside the adapter's file (where `adapter new` made it)."""
    if given or fixtures.cases(root, adapter.name):
        return root
    source = registry.user_source(adapter.name)
    return Path(source).parent / "fixtures" if source else root


def _test(ctx: CommandContext, target: str | None, fixtures_dir: str | None) -> envelope.Outcome:
    results: list[dict[str, Any]] = []
    resolved = _resolve(target, fixtures_dir)
    for adapter, root in resolved:
        for case in fixtures.cases(root, adapter.name):
            try:
                diff = fixtures.check(adapter, case)
            except Exception as exc:  # noqa: BLE001 - one broken case must not hide the others
                diff = [f"replay failed: {type(exc).__name__}: {exc}"]
            results.append({"adapter": adapter.name, "case": case.name, "passed": not diff, "mismatches": diff})
    failed = [r for r in results if not r["passed"]]
    summary = f"{len(results) - len(failed)} passed, {len(failed)} failed"
    if not results:
        looked = sorted({str(root) for _, root in resolved})
        raise UsageError(f"adapter test: no fixtures found for {target or 'any adapter'} "
                         f"(looked in {', '.join(looked) or fixtures_dir or 'fixtures'}); "
                         "record some with `agentwrap capture`")
    error = None
    if failed:
        first = failed[0]
        # The summary says the counts; the detail names the first failure only, so it never repeats them.
        error = wrapper_problem("ADAPTER_TEST_FAILED", f"{first['adapter']}/{first['case']}: "
                                f"{first['mismatches'][0]}"[:1000])
    env = envelope.build(request_id=ctx.request_id, summary=summary, error=error, data={"cases": results},
                         warnings=registry.user_conflicts())
    return envelope.Outcome(env, 1 if failed else 0)
