"""agentwrap adapter for Debian's package tools: apt, apt-get and dpkg.

Python rather than TOML for three reasons: dpkg's "subcommand" is an action option (`dpkg -i`, `dpkg -l`),
`-s`/`--simulate` makes any apt-get command read-only, and package lists, plans and results become `data`.
"""

from __future__ import annotations

import os
from typing import Any

from agentwrap.adapters import _apt_parse as parse
from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Effects, Presentation, Spec, program_name

#: The rules, prompts, effects, noise and descriptor: data, validated like a user's (apt.toml).
SPEC_FILE = os.path.join(os.path.dirname(__file__), "apt.spec.toml")

#: dpkg's action options, named like apt's subcommands so effects and parsers share one table.
_DPKG_ACTIONS = {
    "-i": "install", "--install": "install", "--unpack": "unpack", "--configure": "configure",
    "-r": "remove", "--remove": "remove", "-P": "purge", "--purge": "purge", "-l": "list", "--list": "list",
    "-L": "listfiles", "--listfiles": "listfiles", "-s": "status", "--status": "status", "-S": "search",
    "--search": "search", "-p": "print-avail", "--print-avail": "print-avail", "--get-selections": "get-selections",
    "--set-selections": "set-selections", "-C": "audit", "--audit": "audit", "--verify": "verify", "-V": "verify",
    "--print-architecture": "print-architecture", "--compare-versions": "compare-versions",
    "--add-architecture": "add-architecture",
}
_SIMULATE = frozenset({"--simulate", "--just-print", "--dry-run", "--recon", "--no-act"})
#: What a simulation's data says twice: apt -s prints an Inst/Remv line for every package its announced lists
#: name (`install`, `remove`, an upgrade's `from_version`), and the summary gives the counts. The lists only
#: apt announces (held_changed, downgrade) and kept_back stay; a real run at the prompt keeps its plan.
_SAID_BY_A_SIMULATION = ("counts", "plan.new", "plan.upgrade", "plan.remove")
_CHANGES = frozenset({"install", "reinstall", "remove", "purge", "autoremove", "autopurge", "upgrade",
                      "dist-upgrade", "full-upgrade", "build-dep", "satisfy"})


def _simulated(argv: list[str] | tuple[str, ...]) -> bool:
    """-s, --simulate and friends (apt/apt-get), --dry-run/--no-act (dpkg): nothing is changed."""
    is_dpkg = program_name(argv[0]) == "dpkg"
    for arg in argv[1:]:
        if arg == "--":
            break
        if arg in _SIMULATE:
            return True
        if not is_dpkg and arg.startswith("-") and not arg.startswith("--") and arg[1:2] not in "octa" \
                and "s" in arg[1:]:
            return True
    return False


class AptAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)

    def subcommand(self, argv: list[str]) -> str | None:
        if program_name(argv[0]) == "dpkg":
            for arg in argv[1:]:
                action = _DPKG_ACTIONS.get(arg.split("=", 1)[0])
                if action:
                    return action
            return None
        return super().subcommand(argv)

    def effects(self, argv: list[str]) -> Effects:
        effects = super().effects(argv)
        if _simulated(argv):
            return Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
        if program_name(argv[0]) == "dpkg" and effects.open_world:
            return effects._replace(open_world=False)  # dpkg works on local files only
        return effects

    def presentation(self, argv: list[str]) -> Presentation:
        shown = super().presentation(argv)
        if program_name(argv[0]) == "dpkg" or not _simulated(argv) or (self.subcommand(argv) or "") not in _CHANGES:
            return shown
        return shown.replace(concise_omit=(*shown.concise_omit, *_SAID_BY_A_SIMULATION))

    def parse(self, run: CapturedRun) -> Any:
        sub = (run.subcommand or "").split(" ")[0]
        text = run.stdout_text
        if sub == "list":
            data = parse.dpkg_list(text) if program_name(run.argv[0]) == "dpkg" else parse.apt_list(text)
            return data if data["count"] or not run.failed else None
        if sub in _CHANGES:  # a failed install's partial result is still a fact
            changes = parse.changes(text)
            if _simulated(run.argv):  # a simulation that would change nothing prints no Inst line
                changes["simulated"] = True
            return changes if changes["install"] or changes["remove"] or len(changes) > 3 else None
        if sub == "update":  # counts are facts whether or not apt called the run a failure
            return parse.update(text)
        if run.failed:
            return None
        if sub == "policy":
            return parse.policy(text)
        if sub == "status" and program_name(run.argv[0]) == "dpkg":
            return parse.dpkg_status(text)
        return None

    def summarize(self, run: CapturedRun, data: Any) -> str | None:
        if not isinstance(data, dict):
            return None
        if "count" in data:
            return f"{data['count']} package{'s' * (data['count'] != 1)} listed"
        if "install" in data:
            counts = data.get("counts") or {}
            verb = "would change" if data["simulated"] else "changed"
            if data["simulated"]:  # a plan: nothing was installed or removed
                parts = [f"{len(data['install'])} to install/upgrade", f"{len(data['remove'])} to remove"]
            else:
                parts = [f"{len(data['install'])} set up", f"{len(data['remove'])} removed"]
            left = f", {counts['not_upgraded']} not upgraded" if counts.get("not_upgraded") else ""
            return f"apt {verb}: " + ", ".join(parts) + left
        packages = data.get("packages") or []
        if packages and "candidate" in packages[0]:  # apt policy
            return "; ".join(f"{p['name']}: installed {p['installed'] or '(none)'}, "
                             f"candidate {p['candidate'] or '(none)'}" for p in packages)[:300]
        if packages:  # dpkg -s
            return "; ".join(f"{p['name']} {p.get('version', '')}: {p.get('status', '')}" for p in packages)[:300]
        if "downloaded" in data:
            return (f"package lists: {data['downloaded']} downloaded, {data['unchanged']} unchanged, "
                    f"{data['failed']} failed")
        return None


ADAPTER: Adapter = AptAdapter()
