"""Environment that turns prompts, pagers and editors into fast failures (CONTRACT section 5.1).

Only variables that make a tool refuse, never ones that answer yes: `npm_config_yes=true` would
let npx install packages unasked, so we set it to false.
"""

from __future__ import annotations

from collections.abc import Mapping

#: A capable terminal: TERM=dumb makes git log and man stop at "terminal is not fully functional".
TERM = "xterm-256color"

GENERIC: dict[str, str] = {
    "TERM": TERM,
    "NO_COLOR": "1",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "cat",
    "AWS_PAGER": "",
    "GIT_TERMINAL_PROMPT": "0",
    "GCM_INTERACTIVE": "never",
    "PIP_NO_INPUT": "1",
    "DEBIAN_FRONTEND": "noninteractive",
    "npm_config_yes": "false",
    "TF_INPUT": "0",
    "SSH_ASKPASS_REQUIRE": "force",
}

EDITOR_VARS = ("EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "KUBE_EDITOR", "SVN_EDITOR")
ASKPASS_VARS = ("GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS")

#: Variables that turn a program's colours off (generic or an adapter's). They are set only when the output is
#: read by a program (json, jsonl, problem, --agent, piped): a person at a terminal (pretty) keeps the program's
#: colours, as the live view shows them, and a NO_COLOR of the person's own still reaches the program.
COLOUR_OFF = ("NO_COLOR", "CARGO_TERM_COLOR", "NODE_DISABLE_COLORS")


def listed(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The prevention environment as `describe` and `capabilities` list it once (CONTRACT 2a), so that no
    envelope repeats it; shim paths are shown under the per-run folder `$AGENTWRAP_SHIMS`. It is a machine
    run's; a person's (pretty on a terminal) leaves out `colour_off(...)` of it."""
    shims = {kind: f"$AGENTWRAP_SHIMS/agentwrap-{kind}" for kind in ("editor", "askpass")}
    env = environment(shims, extra)
    env["AGENTWRAP_REQUEST_LOG"] = "$AGENTWRAP_SHIMS/requests.jsonl"
    return dict(sorted(env.items()))


def colour_off(env: Mapping[str, str]) -> list[str]:
    """The names in `env` that turn colours off: what a person's run at a terminal does not set."""
    return [name for name in COLOUR_OFF if name in env]


def environment(shims: Mapping[str, str], extra: Mapping[str, str] | None = None, *,
                colour: bool = False) -> dict[str, str]:
    """The variables agentwrap sets for the program: generic prevention, shims, then `extra` (adapter).
    `colour`: a person reads the output on a terminal, so the colour-off variables are not set."""
    env = dict(GENERIC)
    if "editor" in shims:
        env.update(dict.fromkeys(EDITOR_VARS, shims["editor"]))
    if "askpass" in shims:
        env.update(dict.fromkeys(ASKPASS_VARS, shims["askpass"]))
    env.update(extra or {})
    if colour:
        for name in COLOUR_OFF:
            env.pop(name, None)
    return env
