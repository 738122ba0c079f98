"""npm output as facts: `npm ls`, `npm outdated`, `npm view`, install summaries, and the npm errors that need
more than a regex (ERESOLVE peer conflicts, failed scripts); missing scripts are `_npm_scripts`."""

from __future__ import annotations

import itertools
import json
import re
import shlex
from typing import Any

from agentwrap.lazyre import lazy
from agentwrap.sdk import CapturedRun, CodeAction, Problem, ProblemCode, problem

ERR = r"^npm (?:error|ERR!) "
#: npm's own command aliases (npm 11 `lib/utils/cmd-list.js`), so effects and parsers see one name
ALIASES = {"i": "install", "in": "install", "ins": "install", "inst": "install", "insta": "install",
           "instal": "install", "isnt": "install", "isnta": "install", "isntal": "install", "isntall": "install",
           "add": "install", "clean-install": "ci", "ic": "ci", "install-clean": "ci", "isntall-clean": "ci",
           "un": "uninstall", "unlink": "uninstall", "remove": "uninstall", "rm": "uninstall", "r": "uninstall",
           "run-script": "run", "rum": "run", "urn": "run", "t": "test", "tst": "test", "list": "ls", "la": "ls",
           "ll": "ls", "info": "view", "show": "view", "v": "view", "x": "exec", "up": "update", "upgrade": "update",
           "udpate": "update", "it": "install-test", "cit": "install-ci-test", "find": "search", "s": "search",
           "se": "search", "c": "config", "ddp": "dedupe", "why": "explain", "author": "owner", "ln": "link",
           "verison": "version", "adduser": "login", "create": "init", "innit": "init", "issues": "bugs"}
# `├── a@1` (a leaf) and `├─┬ a@1` (a package with children: npm draws one dash and a tee).
_TREE = lazy(r"^(?P<indent>(?:[│|] {1,3}| {2,4})*)(?:[├└`+][─-](?:[─-][┬─-]?|┬) )(?P<rest>.+)$")
_PKG = lazy(r"^(?P<unmet>UNMET (?:OPTIONAL )?DEPENDENCY )?(?P<name>@?[^@\s]+)@(?P<version>\S+)(?P<flags>.*)$")
_VULN = lazy(r"^found (?P<n>\d+) vulnerabilit|^(?P<total>\d+) (?:\w+ severity )?vulnerabilit"
                   r"(?:y|ies) \((?P<breakdown>[^)]*)\)", re.M)
LOG = lazy(r"A complete log of this run can be found in:\s*(?P<path>\S+debug-\d+\.log)")
_SHELL_OPERATOR = lazy(r"&&|\|\||[;|]")
_ASSIGNMENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*=")
_SCRIPT_HEADER = lazy(r"^> (?P<pkg>\S+@\S+) (?P<script>\S+)\n> (?P<command>.+)$", re.M)


NPM_ERROR = ProblemCode(code="NPM_ERROR", title="npm failed", category="dependency", status=502, safe_to_retry=False)
NPM_MISSING_SCRIPT = ProblemCode(code="NPM_MISSING_SCRIPT", title="No such script in package.json",
                                 category="not_found", status=404)
NPM_SCRIPT_FAILED = ProblemCode(code="NPM_SCRIPT_FAILED", title="package.json script failed", category="dependency",
                                status=502, safe_to_retry=False)
NPM_PEER_CONFLICT = ProblemCode(code="NPM_PEER_CONFLICT", title="Peer dependency conflict (ERESOLVE)",
                                category="conflict", status=409)
CODES = (NPM_ERROR, NPM_MISSING_SCRIPT, NPM_SCRIPT_FAILED, NPM_PEER_CONFLICT)


def argv_value(argv: tuple[str, ...], *names: str) -> str | None:
    for i, arg in enumerate(argv):
        for name in names:
            if arg == name and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def _json(text: str) -> Any:
    text = text.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


# --- parsers ----------------------------------------------------------------------------------------------------
def parse_ls(run: CapturedRun) -> Any:
    """The dependency tree: root package, dependencies and their flags (`--json`: every level it printed,
    each entry with what npm said of it, so the data holds every fact of the text; as a tree: the top level)."""
    parsed = _json(run.stdout_text)
    if isinstance(parsed, dict):
        return {"name": parsed.get("name"), "version": parsed.get("version"),
                "dependencies": _ls_entries(parsed.get("dependencies")), "problems": parsed.get("problems", [])}
    lines = [ln for ln in run.stdout_text.splitlines() if ln.strip()]
    if not lines:
        return None
    root = lines[0].split(" ", 1)
    name, _, version = root[0].rpartition("@")
    out: dict[str, Any] = {"name": name or root[0], "version": version if name else None,
                           "path": root[1].strip() if len(root) > 1 else None, "dependencies": [], "nested": 0}
    for line in lines[1:]:
        m = _TREE.match(line)
        if not m:
            continue
        if m.group("indent"):
            out["nested"] += 1
            continue
        pkg = _PKG.match(m.group("rest").strip())
        if pkg:
            entry: dict[str, Any] = {"name": pkg.group("name"), "version": pkg.group("version")}
            flags = pkg.group("flags")
            for flag in ("deduped", "extraneous", "invalid", "overridden"):
                if flag in flags:
                    entry[flag] = True
            if pkg.group("unmet"):
                entry["missing"] = True
            out["dependencies"].append(entry)
    return out


#: What `npm ls --json` says of a dependency beside its version. Its `problems` are left out: npm lists each
#: again in the root's `problems`, which the data keeps.
_LS_FACTS = ("resolved", "required", "missing", "invalid", "extraneous", "deduped", "overridden", "peer")


def _ls_entries(deps: Any) -> list[dict[str, Any]]:
    """`npm ls --json`'s dependencies as entries, nested ones under theirs; a false flag is no fact."""
    if not isinstance(deps, dict):
        return []
    entries = []
    for name, dep in deps.items():
        dep = dep if isinstance(dep, dict) else {}
        entry: dict[str, Any] = {"name": name, "version": dep.get("version")}
        entry.update((key, dep[key]) for key in _LS_FACTS if dep.get(key) not in (None, False, ""))
        if dep.get("dependencies"):
            entry["dependencies"] = _ls_entries(dep["dependencies"])
        entries.append(entry)
    return entries


def parse_outdated(run: CapturedRun) -> Any:
    parsed = _json(run.stdout_text)
    if isinstance(parsed, dict):
        return {"outdated": [{"name": k, **{f: v.get(f) for f in ("current", "wanted", "latest", "location")}}
                             for k, v in parsed.items() if isinstance(v, dict)]}
    rows = [ln.split() for ln in run.stdout_text.splitlines() if ln.strip()]
    if not rows or rows[0][:2] != ["Package", "Current"]:
        return {"outdated": []} if not rows else None
    header = [h.lower() for h in rows[0][:4]]
    return {"outdated": [{"name": r[0], **dict(zip(header[1:], r[1:4], strict=False)),
                          "location": r[4] if len(r) > 4 else None} for r in rows[1:] if len(r) >= 4]}


def parse_view(run: CapturedRun) -> Any:
    parsed = _json(run.stdout_text)
    if parsed is not None:
        return {"value": parsed} if not isinstance(parsed, dict) else parsed
    text = run.stdout_text.strip()
    head = re.match(r"^(?P<name>@?[^@\s]+)@(?P<version>\S+) \| (?P<license>[^|]+?) \| deps: (?P<deps>\w+) \| "
                    r"versions: (?P<versions>\d+)", text)
    if not head:
        return {"value": text} if text and "\n" not in text else ({"text": text} if text else None)
    out: dict[str, Any] = {"name": head.group("name"), "version": head.group("version"),
                           "license": head.group("license").strip(), "versions": int(head.group("versions")),
                           "dependencies": 0 if head.group("deps") == "none" else int(head.group("deps"))}
    rest = text.splitlines()[1:]
    if rest and rest[0].strip() and not rest[0].startswith(("http", "keywords:", "dist")):
        out["description"] = rest[0].strip()
    section = ""
    for line in rest:
        if line.endswith(":") and " " not in line:
            section = line[:-1]
        elif line.startswith(("http://", "https://")) and "homepage" not in out:
            out["homepage"] = line.strip()
        elif line.startswith(".tarball: "):
            out["tarball"] = line.split(": ", 1)[1]
        elif section == "dist-tags" and (m := re.match(r"^(?P<tag>[\w.-]+): (?P<v>\S+)$", line)):
            out.setdefault("dist_tags", {})[m.group("tag")] = m.group("v")
        elif line.startswith("published "):
            out["published"] = line.removeprefix("published ").strip()
    return out


def parse_install(run: CapturedRun) -> Any:
    text = run.text()
    out: dict[str, Any] = {}
    for m in re.finditer(r"\b(?P<verb>added|removed|changed|audited) (?P<count>\d+) packages?", text):
        out[m.group("verb")] = int(m.group("count"))
    if re.search(r"^up to date\b", text, re.M):
        out["up_to_date"] = True
    vuln = _VULN.search(text)
    if vuln:
        out["vulnerabilities"] = int(vuln.group("n") or vuln.group("total"))
        if vuln.group("breakdown"):
            out["vulnerability_counts"] = {k: int(n) for n, k in re.findall(r"(\d+) (\w+)", vuln.group("breakdown"))}
    return out or None


# --- problems that need code ------------------------------------------------------------------------------------
def eresolve(run: CapturedRun) -> list[Problem]:
    text = run.text()
    if not re.search(ERR + r"(?:code ERESOLVE|ERESOLVE)", text, re.M):
        return []
    lines = [re.sub(ERR, "", ln) for ln in text.splitlines() if re.match(ERR, ln)]
    joined = "\n".join(lines)
    resolving = re.search(r"^While resolving: (\S+)", joined, re.M)
    found = re.search(r"^Found: (?P<pkg>@?[^@\s]+)@(?P<version>\S+)", joined, re.M)
    peer = re.search(r'^(?:Could not resolve dependency:\n)?peer(?:Optional)? (?P<pkg>@?[^@\s]+)@"(?P<range>[^"]+)" '
                     r"from (?P<by>\S+)", joined, re.M)
    conflicting = re.search(r"^Conflicting peer dependency: (?P<pkg>@?[^@\s]+)@(?P<version>\S+)", joined, re.M)
    actions: list[CodeAction] = []
    fix = ("Make the versions agree: upgrade or downgrade the package named in the detail so its peer range is "
           "met; --legacy-peer-deps or --force only hide the conflict.")
    written = written_packages(run.argv)
    pinned: str | None = None  # the version the caller wrote of the package the peer range wants changed
    if peer and found:
        detail = (f"{peer.group('by')} needs peer {peer.group('pkg')}@{peer.group('range')}, but "
                  f"{found.group('pkg')}@{found.group('version')} is in the tree")
        pkg, wanted = peer.group("pkg"), peer.group("range")
        pinned = written[pkg][1] if pkg in written else None
        upgrade = CodeAction(title=f"Install a {pkg} that satisfies {wanted}", command=("npm", "install",
                             f"{pkg}@{wanted}"), applicability="maybe_incorrect", is_preferred=pinned is None)
        if pinned is not None:  # the caller asked for this version: a fix that replaces it is no preferred one
            keep = _keeping_pin(run.argv, written, pkg, pinned, wanted, peer.group("by"))
            if keep is not None:
                actions.append(keep)
            upgrade = upgrade._replace(title=f"{upgrade.title} (replaces the {pkg}@{pinned} you asked for)")
            fix = (f"You asked for {pkg}@{pinned}: keep it and install a {peer.group('by').rpartition('@')[0]} "
                   f"whose peer range accepts it, or change the {pkg} version you asked for; --legacy-peer-deps "
                   "or --force only hide the conflict.")
        actions.append(upgrade)
    elif conflicting:
        detail = f"conflicting peer dependency {conflicting.group('pkg')}@{conflicting.group('version')}"
    else:
        detail = "npm could not resolve the dependency tree (peer dependency conflict)"
    if resolving:
        detail += f" (while resolving {resolving.group(1)})"
    # the caller's own command, kept whole: preferred when it wrote the version in conflict and nothing
    # else keeps that version
    legacy = pinned is not None and not any(a.is_preferred for a in actions)
    actions.append(CodeAction(title="Accept the conflicting peer dependency (may install a broken tree)",
                              command=(run.argv[0], *run.argv[1:], "--legacy-peer-deps"),
                              applicability="maybe_incorrect", is_preferred=legacy))
    report = re.search(r"^For a full report see:\n(?P<path>\S+)$", joined, re.M)
    found_by = re.search(r"^Found: .*\n.*\n\s*\S+ from (?P<by>.+)$", joined, re.M)
    facts = {"package": peer and peer.group("pkg"), "range": peer and peer.group("range"),
             "required_by": peer and peer.group("by"), "found_version": found and found.group("version"),
             "found_required_by": found_by and found_by.group("by"),
             "report": report and report.group("path")}
    # one fact a member (concise leaves out those the detail says); the problem stands for npm's whole
    # block, so its text is not kept beside it (the debug log's path stays)
    block = [ln for ln in text.splitlines() if re.match(ERR, ln) and not LOG.search(ln)]
    return [problem(
        "npm", NPM_PEER_CONFLICT, detail, exit_code=run.exit_code,
        suggested_fix=fix,
        docs_url="https://docs.npmjs.com/cli/v11/using-npm/config#legacy-peer-deps", code_actions=tuple(actions),
        matched="\n".join(block), extra={k: v for k, v in facts.items() if v})]


_SPEC = lazy(r"^(?P<name>@[^@\s/]+/[^@\s/]+|[^@\s/-][^@\s/]*)(?:@(?P<range>\S+))?$")
_MAJOR = lazy(r"^[~^=v]?(?P<major>\d+)(?:\.(?:\d+|x|\*)){0,2}$")  # `9`, `^9.1`, `~9.1.0`, `9.x`: one major
# npm's options that take a value (`--omit dev`): the value is no package
_OPTION_VALUES = frozenset(("--prefix", "-C", "--registry", "--loglevel", "-w", "--workspace", "--cache",
                            "--userconfig", "--globalconfig", "--tag", "--otp", "--omit", "--include",
                            "--install-strategy", "--before", "--save-prefix"))


def written_packages(argv: tuple[str, ...] | list[str]) -> dict[str, tuple[int, str | None]]:
    """The packages the caller named on npm's command line: name -> (its index in argv, the version, range
    or tag it wrote, None for a bare name). The subcommand's word is read as a name too: no peer has it."""
    found: dict[str, tuple[int, str | None]] = {}
    for i, arg in enumerate(argv[1:], 1):
        if arg.startswith("-") or argv[i - 1] in _OPTION_VALUES:
            continue
        m = _SPEC.match(arg)
        if m:
            found.setdefault(m["name"], (i, m["range"]))
    return found


def _keeping_pin(argv: tuple[str, ...], written: dict[str, tuple[int, str | None]], pkg: str, pinned: str,
                 wanted: str, by: str) -> CodeAction | None:
    """The caller's command with the package that wants another `pkg` asked for at the major of the `pkg`
    it pinned, when that package moves in step with `pkg` (@eslint/js 10.x needs eslint ^10, so
    @eslint/js@9 goes with eslint@9). Only for a package the caller named itself, without a version."""
    name, _, version = by.rpartition("@")
    pin, need = _MAJOR.match(pinned), _MAJOR.match(wanted)
    if not name or name not in written or written[name][1] is not None or pin is None or need is None:
        return None
    if version.split(".")[0] != need["major"] or pin["major"] == need["major"]:
        return None
    command = list(argv)
    command[written[name][0]] = f"{name}@{pin['major']}"
    return CodeAction(title=f"Keep {pkg}@{pinned} and ask for {name}@{pin['major']} ({name} {version} needs "
                            f"{pkg}@{wanted}: its major follows {pkg}'s)",
                      command=tuple(command), applicability="maybe_incorrect", is_preferred=True)


def script_failed(run: CapturedRun) -> list[Problem]:
    """`npm run X` / `npm test` whose script exited non-zero (npm 10+ prints nothing of its own)."""
    headers = list(_SCRIPT_HEADER.finditer(run.stdout_text))
    if not run.failed or not headers or re.search(ERR + r"(?:code|Missing script)", run.text(), re.M):
        return []
    last = headers[-1]
    script, command = last.group("script"), last.group("command").strip()
    detail = f"script `{script}` of {last.group('pkg')} (`{command}`) exited with status {run.exit_code}"
    fix = _script_fix(run, script, command)
    missing = _NOT_FOUND.search(run.text()) if run.exit_code == 127 else None
    if missing:  # the shell found no such program: not in node_modules/.bin (npm puts it on PATH) nor on PATH
        name = missing.group("cmd")
        detail += f": `{name}` is not installed ({missing.group(0).strip()})"
        fix = (f"`{name}` is neither in node_modules/.bin nor on PATH: install the package that provides it as a "
               f"dev dependency (`npm install --save-dev PACKAGE`; tsc comes from typescript), run `npm install` "
               f"if it is already in package.json, or fix the name in the script.")
    return [problem(
        "npm", NPM_SCRIPT_FAILED, detail, exit_code=run.exit_code, suggested_fix=fix,
        extra={"script": script, "command": command, **({"missing_command": missing.group("cmd")} if missing else {})})]


# what sh (dash: `sh: 1: x: not found`) or bash (`sh: x: command not found`) says of a program it cannot find
_NOT_FOUND = lazy(r"^(?:/bin/)?(?:sh|bash|dash): (?:line )?(?:\d+: )?(?P<cmd>[^\s:]+): (?:command )?not found$", re.M)


_INIT_TEST = 'echo "Error: no test specified" && exit 1'  # the test script `npm init` writes


def _script_fix(run: CapturedRun, script: str, command: str) -> str:
    """What to do about a failed script, in the facts of this run: npm init's placeholder test script, a
    script that printed nothing, or one whose own output (the envelope's, or its problems) says why."""
    if script == "test" and command == _INIT_TEST:
        return ("package.json's test script is the placeholder `npm init` writes, which always fails: set "
                "\"scripts\".\"test\" to the project's test command (e.g. `node --test`).")
    printed = [ln for ln in run.text().splitlines() if ln.strip() and not ln.startswith(">")]
    if not printed:
        return f"The script printed nothing: run its command (`{command}`) directly to see why it fails."
    return ("The script's own output says why it failed (errors agentwrap recognises are listed as problems): "
            "fix that cause, then run it again.")


def script_command(run: CapturedRun) -> tuple[str, str] | None:
    """The last script `npm run`/`npm test` ran and its command line (`> pkg@1.0.0 build` / `> tsc -p .`)."""
    headers = list(_SCRIPT_HEADER.finditer(run.stdout_text))
    return (headers[-1].group("script"), headers[-1].group("command").strip()) if headers else None


def commands_of(line: str) -> list[list[str]]:
    """The commands of a script's command line, in order (`tsc -p . && node x.js` -> tsc, node), each
    without the variables it sets (`NODE_ENV=test jest`); [] for one a shell would not split."""
    try:
        parts = [shlex.split(part) for part in _SHELL_OPERATOR.split(line)]
    except ValueError:
        return []
    commands = [list(itertools.dropwhile(_ASSIGNMENT.match, words)) for words in parts]
    return [words for words in commands if words]


def npm_error_code(run: CapturedRun) -> list[Problem]:
    """Any other `npm error code EXXX`: npm's code and first message line, better than an unexplained exit."""
    text = run.text()
    m = re.search(ERR + r"code (?P<code>E[A-Z0-9_]+)$", text, re.M)
    if not m or not run.failed:
        return []
    rest = [re.sub(ERR, "", ln).strip() for ln in text[m.end():].splitlines() if re.match(ERR, ln)]
    message = next((r for r in rest if r and not r.startswith(("A complete log", "syscall", "errno", "path "))),
                   m.group("code"))
    code = m.group("code")
    return [problem(
        "npm", NPM_ERROR, f"npm {code}: {message}", exit_code=run.exit_code,
        suggested_fix=f"Fix what npm's {code} message (the detail) names; npm's debug log, named in "
                      "output.stderr, has the rest.",
        extra={"npm_code": code})]
