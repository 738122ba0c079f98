"""pip's failures as Problems: the network, a requirement no release matches, a dependency conflict,
the OS-managed Python (PEP 668), a failed build, an invalid pyproject.toml.

`diagnostics(run)` is what the pip adapter's `diagnostics` returns: nothing for a run that succeeded;
each problem's `matched` is the lines of pip's it says, so they are not repeated inline.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from agentwrap.adapters import tracebacks
from agentwrap.adapters._pip_codes import FACTS
from agentwrap.adapters._pip_versions import kept_versions
from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun, CodeAction, Problem, problem

_NETWORK = lazy(r"Failed to establish a new connection|Connection refused|Max retries exceeded|Temporary failure "
                      r"in name resolution|Name or service not known|No route to host|Network is unreachable|Read "
                      r"timed out|ConnectTimeoutError|ProxyError|Could not fetch URL|Connection reset by peer|"
                      r"RemoteDisconnected|Connection aborted")
_NOT_FOUND = lazy(r"^ERROR: Could not find a version that satisfies the requirement (?P<req>.+?) "
                        r"\(from versions: (?P<versions>[^)]*)\)", re.M)
# PEP 668's refusal, from its first line to pip's closing hint (the OS's text between them varies by distribution)
_MANAGED = lazy(r"^error: externally-managed-environment\n(?:.*\n)*?hint: See PEP 668 .*$|"
                r"^error: externally-managed-environment$", re.M)
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


_NO_MATCH = lazy(r"^ERROR: No matching distribution found for .+$", re.M)
_CONFLICT_LINES = lazy(r"^(?:ERROR: ResolutionImpossible\b.*|"
                       r"\s+(?:\S+ \S+ depends on .+|The user requested .+))$", re.M)
_INDEXES = lazy(r"^Looking in indexes: (?P<urls>.+)$", re.M)


def _not_found_lines(text: str) -> str:
    """pip's two lines for a requirement it found no release of: what the problem says."""
    return "\n".join(m.group(0) for pattern in (_NOT_FOUND, _NO_MATCH) for m in pattern.finditer(text))


def _not_found(m: re.Match[str], run: CapturedRun, text: str) -> Problem:
    """`Could not find a version that satisfies the requirement R (from versions: ...)`: the releases are
    said once, in `available_versions` (a long list cut to the ones an agent can pick, the rest counted in
    `available_versions_omitted`); the detail names the newest, which the action installs."""
    versions = [v for v in m.group("versions").split(", ") if v and v != "none"]
    req = m.group("req")
    name = re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]
    kept = kept_versions(versions, req)
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


def diagnostics(run: CapturedRun) -> list[Problem]:
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
    if (managed := _MANAGED.search(text)) is not None:
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
            docs="https://packaging.python.org/en/latest/specifications/externally-managed-environments/",
        )._replace(matched=managed.group(0)))  # the OS's explanation, which the problem says: its source lines
    if _BUILD.search(text) is not None:
        found.append(_build_failed(run, text))
    if (pyproject := _pyproject_invalid(run, text)) is not None:
        found.append(pyproject)
    return found
