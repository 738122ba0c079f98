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
        found.append(_problem("PIP_NETWORK_ERROR", f"pip could not reach {where}: {reason}", run,
                              fix="Check the network, proxy (--proxy, HTTPS_PROXY) and the index URL, then retry.",
                              extra={k: v for k, v in (("host", host and f"{host['host']}:{host['port']}"),
                                                       ("index_urls", index and index["urls"].split(", "))) if v}))
    for m in _NOT_FOUND.finditer(text) if net is None else ():
        versions = [v for v in m.group("versions").split(", ") if v and v != "none"]
        name = re.split(r"[<>=!~;\[ ]", m.group("req"), maxsplit=1)[0]
        fix = (f"No release of {name} matches '{m.group('req')}'; available: {', '.join(versions[-10:])}. Relax the "
               "version or pick one of those." if versions else
               f"The index has no project '{name}': check the spelling (`pip index versions {name}`), the index URL "
               "(--index-url; an unreachable index looks the same when pip does not retry), or whether it needs "
               "another Python.")
        actions = (CodeAction(title=f"Install the newest available {name} ({versions[-1]})",
                              command=(argv[0], "install", f"{name}=={versions[-1]}"), applicability="maybe_incorrect"),
                   ) if versions else ()
        found.append(_problem("PIP_NO_MATCHING_DISTRIBUTION", f"no distribution of {m.group('req')} found" +
                              (f" (available: {', '.join(versions[-10:])})" if versions else ""), run, fix=fix,
                              actions=actions, extra={"requirement": m.group("req"), "available_versions": versions}))
    if (c := _CONFLICT.search(text)) is not None:
        causes = [m.group("line").strip() for m in _CAUSED_BY.finditer(text)][:20]
        found.append(_problem(
            "PIP_DEPENDENCY_CONFLICT", f"conflicting dependencies: {c.group('what') or 'ResolutionImpossible'}"
            + (f" ({'; '.join(causes[:4])})" if causes else ""), run, extra={"conflicts": causes},
            fix="Loosen or change the pins named in `conflicts` so one version satisfies every dependant.",
            docs="https://pip.pypa.io/en/stable/topics/dependency-resolution/#dealing-with-dependency-conflicts"))
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
    if (b := _BUILD.search(text)) is not None:
        inner = tracebacks.parse(text)
        cause = inner[-1].final.headline() if inner else None
        hints = [hint for pattern, hint in _HINTS if re.search(pattern, text)]
        step = _STEP.search(text)
        source = re.search(r"^(?:Processing|Collecting) (\S+)", text, re.M)
        pkg = b.group("pkg") or (source.group(1) if source else None)
        found.append(_problem(
            "PIP_BUILD_FAILED", f"building {pkg or 'a package'} failed" + (f" ({step.group('step')})" if step else "")
            + (f": {cause}" if cause else ""), run, extra={k: v for k, v in (("package", pkg), ("cause", cause),
                                                                             ("hints", hints)) if v},
            fix=("; ".join(hints).capitalize() + ". " if hints else "") + "Read the build output above the error; or "
            "choose a version with a wheel for this Python/platform (`--only-binary :all:`).",
            actions=() if pkg and pkg.startswith((".", "/", "file:")) else (CodeAction(
                title="Install only prebuilt wheels", command=(*argv, "--only-binary", ":all:"),
                applicability="maybe_incorrect"),)))
    return found


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
        if self.subcommand(argv) == "list" and {"-o", "--outdated", "-u", "--uptodate"}.intersection(argv):
            return base._replace(open_world=True)
        return base

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        if "installed" in data:
            names = [f"{p['name']} {p.get('version', '')}".strip() for p in data["installed"]]
            return (f"installed {', '.join(names[:8])}" + (" …" if len(names) > 8 else "")) if names else \
                "nothing to install: requirements already satisfied"
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
        data = interp.data if isinstance(interp.data, dict) else {}
        effects = [{"resource": f"python-package:{p['name']}", "action": p.get("action", "create"),
                    **({"version": p["version"]} if "version" in p else {})} for p in data.get("installed", [])]
        effects += [{"resource": f"python-package:{p['name']}", "action": "delete",
                     **({"version": p["version"]} if "version" in p else {})} for p in data.get("uninstalled", [])]
        return interp._replace(effects=tuple(effects))


ADAPTER: Adapter = PipAdapter(Spec.from_toml(SPEC_FILE))
