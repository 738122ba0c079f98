"""`npm run X` for a script package.json does not define: the scripts that do exist, nearest by name first.

npm's own `Did you mean this?` mixes scripts (`npm run build`) with built-in commands (`npm publish`,
`npm link`, `npm set`): a built-in is no replacement for a script and many of them publish, link globally or
change configuration, so they are mentioned in the detail and never offered as a command to run.
"""

from __future__ import annotations

import difflib
import json
import os
import re

from agentwrap.adapters._npm_parse import ERR, LOG, NPM_MISSING_SCRIPT, argv_value
from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun, CodeAction, Problem, problem

_MISSING_SCRIPT = lazy(ERR + r'Missing script: "(?P<script>[^"]+)"', re.M)
_DID_YOU_MEAN = lazy(ERR + r"\s+npm (?P<cmd>run [\w:.@/-]+|[\w-]+)(?: #.*)?$", re.M)
_FIX = ("Run one of the scripts that exist (`npm run` lists them) or add it to the \"scripts\" section of "
        "package.json.")


def _scripts_from_log(run: CapturedRun) -> list[str] | None:
    """The scripts of the package.json npm read: its folder comes from npm's own debug log (`verbose cwd`)."""
    log = LOG.search(run.text())
    folder = argv_value(run.argv, "--prefix", "-C")
    try:
        if folder is None and log:
            with open(log.group("path"), encoding="utf-8", errors="replace") as fh:
                head = fh.read(1 << 16)
            cwd = re.search(r"^\d+ verbose cwd (.+)$", head, re.M)
            folder = cwd.group(1).strip() if cwd else None
        if folder is None:
            return None
        with open(os.path.join(folder, "package.json"), encoding="utf-8") as fh:
            scripts = json.loads(fh.read(1 << 20)).get("scripts") or {}
        return sorted(scripts) if isinstance(scripts, dict) else None
    except (OSError, ValueError, AttributeError):
        return None


def script_line(folder: str, script: str) -> str | None:
    """The command line package.json in `folder` gives `script`, before npm runs it; None when unreadable."""
    try:
        with open(os.path.join(folder, "package.json"), encoding="utf-8") as fh:
            scripts = json.loads(fh.read(1 << 20)).get("scripts") or {}
    except (OSError, ValueError, AttributeError):
        return None
    line = scripts.get(script) if isinstance(scripts, dict) else None
    return line if isinstance(line, str) else None


def _npm_hints(text: str) -> tuple[list[str], list[str]]:
    """npm's `Did you mean this?` lines split into scripts (`run build` -> build) and built-in commands."""
    hints = [m.group("cmd") for m in _DID_YOU_MEAN.finditer(text) if m.group("cmd") != "run"]
    scripts = [h.removeprefix("run ") for h in hints if h.startswith("run ")]
    return scripts, [h for h in hints if not h.startswith("run ")]


def _nearest(script: str, hinted: list[str], available: list[str] | None) -> list[str]:
    """Scripts that exist, nearest to the name asked for: npm's own script hints, then close spellings."""
    close = difflib.get_close_matches(script, available or [], n=3, cutoff=0.6)
    known = hinted if available is None else [s for s in hinted if s in available]
    return list(dict.fromkeys([*known, *close]))


def _detail(script: str, available: list[str] | None, nearest: list[str], builtins: list[str]) -> str:
    detail = f'package.json has no script "{script}"'
    if available is not None:
        detail += f"; available scripts: {', '.join(available) if available else '(none)'}"
    if nearest:
        detail += f"; nearest: {', '.join('npm run ' + s for s in nearest)}"
    if builtins:
        # said so the reader knows what npm hinted, and why it is not offered
        names = ", ".join(f"`npm {b}`" for b in builtins)
        detail += f"; npm's hint {names} is a built-in command, not a script (not offered)"
    return detail


def _actions(nearest: list[str]) -> tuple[CodeAction, ...]:
    runs = [CodeAction(title=f"Run the script `{s}` instead", command=("npm", "run", s),
                       applicability="maybe_incorrect", is_preferred=i == 0) for i, s in enumerate(nearest)]
    listing = CodeAction(title="List the scripts package.json defines", command=("npm", "run"),
                         applicability="machine_applicable", is_preferred=not nearest)
    return (*runs, listing)


def _block(text: str) -> str:
    """npm's whole error block but its log line: the problem says all of it, so the text is not kept beside it."""
    return "\n".join(ln for ln in text.splitlines() if re.match(ERR, ln) and not LOG.search(ln))


def missing_script(run: CapturedRun) -> list[Problem]:
    text = run.text()
    m = _MISSING_SCRIPT.search(text)
    if not m:
        return []
    script = m.group("script")
    hinted, builtins = _npm_hints(text)
    available = _scripts_from_log(run)
    nearest = _nearest(script, hinted, available)
    return [problem(
        "npm", NPM_MISSING_SCRIPT, _detail(script, available, nearest, builtins), exit_code=run.exit_code,
        suggested_fix=_FIX, docs_url="https://docs.npmjs.com/cli/v11/commands/npm-run-script",
        code_actions=_actions(nearest), location={"file": "package.json"}, matched=_block(text),
        extra={"script": script, "available_scripts": available, "suggestions": nearest,
               **({"npm_builtin_hints": builtins} if builtins else {})})]
