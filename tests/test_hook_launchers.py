"""A deny rule for a program sees it behind the launchers that run a command only in some forms (`ip netns
exec NS CMD`, `gdb --args CMD`, `uv run CMD`, `docker exec C CMD`: agentwrap.hooks.launchers), behind the
chain-loaders and host escapes of agentwrap.wrappers (`run0`, `envdir`, `flatpak-spawn --host`), and in the
lines that `nix-shell --run`, `fish -c`, `npm exec -c`, `sem` and `at` run; a debugger's own commands
(`gdb -ex 'shell …'`) are opaque. The same programs' other runs (`ip addr`, `uv sync`, `gdb -ex run -ex bt`)
are rewritten as before. A program word bash expands (`{rm,x}`, `/bin/r?`) is known only when the line runs.
A git command that edits its message on a terminal (`git revert`) is left to the host.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentwrap.hooks import claude_rules
from agentwrap.hooks.rewrite import rewrite
from tests.test_hook import home, write  # noqa: F401 - `home` keeps each host's settings private
from tests.test_hook_safety import claude

RULES = claude_rules.Rules((), ("Bash(rm:*)",), ())

# Each runs `rm` (or a line whose program is known only when it runs): a deny rule for rm must see it.
RUNS_RM = ["ip netns exec blue rm -rf x", "ip net e blue rm x", "ip -n red netns exec blue bash -c 'ls; rm x'",
           "ip -all netns exec rm x", "ip -a netns exec sh -c 'rm x'", "ip vrf exec blue rm x",
           "sudo ip netns exec blue sudo rm x", "gdb --args rm -rf x", "gdb -batch -ex run --args rm -rf x",
           "gdb -q -batch -ex run --args bash -c 'rm x'", "gdb -batch -ex run /bin/rm",
           "gdb -batch -ex 'shell rm x'", "gdb -batch -ex 'shell rm x' --args ./prog",
           "gdb -ex 'print system(\"rm x\")' ./prog", "gdb --eval-command='!rm x' ./prog", "lldb -- rm x",
           "lldb -o 'platform shell rm x' ./prog", "uv run rm x", "uv --directory d run bash -c 'rm x'",
           "uv run --with x bash -c 'rm x'", "poetry -C d run rm x", "conda run -n base rm x",
           "direnv exec . rm x", "bundle exec rm x", "docker exec -it c rm x", "docker exec c sh -c 'rm x'",
           "kubectl exec -n ns pod -- rm x", "kubectl -n ns exec pod -- sh -c 'rm x'", "npm exec -c 'rm x'",
           "npx -c 'rm x'", "sem rm x", "sem -j2 bash -c 'rm x'", "fish -c 'rm x'", "fish -c 'rm (echo x)'",
           "nix-shell -p x --run 'rm x'", "expect -c 'spawn rm x'", "at now <<< 'rm x'", "echo 'rm x' | at now",
           "run0 rm x", "run0 -u root rm x", "flatpak-spawn --host rm x", "distrobox-host-exec rm x",
           "envdir ./e rm x", "chpst -u nobody rm x", "setlock /tmp/l rm x", "torify rm x",
           "perf stat -e cycles rm x", "machinectl shell root@c /bin/rm x"]
# The same programs running nothing a rule for rm names.
PLAIN = ["ip addr show", "ip netns list", "ip -br a", "gdb -batch -ex run -ex bt --args ./prog a b",
         "gdb -batch -ex run ./prog", "gdb -p 123 -batch -ex 'thread apply all bt'", "lldb -o run -o bt -- ./prog",
         "uv run pytest -q", "uv sync", "poetry run pytest", "docker exec c ls", "docker ps",
         "kubectl exec pod -- ls", "npm exec -c ls", "perf stat ls", "at -f job.sh now", "fish -c ls",
         "envdir ./e make"]


def _decision(line: str) -> str:
    rw = rewrite(line)
    assert rw.command is not None, rw.why
    return claude_rules.decide(RULES, list(rw.forms), rw.unnamed)


@pytest.mark.parametrize("line", RUNS_RM)
def test_a_deny_rule_sees_the_command_a_launcher_runs(line: str) -> None:
    assert _decision(line) in ("deny", "unsure")


@pytest.mark.parametrize("line", PLAIN)
def test_the_launchers_other_runs_are_rewritten_as_before(line: str) -> None:
    assert _decision(line) == "none"


@pytest.mark.parametrize("line", ["ip netns exec blue rm -rf x", "gdb -batch -ex run --args rm -rf x"])
def test_through_the_hook_the_line_is_left_to_the_host(tmp_path: Path, line: str) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(rm:*)"]}})
    assert claude(line, tmp_path) is None
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(curl:*)"]}})
    answer = claude(line, tmp_path)  # no rule names rm: rewritten, as before
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize(("line", "left"), [
    ("git revert HEAD", True), ("git cherry-pick -e abc", True), ("git merge --edit side", True),
    ("git revert --no-edit HEAD", False), ("git revert -n HEAD", False), ("git revert --continue", False),
    ("git cherry-pick abc", False), ("git merge side", False)])
def test_a_git_command_that_edits_its_message_on_a_terminal_is_left_to_the_host(line: str, left: bool) -> None:
    """agentwrap gives git a terminal, where `git revert` opens an editor (the host's shell gives none: it
    commits), and a refused editor ends git with the revert staged: such a line is the host's to run."""
    assert (rewrite(line).command is None) == left


@pytest.mark.parametrize("line", ["{rm,-rf,x}", "{rm,x}", "/bin/r? x", "/usr/bin/r[m] x", "/bin/r* x",
                                  "sudo /bin/r? x", "/usr/bin/sud? rm x", "bash -c '{rm,x}'"])
def test_a_program_word_bash_expands_is_known_only_when_the_line_runs(line: str) -> None:
    """Brace expansion and globs make the program (`{rm,-rf,x}` runs `rm -rf x`): no rule can be applied to
    the word as written, so a deny rule leaves the line to the host."""
    assert _decision(line) in ("deny", "unsure")


@pytest.mark.parametrize("line", ["ls *.py", "~/bin/tool x", "ls {a,b}", "find . -name '*.txt'"])
def test_expansions_in_arguments_or_a_tilde_leave_the_program_named(line: str) -> None:
    assert _decision(line) == "none"


@pytest.mark.parametrize("line", ["uv run python", "poetry run ipython", "ip netns exec ns bash",
                                  "sudo ip netns exec ns vim x"])
def test_a_session_behind_a_launcher_is_left_to_the_host(line: str) -> None:
    """As behind a wrapper (`sudo vim x`): the REPL or editor a launcher starts is a person's session."""
    assert rewrite(line).command is None
