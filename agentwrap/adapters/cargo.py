"""cargo and rustc: compiler diagnostics at their primary spans with suggested edits, test failures by name,
cargo's own failures (manifest, linker, registry, network) as problems; build and test summaries as data."""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters import _cargo_parse as cp
from agentwrap.adapters import _cargo_results as cr
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Problem, Spec

_BUILD = {"read_only": False, "destructive": False, "idempotent": True}  # writes target/ only; may fetch crates
_RO = {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}
_NET_RO = {**_RO, "open_world": True}
_EDIT = {"read_only": False, "destructive": False, "idempotent": True, "open_world": False}
_FETCH = {"read_only": False, "destructive": False, "idempotent": True, "open_world": True}
ALIASES = {"b": "build", "c": "check", "t": "test", "r": "run", "d": "doc", "rm": "remove"}
_C = r"^error: "

SPEC: dict[str, Any] = {
    "name": "cargo",
    "matches": ["cargo", "rustc"],
    "global_options_with_value": ["-C", "--config", "-Z", "--color", "--manifest-path"],
    "descriptor": {
        "purpose": "Build, check and test Rust code; every rustc diagnostic becomes a problem at its primary span.",
        "use_when": "cargo build/check/test/run/clippy (or rustc FILE) in a Rust project.",
        "do_not_use_when": "You need rustc's full JSON (use --message-format=json and read stdout yourself).",
        "returns": "Problems with rustc code (E0308), file:line:column, help text and suggested edits; failed tests "
                   "by name; data: crates compiled, profile, duration, test counts.",
        "limitations": "Suggestions come from the rendered output: an edit is machine_applicable only for "
                       "suggestions rustc is known to mark so; builds may fetch crates not yet cached.",
    },
    "env": {"CARGO_TERM_PROGRESS_WHEN": "never", "CARGO_TERM_COLOR": "never"},
    "concise_omit": ["compiled", "duration_ms"],  # which crates were built and how long: no decision fact
    "noise": [  # progress: crates fetched and built, test binaries started, passing tests (counts: summary)
        {"pattern": r"^\s*(?:Compiling|Checking|Downloaded|Downloading|Fresh|Documenting) \S+ v\S+(?: \(.*\))?$"},
        {"pattern": r"^\s*(?:Finished `\w+` profile|Running (?:unittests |tests/|benches/)?\S+(?: \(.*\))?$|"
                    r"Doc-tests \S+$)"},
        {"pattern": r"^running \d+ tests?$"},
        {"pattern": r"^test \S+ \.\.\. ok$"},
        {"pattern": r"^test result: ok\. "},
        {"pattern": r"^\s+at /rustc/[0-9a-f]+/library/"},  # backtrace frames inside the standard library
        {"pattern": r"^\s+\d+: (?:__rustc::|std::|core::|alloc::|test::|<(?:fn\(|core::|alloc::|std::))"},
        {"pattern": r"^note: Some details are omitted, run with `RUST_BACKTRACE=full`"},
        {"pattern": r"^\s*(?:Downloaded \d+ crates?|Updating crates\.io index|Locking \d+ packages?|Blocking "
                    r"waiting for file lock)"},
        {"pattern": r"^\s*Adding \S+ v\S+(?: \(latest: v\S+\))?$"},
    ],
    "effects": {
        "default": {},
        **dict.fromkeys(("build", "check", "test", "bench", "doc", "clippy", "rustc", "rustdoc", "package"), _BUILD),
        "run": {},  # runs the program: unknown
        **dict.fromkeys(("fmt", "fix", "new", "init"), _EDIT),
        **dict.fromkeys(("add", "remove", "update", "fetch", "generate-lockfile", "vendor", "install", "login",
                         "logout"), _FETCH),
        "clean": {"read_only": False, "destructive": True, "idempotent": True, "open_world": False},
        "uninstall": {"read_only": False, "destructive": True, "idempotent": True, "open_world": False},
        **dict.fromkeys(("metadata", "tree", "locate-project", "pkgid", "verify-project", "version", "help",
                         "read-manifest", "report"), _RO),
        **dict.fromkeys(("search", "info"), _NET_RO),
        "publish": {"read_only": False, "destructive": False, "idempotent": False, "open_world": True},
        **dict.fromkeys(("yank", "owner"), {"read_only": False, "destructive": True, "idempotent": True,
                                            "open_world": True}),
    },
    "prompts": [
        {"pattern": r"please paste the token|token:", "input_kind": "credential",
         "suggested_fix": "cargo login reads a registry token: pass it in CARGO_REGISTRY_TOKEN instead.",
         "code_actions": [{"title": "Provide the token in the environment (replace <TOKEN>)",
                           "command": ["agentwrap", "--env", "CARGO_REGISTRY_TOKEN=<TOKEN>", "--", "{argv...}"],
                           "applicability": "has_placeholders"}]},
    ],
    "rules": [
        {"code": "CARGO_MANIFEST_NOT_FOUND", "pattern": _C + r"could not find `Cargo\.toml` in `(?P<dir>[^`]+)`",
         "title": "No Cargo.toml here", "category": "precondition", "status": 412, "retryable": False,
         "safe_to_retry": True, "detail": "no Cargo.toml in {dir} or any parent folder",
         "suggested_fix": "Run cargo in the crate's folder, pass --manifest-path PATH/Cargo.toml, or create a "
                          "crate with `cargo init`."},
        {"code": "CARGO_LINK_LIB_NOT_FOUND", "pattern": r"(?:unable to find library|cannot find) -l(?P<lib>[\w.+-]+)",
         "title": "Native library not found by the linker", "category": "dependency", "status": 424,
         "retryable": True, "safe_to_retry": True, "detail": "the linker cannot find library '{lib}' (-l{lib})",
         "suggested_fix": "Install the library's development package (on Debian/Ubuntu usually lib{lib}-dev, "
                          "found with `apt-cache search lib{lib}`), or point the linker at it "
                          "(RUSTFLAGS='-L /path/to/dir')."},
        {"code": "CARGO_LINKER_NOT_FOUND", "pattern": _C + r"linker `(?P<linker>[^`]+)` not found",
         "title": "Linker not found", "category": "dependency", "status": 424, "retryable": True,
         "safe_to_retry": True, "detail": "the linker `{linker}` is not installed or not on PATH",
         "suggested_fix": "Install a C toolchain (`apt-get install build-essential` gives cc) or fix the linker "
                          "setting in .cargo/config.toml."},
        {"code": "CARGO_LINK_FAILED", "pattern": _C + r"linking with `(?P<linker>[^`]+)` failed: exit status: \d+",
         "title": "Linking failed", "category": "dependency", "status": 424, "retryable": False,
         "safe_to_retry": True, "detail": "linking with `{linker}` failed",
         "suggested_fix": "Read the linker's `note:` lines (undefined symbols, missing libraries) in the output."},
        {"code": "CARGO_PACKAGE_NOT_FOUND", "pattern": _C + r"no matching package named `(?P<pkg>[^`]+)` found",
         "title": "Crate not found in the registry", "category": "not_found", "status": 404, "retryable": False,
         "safe_to_retry": True, "detail": "no crate named `{pkg}` in the registry index",
         "suggested_fix": "Check the crate name in Cargo.toml (`cargo search {pkg}`); offline, only crates already "
                          "in the local cache can be found."},
        {"code": "CARGO_VERSION_NOT_FOUND", "pattern": _C + r"failed to select a version for the requirement "
                                                          r"`(?P<req>[^`]+)`",
         "title": "No crate version matches the requirement", "category": "not_found", "status": 404,
         "retryable": False, "safe_to_retry": True, "detail": "no version matches {req}",
         "suggested_fix": "Relax the version requirement in Cargo.toml, or run `cargo update` if the index is stale."},
        {"code": "CARGO_OFFLINE", "pattern": r"^As a reminder, you're using offline mode|"
                                             r"attempting to make an HTTP request, but --offline was specified",
         "severity": "note", "title": "cargo ran offline", "category": "network", "status": 503, "retryable": True,
         "safe_to_retry": True, "detail": "cargo was offline: only crates already cached can be used",
         "suggested_fix": "Run once with network access (without --offline) to fetch the missing crates."},
        {"code": "CARGO_NETWORK_ERROR", "pattern": r"\[\d+\] (?P<what>Could not (?:connect to server|resolve hostname)|"
                                                   r"Timeout was reached|SSL connect error)(?: \((?P<why>.+)\))?$",
         "title": "Registry unreachable", "category": "network", "status": 503, "retryable": True,
         "safe_to_retry": True, "detail": "cargo could not reach the registry: {what}",
         "suggested_fix": "Check the network and the registry/source settings in .cargo/config.toml; with the "
                          "crates already cached, `--offline` avoids the network.",
         "code_actions": [{"title": "Try again offline, from the local crate cache", "command": ["{argv...}",
                                                                                                "--offline"],
                           "applicability": "maybe_incorrect"}]},
        {"code": "CARGO_RUST_TOO_OLD", "pattern": r"requires rustc (?P<need>[\d.]+) or newer, while the currently "
                                                  r"active rustc version is (?P<have>[\d.]+)",
         "title": "Rust toolchain too old", "category": "precondition", "status": 412, "retryable": False,
         "safe_to_retry": True, "detail": "needs rustc {need}, this is {have}",
         "suggested_fix": "Update the toolchain (`rustup update`) or pin an older crate version (`cargo update "
                          "-p CRATE --precise VERSION`)."},
        {"code": "CARGO_NO_SUCH_COMMAND", "pattern": _C + r"no such command: `(?P<cmd>[^`]+)`\n\n?help: a command "
                                                         r"with a similar name exists: `(?P<similar>[^`]+)`",
         "title": "Unknown cargo command", "category": "usage", "status": 400, "retryable": False,
         "safe_to_retry": True, "detail": "cargo has no command `{cmd}`; did you mean `{similar}`?",
         "suggested_fix": "Use `cargo {similar}` (`cargo --list` shows every command).",
         "code_actions": [{"title": "Run cargo {similar} instead", "command": ["cargo", "{similar}"],
                           "applicability": "maybe_incorrect", "is_preferred": True}]},
        {"code": "CARGO_NO_SUCH_COMMAND", "pattern": _C + r"no such command: `(?P<cmd>[^`]+)`(?!\n\n?help: a command "
                                                         r"with a similar)",
         "title": "Unknown cargo command", "category": "usage", "status": 400, "retryable": False,
         "safe_to_retry": True, "detail": "cargo has no command `{cmd}`",
         "suggested_fix": "Check the spelling (`cargo --list`); third-party commands install with "
                          "`cargo install cargo-{cmd}`."},
        {"code": "CARGO_BAD_ARGUMENT", "pattern": _C + r"unexpected argument '(?P<arg>[^']+)' found",
         "title": "Unknown argument", "category": "usage", "status": 400, "retryable": False, "safe_to_retry": True,
         "detail": "cargo {subcommand} does not accept {arg}",
         "suggested_fix": "Check `cargo {subcommand} --help`; arguments for the program or test binary go after `--`."},
        {"code": "CARGO_PUBLISH_DIRTY", "pattern": _C + r"\d+ files? in the working directory contain changes that "
                                                       r"were not yet committed",
         "title": "Uncommitted changes block packaging", "category": "precondition", "status": 412,
         "retryable": False, "safe_to_retry": True,
         "suggested_fix": "Commit the changes first; --allow-dirty packages them uncommitted.",
         "code_actions": [{"title": "Package the uncommitted files anyway", "command": ["{argv...}", "--allow-dirty"],
                           "applicability": "maybe_incorrect"}]},
        {"code": "CARGO_NO_BIN_TARGET", "pattern": _C + r"a bin target must be available for `cargo run`",
         "title": "Nothing to run", "category": "precondition", "status": 412, "retryable": False,
         "safe_to_retry": True, "suggested_fix": "This is a library crate: add src/main.rs or a [[bin]], or run "
                                                 "`cargo test` / an example (`cargo run --example NAME`)."},
        {"code": "CARGO_COMPILE_FAILED", "pattern": _C + r"could not compile `(?P<crate>[^`]+)` \((?P<target>[^)]+)\)"
                                                        r"(?: due to (?P<n>\d+) previous errors?)?",
         "title": "Crate failed to compile", "category": "validation", "status": 422, "retryable": False,
         "safe_to_retry": True, "detail": "could not compile `{crate}` ({target})",
         "suggested_fix": "Fix the compiler errors listed as problems (each has a location), then build again."},
    ],
}

_TESTING = {"test", "bench"}


def _is_rustc(argv: list[str] | tuple[str, ...]) -> bool:
    return os.path.basename(argv[0]).startswith("rustc")


def _diagnostics(run: CapturedRun) -> list[Problem]:
    tool = "cargo"
    text = run.text()
    found = cp.rustc_diagnostics(run.stderr_text, tool, run.exit_code)
    if run.stdout_text and "-->" in run.stdout_text:  # rustc writes to stdout when its stderr is redirected
        found += cp.rustc_diagnostics(run.stdout_text, tool, run.exit_code)
    log = run.subcommand is None and not _is_rustc(run.argv)  # a saved log (agentwrap normalize) or bare cargo
    testing = (run.subcommand or "") in _TESTING or (log and "test result: " in text)
    if testing or ((run.subcommand == "run" or log) and run.failed):
        panics = cr.panics(text, tool, run.exit_code, tests=testing) if run.failed else []
        if testing:  # a panic is a failure only for a test reported FAILED (not `should_panic` under --nocapture)
            failed = cr.failed_test_names(text)
            panics = [p for p in panics if p.code != "CARGO_TEST_FAILED" or (p.extra or {}).get("test") in failed]
            named = {str((p.extra or {}).get("test")) for p in panics}
            panics += cr.failed_tests_without_panic(text, tool, run.exit_code, named) if run.failed else []
        found += panics
    return found


class CargoAdapter(BaseAdapter):
    codes = (*cp.CODES, cr.CARGO_TEST_FAILED, cr.RUST_PANIC)
    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)

    def subcommand(self, argv: list[str]) -> str | None:
        if _is_rustc(argv):
            return None
        sub = super().subcommand([argv[0], *(a for a in argv[1:] if not a.startswith("+"))])
        return ALIASES.get(sub, sub) if sub else None

    def effects(self, argv: list[str]) -> Effects:
        if _is_rustc(argv):
            if any(a in ("--version", "-V", "--help", "-h", "--explain", "--print") for a in argv[1:]):
                return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
            return Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
        if self.subcommand(argv) == "fmt" and "--check" in argv:
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        return super().effects(argv)

    def parse(self, run: CapturedRun) -> Any:
        text = run.text()
        data: dict[str, Any] = dict(cr.build_summary(text) or {})
        if (run.subcommand or "") in _TESTING:
            tests = cr.tests_summary(run.stdout_text, run.stderr_text)
            if tests:
                data["tests"] = tests
        return data or None

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        tests = data.get("tests")
        if tests:
            return (f"cargo {run.subcommand}: {tests['passed']} passed, {tests['failed']} failed, "
                    f"{tests['ignored']} ignored")
        warnings = sum(w["warnings"] for w in data.get("warnings", []))
        if "profile" in data:
            crates = ", ".join(c["name"] for c in data.get("compiled", [])) or "nothing to compile"
            return (f"cargo {run.subcommand}: `{data['profile']}` profile in {data['duration_ms'] / 1000:.2f}s "
                    f"({crates}); {warnings} warning{'s' * (warnings != 1)}")
        return None


ADAPTER: Adapter = CargoAdapter(Spec.from_dict(SPEC, __file__))
