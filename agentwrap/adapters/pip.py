"""pip (`pip`, `pip3`; `python -m pip` via the python adapter): install failures explained, read commands parsed.

PIP_NO_INPUT=1 makes pip refuse every question (uninstall's `Proceed (Y/n)?`, index credentials) with an
exception instead of waiting; that exception becomes PIP_CONFIRMATION_REQUIRED / PIP_CREDENTIALS_REQUIRED
with pip's own non-interactive alternative.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from agentwrap.adapters import _pip_parse, tracebacks
from agentwrap.adapters._pip_codes import FACTS
from agentwrap.lazyre import lazy
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, CodeAction, Effects, Interpretation, Problem, Spec, problem

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "pip.spec.toml")

_NETWORK = lazy(r"Failed to establish a new connection|Connection refused|Max retries exceeded|Temporary failure "
                      r"in name resolution|Name or service not known|No route to host|Network is unreachable|Read "
                      r"timed out|ConnectTimeoutError|ProxyError|Could not fetch URL|Connection reset by peer|"
                      r"RemoteDisconnected|Connection aborted")
_NOT_FOUND = lazy(r"^ERROR: Could not find a version that satisfies the requirement (?P<req>.+?) "
                        r"\(from versions: (?P<versions>[^)]*)\)", re.M)
_CONFLICT = lazy(r"^ERROR: (?:Cannot install (?P<what>.+?) because these package versions have conflicting "
                       r"dependencies\.|ResolutionImpossible)", re.M)
_CAUSED_BY = lazy(r"^\s+(?P<line>(?:\S+ \S+ depends on .+|The user requested .+))$", re.M)
_BUILD = lazy(r"^(?:\s*error: (?P<kind>subprocess-exited-with-error|metadata-generation-failed|"
                    r"legacy-install-failure)|\s*(?:ERROR: )?Failed building wheel for (?P<pkg>\S+)|ERROR: (?:Could "
                    r"not build wheels for|Failed to build installable wheels))", re.M)
_STEP = lazy(r"^\s*× (?P<step>.+?) did not run successfully\.", re.M)
_HINTS = (("'gcc' failed|command 'cc' failed|gcc: not found|No such file or directory: 'gcc'",
           "install a C compiler (build-essential)"),
          ("Python.h: No such file", "install the Python headers (python3-dev)"),
          ("pg_config executable not found", "install libpq-dev"),
          ("Microsoft Visual C\\+\\+", "install the Microsoft C++ Build Tools"),
          ("(?:rustc|cargo).*not (?:found|installed)|can't find Rust compiler", "install Rust (rustup)"))


def _problem(code: str, detail: str, run: CapturedRun, *, fix: str, actions: tuple[CodeAction, ...] = (),
             extra: dict[str, Any] | None = None, docs: str | None = None) -> Problem:
    return problem("pip", FACTS[code], detail, exit_code=run.exit_code, suggested_fix=fix, docs_url=docs,
                   code_actions=actions, extra=extra)


_IGNORED = lazy(r"^WARNING: Location '(?P<index>[^']*?)/?[^/']+/?' is ignored: it is neither a file nor a "
                r"directory\.$", re.M)
_NO_MATCH = lazy(r"^ERROR: No matching distribution found for .+$", re.M)
_CONFLICT_LINES = lazy(r"^(?:ERROR: ResolutionImpossible\b.*|"
                       r"\s+(?:\S+ \S+ depends on .+|The user requested .+))$", re.M)
_INDEXES = lazy(r"^Looking in indexes: (?P<urls>.+)$", re.M)


def _not_found_lines(text: str) -> str:
    """pip's two lines for a requirement it found no release of: what the problem says."""
    return "\n".join(m.group(0) for pattern in (_NOT_FOUND, _NO_MATCH) for m in pattern.finditer(text))


# A long release list (botocore has 2,559) keeps the releases an agent can pick: the newest, and those next
# to the version asked for; `available_versions_omitted` counts the rest, which pip's line in the artifact has.
VERSIONS_WHOLE = 12  # a list this short is kept whole
NEWEST_KEPT = 5
NEAR_KEPT = 2  # on each side of the version asked for
_ASKED = lazy(r"(?:===?|~=|!=|<=?|>=?)\s*v?(?P<version>\d[\w.!+-]*)")
_RELEASE = lazy(r"^v?(?:\d+!)?(?P<release>\d+(?:\.\d+)*)(?P<rest>.*)$")
_STAGES = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "c": 3, "rc": 3, "pre": 3, "preview": 3}


def _version_key(version: str) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """A version's place in release order, near enough to find its neighbours (`packaging` is no
    dependency): the release numbers (1.0 is 1.0.0), then dev < pre-release < final < post, then their
    numbers. Epochs and local versions are not weighed."""
    m = _RELEASE.match(version.strip().lower())
    if m is None:
        return (), 4, ()
    release = tuple(int(part) for part in m["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    rest = m["rest"].split("+", 1)[0].lstrip("-_.")
    word = re.match(r"[a-z]+", rest)
    stage = (_STAGES.get(word.group(0), 5) if word else 5) if rest else 4
    return release, stage, tuple(int(n) for n in re.findall(r"\d+", rest))


def _kept_versions(versions: list[str], requirement: str) -> list[str]:
    """Of pip's releases (oldest first), the ones an agent can act on, in pip's order: all of a short
    list; else the newest few and the nearest below and above the version the requirement names."""
    if len(versions) <= VERSIONS_WHOLE:
        return versions
    keep = set(range(len(versions) - NEWEST_KEPT, len(versions)))
    if (asked := _ASKED.search(requirement)) is not None:
        target = _version_key(asked["version"].removesuffix(".*"))
        keys = [_version_key(v) for v in versions]
        order = sorted(range(len(versions)), key=keys.__getitem__)
        below = [i for i in order if keys[i] < target]
        above = [i for i in order if keys[i] > target]
        keep |= {*below[-NEAR_KEPT:], *above[:NEAR_KEPT], *(i for i in order if keys[i] == target)}
    return [versions[i] for i in sorted(keep)]


def _not_found(m: re.Match[str], run: CapturedRun, text: str) -> Problem:
    """`Could not find a version that satisfies the requirement R (from versions: ...)`: the releases are
    said once, in `available_versions` (a long list cut to the ones an agent can pick, the rest counted in
    `available_versions_omitted`); the detail names the newest, which the action installs."""
    versions = [v for v in m.group("versions").split(", ") if v and v != "none"]
    req = m.group("req")
    name = re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]
    kept = _kept_versions(versions, req)
    extra: dict[str, Any] = {"requirement": req, "available_versions": kept}
    if len(kept) < len(versions):
        extra["available_versions_omitted"] = len(versions) - len(kept)
    if versions:
        detail = f"no release of {name} matches {req} (newest: {versions[-1]})"
        fix = "Relax the version, or pick one of `available_versions`."
        actions: tuple[CodeAction, ...] = (CodeAction(
            title=f"Install the newest available {name} ({versions[-1]})",
            command=(run.argv[0], "install", f"{name}=={versions[-1]}"), applicability="maybe_incorrect"),)
    else:
        detail, actions = f"no distribution of {req} found", ()
        # where pip looked (its `Looking in indexes:` line, noise inline): a project missing from a
        # private index is found elsewhere
        if (index := _INDEXES.search(text)) is not None:
            extra["index_urls"] = index["urls"].split(", ")
        fix = (f"The index has no project '{name}': check the spelling (`pip index versions {name}`), the "
               "index URL (--index-url; an unreachable index looks the same when pip does not retry), or "
               "whether it needs another Python.")
    return _problem("PIP_NO_MATCHING_DISTRIBUTION", detail, run, fix=fix, actions=actions, extra=extra,
                    )._replace(matched=_not_found_lines(text))


def _normalized(name: str) -> str:
    """A project's name as PEP 503 compares it: `Flask_Login` and `flask-login` are one project."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _conflict(c: re.Match[str], run: CapturedRun, text: str) -> Problem:
    """ResolutionImpossible: the causes pip lists are said once, in `conflicts`; the detail names what
    could not be installed and the dependency they disagree on."""
    causes = [m.group("line").strip() for m in _CAUSED_BY.finditer(text)][:20]
    # one project however its dependants spell it (`Flask`, `flask`): named as PEP 503 normalises it
    wanted = sorted({_normalized(re.split(r"[<>=!~;\[ (]", cause.split(" depends on ", 1)[-1].removeprefix(
        "The user requested "), maxsplit=1)[0]) for cause in causes} - {""})
    names = ", ".join(wanted)
    on, of = (f" on {names}", f" of {names}") if wanted else ("", "")
    what = c.group("what")
    detail = (f"cannot install {what}: their dependencies conflict{on}" if what else
              f"the requirements conflict{on} (ResolutionImpossible)")
    said = [c.group(0), *(m.group(0) for m in _CONFLICT_LINES.finditer(text))]
    return _problem(
        "PIP_DEPENDENCY_CONFLICT", detail, run, extra={"conflicts": causes},
        fix=f"Loosen or change the pins named in `conflicts` so one version{of} satisfies every dependant.",
        docs="https://pip.pypa.io/en/stable/topics/dependency-resolution/#dealing-with-dependency-conflicts",
    )._replace(matched="\n".join(said))


_FAILED_WHEEL = lazy(r"^\s*(?:ERROR: )?Failed building wheel for (?P<pkg>\S+)|"
                     r"^Failed to build (?P<built>\S+)", re.M)
# pip's closing lines about a failed build: the problem says which package, and the cause
_BUILD_SAID = lazy(r"^\s*(?:ERROR: )?(?:Failed building wheel for \S+|Failed to build \S+|"
                   r"Could not build wheels for .+)$", re.M)
_BUILDING = lazy(r"Building wheel for (?P<pkg>\S+) \(", re.M)
_COMPILER_ERROR = lazy(r"^\s*(?P<line>[^\s:]+\.(?:c|cc|cpp|cxx|h|hpp|pyx|rs):\d+(?::\d+)?: "
                       r"(?:fatal )?error: .+)$", re.M)


def _failed_package(text: str, step: re.Match[str] | None) -> str | None:
    """The package whose build failed, as pip names it (`Failed building wheel for fastcsv`); else the one
    being processed. The first `Processing` line is only the first of several requirements."""
    if (failed := _FAILED_WHEEL.search(text)) is not None:
        return failed["pkg"] or failed["built"]
    if step is not None and (building := _BUILDING.search(step.group("step"))) is not None:
        return building["pkg"]
    source = re.search(r"^(?:Processing|Collecting) (\S+)", text, re.M)
    return source.group(1) if source else None


def _from_index(pkg: str, text: str) -> bool:
    """pip fetched `pkg` from an index (`Collecting pkg`): a prebuilt wheel may exist there. A local folder
    (`Processing ./dir`) has none, so `--only-binary :all:` cannot help it."""
    if pkg.startswith((".", "/", "file:")):
        return False
    name = re.escape(pkg).replace("\\-", "[-_.]").replace("_", "[-_.]")
    return re.search(rf"^Collecting {name}\b", text, re.M | re.I) is not None


def _build_failed(run: CapturedRun, text: str) -> Problem:
    inner = tracebacks.parse(text)
    compiler = _COMPILER_ERROR.search(text)
    cause = inner[-1].final.headline() if inner else (compiler["line"].strip() if compiler else None)
    hints = [hint for pattern, hint in _HINTS if re.search(pattern, text)]
    step = _STEP.search(text)
    pkg = _failed_package(text, step)
    indexed = pkg is not None and _from_index(pkg, text)
    actions = (CodeAction(title="Install only prebuilt wheels", command=(*run.argv, "--only-binary", ":all:"),
                          applicability="maybe_incorrect"),) if indexed else ()
    what = f"building {pkg or 'a package'} failed"
    if step is not None:  # pip's step names the package when it builds a wheel: said once
        what = f"{step['step']} failed" if pkg and pkg in step["step"] else f"{what} ({step['step']})"
    advice = ("Choose a version with a wheel for this Python/platform (`--only-binary :all:`), or read the "
              "build output above the error." if indexed else
              "Fix the project's build: its output above the error shows the cause.")
    return _problem(
        "PIP_BUILD_FAILED", what + (f": {cause}" if cause else ""), run,
        extra={k: v for k, v in (("package", pkg), ("cause", cause), ("hints", hints)) if v},
        fix=("; ".join(hints).capitalize() + ". " if hints else "") + advice, actions=actions,
    )._replace(matched="\n".join(m.group(0) for m in _BUILD_SAID.finditer(text)))


_TOML_AT = lazy(r"\(at line (?P<line>\d+), column (?P<column>\d+)\)$")
_PROJECT = lazy(r"^(?:Obtaining|Processing) (?:file://)?(?P<path>/\S+|\.\S*)$", re.M)


def _pyproject_invalid(run: CapturedRun, text: str) -> Problem | None:
    """pip's uncaught TOMLDecodeError while it read a project's pyproject.toml (`ERROR: Exception:` and a
    traceback through `load_pyproject_toml`): the file and the TOML error's place, not pip's frames."""
    chains = tracebacks.parse(text)
    exc = chains[-1].final if chains else None
    if exc is None or not exc.short_type.endswith("TOMLDecodeError") or not any(
            f.function == "load_pyproject_toml" for f in exc.frames):
        return None
    projects = _PROJECT.findall(text[:text.find("Traceback (most recent call last)")])
    file = f"{projects[-1].rstrip('/')}/pyproject.toml" if projects else "pyproject.toml"
    message = exc.message.splitlines()[0] if exc.message else exc.type
    at = _TOML_AT.search(message)
    location = {"file": file, **({"line": int(at["line"]), "column": int(at["column"])} if at else {})}
    fix = ("A bracket, brace or string opened in the file is never closed: close it."
           if message.endswith("(at end of document)") else None)
    found = problem("pip", FACTS["PIP_PYPROJECT_INVALID"], f"{file} is not valid TOML: {message}",
                    exit_code=run.exit_code, suggested_fix=fix, location=location,
                    docs_url="https://toml.io/en/v1.0.0", extra={"exception": exc.type})
    return found._replace(matched=_traceback_block(text, exc.headline()))


def _traceback_block(text: str, last: str) -> str:
    """pip's `ERROR: Exception:` and the traceback under it, to its exception line: what the problem says
    (its frames are pip's own, no place to fix), so not repeated inline."""
    start = text.rfind("ERROR: Exception:")
    start = start if start >= 0 else text.rfind("Traceback (most recent call last):")
    end = text.find(last, start)
    return text[start:end + len(last)] if start >= 0 and end >= 0 else ""


def _diagnostics(run: CapturedRun) -> list[Problem]:
    if not run.failed:
        return []
    text, argv, found = run.text(), list(run.argv), []
    if (net := _NETWORK.search(text)) is not None:
        errno = re.search(r"\[Errno -?\d+\] (?P<reason>[^'\")\]]+)", text[max(0, net.start() - 200):])
        reason = errno.group("reason").strip() if errno else net.group(0)
        host = re.search(r"host='(?P<host>[^']+)', port=(?P<port>\d+)", text)
        index = re.search(r"^Looking in indexes: (?P<urls>.+)$", text, re.M)
        where = index.group("urls").split(", ")[0] if index else "the package index"
        facts = {k: v for k, v in (("host", host and f"{host['host']}:{host['port']}"),
                                   ("index_urls", index and index["urls"].split(", "))) if v}
        fix = "Check the network, proxy (--proxy, HTTPS_PROXY) and the index URL, then retry."
        unreachable = _problem("PIP_NETWORK_ERROR", f"pip could not reach {where}: {reason}", run, fix=fix,
                               extra=facts)
        # pip's "no version found" lines that follow are what the unreachable index led to: said by it
        found.append(unreachable._replace(matched=_not_found_lines(text)))
    for m in _NOT_FOUND.finditer(text) if net is None else ():
        found.append(_not_found(m, run, text))
    if (c := _CONFLICT.search(text)) is not None:
        found.append(_conflict(c, run, text))
    if re.search(r"^error: externally-managed-environment", text, re.M):
        args = argv[1:]
        venv = "python3 -m venv .venv && .venv/bin/python -m pip " + shlex.join(args)
        found.append(_problem(
            "PIP_EXTERNALLY_MANAGED", "this Python is managed by the OS (PEP 668): pip refuses to change it", run,
            fix="Install into a virtual environment (`python3 -m venv .venv`, then `.venv/bin/pip ...`), use the OS "
                "package (python3-xyz), or pipx for applications. --break-system-packages overrides it at your risk.",
            actions=(CodeAction(title="Create .venv and run the same pip command in it", command=("sh", "-c", venv),
                                applicability="maybe_incorrect", is_preferred=True),
                     CodeAction(title="Override the OS protection (may break system packages)",
                                command=(*argv, "--break-system-packages"), applicability="maybe_incorrect")),
            docs="https://packaging.python.org/en/latest/specifications/externally-managed-environments/"))
    if _BUILD.search(text) is not None:
        found.append(_build_failed(run, text))
    if (pyproject := _pyproject_invalid(run, text)) is not None:
        found.append(pyproject)
    return found


def _installed_summary(installed: list[dict[str, Any]]) -> str:
    """What an install did, package by package: `upgraded beta 1.0 -> 2.0; installed gamma 1.0` (the
    version an upgrade replaced is said here and in its item's `replaced`, pip's uninstall lines are noise)."""
    said: dict[str, list[str]] = {}
    for p in installed:
        new, old = p.get("version", ""), p.get("replaced")
        if old is None or not new:
            verb, what = "installed", f"{p['name']} {new}".strip()
        else:
            order = (_version_key(new) > _version_key(old)) - (_version_key(new) < _version_key(old))
            verb = {1: "upgraded", -1: "downgraded"}.get(order, "reinstalled")
            what = f"{p['name']} {new}" if old == new else f"{p['name']} {old} -> {new}"
        said.setdefault(verb, []).append(what)
    return "; ".join(f"{verb} {', '.join(names[:8])}" + (" …" if len(names) > 8 else "")
                     for verb, names in said.items())


# pip's lines of an uninstall (its own, or the one an upgrade does first): data.uninstalled and an
# installed item's `replaced` say them; noise rules drop them inline, a failed run keeps them (no data)
_UNINSTALL_LINES = lazy(r"^\s*(?:Attempting uninstall: \S+|Found existing installation: \S+ \S+|"
                        r"Uninstalling \S+:|Successfully uninstalled \S+)$", re.M)


class PipAdapter(BaseAdapter):
    codes = tuple(FACTS.values())
    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)
    parsers = {  # noqa: RUF012 - class-level table, never mutated
        "install": lambda run: _pip_parse.install(run.text()),
        "uninstall": lambda run: _pip_parse.uninstall(run.text()),
        "download": lambda run: _pip_parse.download(run.text()),
        "list": lambda run: _pip_parse.list_packages(run.stdout_text),
        "freeze": lambda run: _pip_parse.freeze(run.stdout_text),
        "show": lambda run: _pip_parse.show(run.text()),
        "check": lambda run: _pip_parse.check(run.text()),
    }

    def parse(self, run: CapturedRun) -> Any:
        if run.subcommand is None:
            return _pip_parse.version(run.text())
        sub = run.subcommand.split(" ")[0]
        if run.failed and sub not in ("show", "check"):  # their exit 1 is a finding, not a crash
            return None
        parser = self.parsers.get(sub)
        return parser(run) if parser else None

    def effects(self, argv: list[str]) -> Effects:
        base = super().effects(argv)
        if base.read_only and any(a.startswith(("--log", "--report")) for a in argv[1:]):
            return base._replace(read_only=False)  # `--log FILE` (any subcommand) writes FILE
        if self.subcommand(argv) == "list" and {"-o", "--outdated", "-u", "--uptodate"}.intersection(argv):
            return base._replace(open_world=True)
        return base

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        if would := data.get("would_install"):
            return f"would install {len(would)} package{'' if len(would) == 1 else 's'} (dry run)"
        if "installed" in data:
            return _installed_summary(data["installed"]) or "nothing to install: requirements already satisfied"
        if "uninstalled" in data:
            return f"uninstalled {', '.join(p['name'] for p in data['uninstalled']) or 'nothing'}"
        if "packages" in data:
            return f"{len(data['packages'])} package" + ("" if len(data["packages"]) == 1 else "s")
        if "ok" in data:
            return "pip check: no broken requirements" if data["ok"] else f"{len(data['broken'])} broken requirements"
        if "version" in data:
            return f"pip {data['version']} (python {data.get('python', '?')})"
        return None

    def interpret(self, run: CapturedRun) -> Interpretation:
        interp = super().interpret(run)
        # one `Location ... is ignored` line of each local index stays inline (a noise rule drops the rest)
        firsts: dict[str, str] = {}
        for m in _IGNORED.finditer(run.text()):
            firsts.setdefault(m["index"], m.group(0))
        if firsts:
            interp = interp._replace(kept_lines=(*interp.kept_lines, *firsts.values()))
        if run.failed and (undone := [m.group(0) for m in _UNINSTALL_LINES.finditer(run.text())]):
            interp = interp._replace(kept_lines=(*interp.kept_lines, *undone))
        data = interp.data if isinstance(interp.data, dict) else {}
        effects = [{"resource": f"python-package:{p['name']}", "action": p.get("action", "create"),
                    **({"version": p["version"]} if "version" in p else {})} for p in data.get("installed", [])]
        effects += [{"resource": f"python-package:{p['name']}", "action": "delete",
                     **({"version": p["version"]} if "version" in p else {})} for p in data.get("uninstalled", [])]
        return interp._replace(effects=tuple(effects))


ADAPTER: Adapter = PipAdapter(Spec.from_toml(SPEC_FILE))
