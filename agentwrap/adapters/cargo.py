"""cargo and rustc: compiler diagnostics at their primary spans with suggested edits, test failures by name,
cargo's own failures (manifest, linker, registry, network) as problems; build and test summaries as data."""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters import _cargo_parse as cp
from agentwrap.adapters import _cargo_results as cr
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Interpretation, Problem, Spec

ALIASES = {"b": "build", "c": "check", "t": "test", "r": "run", "d": "doc", "rm": "remove"}

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "cargo.spec.toml")

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
            panics = cr.test_blocks(text, panics)
        found += panics
    return found


def _could_not(failed: dict[str, Any]) -> str:
    """`could not compile `x` (lib), 1 error, 2 warnings`: the counts cargo gave (warnings only when some)."""
    said = f"could not compile `{failed['crate']}` ({failed['target']}), {_n(failed['errors'], 'error')}"
    return said + (f", {_n(failed['warnings'], 'warning')}" if failed.get("warnings") else "")


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


class CargoAdapter(BaseAdapter):
    codes = (*cp.CODES, cr.CARGO_TEST_FAILED, cr.RUST_PANIC)
    summarize_failures = True  # "could not compile `x` (lib), 1 error": the error quotes rustc's own line

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        return _diagnostics(run)

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        found = super().find_problems(run)
        if not any(p.location and p.severity == "error" for p in found):
            return found
        # "could not compile": its fix ("fix the compiler errors listed as problems") points at problems that
        # are listed beside it, so it carries none
        return [p._replace(suggested_fix=None) if p.code == "CARGO_COMPILE_FAILED" else p for p in found]

    def interpret(self, run: CapturedRun) -> Interpretation:
        base = super().interpret(run)
        kept = cr.own_output_headers(run.text(), base.problems)
        return base._replace(kept_lines=(*base.kept_lines, *kept)) if kept else base

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
        if data.get("failed") and not tests:
            failed = "; ".join(_could_not(f) for f in data["failed"])
            return f"cargo {run.subcommand}: {failed}"
        if tests:
            return (f"cargo {run.subcommand}: {tests['passed']} passed, {tests['failed']} failed, "
                    f"{tests['ignored']} ignored")
        if run.failed:
            return None  # a run that failed otherwise (a panic): its error says what happened
        warnings = sum(w["warnings"] for w in data.get("warnings", []))
        if "profile" in data:
            crates = ", ".join(c["name"] for c in data.get("compiled", [])) or "nothing to compile"
            return (f"cargo {run.subcommand}: `{data['profile']}` profile in {data['duration_ms'] / 1000:.2f}s "
                    f"({crates}); {warnings} warning{'s' * (warnings != 1)}")
        return None


ADAPTER: Adapter = CargoAdapter(Spec.from_toml(SPEC_FILE))
