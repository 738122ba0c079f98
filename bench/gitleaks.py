#!/usr/bin/env python3
"""Redaction recall against gitleaks' rule set (https://github.com/gitleaks/gitleaks, MIT licence).

    python3 bench/gitleaks.py [--gitleaks DIR] [--misses N] [--seed S]

Reads gitleaks' `config/gitleaks.toml` (its rules) and `cmd/generate/config/rules/*.go` (their true-
positive examples) from a checkout: DIR, $GITLEAKS_DIR, or a shallow clone made into the cache folder
(`git clone --depth 1`). Nothing of gitleaks is stored in this repository.

For every rule, one secret is drawn from the rule's own secret group (a seeded generator over the
regular expression, Go syntax adapted to Python's) and gitleaks' literal true-positive lines are
collected. Each secret is then placed in
  labelled lines   of every shape programs print (export, YAML, JSON, Authorization, XML, .netrc,
                   env lists, Go, Makefile, option values, connection strings, acronym names),
  gitleaks' lines  the formats of gitleaks' own GenerateSampleSecrets (utils/generate.go) and its
                   literal examples,
  unlabelled lines a log line and an argv, plus the percent- and base64-encoded forms;
and run through agentwrap's Redactor. A rule counts as redacted in a context when no piece of its
secret (a third of it, at least 8 characters) is left in any of that context's lines. "Format-
recognisable" rules are those whose regex needs no label (gitleaks' unique-token rules and plain
prefix rules, not its semi-generic `identifier ... operator ... value` ones).
Goals (issue 12): >= 95% of format-recognisable rules unlabelled, >= 99.5% of all rules labelled.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentwrap.redact import Redactor  # noqa: E402

sre = re._parser  # type: ignore[attr-defined]
C = re._constants  # type: ignore[attr-defined]


def checkout(arg: str | None) -> Path:
    """A gitleaks work tree: DIR itself, or a clone of DIR (a bare mirror) or of GitHub in the cache."""
    source = "https://github.com/gitleaks/gitleaks"
    for cand in (arg, os.environ.get("GITLEAKS_DIR")):
        if cand and (Path(cand) / "config" / "gitleaks.toml").exists():
            return Path(cand)
        if cand and (Path(cand) / "HEAD").exists():
            source = cand
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "agentwrap-bench" / "gitleaks"
    if not (cache / "config" / "gitleaks.toml").exists():
        cache.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["git", "clone", "-q", "--depth", "1", source, str(cache)], check=False)
        if done.returncode:
            sys.exit(f"cannot clone gitleaks from {source}: pass --gitleaks DIR (a checkout or a mirror)")
    return cache


# -- Go regular expressions in Python ---------------------------------------------------------------


def to_python(rx: str) -> str:
    """Go's RE2 allows `(?i)` mid-pattern (to the end of its group) and `\\z`; Python wants them scoped."""
    rx = rx.replace(r"\z", r"\Z")
    for posix, py in (("[:alnum:]", "A-Za-z0-9"), ("[:alpha:]", "A-Za-z"), ("[:digit:]", "0-9"),
                      ("[:upper:]", "A-Z"), ("[:lower:]", "a-z"), ("[:xdigit:]", "0-9A-Fa-f")):
        rx = rx.replace(posix, py)
    out, depth_open = [], []  # for each open group: how many scoped flag groups to close with it
    i = 0
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            out.append(rx[i:i + 2])
            i += 2
            continue
        if c == "[":  # a class: copied whole
            j = i + 1
            if rx[j:j + 1] == "^":
                j += 1
            if rx[j:j + 1] == "]":
                j += 1
            while j < len(rx) and rx[j] != "]":
                j += 2 if rx[j] == "\\" else 1
            body = re.sub(r"(?<!\\)\[(?!:)", r"\\[", rx[i + 1:j])  # a literal '[' in a class
            out.append("[" + body + "]")
            i = j + 1
            continue
        m = re.match(r"\(\?([imsU-]+)\)", rx[i:])
        if m and (i > 0):
            out.append(f"(?{m.group(1).replace('U', '')}:")
            if depth_open:
                depth_open[-1] += 1
            else:
                depth_open.append(1)
                depth_open.insert(0, 0)
            i += m.end()
            continue
        if c == "(":
            depth_open.append(0)
        elif c == ")" and depth_open:
            out.append(")" * depth_open.pop())
        out.append(c)
        i += 1
    out.append(")" * sum(depth_open))
    return "".join(out)


class Gen:
    """Draws a string matching a parsed regular expression (seeded, repetitions capped)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def seq(self, items: list) -> str:  # type: ignore[type-arg]
        return "".join(self.node(op, av) for op, av in items)

    def klass(self, items: list) -> str:  # type: ignore[type-arg]
        chars: list[str] = []
        negate = False
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                chars.append(chr(av))
            elif op is C.RANGE:
                chars.extend(chr(x) for x in range(av[0], min(av[1], av[0] + 200) + 1))
            elif op is C.CATEGORY:
                chars.extend({C.CATEGORY_DIGIT: "0123456789", C.CATEGORY_WORD: "abcXYZ019_",
                              C.CATEGORY_SPACE: " "}.get(av, "a"))
        if negate:
            pool = [c for c in "aB3xQ9_-" if c not in chars]
            return self.rng.choice(pool or ["a"])
        pool = [c for c in chars if c not in "\n\r\t\x0b\x0c"] or chars
        return self.rng.choice(pool)

    def node(self, op, av) -> str:  # type: ignore[no-untyped-def]
        if op is C.LITERAL:
            return chr(av)
        if op is C.NOT_LITERAL:
            return "a" if chr(av) != "a" else "b"
        if op is C.ANY:
            return "a"
        if op is C.IN:
            return self.klass(av)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            hi = min(hi, lo + 20) if hi != C.MAXREPEAT else lo + 20
            n = max(lo, self.rng.randint(lo, hi) if lo < hi else lo)
            return "".join(self.seq(sub) for _ in range(n))
        if op is C.SUBPATTERN:
            return self.seq(av[-1])
        if op is C.BRANCH:
            return self.seq(self.rng.choice(av[1]))
        if op is C.ATOMIC_GROUP:
            return self.seq(av)
        if op is C.CATEGORY:
            return {C.CATEGORY_DIGIT: "7", C.CATEGORY_WORD: "k", C.CATEGORY_SPACE: " "}.get(av, "")
        return ""  # AT (anchors), ASSERT, ASSERT_NOT, GROUPREF: nothing to draw


def find_group(items, n):  # type: ignore[no-untyped-def]
    for op, av in items:
        if op is C.SUBPATTERN:
            if av[0] == n:
                return av[-1]
            found = find_group(av[-1], n)
            if found is not None:
                return found
        elif op is C.BRANCH:
            for alt in av[1]:
                found = find_group(alt, n)
                if found is not None:
                    return found
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.ATOMIC_GROUP) or op is getattr(C, "POSSESSIVE_REPEAT", None):
            found = find_group(av[-1] if op is not C.ATOMIC_GROUP else av, n)
            if found is not None:
                return found
    return None


# -- the rules -----------------------------------------------------------------------------------------

SEMI_GENERIC = re.compile(r"^(?:\(\?i\))?\[\\w\.-\]\{0,50\}\?\(\?i?:")


def load_rules(root: Path, rng: random.Random) -> list[dict]:  # type: ignore[type-arg]
    config = tomllib.loads((root / "config" / "gitleaks.toml").read_text())
    examples = go_examples(root)
    rules = []
    for rule in config["rules"]:
        if "regex" not in rule:
            continue
        py = to_python(rule["regex"])
        try:
            compiled = re.compile(py)
            tree = sre.parse(py)
        except re.error as exc:
            print(f"  {rule['id']}: regex not usable in Python ({exc})", file=sys.stderr)
            continue
        group = rule.get("secretGroup") or (1 if compiled.groups else 0)
        sub = find_group(list(tree), group) if group else list(tree)
        secret = ""
        for _ in range(30):  # a draw the rule itself accepts, with a bit of entropy
            cand = Gen(rng).seq(list(sub or tree)).strip()
            line = f"{rule['id'].split('-')[0]}_token = \"{cand}\""
            if len(cand) >= 8 and (compiled.search(line) or compiled.search(cand)) and len(set(cand)) > 5:
                secret = cand
                break
        own = []
        for text in examples.get(rule["id"], []):
            m = compiled.search(text)
            if m:
                value = m.group(group) if group and m.group(group) else m.group(0)
                if len(value) >= 8:
                    own.append((text, value))
        rules.append({"id": rule["id"], "secret": secret, "own": own,
                      "format": not SEMI_GENERIC.match(rule["regex"]) and not rule["regex"].startswith("(?i)[\\w")})
    return rules


_GO_RULE = re.compile(r'RuleID:\s*"([^"]+)"')
_GO_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`([^`]*)`')


def go_examples(root: Path) -> dict[str, list[str]]:
    """Literal strings in each rule function's true-positive list (`tps`), by rule id."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "cmd" / "generate" / "config" / "rules").glob("*.go")):
        src = path.read_text()
        for func in re.split(r"\nfunc ", src)[1:]:
            ids = _GO_RULE.findall(func)
            if not ids:
                continue
            body = func.split("fps")[0]
            tps = body[body.find("tps"):] if "tps" in body else ""
            strings = []
            for m in _GO_STRING.finditer(tps):
                s = m.group(1) if m.group(1) is not None else m.group(2)
                if m.group(1) is not None:
                    s = bytes(s, "utf-8").decode("unicode_escape", errors="replace")
                strings.append(s)
            found.setdefault(ids[0], []).extend(strings)
    return found


# -- contexts -----------------------------------------------------------------------------------------

LABELLED = [
    "export {I}_API_KEY={s}", "export {I}_TOKEN='{s}'", "{i}_token: {s}", "{i}_secret: \"{s}\"",
    '{{"{i}_api_key": "{s}"}}', "Authorization: Bearer {s}", "<{i}Token>{s}</{i}Token>",
    "machine api.example.com login ci password {s}", "- name: {I}_TOKEN\n  value: {s}",
    'var {i}Token = "{s}"', "{I}_TOKEN ?= {s}", "{I}_TOKEN ::= {s}", "--password {s}", "curl -u ci:{s} https://x",
    "mysql -u root -p{s} app", "redis-cli -h cache -a {s} ping", "PGPASSWORD={s} psql -h db",
    "postgres://app:{s}@db.internal:5432/app", "APIToken={s}", "DBPassword: {s}", "NPMToken={s}",
]
GITLEAKS_FORMATS = [  # utils.GenerateSampleSecrets (cmd/generate/config/utils/generate.go)
    '{i}Token="{s}"', '{i}Token = "{s}"', "{i}Token={s}", "{i}Token = {s}", '{{\n    "{i}_token": "{s}"\n}}',
    '{{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}}', "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}", "{i}_token: '{s}'", '{i}_token: "{s}"', 'string {i}Token = "{s}";',
    'var {i}Token string = "{s}"', '{i}Token := "{s}"', "{i}Token := `{s}`", 'String {i}Token = "{s}";',
    'var {i}Token = "{s}"', '${i}Token .= "{s}"', "{i}Token = '{s}'", '{i}Token = "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")', '  "{i}Token" => "{s}"', '{I}_TOKEN = "{s}"',
    '{I}_TOKEN := "{s}"', '{I}_TOKEN ::= "{s}"', '{I}_TOKEN :::= "{s}"', '{I}_TOKEN ?= "{s}"',
]
UNLABELLED = ["2026-01-01T10:00:00Z INFO using {s} for the upload", "deploy --region eu-west-1 {s}"]
ENCODED = ["GET /callback?state=abc&code={q} HTTP/1.1", "payload {b}"]


def leaked(secret: str, out: str) -> bool:
    k = min(len(secret), max(8, len(secret) // 3))
    return any(secret[i:i + k] in out for i in range(0, len(secret) - k + 1))


def redacted_all(lines: list[tuple[str, str]]) -> bool:
    return all(not leaked(secret, Redactor().redact(line)) for line, secret in lines)


def shown(template: str, secret: str) -> str:
    """The secret as the line writes it: a piece of its base64 left in the output is a leak too."""
    if "{b}" in template:
        return base64.b64encode(secret.encode()).decode()
    return quote(secret, safe="") if "{q}" in template else secret


def fill(template: str, rule_id: str, secret: str) -> str:
    ident = re.sub(r"[^A-Za-z0-9]", "", rule_id.split("-")[0]) or "x"
    return template.format(i=ident, I=ident.upper(), s=secret, q=quote(secret, safe=""),
                           b=base64.b64encode(secret.encode()).decode())


def export(root: Path, head: str, dest: Path) -> None:
    """Writes gitleaks' format-recognisable rules as agentwrap/secret_formats_data.py (MIT: notice kept)."""
    config = tomllib.loads((root / "config" / "gitleaks.toml").read_text())
    licence = (root / "LICENSE").read_text().strip()
    rows = []
    for rule in config["rules"]:
        rx = rule.get("regex")
        if not rx or SEMI_GENERIC.match(rx) or rx.startswith("(?i)[\\w") or not rule.get("keywords"):
            continue
        py = to_python(rx)
        try:
            compiled = re.compile(py)
        except re.error:
            continue
        allow = [to_python(a) for al in rule.get("allowlists", []) if al.get("regexTarget", "secret") == "secret"
                 for a in al.get("regexes", [])]
        stop = [w for al in rule.get("allowlists", []) for w in al.get("stopwords", [])]
        group = rule.get("secretGroup") or (1 if compiled.groups else 0)
        rows.append((rule["id"], py, group, tuple(k.lower() for k in rule["keywords"]),
                     float(rule.get("entropy", 0)), tuple(allow), tuple(stop)))
    body = ",\n".join(f"    {row!r}" for row in rows)
    notice = "\n".join(f"# {line}".rstrip() for line in licence.splitlines())
    dest.write_text(
        f'''# ruff: noqa: E501  (generated: one rule per line)
"""gitleaks' format-recognisable secret rules, generated by bench/gitleaks.py --export (do not edit).

Source: https://github.com/gitleaks/gitleaks config/gitleaks.toml at {head}, the rules whose regex needs
no label (its semi-generic `identifier ... = value` rules are left to agentwrap's own label rules). Go
regex syntax adapted to Python's. Each row: (rule id, regex, secret group, lowercase keywords, minimum
Shannon entropy, allowlist regexes on the secret, stopwords).
"""

# gitleaks is distributed under the MIT licence, whose notice follows:
#
{notice}

from __future__ import annotations

SOURCE_COMMIT = {head!r}
RULES: tuple[tuple[str, str, int, tuple[str, ...], float, tuple[str, ...], tuple[str, ...]], ...] = (
{body},
)
''')
    print(f"wrote {len(rows)} rules to {dest}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gitleaks")
    ap.add_argument("--misses", type=int, default=12, help="rules to list per context where a secret was left")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--export", metavar="PY", help="write the format rules as a Python module and exit")
    args = ap.parse_args()
    root = checkout(args.gitleaks)
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False).stdout.strip() or "?"
    if args.export:
        export(root, head, Path(args.export))
        return 0
    rules = [r for r in load_rules(root, random.Random(args.seed)) if r["secret"]]
    print(f"gitleaks {head}: {len(rules)} rules with a drawn secret, "
          f"{sum(r['format'] for r in rules)} format-recognisable, "
          f"{sum(bool(r['own']) for r in rules)} with literal examples")
    contexts = {
        "labelled (every shape)": (LABELLED, False),
        "gitleaks' sample formats": (GITLEAKS_FORMATS, False),
        "unlabelled (log, argv)": (UNLABELLED, True),
        "percent/base64-encoded": (ENCODED, True),
    }
    for name, (templates, format_only) in contexts.items():
        chosen = [r for r in rules if r["format"]] if format_only else rules
        misses = [r["id"] for r in chosen
                  if not redacted_all([(fill(t, r["id"], r["secret"]), s) for t in templates
                                       for s in {r["secret"], shown(t, r["secret"])}])]
        scope = "format-recognisable" if format_only else "all"
        hit = len(chosen) - len(misses)
        print(f"{name:<26} {hit:4d}/{len(chosen):<4d} {scope} rules = {100 * hit / max(len(chosen), 1):5.1f}%"
              + (f"  missed: {', '.join(misses[:args.misses])}{' ...' if len(misses) > args.misses else ''}"
                 if misses else ""))
    own = [r for r in rules if r["own"]]
    misses = [r["id"] for r in own if not redacted_all(r["own"])]
    hit = len(own) - len(misses)
    print(f"{'gitleaks literal examples':<26} {hit:4d}/{len(own):<4d} rules = {100 * hit / max(len(own), 1):5.1f}%"
          + (f"  missed: {', '.join(misses[:args.misses])}{' ...' if len(misses) > args.misses else ''}"
             if misses else ""))
    print("goals (issue 12): >= 95% of format-recognisable rules unlabelled; >= 99.5% of all rules labelled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
