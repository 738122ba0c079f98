"""npm and npx: registry, resolution and script failures as problems; `npm ls/outdated/view` and installs as data."""

from __future__ import annotations

import os
import re
from typing import Any

from agentwrap.adapters import _npm_parse as p
from agentwrap.adapters._npm_parse import ALIASES
from agentwrap.adapters.js_stacks import FACTS as NODE_CODES
from agentwrap.adapters.js_stacks import node_errors, runner_counts, runner_failures
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Interpretation, Problem, Spec

E = p.ERR
_RO = {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}
_RO_NET = {**_RO, "open_world": True}
_INSTALL = {"read_only": False, "destructive": False, "idempotent": True, "open_world": True}
_REMOVE = {"read_only": False, "destructive": True, "idempotent": True, "open_world": False}
_LOCAL = {"read_only": False, "destructive": False, "idempotent": True, "open_world": False}
_PUBLISH = {"read_only": False, "destructive": False, "idempotent": False, "open_world": True}
_YES = {"title": "Consent to downloading and running the package", "command": ["{prog}", "--yes", "{args...}"],
        "applicability": "maybe_incorrect", "is_preferred": True}
_UNKNOWN: dict[str, bool] = {}  # runs the package's own code: nothing is known
SPEC: dict[str, Any] = {
    "name": "npm",
    "matches": ["npm", "npx"],
    "global_options_with_value": ["--prefix", "-C", "--registry", "--loglevel", "-w", "--workspace", "--cache",
                                  "--userconfig", "--globalconfig", "--tag", "--otp", "--omit", "--include"],
    "nested_subcommands": ["config", "cache", "audit", "pkg", "dist-tag", "owner", "access", "token"],
    "descriptor": {
        "purpose": "Install, inspect and run Node.js packages; npm's error codes become precise problems.",
        "use_when": "npm install/ci/ls/outdated/view/run/test/exec and npx in a Node.js project.",
        "do_not_use_when": "The project uses yarn, pnpm or bun (their lockfiles and errors differ).",
        "returns": "Problems for E404, ETARGET, ERESOLVE, EBADENGINE, EACCES, missing scripts and network errors; "
                   "data for ls, outdated, view and install summaries; node errors inside scripts.",
        "limitations": "Scripts run arbitrary code: their effects are unknown and only node-format errors are "
                       "recognised in their output.",
    },
    "env": {"npm_config_yes": "false", "npm_config_fund": "false", "npm_config_update_notifier": "false",
            "npm_config_progress": "false"},
    "noise": [  # funding and audit notices and hints; a vulnerability count other than zero stays
        {"pattern": r"^\d+ packages? (?:is|are) looking for funding$"},
        {"pattern": r"^\s*run `npm fund` for details$"},
        {"pattern": r"^found 0 vulnerabilities$"},
        {"pattern": r"^(?:To address (?:all )?issues.*, run:|Run `npm audit` for details\.)$"},
        {"pattern": r"^\s*npm audit fix(?: --force)?$"},
        {"pattern": r"^npm notice\b"},
    ],
    "effects": {
        "default": _UNKNOWN,
        **dict.fromkeys(("install", "ci", "update", "dedupe", "rebuild", "link", "login", "logout"), _INSTALL),
        **dict.fromkeys(("uninstall", "prune", "cache clean"), _REMOVE),
        **dict.fromkeys(("ls", "explain", "config get", "config list", "help", "root", "prefix", "bin",
                         "pkg get", "cache ls", "cache verify", "query", "pack", "help-search"), _RO),
        **dict.fromkeys(("view", "outdated", "search", "audit", "whoami", "ping", "doctor", "fund", "owner ls",
                         "dist-tag ls", "access list", "token list", "docs", "repo", "bugs"), _RO_NET),
        **dict.fromkeys(("config set", "config delete", "config edit", "pkg set", "pkg delete", "pkg fix",
                         "set", "shrinkwrap"), _LOCAL),
        "audit fix": _INSTALL,
        "version": {"read_only": False, "destructive": False, "idempotent": False, "open_world": False},
        "publish": _PUBLISH, "deprecate": _PUBLISH, "dist-tag add": _PUBLISH, "owner add": _PUBLISH,
        **dict.fromkeys(("unpublish", "dist-tag rm", "owner rm", "token revoke"),
                        {"read_only": False, "destructive": True, "idempotent": False, "open_world": True}),
        **dict.fromkeys(("run", "test", "start", "stop", "restart", "exec", "init", "install-test",
                         "install-ci-test"), _UNKNOWN),
    },
    "prompts": [
        {"pattern": r"Ok to proceed\? \(y\)|Need to install the following packages", "input_kind": "confirmation",
         "suggested_fix": "npx wants to download and run a package that is not installed. Install it as a "
                          "dependency first, or consent explicitly with --yes if running it is intended.",
         "code_actions": [_YES]},
        {"pattern": r"one-time password|Enter OTP", "input_kind": "credential",
         "suggested_fix": "The registry wants a two-factor one-time password: pass it with --otp.",
         "code_actions": [{"title": "Pass the one-time password (replace <OTP>)",
                           "command": ["{prog}", "{args...}", "--otp=<OTP>"], "applicability": "has_placeholders"}]},
        {"pattern": r"Username:|Password:|Email:|Press ENTER to open in the browser|Login at:",
         "input_kind": "credential",
         "suggested_fix": "npm wants to log in. Put an access token in the environment instead: "
                          "`npm config set //registry.npmjs.org/:_authToken=${NPM_TOKEN}`.",
         "code_actions": [{"title": "Configure an access token (replace <TOKEN>)",
                           "command": ["npm", "config", "set", "//registry.npmjs.org/:_authToken=<TOKEN>"],
                           "applicability": "has_placeholders"}]},
        {"pattern": r"^(package name|version|description|entry point|test command|git repository|keywords|author|"
                    r"license|type|Is this OK\?)[:(]", "input_kind": "text", "subcommands": ["init", "create"],
         "suggested_fix": "npm init asks questions; `npm init -y` accepts the defaults.",
         "code_actions": [{"title": "Create package.json with the defaults", "command": ["npm", "init", "-y"],
                           "applicability": "maybe_incorrect", "is_preferred": True}]},
    ],
    "rules": [
        {"code": "NPM_PACKAGE_NOT_FOUND", "pattern": E + r"404 Not Found - \w+ (?P<url>https?://\S+?/"
                                                        r"(?P<pkg>[^/\s]+?))(?: - .*)?$",
         "title": "Package not found in the registry (E404)", "category": "not_found", "status": 404,
         "retryable": False, "safe_to_retry": True, "detail": "{pkg} is not in the registry ({url})",
         "suggested_fix": "Check the package name's spelling (`npm search NAME`); a private or scoped package needs "
                          "the right registry and a login (`npm whoami`).",
         "docs_url": "https://docs.npmjs.com/common-errors#404-not-found",
         "code_actions": [{"title": "Search the registry for similar names", "command": ["npm", "search", "{pkg}"],
                           "applicability": "machine_applicable"}]},
        {"code": "NPM_VERSION_NOT_FOUND", "pattern": E + r"notarget No matching version found for "
                                                        r"(?P<pkg>@?[^@\s]+)@(?P<range>\S+?)\.?$",
         "title": "No version matches the requested range (ETARGET)", "category": "not_found", "status": 404,
         "retryable": False, "safe_to_retry": True, "detail": "no version of {pkg} matches {range}",
         "suggested_fix": "Pick a version that exists (`npm view {pkg} versions` lists them) and fix the range in "
                          "the command or package.json.",
         "code_actions": [{"title": "List the published versions of {pkg}", "command": ["npm", "view", "{pkg}",
                                                                                        "versions"],
                           "applicability": "machine_applicable", "is_preferred": True}]},
        {"code": "NPM_NPX_NOT_CONFIRMED", "pattern": E + r"npx canceled due to missing packages and no YES option: "
                                                        r"(?P<pkgs>.+)$",
         "title": "npx would have to download a package", "category": "input_required", "status": 428,
         "retryable": True, "safe_to_retry": True,
         "detail": "npx needs to download {pkgs} and was not told it may (npm_config_yes=false)",
         "suggested_fix": "Add the package as a dependency (`npm install --save-dev PKG`) so npx uses the local "
                          "copy, or re-run with --yes if downloading and running it is intended.",
         "code_actions": [_YES]},
        {"code": "NPM_ENGINE_MISMATCH", "pattern": E + r"notsup Not compatible with your version of node/npm: "
                                                      r"(?P<pkg>\S+)\n(?:.*\n)*?" + E
                                                      + r"notsup Required: (?P<req>.+)\n" + E
                                                      + r"notsup Actual: +(?P<actual>.+)$",
         "title": "Unsupported Node.js/npm version (EBADENGINE)", "category": "precondition", "status": 412,
         "retryable": False, "safe_to_retry": True, "detail": "{pkg} requires {req}; this is {actual}",
         "suggested_fix": "Use a Node.js version that satisfies the package's `engines` (nvm, fnm, volta), or "
                          "pick a package version that supports this one; --engine-strict turns this into an error.",
         "docs_url": "https://docs.npmjs.com/cli/v11/configuring-npm/package-json#engines"},
        {"code": "NPM_ENGINE_WARNING", "pattern": r"^npm (?:warn|WARN) EBADENGINE +package: '(?P<pkg>[^']+)',\n"
                                                  r"npm (?:warn|WARN) EBADENGINE +required: (?P<req>.+),$",
         "severity": "warning", "title": "Package does not support this Node.js version", "category": "precondition",
         "status": 412, "retryable": False, "safe_to_retry": True, "detail": "{pkg} requires {req}",
         "suggested_fix": "The package may not work here: use a Node.js version that satisfies {req}."},
        {"code": "NPM_PERMISSION_DENIED", "pattern": E + r"Error: (?:EACCES|EPERM): [^,]+, (?P<op>\w+) "
                                                        r"'(?P<path>[^']+)'",
         "title": "Permission denied (EACCES)", "category": "authorization", "status": 403, "retryable": False,
         "safe_to_retry": True, "detail": "npm may not {op} {path}",
         "suggested_fix": "Do not use sudo: install into a prefix you own (`npm config set prefix ~/.npm-global` and "
                          "add its bin to PATH), or install locally without -g.",
         "docs_url": "https://docs.npmjs.com/resolving-eacces-permissions-errors-when-installing-packages-globally",
         "code_actions": [{"title": "Make global installs go to a folder you own (replace <DIR>, e.g. ~/.npm-global)",
                           "command": ["npm", "config", "set", "prefix", "<DIR>"],
                           "applicability": "has_placeholders"}]},
        {"code": "NPM_NO_PACKAGE_JSON", "pattern": E + r"(?:enoent )?Could not read package\.json: Error: ENOENT: "
                                                      r"no such file or directory, open '(?P<file>[^']+)'",
         "title": "No package.json here", "category": "precondition", "status": 412, "retryable": False,
         "safe_to_retry": True, "detail": "there is no package.json: {file}",
         "suggested_fix": "Run npm in the project's folder (--prefix DIR), or create a package.json with "
                          "`npm init -y`.",
         "code_actions": [{"title": "Create a default package.json here", "command": ["npm", "init", "-y"],
                           "applicability": "maybe_incorrect"}]},
        {"code": "NPM_INVALID_PACKAGE_JSON", "pattern": E + r"JSON\.parse (?P<msg>Invalid package\.json: .+?)"
                                                           r"(?: while parsing near.*)?$",
         "title": "package.json is not valid JSON (EJSONPARSE)", "category": "validation", "status": 422,
         "retryable": False, "safe_to_retry": True, "detail": "{msg}",
         "suggested_fix": "Fix the JSON syntax in package.json (no trailing commas or comments; quote keys); "
                          "`node -e \"require('./package.json')\"` shows the position."},
        {"code": "NPM_NETWORK_ERROR", "pattern": E + r"(?:errno|code) (?P<err>ECONNREFUSED|ENOTFOUND|EAI_AGAIN|"
                                                    r"EHOSTUNREACH|ENETUNREACH)$",
         "title": "Registry unreachable", "category": "network", "status": 503, "retryable": True,
         "safe_to_retry": True, "detail": "npm could not connect to the registry ({err})",
         "suggested_fix": "Check the registry URL (`npm config get registry`), proxy settings and the network; "
                          "then retry.", "docs_url": "https://docs.npmjs.com/common-errors#econnrefused-error",
         "code_actions": [{"title": "Show the configured registry", "command": ["npm", "config", "get", "registry"],
                           "applicability": "machine_applicable"}]},
        {"code": "NPM_NETWORK_INTERRUPTED", "pattern": E + r"(?:errno|code) (?P<err>ECONNRESET|ETIMEDOUT|"
                                                          r"ESOCKETTIMEDOUT|EPIPE)$",
         "title": "Network connection to the registry failed", "category": "network", "status": 503,
         "retryable": True, "safe_to_retry": False, "detail": "the connection to the registry broke ({err})",
         "suggested_fix": "Retry; for a publish, check first whether it went through (`npm view PKG versions`)."},
        {"code": "NPM_CI_NO_LOCKFILE", "pattern": E + r"The `npm ci` command can only install with an existing "
                                                     r"package-lock\.json",
         "title": "npm ci needs a package-lock.json", "category": "precondition", "status": 412, "retryable": False,
         "safe_to_retry": True, "detail": "npm ci found no package-lock.json or npm-shrinkwrap.json",
         "suggested_fix": "Run `npm install` once to create package-lock.json and commit it.",
         "code_actions": [{"title": "Create the lockfile with npm install", "command": ["npm", "install"],
                           "applicability": "maybe_incorrect", "is_preferred": True}]},
        {"code": "NPM_CI_LOCK_OUT_OF_SYNC", "pattern": E + r"`npm ci` can only install packages when your "
                                                          r"package\.json and package-lock\.json",
         "title": "package-lock.json does not match package.json", "category": "conflict", "status": 409,
         "retryable": False, "safe_to_retry": True, "detail": "package-lock.json is out of sync with package.json",
         "suggested_fix": "Update the lockfile with `npm install` and commit it; npm ci never changes it.",
         "code_actions": [{"title": "Update package-lock.json with npm install", "command": ["npm", "install"],
                           "applicability": "maybe_incorrect", "is_preferred": True}]},
        {"code": "NPM_LS_PROBLEMS", "pattern": E + r"(?P<kind>missing|invalid|extraneous): (?P<what>.+)$",
         "title": "Installed tree does not match package.json", "category": "dependency", "status": 424,
         "retryable": False, "safe_to_retry": True, "detail": "{kind}: {what}",
         "suggested_fix": "Run `npm install` to make node_modules match package.json and the lockfile.",
         "code_actions": [{"title": "Reinstall from package.json", "command": ["npm", "install"],
                           "applicability": "maybe_incorrect"}]},
        {"code": "NPM_AUTH_REQUIRED", "pattern": E + r"code (?P<err>ENEEDAUTH|E401)$",
         "title": "Registry login required", "category": "authentication", "status": 401, "retryable": True,
         "safe_to_retry": True, "detail": "the registry requires a login ({err})",
         "suggested_fix": "Provide a token: `npm config set //registry.npmjs.org/:_authToken=TOKEN` (or an .npmrc "
                          "with ${NPM_TOKEN}); `npm login` needs a person."},
        {"code": "NPM_FORBIDDEN", "pattern": E + r"code E403",
         "title": "Registry refused the request (E403)", "category": "authorization", "status": 403,
         "retryable": False, "safe_to_retry": True,
         "suggested_fix": "The account lacks rights to this package or version (publishing over an existing "
                          "version is also 403): check ownership with `npm owner ls PKG`."},
        {"code": "NPM_OTP_REQUIRED", "pattern": E + r"code EOTP",
         "title": "One-time password required", "category": "authentication", "status": 401, "retryable": True,
         "safe_to_retry": True, "suggested_fix": "Re-run with --otp=CODE from the authenticator app.",
         "code_actions": [{"title": "Pass the one-time password (replace <OTP>)",
                           "command": ["{prog}", "{args...}", "--otp=<OTP>"], "applicability": "has_placeholders"}]},
        {"code": "NPM_DEPRECATED", "pattern": r"^npm (?:warn|WARN) deprecated (?P<pkg>\S+): (?P<msg>.+)$",
         "severity": "warning", "title": "Deprecated package installed", "category": "dependency", "status": 424,
         "retryable": False, "safe_to_retry": True, "detail": "{pkg} is deprecated: {msg}",
         "suggested_fix": "Upgrade or replace {pkg} (`npm explain {pkg}` shows who depends on it)."},
    ],
}

_SCRIPT_SUBS = {"run", "test", "start", "stop", "restart", "exec", "install-test", "install-ci-test"}
_PARSERS = {"ls": p.parse_ls, "outdated": p.parse_outdated, "view": p.parse_view,
            **dict.fromkeys(("install", "ci", "uninstall", "update", "dedupe", "prune", "audit fix"),
                            p.parse_install)}
_PY_CODES = ["NPM_PEER_CONFLICT", "NPM_MISSING_SCRIPT", "NPM_SCRIPT_FAILED", "NPM_ERROR"]


def _is_npx(argv: list[str] | tuple[str, ...]) -> bool:
    return os.path.basename(argv[0]).startswith("npx")


def _runs_scripts(run: CapturedRun) -> bool:
    return _is_npx(run.argv) or (run.subcommand or "").split(" ")[0] in _SCRIPT_SUBS


def _diagnostics(run: CapturedRun) -> list[Problem]:
    found = [*p.eresolve(run), *p.missing_script(run)]
    if _runs_scripts(run):
        found += [*runner_failures(run.stdout_text, "npm", run.exit_code),
                  *node_errors(run.text(), "npm", run.exit_code), *p.script_failed(run)]
    return found


class NpmAdapter(BaseAdapter):
    codes = (*p.CODES, *NODE_CODES.values())  # npm runs node: its errors are node's
    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)

    def subcommand(self, argv: list[str]) -> str | None:
        if _is_npx(argv):
            return None
        sub = super().subcommand(argv)
        if sub is None:
            return None
        first, _, rest = sub.partition(" ")
        first = ALIASES.get(first, first)
        if rest and first not in SPEC["nested_subcommands"]:
            rest = ""
        return f"{first} {rest}".strip()

    def effects(self, argv: list[str]) -> Effects:
        if _is_npx(argv):
            return Effects()
        return super().effects(argv)

    def parse(self, run: CapturedRun) -> Any:
        sub = run.subcommand or ""
        if _runs_scripts(run):
            counts = runner_counts(run.stdout_text)
            return {"tests": counts} if counts else None
        parser = _PARSERS.get(sub) or _PARSERS.get(sub.split(" ")[0])
        if parser is None or (run.failed and sub != "ls" and not self._outdated_found(run)):
            return None
        return parser(run)

    @staticmethod
    def _outdated_found(run: CapturedRun) -> bool:
        """`npm outdated` exits 1 when something is outdated: that is its answer, not a failure."""
        return run.subcommand == "outdated" and run.exit_code == 1 and not re.search(p.ERR, run.text(), re.M)

    def interpret(self, run: CapturedRun) -> Interpretation:
        if self._outdated_found(run):
            run = run._replace(exit_code=0)
        interp = super().interpret(run)
        if interp.error is None or interp.error.code.startswith(("NPM_", "NODE_")):
            return interp
        fallback = p.npm_error_code(run)  # npm named its own code: better than an unexplained exit
        if not fallback:
            return interp
        return interp._replace(error=fallback[0], problems=(*fallback, *interp.problems),
                               summary=fallback[0].detail[:300])

    def problem_codes(self) -> list[str]:
        return sorted({*super().problem_codes(), *_PY_CODES})

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        sub = run.subcommand or ""
        if sub == "ls" and "dependencies" in data:
            return f"{data.get('name')}@{data.get('version')}: {len(data['dependencies'])} direct dependencies"
        if sub == "outdated":
            names = [o["name"] for o in data.get("outdated", [])]
            return f"{len(names)} outdated: {', '.join(names)}" if names else "all dependencies are up to date"
        if sub == "view" and "version" in data and "name" in data:
            return f"{data['name']}@{data['version']} ({data.get('versions', '?')} versions)"
        if "tests" in data:
            t = data["tests"]
            return f"tests: {t.get('passed', 0)} passed, {t.get('failed', 0)} failed"
        if any(k in data for k in ("added", "removed", "changed", "up_to_date")):
            parts = [f"{k} {data[k]} package{'s' * (data[k] != 1)}" for k in ("added", "removed", "changed", "audited")
                     if k in data]
            return f"npm {sub}: " + (", ".join(parts) or "up to date")
        return None


ADAPTER: Adapter = NpmAdapter(Spec.from_dict(SPEC, __file__))
