"""Which adapter serves a program: the user's folder, installed plugins, then the built-ins.

Nothing is imported or parsed until a program names it: the built-in index maps program names to
adapter files, plugins are found through a cached index of the entry points, and a generic run loads no
adapter code at all. Every source ends in one check (`accepted`): what loads must be an adapter
instance meeting the `Adapter` Protocol, else it is an ADAPTER_LOAD_FAILED warning, never a crash.

Plugins register in the versioned group `agentwrap.adapters.v1` (one value shape: an adapter instance);
the unversioned `agentwrap.adapters` group of earlier releases is still read, and its value may be a
class or a factory, called once. A name in both groups is the v1 entry's.
AGENTWRAP_ADAPTERS=builtin loads the built-ins only (tests, reproducible CI).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agentwrap.adapter import Adapter, BaseAdapter, Effects, find_inner_with, launched_command, scripted_commands
from agentwrap.adapters import INDEX
from agentwrap.errors import UsageError
from agentwrap.folders import config_path
from agentwrap.lazyre import lazy
from agentwrap.plugin_index import GROUP as ENTRY_POINT_GROUP
from agentwrap.plugin_index import GROUP_V1 as ENTRY_POINT_GROUP_V1
from agentwrap.plugin_index import V1_MARK as _V1
from agentwrap.plugin_index import by_program as _entry_point_index

if TYPE_CHECKING:
    from pathlib import Path  # every run looks up an adapter: strings here, pathlib costs ~3 ms to import

GENERIC: Adapter = BaseAdapter()
_VERSION_SUFFIX = lazy(r"(-?\d+(\.\d+)*)$")
_BUILTIN_DIR = os.path.join(os.path.dirname(__file__), "adapters")
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


def user_folder() -> str:
    """The user's adapter folder: `$AGENTWRAP_ADAPTER_DIR`, else `adapters` in agentwrap's config folder."""
    return os.environ.get("AGENTWRAP_ADAPTER_DIR") or os.path.join(config_path(), "adapters")


def user_dir() -> Path:
    """`user_folder` as a Path."""
    from pathlib import Path

    return Path(user_folder())


def builtin_only() -> bool:
    return os.environ.get("AGENTWRAP_ADAPTERS", "") == "builtin"


def load_file(path: str | os.PathLike[str]) -> Adapter:
    """An adapter from a `.toml` spec or a `.py` module defining ADAPTER; raises on any defect."""
    from agentwrap.spec import Spec, SpecError

    stem, suffix = os.path.splitext(os.path.basename(path))
    if suffix == ".toml":
        return BaseAdapter(Spec.from_toml(path))
    import importlib.util

    module_spec = importlib.util.spec_from_file_location(f"agentwrap_user_adapter_{stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise SpecError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    adapter = getattr(module, "ADAPTER", None)
    if adapter is None:
        raise SpecError(f"{path}: defines no ADAPTER")
    return accepted(adapter, f"{path}: ADAPTER")


def _builtin(stem: str) -> Adapter:
    if stem not in _loaded:
        toml = os.path.join(_BUILTIN_DIR, f"{stem}.toml")  # data only; a Python one's data is NAME.spec.toml
        python = (os.path.exists(os.path.join(_BUILTIN_DIR, f"{stem}.py"))
                  or os.path.exists(os.path.join(_BUILTIN_DIR, stem, "__init__.py")))
        if os.path.exists(toml) and not python:
            _loaded[stem] = load_file(toml)
        else:
            import importlib

            module = importlib.import_module(f"agentwrap.adapters.{stem}")
            _loaded[stem] = accepted(module.ADAPTER, f"agentwrap.adapters.{stem}:ADAPTER")
    return _loaded[stem]


def _user_files(warnings: list[dict[str, str]]) -> list[tuple[str, Adapter]]:
    """(path, adapter) of every adapter file of the user folder that loads, in file-name order."""
    folder = user_folder()
    if builtin_only() or not os.path.isdir(folder):
        return []
    found: list[tuple[str, Adapter]] = []
    for name in sorted(os.listdir(folder)):
        if os.path.splitext(name)[1] not in (".toml", ".py") or name.startswith(("_", ".")):
            continue
        path = os.path.join(folder, name)
        try:
            found.append((path, load_file(path)))
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the run down
            warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": _load_failure(path, exc)})
    return found


def _load_failure(path: str, exc: Exception) -> str:
    """`PATH: what is wrong`, the path said once: a spec's own errors already start with it."""
    message = str(exc)
    return (message if message.startswith(path) else f"{path}: {message}")[:500]


def _claims(files: list[tuple[str, Adapter]]) -> dict[str, list[tuple[str, Adapter]]]:
    """Name or program -> the files claiming it, the one serving it first: an adapter named after it before
    one that lists it in `matches` only, else the first in file-name order."""
    claims: dict[str, list[tuple[str, Adapter]]] = {}
    for path, adapter in files:
        claims.setdefault(adapter.name, []).append((path, adapter))
    for path, adapter in files:
        for program in adapter.matches():
            claimants = claims.setdefault(program, [])
            if all(p != path for p, _ in claimants):
                claimants.append((path, adapter))
    return claims


def _user_adapters(warnings: list[dict[str, str]]) -> dict[str, Adapter]:
    return {key: claimants[0][1] for key, claimants in _claims(_user_files(warnings)).items()}


def user_adapters() -> list[Adapter]:
    """The adapters of the user folder that load (each once), for listings such as `agentwrap explain`."""
    unique: dict[str, Adapter] = {}
    for adapter in _user_adapters([]).values():
        unique.setdefault(adapter.name, adapter)
    return list(unique.values())


def user_listing() -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """What `adapter list` shows of the user folder: each adapter file that loads (with the names and
    programs another file serves in its place), and warnings: files that failed, and every conflict
    (ADAPTER_CONFLICT, said here and by `adapter test`, not in every run's envelope)."""
    warnings: list[dict[str, str]] = []
    files = _user_files(warnings)
    claims = _claims(files)
    rows: list[dict[str, Any]] = [{"name": adapter.name, "source": path, "matches": list(adapter.matches())}
                                  for path, adapter in files]
    for key, claimants in sorted(claims.items()):
        if len(claimants) < 2:
            continue
        winner, others = claimants[0][0], [p for p, _ in claimants[1:]]
        for row in rows:
            if row["source"] in others:
                row.setdefault("shadowed", []).append({"claim": key, "by": winner})
        files_named = ", ".join(os.path.basename(p) for p, _ in claimants)
        warnings.append({"code": "ADAPTER_CONFLICT", "message": (
            f"{key!r} is claimed by {files_named} in {os.path.dirname(winner)}: {os.path.basename(winner)} "
            "serves it (an adapter named after a program before one listing it in `matches`, then the first "
            "file by name); remove or rename the others")[:500]})
    return rows, warnings


def user_conflicts() -> list[dict[str, str]]:
    """The ADAPTER_CONFLICT warnings of the user folder."""
    return [w for w in user_listing()[1] if w["code"] == "ADAPTER_CONFLICT"]


def user_source(name: str) -> str | None:
    """The file of the user adapter serving a name, or None."""
    claimants = _claims(_user_files([])).get(name)
    return claimants[0][0] if claimants else None


def _plugin(name: str, warnings: list[dict[str, str]]) -> Adapter | None:
    if builtin_only():
        return None
    value = _entry_point_index().get(name)
    if value is None:
        return None
    v1 = value.startswith(_V1)
    reference = value.removeprefix(_V1)
    try:
        import importlib

        module, _, attr = reference.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
        if not v1 and (isinstance(obj, type) or (callable(obj) and not hasattr(obj, "interpret"))):
            obj = obj()  # the unversioned group's class or factory
        return accepted(obj, f"entry point {name} = {reference}")
    except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the run down
        group = ENTRY_POINT_GROUP_V1 if v1 else ENTRY_POINT_GROUP
        warnings.append({"code": "ADAPTER_LOAD_FAILED", "message": f"{group}: {name} = {reference}: {exc}"[:500]})
        return None


_PROTOCOL = ("name", "matches", "descriptor", "environment", "subcommand", "effects", "prompt_help", "interpret",
             "find_problems", "problem_codes", "declarations")


def accepted(obj: Any, what: str) -> Adapter:
    """The one check every source's adapter passes (built-in, user folder, entry point): an instance with
    the Adapter Protocol's members. Raises with what is missing."""
    missing = [member for member in _PROTOCOL if not hasattr(obj, member)]
    if isinstance(obj, type) or missing:
        shape = "a class, not an instance" if isinstance(obj, type) else f"no {', '.join(missing)}"
        raise TypeError(f"{what} is not an adapter instance ({shape}); subclass agentwrap.sdk.BaseAdapter")
    adapter: Adapter = obj
    return adapter


def format_adapter(program: str) -> Adapter | None:
    """A generic adapter that reads `program`'s diagnostics with its built-in format (logs/formats.py,
    found by program or format name), or None. Here, not in logs/: the formats need no adapter code."""
    from agentwrap.logs import formats

    found = formats.for_program(program)
    if not found:
        return None
    first = found[0]

    class FormatAdapter(BaseAdapter):
        codes = (formats.diagnostic_code(first.name),)

        @property
        def name(self) -> str:
            return first.name

        def matches(self) -> tuple[str, ...]:
            return first.matches

        def descriptor(self) -> dict[str, Any]:
            described = super().descriptor()
            described.update(name=first.name, matches=list(first.matches),
                             purpose=first.purpose or described["purpose"], source=first.source,
                             use_when=f"Running {', '.join(first.matches)}.",
                             do_not_use_when="The tool can print a machine format (JSON, SARIF, checkstyle) you "
                             "can read instead.", returns="Each diagnostic the tool prints as a located problem "
                             f"({self.codes[0].code}), besides the generic failures.",
                             limitations="Reads diagnostics only (no parsed data, no effects, no prompts of "
                             "its own); lines in a shape the format does not list are left as text.")
            return described

    return FormatAdapter()


def names() -> list[str]:
    return sorted({"generic", *INDEX.values()})


def builtin(name: str) -> Adapter:
    """A built-in adapter by its name (for describe, adapter test)."""
    if name == "generic":
        return GENERIC
    if name not in INDEX.values() and (found := format_adapter(name)):  # a tool read by its format (fixtures/java)
        return found
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
    from agentwrap.logs.format_index import PROGRAMS  # a tool with a diagnostic format only (go, javac, ...)

    for key in keys:
        if key in PROGRAMS and (found := format_adapter(key)):
            return found, warnings
    return GENERIC, warnings


def reader(argv: list[str], adapter: Adapter, *, forced: str | None = None, disabled: bool = False,
           ended: bool = False, status: int | None = None) -> tuple[Adapter, list[str]]:
    """Who reads a run of `argv` and the argv it reads, `adapter` being `find(argv[0])`'s. A wrapper that
    leaves the output and status its command's (`timeout 30 git status`, `command git status`, `env X=1
    make`: agentwrap.wrappers) is seen through when that command's program has an adapter and the wrapper
    has none of its own: git's adapter reads `git status`. Not when the run `ended` with a `status` the
    wrapper may have set itself (timeout's 124 says the time ran out, not how git ended; sudo's 1 that
    it wanted a password); before the run (prevention, effects, secrets) the command's adapter answers."""
    from agentwrap import wrappers

    through = None if disabled else wrappers.through(argv)
    if through is None or ended and through.owns(status):
        return adapter, argv
    if forced is not None:  # `--adapter git -- timeout 30 git status` reads git's words
        return adapter, through.argv
    if adapter is not GENERIC:  # an adapter written for the wrapper itself reads it
        return adapter, argv
    inner, _ = find(through.argv[0])  # one that fails to load is reported by a run that names it
    return (adapter, argv) if inner is GENERIC else (inner, through.argv)


def _serving(program: str) -> Adapter | None:
    """The adapter serving a launched program (`npx tsc`'s tsc), or None when only the generic one would."""
    adapter, _ = find(program)  # a user adapter that fails to load is reported by the run's own `find`
    return None if adapter is GENERIC else adapter


find_inner_with(_serving)  # the run's readers find the launched tool's adapter through the registry


def launch(adapter: Adapter, argv: list[str], cwd: str | None = None, depth: int = 3) -> tuple[dict[str, str], Effects]:
    """The prevention environment and effects of a run: a launcher's (`npx eslint --fix`), with those of the
    tool its argv names (eslint's environment, and --fix's writes). A script runner's (`npm run build`) with
    the environment of the tools its script runs in `cwd` (tsc's, and `npx tsc`'s, up to `depth` scripts
    deep: a script may run itself); not their effects: a script may do more."""
    env, effects = adapter.environment(argv), adapter.effects(argv)
    for command in scripted_commands(adapter, argv, cwd or os.getcwd()) if depth > 0 else []:
        if (scripted := _serving(command[0])) is not None:
            env = {**env, **launch(scripted, command, cwd, depth - 1)[0]}
    inner = launched_command(adapter, argv)
    launched = _serving(inner[0]) if inner else None
    if launched is None or not inner:
        return env, effects
    return {**env, **launched.environment(inner)}, _both(effects, launched.effects(inner))


# The value of each effect that decides when either run has it: a launcher that installs, or a tool that
# writes, makes the run mutating whatever the other does.
_DECIDING = {"read_only": False, "destructive": True, "idempotent": False, "open_world": True}


def _both(launcher: Effects, tool: Effects) -> Effects:
    """The effects of a launcher running a tool: the deciding value if either has it, the tool's where the
    launcher does not know (npx), unknown where the tool does not."""
    def one(field: str) -> bool | None:
        mine: bool | None = getattr(launcher, field)
        its: bool | None = getattr(tool, field)
        if _DECIDING[field] in (mine, its):
            return _DECIDING[field]
        return its if mine is None or its is None else mine

    return Effects(**{field: one(field) for field in _DECIDING})


class NoSuchAdapter(UsageError):
    """`--adapter NAME` (or `adapter test NAME`) names nothing; `hint` says the close names."""

    def __init__(self, name: str, hint: str) -> None:
        super().__init__(f"--adapter {name!r}: no such adapter{hint}")
        self.name, self.hint = name, hint


def _forced(name: str, warnings: list[dict[str, str]]) -> Adapter:
    user = _user_adapters(warnings)
    if name in user:
        return user[name]
    from agentwrap.logs.format_index import PROGRAMS

    if name in names():
        return builtin(name)
    if name in INDEX:  # a program a built-in serves (`--adapter g++`)
        return _builtin(INDEX[name])
    if name in PROGRAMS and (found := format_adapter(name)):  # a diagnostic format, or a program it reads
        return found
    plugin = _plugin(name, warnings)
    if plugin is not None:
        return plugin
    raise NoSuchAdapter(name, unknown_hint(name, user))


def unknown_hint(name: str, user: dict[str, Adapter]) -> str:
    """`; did you mean greet?` from every name an adapter could be forced by: the user folder's, the
    plugins', the built-ins' and the diagnostic formats' (with the programs each serves)."""
    import difflib

    from agentwrap.logs.format_index import PROGRAMS

    plugins = [] if builtin_only() else list(_entry_point_index())
    candidates = sorted({*user, *names(), *INDEX, *PROGRAMS, *PROGRAMS.values(), *plugins})
    near = difflib.get_close_matches(name, candidates, n=3)
    if near:
        return f"; did you mean {', '.join(near)}?"
    known = sorted({*(a.name for a in user.values()), *names()})
    return f"; known: {', '.join(known)}, or a diagnostic format's name (python-lint, go, java, ...)"


def describe(name: str) -> dict[str, Any]:
    adapter, _ = find("", forced=name)
    return adapter.descriptor()
