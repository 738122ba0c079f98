"""agentwrap adapter for ESLint: its default "stylish" report read back into located problems with the rule id,
an `eslint --fix FILE` code action for auto-fixable rules, and the summary as counts.

Python rather than TOML: stylish is multi-line (a file line, then `line:col  severity  message  rule` rows
under it), so `diagnostics` tracks the current file; effects depend on --fix; counts are data on failure too.
ESLint's own failures ("Oops! Something went wrong!") are declarative rules below.
"""

from __future__ import annotations

import os
import re
from typing import Any, NamedTuple

from agentwrap.lazyre import lazy
from agentwrap.sdk import (
    Adapter,
    BaseAdapter,
    CapturedRun,
    CodeAction,
    Effects,
    Interpretation,
    Problem,
    ProblemCode,
    Spec,
    problem,
)

DOCS = "https://eslint.org/docs/latest/"
ROW = re.compile(r"^\s+(?P<line>\d+):(?P<column>\d+)\s+(?P<severity>error|warning)\s+(?P<rest>\S.*?)\s*$")
_SUMMARY = lazy(r"^[✖X] (?P<problems>\d+) problems? \((?P<errors>\d+) errors?, (?P<warnings>\d+) warnings?\)",
                      re.M)
_FIXABLE = lazy(r"^\s*(?P<errors>\d+) errors? and (?P<warnings>\d+) warnings? potentially fixable", re.M)
_NOT_PATH = lazy(r":\d|: |^[✖X] \d")  # `file:3:5: error`, `✖ 3 problems`: not a file line
_RULE_ID = lazy(r"^(?:@[\w.-]+/|[\w.-]+/)?[\w-]+(?:/[\w-]+)?$")
# Core rules with an automatic fix (eslint's meta.fixable, v10), and common plugin ones.
_FIXABLE_RULES = frozenset((  # noqa: SIM905 - one readable word list
    "array-bracket-newline array-bracket-spacing array-element-newline arrow-body-style arrow-parens arrow-spacing "
    "block-spacing brace-style capitalized-comments comma-dangle comma-spacing comma-style computed-property-spacing "
    "curly dot-location dot-notation eol-last eqeqeq func-call-spacing function-call-argument-newline "
    "function-paren-newline generator-star-spacing implicit-arrow-linebreak indent indent-legacy jsx-quotes "
    "key-spacing keyword-spacing linebreak-style lines-around-comment lines-around-directive "
    "lines-between-class-members logical-assignment-operators multiline-comment-style multiline-ternary new-parens "
    "newline-after-var newline-before-return newline-per-chained-call no-array-constructor no-confusing-arrow "
    "no-div-regex no-else-return no-extra-bind no-extra-boolean-cast no-extra-label no-extra-parens no-extra-semi "
    "no-floating-decimal no-implicit-coercion no-lonely-if no-multi-spaces no-multiple-empty-lines no-regex-spaces "
    "no-spaced-func no-trailing-spaces no-undef-init no-unneeded-ternary no-unused-labels no-useless-computed-key "
    "no-useless-rename no-useless-return no-var no-whitespace-before-property nonblock-statement-body-position "
    "object-curly-newline object-curly-spacing object-property-newline object-shorthand one-var "
    "one-var-declaration-per-line operator-assignment operator-linebreak padded-blocks "
    "padding-line-between-statements prefer-arrow-callback prefer-const prefer-destructuring "
    "prefer-exponentiation-operator prefer-numeric-literals prefer-object-has-own prefer-object-spread "
    "prefer-template quote-props quotes rest-spread-spacing semi semi-spacing semi-style sort-imports sort-vars "
    "space-before-blocks space-before-function-paren space-in-parens space-infix-ops space-unary-ops spaced-comment "
    "strict switch-colon-spacing template-curly-spacing template-tag-spacing unicode-bom wrap-iife wrap-regex "
    "yield-star-spacing yoda prettier/prettier simple-import-sort/imports simple-import-sort/exports import/order "
    "import/first import/newline-after-import unused-imports/no-unused-imports "
    "@typescript-eslint/consistent-type-imports @typescript-eslint/array-type @typescript-eslint/no-inferrable-types "
    "@typescript-eslint/consistent-type-definitions @typescript-eslint/consistent-indexed-object-style"
).split())

#: The declarative part (rules, prompts, effects, noise, descriptor): data, validated like a user's.
SPEC_FILE = os.path.join(os.path.dirname(__file__), "eslint.spec.toml")

# Problems read from the stylish report: code -> (title, category, status, fix)
_DIAG: dict[str, ProblemCode] = {c.code: c for c in (
    ProblemCode(code="ESLINT_RULE_VIOLATION", title="ESLint: rule violated", category="validation", status=422,
                suggested_fix="Fix the code at the location, apply the fix action when there is one, or disable the "
                              "rule for the line (`// eslint-disable-next-line RULE`) if it does not apply."),
    ProblemCode(code="ESLINT_PARSE_ERROR", title="ESLint: the file cannot be parsed", category="validation",
                status=400,
                suggested_fix="Fix the syntax, or configure a parser for this language (TypeScript, JSX) via "
                              "languageOptions in eslint.config."),
    ProblemCode(code="ESLINT_FILE_IGNORED", title="ESLint: file ignored", category="precondition", status=412,
                suggested_fix="The file matches an ignore pattern; lint it with --no-ignore or change `ignores`."),
)}


class Message(NamedTuple):
    file: str
    line: int
    column: int
    severity: str
    message: str
    rule: str | None
    text: str


def messages(text: str) -> list[Message]:
    """Every row of the stylish report, with the file line it sits under."""
    found: list[Message] = []
    lines = text.splitlines()
    file: str | None = None
    for i, line in enumerate(lines):
        row = ROW.match(line)
        if row is None:
            if line.strip() and not line[0].isspace():  # a file line: a path with a row under it
                path = line.strip()
                file = path if not _NOT_PATH.search(path) and i + 1 < len(lines) and ROW.match(lines[i + 1]) else None
            continue
        if file is None:
            continue
        parts = re.split(r"\s{2,}", row["rest"])
        rule = parts[-1] if len(parts) > 1 and _RULE_ID.match(parts[-1]) else None
        message = "  ".join(parts[:-1]) if rule else row["rest"]
        found.append(Message(file, int(row["line"]), int(row["column"]), row["severity"], message, rule,
                             f"{file}:{row['line']}:{row['column']}: {row['severity']}: {message}"
                             + (f"  [{rule}]" if rule else "")))
    return found


def _code(m: Message) -> str:
    if m.rule is None and m.message.startswith("Parsing error"):
        return "ESLINT_PARSE_ERROR"
    if m.rule is None and m.message.startswith("File ignored"):
        return "ESLINT_FILE_IGNORED"
    return "ESLINT_RULE_VIOLATION"


# ESLint's options that take a value (9.x/10.x CLI): the word after them is no path to lint
_WITH_VALUE = frozenset(("-c", "--config", "--ext", "--global", "--parser", "--parser-options", "--env", "--plugin",
                         "--rule", "--ignore-pattern", "--ignore-path", "--stdin-filename", "--max-warnings", "-o",
                         "--output-file", "-f", "--format", "--cache-location", "--cache-strategy", "--fix-type",
                         "--report-unused-disable-directives-severity", "--flag", "--concurrency", "--rulesdir",
                         "--resolve-plugins-relative-to", "--suppressions-location"))
# what a fix of one file leaves out of the caller's options: the fix itself, where the report went and how many
# warnings fail the run (none of them changes what is fixed)
_NOT_FOR_A_FIX = frozenset(("--fix", "--fix-dry-run", "-o", "--output-file", "-f", "--format", "--max-warnings"))


def fix_options(argv: tuple[str, ...] | list[str]) -> list[str]:
    """The caller's options, without the paths it linted: `eslint -c strict.mjs --rule X a.js` fixes a.js
    under the same config and rules, never under whatever config the default lookup would find."""
    kept: list[str] = []
    args = list(argv[1:])
    i = 0
    while i < len(args):
        arg = args[i]
        name = arg.split("=", 1)[0]
        takes = arg in _WITH_VALUE and i + 1 < len(args)
        if arg.startswith("-") and name not in _NOT_FOR_A_FIX:
            kept += args[i:i + 2] if takes else [arg]
        i += 2 if takes else 1
    return kept


def _problem(m: Message, eslint: str, fixable: dict[str, int] | None, options: list[str]) -> Problem:
    code = _code(m)
    location: dict[str, Any] = {"file": m.file}
    if m.line:
        location.update(line=m.line, column=m.column)
    may_fix = fixable is None or fixable.get(m.severity, 0) > 0  # the summary says none of this severity is fixable
    actions: tuple[CodeAction, ...] = ()
    if m.rule in _FIXABLE_RULES and may_fix:
        actions = (CodeAction(title=f"Apply ESLint's automatic fixes to {m.file} ({m.rule} has one)",
                              command=(eslint, "--fix", *options, m.file), applicability="machine_applicable",
                              is_preferred=True),)
    docs = DOCS + f"rules/{m.rule}" if m.rule and "/" not in m.rule else None
    return problem("eslint", _DIAG[code], m.text, docs_url=docs, code_actions=actions, location=location,
                   severity=m.severity, extra={"rule": m.rule})


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - the last one counts
        pass
    return found


def _fix_all(run: CapturedRun, data: Any) -> CodeAction | None:
    """`eslint --fix` as the caller ran eslint (its paths, config and options) when ESLint said some of the
    problems are fixable; none for a run that fixed already or read stdin (--fix does not apply to it)."""
    if not isinstance(data, dict) or not (data.get("fixable_errors") or data.get("fixable_warnings")):
        return None
    args = list(run.argv[1:])
    if "--fix" in args or "--stdin" in args:
        return None
    eslint = run.argv[0] if os.path.basename(run.argv[0]) == "eslint" else "eslint"
    return CodeAction(title="Apply ESLint's automatic fixes (data.fixable_errors, data.fixable_warnings)",
                      command=(eslint, "--fix", *(a for a in args if a != "--fix-dry-run")),
                      applicability="machine_applicable")


def _same_fix(run: CapturedRun, action: CodeAction, other: CodeAction) -> bool:
    """Whether two `eslint --fix` commands fix the same: equal, or the run's own names one file that is the
    file the other fixes (`eslint --fix a.js` and `eslint --fix /abs/a.js`, as stylish prints it)."""
    ours, other_command = action.command or (), other.command or ()
    if ours == other_command:
        return True
    if not other_command or len(ours) != len(other_command) or ours[:2] != other_command[:2]:
        return False
    mine, theirs = ours[-1], other_command[-1]
    if mine.startswith("-") or ours[2:-1] != other_command[2:-1]:
        return False
    base = run.cwd or ""
    return os.path.normpath(os.path.join(base, mine)) == os.path.normpath(os.path.join(base, theirs))


class EslintAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)
    codes = tuple(_DIAG.values())

    def effects(self, argv: list[str]) -> Effects:
        args = argv[1:]
        if "--init" in args:  # runs `npm init @eslint/config`: writes the config, installs packages
            return Effects(read_only=False, destructive=False, idempotent=False, open_world=True)
        if "--fix" in args or any(a in ("-o", "--output-file") or a.startswith("--output-file=") for a in args):
            return Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
        return super().effects(argv)  # --fix-dry-run and plain runs only read

    def diagnostics(self, run: CapturedRun) -> list[Problem]:
        eslint = run.argv[0] if os.path.basename(run.argv[0]) == "eslint" else "eslint"
        text = run.text()
        fixable: dict[str, int] | None = None
        if _SUMMARY.search(text):
            counts = _last(_FIXABLE, text)
            fixable = {"error": int(counts["errors"]), "warning": int(counts["warnings"])} if counts else {}
        options = fix_options(run.argv)
        return [_problem(m, eslint, fixable, options) for m in messages(text)[:1000]]

    def interpret(self, run: CapturedRun) -> Interpretation:
        """ESLint's `N errors and M warnings potentially fixable with the `--fix` option`: the deciding error
        carries `eslint --fix` over the same paths and options (stylish does not say which messages those
        are, so the run's own fix is the one fact to act on)."""
        interp = super().interpret(run)
        action = _fix_all(run, interp.data)
        error = interp.error
        if action is None or error is None or any(_same_fix(run, action, a) for a in error.code_actions):
            return interp
        fixed = error._replace(code_actions=(*error.code_actions, action))
        return interp._replace(error=fixed, problems=tuple(fixed if p is error else p for p in interp.problems))

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        problems = super().find_problems(run)
        named = any(p.code not in _DIAG and p.code != "ESLINT_CRASH" and p.severity == "error" for p in problems)
        return [p for p in problems if not (named and p.code == "ESLINT_CRASH")]  # a named cause beats "Oops!"

    def parse(self, run: CapturedRun) -> Any:
        text = run.text()
        found = messages(text)
        if not found and run.failed:
            return None
        data: dict[str, Any] = {"errors": sum(m.severity == "error" for m in found),
                                "warnings": sum(m.severity == "warning" for m in found),
                                "files": len({m.file for m in found}), "fixable_errors": 0, "fixable_warnings": 0}
        summary, fixable = _last(_SUMMARY, text), _last(_FIXABLE, text)
        if summary:
            data.update(errors=int(summary["errors"]), warnings=int(summary["warnings"]))
        if fixable:
            data.update(fixable_errors=int(fixable["errors"]), fixable_warnings=int(fixable["warnings"]))
        return data

    summarize_failures = True

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not data:
            return None
        if not data["errors"] and not data["warnings"]:
            return "eslint: no problems"
        return (f"eslint: {_n(data['errors'], 'error')}, {_n(data['warnings'], 'warning')} in "
                f"{_n(data['files'], 'file')}")


ADAPTER: Adapter = EslintAdapter()
