"""pip (`pip`, `pip3`; `python -m pip` via the python adapter): install failures explained, read commands parsed.

PIP_NO_INPUT=1 makes pip refuse every question (uninstall's `Proceed (Y/n)?`, index credentials) with an
exception instead of waiting; that exception becomes PIP_CONFIRMATION_REQUIRED / PIP_CREDENTIALS_REQUIRED
with pip's own non-interactive alternative.

This module is the adapter: parsed data, the install summary, effects, the lines kept inline. pip's
failures are read in `_pip_problems`, its read commands in `_pip_parse`, release order in `_pip_versions`.
"""

from __future__ import annotations

import os
import re
from typing import Any

from agentwrap.adapters import _pip_parse
from agentwrap.adapters._pip_codes import FACTS
from agentwrap.adapters._pip_problems import diagnostics
from agentwrap.adapters._pip_versions import version_key
from agentwrap.lazyre import lazy
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Interpretation, Problem, Spec

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "pip.spec.toml")

_IGNORED = lazy(r"^WARNING: Location '(?P<index>[^']*?)/?[^/']+/?' is ignored: it is neither a file nor a "
                r"directory\.$", re.M)


def _installed_summary(installed: list[dict[str, Any]]) -> str:
    """What an install did, package by package: `upgraded beta 1.0 -> 2.0; installed gamma 1.0` (the
    version an upgrade replaced is said here and in its item's `replaced`, pip's uninstall lines are noise)."""
    said: dict[str, list[str]] = {}
    for p in installed:
        new, old = p.get("version", ""), p.get("replaced")
        if old is None or not new:
            verb, what = "installed", f"{p['name']} {new}".strip()
        else:
            order = (version_key(new) > version_key(old)) - (version_key(new) < version_key(old))
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
        return diagnostics(run)
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
        if run.subcommand == "download" and "saved" in data:
            n = len(data["saved"])
            return f"pip download: {n} file{'' if n == 1 else 's'} in place" if n else None
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
        if interp.error is not None and interp.error.code in _REFUSED_PROMPT:
            interp = _without_traceback(interp, run)
        data = interp.data if isinstance(interp.data, dict) else {}
        effects = [{"resource": f"python-package:{p['name']}", "action": p.get("action", "create"),
                    **({"version": p["version"]} if "version" in p else {})} for p in data.get("installed", [])]
        effects += [{"resource": f"python-package:{p['name']}", "action": "delete",
                     **({"version": p["version"]} if "version" in p else {})} for p in data.get("uninstalled", [])]
        return interp._replace(effects=tuple(effects))


# pip answers a prompt PIP_NO_INPUT refused with its own traceback (`ERROR: Exception:` ... `raise Exception(`
# ... `Exception: No input was expected ($PIP_NO_INPUT set); question: Proceed (Y/n)?`): pip's internals, which
# the problem says in a line. They are the lines the problem was read from, so the text leaves them out.
_REFUSED_PROMPT = ("PIP_CONFIRMATION_REQUIRED", "PIP_CREDENTIALS_REQUIRED")
_PIP_TRACEBACK = lazy(r"^ERROR: Exception:\n(?:.*\n)*?.*No input was expected \(\$PIP_NO_INPUT set\).*$", re.M)


def _without_traceback(interp: Interpretation, run: CapturedRun) -> Interpretation:
    found = _PIP_TRACEBACK.search(run.stderr_text) or _PIP_TRACEBACK.search(run.stdout_text)
    error = interp.error
    if found is None or error is None:
        return interp
    lean = error._replace(matched="\n".join(x for x in (error.matched, found.group(0)) if x))
    return interp._replace(error=lean, problems=tuple(lean if p == error else p for p in interp.problems))


ADAPTER: Adapter = PipAdapter(Spec.from_toml(SPEC_FILE))
