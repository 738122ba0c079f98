"""Which adapter serves a program: the user's folder, installed plugins, then the built-ins.

Nothing is imported or parsed until a program names it: the built-in index maps program names to
adapter files, plugins are found through a cached index of the `agentwrap.adapters` entry points,
and a generic run loads no adapter code at all. A broken adapter is a warning, never a crash.
AGENTWRAP_ADAPTERS=builtin loads the built-ins only (tests, reproducible CI).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from agentwrap.adapter import Adapter, BaseAdapter
from agentwrap.adapters import INDEX
from agentwrap.errors import UsageError
from agentwrap.lazyre import lazy

GENERIC: Adapter = BaseAdapter()
ENTRY_POINT_GROUP = "agentwrap.adapters"
_VERSION_SUFFIX = lazy(r"(-?\d+(\.\d+)*)$")
_BUILTIN_DIR = Path(__file__).parent / "adapters"
_loaded: dict[str, Adapter] = {}


def family_keys(argv0: str) -> list[str]:
    """`/usr/bin/g++-12` -> [g++-12, g++]; `x86_64-linux-gnu-gcc-12` -> [..., gcc]; `python3.11` -> python."""
    base = os.path.basename(argv0)
    keys = [base]
    stripped = _VERSION_SUFFIX.sub("", base) or base
    keys.append(stripped)
    if "-" in stripped:
        keys.append(stripped.rsplit("-", 1)[1])
    return list(dict.fromkeys(keys))


def user_dir() -> Path:
    override = os.environ.get("AGENTWRAP_ADAPTER_DIR")
    if override:
        return Path(override)
    if sys.platform.startswith("linux"):  # what platformdirs answers on Linux, without its ~2 ms import
        return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "agentwrap" / "adapters"
    import platformdirs

    return Path(platformdirs.user_config_dir("agentwrap")) / "adapters"


def builtin_only() -> bool:
    return os.environ.get("AGENTWRAP_ADAPTERS", "") == "builtin"


def load_file(path: Path) -> Adapter:
    """An adapter from a `.toml` spec or a `.py` module defining ADAPTER; raises on any defect."""
    from agentwrap.spec import Spec, SpecError

    if path.suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise SpecError(f"{path}: not valid TOML: {exc}") from None
        return BaseAdapter(Spec.from_dict(data, str(path)))
    import importlib.util

    module_spec = importlib.util.spec_from_file_location(f"agentwrap_user_adapter_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise SpecError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    adapter = getattr(module, "ADAPTER", None)
    if adapter is None:
        raise SpecError(f"{path}: defines no ADAPTER")
    return adapter  # type: ignore[no-any-return]


def _builtin(stem: str) -> Adapter:
    if stem not in _loaded:
        toml = _BUILTIN_DIR / f"{stem}.toml"
        if toml.exists():
            _loaded[stem] = load_file(toml)
        else:
            import importlib

            _loaded[stem] = importlib.import_module(f"agentwrap.adapters.{stem}").ADAPTER
    return _loaded[stem]


def _user_adapters(warnings: list[dict[str, str]]) -> dict[str, Adapter]:
    folder = user_dir()
    if builtin_only() or not folder.is_dir():
        return {}
    found: dict[str, Adapter] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".toml", ".py") or path.name.startswith(("_", ".")):
            continue
        try:
            adapter = load_file(path)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the run down
            warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": f"{path}: {exc}"[:500]})
            continue
        for name in (adapter.name, *adapter.matches()):
            found.setdefault(name, adapter)
    return found


_EP_INDEX: dict[str, str] | None = None


def _entry_point_index() -> dict[str, str]:
    """program name -> 'module:attr', cached until an installation changes a sys.path folder."""
    global _EP_INDEX
    if _EP_INDEX is None:
        _EP_INDEX = _read_entry_points()
    return _EP_INDEX


def _read_entry_points() -> dict[str, str]:
    stamp = [os.stat(p).st_mtime_ns if os.path.isdir(p) else 0 for p in sys.path if p]
    from agentwrap.artifacts import default_root

    cache = default_root().parent / "entry-points.json"
    try:
        cached = json.loads(cache.read_text())
        if cached.get("stamp") == stamp:
            return dict(cached["index"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    from importlib.metadata import entry_points

    index = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"stamp": stamp, "index": index}))
    except OSError:
        pass
    return index


def _plugin(name: str, warnings: list[dict[str, str]]) -> Adapter | None:
    if builtin_only():
        return None
    value = _entry_point_index().get(name)
    if value is None:
        return None
    try:
        import importlib

        module, _, attr = value.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
        return obj() if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "interpret")) else obj  # type: ignore[no-any-return]
    except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the run down
        warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": f"entry point {name} = {value}: {exc}"[:500]})
        return None


def names() -> list[str]:
    return sorted({"generic", *INDEX.values()})


def builtin(name: str) -> Adapter:
    """A built-in adapter by its name (for describe, adapter test)."""
    if name == "generic":
        return GENERIC
    return _builtin(name)


def find(argv0: str, *, forced: str | None = None, disabled: bool = False) -> tuple[Adapter, list[dict[str, str]]]:
    """The adapter for a program (or the one forced), and warnings about adapters that failed to load."""
    warnings: list[dict[str, str]] = []
    if disabled:
        return GENERIC, warnings
    if forced is not None:
        return _forced(forced, warnings), warnings
    keys = family_keys(argv0)
    user = _user_adapters(warnings)
    for key in keys:
        if key in user:
            return user[key], warnings
    for key in keys:
        plugin = _plugin(key, warnings) if not user or key not in user else None
        if plugin is not None:
            return plugin, warnings
    for key in keys:
        if key in INDEX:
            try:
                return _builtin(INDEX[key]), warnings
            except Exception as exc:  # noqa: BLE001 - a built-in bug degrades to the generic adapter
                warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": f"built-in {INDEX[key]}: {exc}"[:500]})
    return GENERIC, warnings


def _forced(name: str, warnings: list[dict[str, str]]) -> Adapter:
    user = _user_adapters(warnings)
    if name in user:
        return user[name]
    if name in names():
        return builtin(name)
    plugin = _plugin(name, warnings)
    if plugin is not None:
        return plugin
    import difflib

    near = difflib.get_close_matches(name, names(), n=3)
    hint = f"; did you mean {', '.join(near)}?" if near else f"; known: {', '.join(names())}"
    raise UsageError(f"--adapter {name!r}: no such adapter{hint}")


def describe(name: str) -> dict[str, Any]:
    adapter, _ = find("", forced=name)
    return adapter.descriptor()
