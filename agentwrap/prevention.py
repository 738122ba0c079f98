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


def listed(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The prevention environment as `describe` and `capabilities` list it once (CONTRACT 2a), so that no
    envelope repeats it; shim paths are shown under the per-run folder `$AGENTWRAP_SHIMS`."""
    shims = {kind: f"$AGENTWRAP_SHIMS/agentwrap-{kind}" for kind in ("editor", "askpass")}
    env = environment(shims, extra)
    env["AGENTWRAP_REQUEST_LOG"] = "$AGENTWRAP_SHIMS/requests.jsonl"
    return dict(sorted(env.items()))


def environment(shims: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables agentwrap sets for the program: generic prevention, shims, then `extra` (adapter)."""
    env = dict(GENERIC)
    if "editor" in shims:
        env.update(dict.fromkeys(EDITOR_VARS, shims["editor"]))
    if "askpass" in shims:
        env.update(dict.fromkeys(ASKPASS_VARS, shims["askpass"]))
    env.update(extra or {})
    return env
