"""OpenSSH's ssh and scp: the rules and prompts are data (ssh.spec.toml); this reads the host the command
line names, so that a code action for another tool (`ssh-keyscan`, `ssh-copy-id`) names it too.

Python rather than TOML alone because the destination is a shape, not a word: `[user@]host`,
`ssh://[user@]host[:port]`, scp's `[user@]host:path` and `scp://[user@]host[:port]/path`, with the user and
port also given by options (`-l USER`, `-p PORT`, scp's `-P PORT`, `-o User=`, `-o Port=`). What
~/.ssh/config makes of a Host alias is not read: `{host}` is the name as the caller wrote it.
"""

from __future__ import annotations

import os

from agentwrap.sdk import Adapter, BaseAdapter, CapturedRun, Interpretation, Problem, ProblemCode, Spec, problem

SPEC_FILE = os.path.join(os.path.dirname(__file__), "ssh.spec.toml")

# Options that take a value, from each program's usage line (OpenSSH 9): the word after one is no operand.
_SSH_WITH_VALUE = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
_SCP_WITH_VALUE = frozenset("cDFiJlOoPSX")
_DEFAULT_PORT = "22"


def _options_and_operands(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """The last value of each option that takes one (`-p 2222`, `-p2222`, `-oPort=2222` as `o:port`), and
    the operands. Flags cluster (`-vp 2222`): a letter taking a value ends the cluster."""
    with_value = _SCP_WITH_VALUE if os.path.basename(argv[0]) == "scp" else _SSH_WITH_VALUE
    found: dict[str, str] = {}
    operands: list[str] = []
    words = iter(argv[1:])
    for word in words:
        if operands and os.path.basename(argv[0]) != "scp":
            break  # ssh: the words after the destination are the remote command
        if word == "--":
            operands.extend(words)
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        for at, letter in enumerate(word[1:], 1):
            if letter in with_value:
                value = word[at + 1:] or next(words, "")
                if letter == "o":
                    key, _, setting = value.replace(" ", "=", 1).partition("=")
                    found[f"o:{key.lower()}"] = setting.strip()
                else:
                    found[letter] = value
                break
    return found, operands


def _split_destination(word: str, scp: bool) -> tuple[str, str, str] | None:
    """(user, host, port) of a destination word, empty where it names none; None for a local path."""
    scheme = "scp://" if scp else "ssh://"
    port = ""
    if word.startswith(scheme):
        rest = word[len(scheme):].split("/", 1)[0]
        user, _, hostport = rest.rpartition("@")
        host, port = hostport, ""
        if hostport.startswith("["):  # [::1]:2222
            host, _, after = hostport[1:].partition("]")
            port = after.removeprefix(":")
        elif hostport.count(":") == 1:
            host, _, port = hostport.partition(":")
        return user, host, port
    if scp:
        head, colon, _ = word.partition(":")
        if not colon or "/" in head or not head:  # ./a:b and /x:y are local paths, as scp reads them
            return None
        word = head.strip("[]") if head.startswith("[") else head
    user, _, host = word.rpartition("@")
    return (user, host, port) if host else None


def destination(argv: list[str]) -> dict[str, str]:
    """`host`, `port` (22 unless the command line says) and `destination` (`user@host`, or the host) of the
    first remote the command line names; {} when it names none (`ssh -V`, a local-only scp)."""
    if not argv:
        return {}
    scp = os.path.basename(argv[0]) == "scp"
    options, operands = _options_and_operands(argv)
    for word in operands:
        found = _split_destination(word, scp)
        if found is None:
            continue
        user, host, port = found
        user = user or ("" if scp else options.get("l", "")) or options.get("o:user", "")
        port = port or options.get("P" if scp else "p", "") or options.get("o:port", "") or _DEFAULT_PORT
        return {"host": host, "port": port, "destination": f"{user}@{host}" if user else host}
    return {}


#: ssh's own failures (connection, authentication, host key, bad option) end with 255; any other status of a
#: run that named a remote command is that command's.
_SSH_OWN_STATUS = 255
_HOST_KEY_EXPLAINED = frozenset(("SSH_HOST_KEY_UNKNOWN", "SSH_HOST_KEY_CHANGED"))

REMOTE_COMMAND_FAILED = ProblemCode(
    code="SSH_REMOTE_COMMAND_FAILED", title="ssh: the remote command failed", category="dependency", status=502,
    retryable=False, safe_to_retry=False,  # what the remote command changed is unknown
    suggested_fix="Read the remote command's output (its paths and programs are the remote host's, not this "
                  "machine's); the exit status is the remote command's own (ssh's own failures are 255).")


def remote_command(argv: list[str]) -> list[str]:
    """The words ssh sends the remote host as its command (after the destination); [] for scp, for ssh with
    no command (a login shell) and when no destination is named."""
    if not argv or os.path.basename(argv[0]) != "ssh":
        return []
    with_value = _SSH_WITH_VALUE
    words = argv[1:]
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return words[i + 2:]
        if not word.startswith("-") or word == "-":
            return words[i + 1:]
        for at, letter in enumerate(word[1:], 1):
            if letter in with_value:
                if not word[at + 1:]:
                    i += 1  # the option's value is the next word
                break
        i += 1
    return []


_KEY_FILE = "<KEY_FILE>"  # the identity SSH_PERMISSION_DENIED's action offers in place of the caller's


def _without_identity(command: tuple[str, ...]) -> tuple[str, ...]:
    """An action's ssh/scp command with the caller's own identity options (`-i KEY`, `-iKEY`, `-o
    IdentityFile=KEY`) left out, the action's `-i <KEY_FILE>` kept: ssh offers every -i it is given, so the
    refused key would still be tried (and count against the server's MaxAuthTries). Only options before the
    destination: the words after it are the remote command's."""
    with_value = _SCP_WITH_VALUE if os.path.basename(command[0]) == "scp" else _SSH_WITH_VALUE
    kept = [command[0]]
    at = 1
    while at < len(command):
        word = command[at]
        if word == "--" or not word.startswith("-") or word == "-":
            return (*kept, *command[at:])
        cluster, value, taken = word, "", 1
        for i, letter in enumerate(word[1:], 1):
            if letter in with_value:
                cluster, value = word[:i + 1], word[i + 1:]
                if not value and at + 1 < len(command):
                    value, taken = command[at + 1], 2
                break
        letter = cluster[-1]
        setting = value.replace(" ", "=", 1).partition("=")[0].lower() if letter == "o" else ""
        if (letter == "i" and value != _KEY_FILE) or setting == "identityfile":
            if len(cluster) > 2:  # `-vi KEY`: the flags before it stay
                kept.append(cluster[:-1])
        else:
            kept.extend(command[at:at + taken])
        at += taken
    return tuple(kept)


class SshAdapter(BaseAdapter):
    spec = Spec.from_toml(SPEC_FILE)
    codes = (REMOTE_COMMAND_FAILED,)

    def argv_values(self, argv: list[str]) -> dict[str, str]:
        return destination(argv)

    def find_problems(self, run: CapturedRun) -> list[Problem]:
        """The caller's `-i KEY` gives way to the `-i <KEY_FILE>` of an authentication failure's action.
        ssh ends an unknown or changed host key with `Host key verification failed.`: that line only
        restates the problem the lines above it name (with the fingerprint and the fix), so it is kept as
        a problem of its own only when nothing above explains it."""
        found = [p._replace(code_actions=tuple(
                     a._replace(command=_without_identity(a.command)) if a.command else a for a in p.code_actions))
                 if p.code == "SSH_PERMISSION_DENIED" else p for p in super().find_problems(run)]
        if any(p.code in _HOST_KEY_EXPLAINED for p in found):
            found = [p for p in found if p.code != "SSH_HOST_KEY_VERIFICATION_FAILED"]
        return found

    def _read(self, run: CapturedRun) -> Interpretation:
        """A remote command's own failure (any status but ssh's 255) is the remote command's: its lines name
        the remote host's files and commands, so the generic rules (a local path's FILE_NOT_FOUND and its
        fix) do not read them; the error names the remote status and the remote lines stay as output text."""
        command = remote_command(list(run.argv))
        if (not command or not run.failed or run.signal is not None or run.exit_code == _SSH_OWN_STATUS
                or any(p.severity == "error" for p in self.find_problems(run))):
            return super()._read(run)  # ssh's own failure, or one ssh.spec.toml names (a command not found)
        from agentwrap.adapter import last_error_line

        host = destination(list(run.argv)).get("destination", "the remote host")
        shown = " ".join(command)
        shown = shown if len(shown) <= 80 else shown[:79] + "…"
        reason = last_error_line(run)
        detail = f"the remote command `{shown}` on {host} exited with status {run.exit_code}" + (
            f": {reason}" if reason else " and printed nothing")
        error = problem(self.name, REMOTE_COMMAND_FAILED, detail, exit_code=run.exit_code,
                        # `command`: the words it ran are no words it printed (outcome.lean.facts_said)
                        extra={"remote_exit_code": run.exit_code, "host": host, "command": shown})
        # listed, so that the concise text leaves out the remote line the detail quotes (the others stay)
        return Interpretation(summary=detail[:300], error=error, problems=(error,), data=None, success=False)


ADAPTER: Adapter = SshAdapter()
