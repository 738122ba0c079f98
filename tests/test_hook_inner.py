"""The user's rules see commands hidden in variables, in other programs' words and in language one-liners
(agentwrap.hooks.inner, .environment, .code), through the real CLI with a real Claude Code settings file;
and a line no rule can name is rewritten as before.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentwrap.hooks import code
from tests.test_hook import home, write  # noqa: F401 - `home` keeps each host's settings private
from tests.test_hook_safety import claude

# A variable its program runs, a runner that hands its words to a shell, a wrapper: each runs `rm`.
HIDDEN = ["PAGER='rm x' git log", "GIT_PAGER='rm x' git log", "GIT_SSH_COMMAND='rm x' git fetch",
          "GIT_EXTERNAL_DIFF='rm x' git diff", "env PAGER='rm x' git log", "sudo GIT_PAGER='rm x' git log",
          "env GIT_SSH_COMMAND='sh -c \"rm x\"' git fetch", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x "
          "GIT_CONFIG_VALUE_0='!rm y' git x", "ssh host rm x", "ssh -p 22 host 'ls; rm x'",
          "ssh -o ProxyCommand='rm x' host ls", "parallel rm ::: x", "parallel 'ls; rm {}' ::: x", "busybox rm x",
          "chroot / rm x", "script -q -c 'rm x' /dev/null", "rsync -e 'rm x' a h:b", "env -S 'sh -c \"rm x\"'",
          "sshpass -p pw ssh host rm x", "runuser nobody -s /bin/sh -c 'ls; rm -rf x'"]
# Code in another language, or a line agentwrap cannot read: opaque, left alone while a deny/ask rule exists.
OPAQUE = ["python -c \"import os; os.remove('x')\"", "python3 -Bc 'import shutil'", "node -e \"require('fs')\"",
          "perl -lne 'unlink'", "ruby -e 'File.delete(1)'", "awk 'BEGIN{system(\"rm x\")}'",
          "awk '{print | \"sh\"}' f", "sed 'e rm x' f", "sed -e '1e rm x' f", "sed 's/x/rm y/e' f",
          "ex -c '!rm x' f", "GIT_PAGER=$P git log", "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm x'\" git log",
          "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm x' git log",
          "parallel --unknown-option v rm ::: x", "parallel ::: 'rm x'", "ssh host $CMD"]
# With a deny rule for `rm`, these name nothing it covers: rewritten as before (a helper such as an ssh
# transport is no interactive session either).
PLAIN = ["PAGER=cat git log", "GIT_SSH_COMMAND='ssh -i k -o IdentitiesOnly=yes' git fetch",
         "rsync -av -e 'ssh -p 22' src/ host:dst/", "python3 -m pytest -q", "python3 script.py -c x",
         "awk -F: '{print $1}' f", "sed -n '1,50p' f", "sed -i 's/[/]/x/g' f", "ssh host ls -la",
         "parallel gzip ::: a b", "busybox ls", "script -q -c 'make test' /dev/null", "sed --sandbox '1e x' f"]


def _rules(root: Path, kind: str = "deny") -> None:
    write(root / ".claude" / "settings.json", {"permissions": {kind: ["Bash(rm:*)"]}})


@pytest.mark.parametrize("command", HIDDEN[:3] + OPAQUE[:3])
def test_a_deny_rule_sees_a_command_hidden_in_a_variable_or_a_one_liner(tmp_path: Path, command: str) -> None:
    _rules(tmp_path)
    assert claude(command, tmp_path) is None  # bypass mode: "allow" here would run `rm` past the rule


@pytest.mark.slow  # 2 x 37 hook runs; .ci/run runs -m slow
@pytest.mark.parametrize("command", HIDDEN + OPAQUE)
@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_every_hidden_command_is_left_to_the_host(tmp_path: Path, command: str, kind: str) -> None:
    _rules(tmp_path, kind)
    assert claude(command, tmp_path) is None


@pytest.mark.slow  # 13 hook runs
@pytest.mark.parametrize("command", PLAIN)
def test_a_line_the_rule_does_not_name_is_still_rewritten(tmp_path: Path, command: str) -> None:
    _rules(tmp_path)
    answer = claude(command, tmp_path)
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize("command", [OPAQUE[0], OPAQUE[5], HIDDEN[0], PLAIN[0]])
def test_without_a_deny_or_ask_rule_a_one_liner_is_rewritten(tmp_path: Path, command: str) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(ls:*)"]}})
    answer = claude(command, tmp_path)
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


# GNU sed itself says which scripts run a command: `--sandbox` refuses `e` and `s///e` (none of these
# scripts has `r` or `w`, which it refuses too).
SED_SCRIPTS = ["s/a/b/", "1e date", "e", "$!N;s/\\n/ /", "s/x/y/e", "s/x/y/ge", "s|e|f|g", "/e/d", "\\%e%d",
               "1i\\\ne x", "a text; e date", "y/e/f/", "s/[/]/e/", "2q;e date", "b end;e date\n:end",
               "1~3d;$!{N;e\n}", "s/a/b/;e", "#e x\np", "/x/I,+2s/e/E/Ig", "0~4{e\n}"]


@pytest.mark.skipif(subprocess.run(["sed", "--version"], capture_output=True).returncode != 0, reason="GNU sed")
@pytest.mark.parametrize("script", SED_SCRIPTS)
def test_a_sed_script_runs_a_command_exactly_when_gnu_sed_says_so(script: str, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a\n")
    proc = subprocess.run(["sed", "--sandbox", "-n", script, str(tmp_path / "f")], capture_output=True, text=True)
    refused = "disabled in sandbox mode" in proc.stderr
    assert refused or proc.returncode == 0, proc.stderr  # every script here is one sed accepts
    assert code.sed_runs(script) == refused


# Exec-wrappers beyond sudo/env/timeout (agentwrap.hooks.programs), each given options that take a value,
# and wrappers that run a shell line of their own (`runuser -lc`, `sg GROUP CMD`, `flock F -c`, `capsh --`).
WRAPPED = ["runuser -u nobody -g adm -G sys -w PATH -- rm -rf x", "runuser -lc 'ls; rm -rf x' nobody",
           "unshare -r --propagation private --setgroups deny rm -rf x", "nsenter -t 1 -m -S 0 rm -rf x",
           "setpriv --reuid 1000 --regid 1000 --init-groups rm -rf x", "prlimit --nofile=64 -o SOFT rm -rf x",
           "strace -f -o /tmp/t rm -rf x", "strace -fo /tmp/t -e trace=file rm -rf x",
           "ltrace -o /tmp/t -s 80 rm -rf x", "valgrind --tool=memcheck --log-file=/tmp/v rm -rf x",
           "fakeroot -s /tmp/state rm -rf x", "faketime -f '2020-01-01 10:00:00' rm -rf x",
           "firejail --noprofile --net=none rm -rf x", "proot -r /srv/root -b /dev -w / rm -rf x",
           "numactl -N 0 --membind 0 rm -rf x", "cgexec -g cpu,memory:/jobs --sticky rm -rf x",
           "xvfb-run -a -s '-screen 0 1024x768x24' rm -rf x",
           "dbus-run-session --config-file /etc/d.conf -- rm -rf x",
           "systemd-run --user -p MemoryMax=1G -u job rm -rf x", "setarch x86_64 -R rm -rf x",
           "linux32 rm -rf x", "catchsegv rm -rf x", "eatmydata rm -rf x",
           "torsocks -a 127.0.0.1 -P 9050 rm -rf x", "proxychains4 -q -f /etc/p.conf rm -rf x",
           "proxychains rm -rf x", "ccache rm -rf x", "sg adm 'ls; rm -rf x'", "sg - adm -c 'ls; rm -rf x'",
           "pkexec --user root rm -rf x", "gosu nobody rm -rf x", "su-exec nobody rm -rf x",
           "bwrap --ro-bind / / --dev /dev --unshare-net rm -rf x", "sandbox-exec -n no-network rm -rf x",
           "caffeinate -i rm -rf x", "flock -w 5 /tmp/l -c 'ls; rm -rf x'",
           "capsh --drop=cap_net_raw -- -c 'ls; rm -rf x'", "strace -f runuser -u nobody -- rm -rf x"]


@pytest.mark.parametrize("command", [WRAPPED[1], WRAPPED[6], WRAPPED[27], WRAPPED[35]])
def test_a_deny_rule_sees_the_command_behind_an_exec_wrapper(tmp_path: Path, command: str) -> None:
    _rules(tmp_path)
    assert claude(command, tmp_path) is None
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(curl:*)"]}})
    answer = claude(command, tmp_path)  # no rule names rm: the same line is rewritten as before
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.slow  # 2 x 38 hook runs; .ci/run runs -m slow
@pytest.mark.parametrize("command", WRAPPED)
@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_every_exec_wrapper_is_seen_through(tmp_path: Path, command: str, kind: str) -> None:
    _rules(tmp_path, kind)
    assert claude(command, tmp_path) is None


@pytest.mark.slow  # 38 hook runs
@pytest.mark.parametrize("command", WRAPPED)
def test_a_wrapped_command_no_rule_names_is_still_rewritten(tmp_path: Path, command: str) -> None:
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(curl:*)"]}})
    answer = claude(command, tmp_path)
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow"
