"""`agentwrap adapter new NAME [--toml] [--force]`: a commented starting point that loads and passes validation."""

from __future__ import annotations

from pathlib import Path

from agentwrap import envelope, registry
from agentwrap.adapters import INDEX
from agentwrap.commands import CommandContext
from agentwrap.errors import UsageError
from agentwrap.spec_check import valid_name

TOML = '''# agentwrap adapter for {name}: data only. Reference: docs/adapters.md
name = "{name}"
matches = ["{name}"]                      # program names (paths and version suffixes are stripped)
global_options_with_value = []            # options before the subcommand that take a value, e.g. "-C"

[descriptor]
purpose = "What {name} does, in one line."
use_when = "When an agent should pick it."
do_not_use_when = "When it should not."
returns = "What the envelope's data and problems hold."
limitations = "What this adapter does not know."

[env]                                     # prompt prevention: variables that make {name} refuse, not agree
# {upper}_NONINTERACTIVE = "1"

# What a run may change: read_only, destructive, idempotent, open_world. Left out, each is unknown, and
# unknown counts as mutating: `agentwrap --read-only` refuses every {name} run until you declare, per
# subcommand, the ones that change nothing. Say read_only = true in [effects.default] only when no run
# of {name}, with any arguments, can change anything.
[effects.default]
# [effects.list]                          # e.g. a subcommand that only reads
# read_only = true
# destructive = false

# A prompt {name} may show, and {name}'s OWN way past it. Uncomment it only with a real flag of {name}
# (`{name} --help`): an agent runs the command it suggests.
# [[prompts]]
# pattern = "(?i)are you sure"
# input_kind = "confirmation"
# suggested_fix = "Pass {name}'s own FLAG when the change is intended."
# [[prompts.code_actions]]
# title = "Re-run with FLAG"
# command = ["{name}", "{{args...}}", "FLAG"]
# applicability = "maybe_incorrect"

[[rules]]                                 # a failure pattern and what an agent should do about it
code = "{upper}_NOT_FOUND"
pattern = "(?i)^error: (?P<what>.+) not found"
title = "{name}: something was not found"
category = "not_found"
status = 404
retryable = false
safe_to_retry = true
suggested_fix = "Check that {{what}} exists."
'''

PYTHON = '''"""agentwrap adapter for {name}: declarations as data, plus a parser. See docs/adapters.md."""

from agentwrap import sdk

SPEC = {{
    "name": "{name}",
    "matches": ["{name}"],
    "has_subcommands": False,  # True when {name} has subcommands (`{name} build`): parsers are then per subcommand
    "descriptor": {{"purpose": "What {name} does, in one line.", "use_when": "...", "do_not_use_when": "...",
                    "returns": "...", "limitations": "..."}},
    # Unknown effects count as mutating: `--read-only` refuses {name} until you say "read_only": True, which
    # only holds when no run of {name}, with any arguments, changes anything (or per subcommand).
    "effects": {{"default": {{}}}},
    "rules": [
        {{"code": "{upper}_NOT_FOUND", "pattern": r"(?i)^error: (?P<what>.+) not found", "title": "{name}: not found",
          "category": "not_found", "status": 404, "retryable": False, "safe_to_retry": True,
          "suggested_fix": "Check that {{what}} exists."}},
    ],
}}


def parse_default(run: sdk.CapturedRun) -> dict[str, object]:
    """Turn the output of a successful run into facts (this is what `data` holds)."""
    lines = [line for line in run.stdout_text.splitlines() if line.strip()]
    return {{"lines": len(lines)}}


class Adapter(sdk.BaseAdapter):
    spec = sdk.Spec.from_dict(SPEC, __file__)
    parsers = {{"*": parse_default}}  # subcommand -> parser; "*" for any


ADAPTER = Adapter()
'''


def scaffold(ctx: CommandContext, name: str, *, toml: bool, folder: str | None,
             shadow: bool = False) -> envelope.Outcome:
    if not valid_name(name):
        raise UsageError(f"adapter new: {name!r}: use a lower-case program name (letters, digits, . _ + -)")
    shadowed = _builtin_named(name)
    if shadowed is not None and not shadow:
        # Refused, not warned: the new file would silently replace the built-in's rules, prompts and
        # read-only knowledge for every run of the program, and a warning is easy to miss.
        raise UsageError(f"adapter new: {name!r} is the built-in {shadowed} adapter's; a user adapter named so "
                         f"replaces it for every {name} run. Pass --force (or --shadow) to write it anyway, "
                         f"or pick another name")
    target_dir = Path(folder) if folder else registry.user_dir()
    path = target_dir / f"{name}.{'toml' if toml else 'py'}"
    if path.exists():
        raise UsageError(f"adapter new: {path} exists; edit it or remove it first")
    text = (TOML if toml else PYTHON).format(name=name, upper=name.upper().replace("-", "_").replace(".", "_"))
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        (target_dir / "fixtures" / name).mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError as exc:
        raise UsageError(f"adapter new: cannot write {path}: {exc.strerror}") from None
    registry.load_file(path)  # what we wrote must load; a failure here is our bug, reported as INTERNAL
    next_steps = [f"agentwrap capture --dir {target_dir / 'fixtures'} --name first -- {name} ...",
                  f"agentwrap adapter test {path}"]
    data = {"path": str(path), "fixtures": str(target_dir / "fixtures" / name), "next": next_steps}
    summary = f"wrote {path}"
    if shadowed is not None:  # asked for with --force; still said in summary and data
        data["shadows"] = shadowed
        data["note"] = _shadow_note(path, name, shadowed)
        summary += f"; it shadows the built-in {shadowed} adapter for every {name} run"
    return envelope.Outcome(envelope.build(request_id=ctx.request_id, summary=summary, data=data), 0)


def _builtin_named(name: str) -> str | None:
    """The built-in adapter a user adapter matching `name` replaces (`git`, or `gcc` for `clang`), if any."""
    if name in INDEX:
        return INDEX[name]
    return name if name in INDEX.values() else None


def _shadow_note(path: Path, name: str, builtin: str) -> str:
    # Its rules, prompts and effects replace the built-in's: effects start unknown (so `--read-only`
    # refuses what the built-in let through) and every problem the built-in knew is gone.
    return (f"{path} replaces the built-in {builtin} adapter for every {name} run: its rules, prompts and "
            f"read-only knowledge are this file's now; remove the file to use the built-in again")
