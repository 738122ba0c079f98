"""ssh and scp through agentwrap against a scratch sshd on 127.0.0.1 (a free port, keys made for the test).

The real ~/.ssh is never read or written: every run uses `-F CONFIG` with its own known_hosts file.
Needs the OpenSSH server binary (`apt-get install -y openssh-server`) and root (sshd's privilege separation).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import aw

SSHD = "/usr/sbin/sshd"
pytestmark = pytest.mark.skipif(not (os.path.exists(SSHD) and shutil.which("ssh") and os.geteuid() == 0),
                                reason="needs ssh, /usr/sbin/sshd (openssh-server) and root")


class Server(NamedTuple):
    port: int
    dir: Path

    def config(self, known_hosts: str) -> str:
        path = self.dir / f"config-{known_hosts}"
        path.write_text(f"Host *\n  UserKnownHostsFile {self.dir / known_hosts}\n  GlobalKnownHostsFile /dev/null\n"
                        "  IdentitiesOnly yes\n  UpdateHostKeys no\n")
        return str(path)

    def ssh(self, known_hosts: str, *args: str) -> list[str]:
        return ["ssh", "-F", self.config(known_hosts), "-p", str(self.port), *args]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _keygen(path: Path, passphrase: str = "") -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-f", str(path), "-N", passphrase, "-C", path.name],
                   check=True)


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("sshd")
    for name, phrase in (("hostkey", ""), ("client", ""), ("client_enc", "not-typed-by-anyone"), ("other", "")):
        _keygen(d / name, phrase)
    (d / "authorized_keys").write_text((d / "client.pub").read_text() + (d / "client_enc.pub").read_text())
    (d / "authorized_keys").chmod(0o600)
    port = _free_port()
    (d / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'hostkey'}\nPidFile {d / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nStrictModes no\nPermitRootLogin prohibit-password\n"
        "PasswordAuthentication yes\nKbdInteractiveAuthentication no\nUsePAM no\n"
        "Subsystem sftp /usr/lib/openssh/sftp-server\nLogLevel ERROR\n")
    os.makedirs("/run/sshd", exist_ok=True)
    proc = subprocess.Popen([SSHD, "-D", "-f", str(d / "sshd_config"), "-E", str(d / "sshd.log")])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.05)
    (d / "known_hosts").write_text(f"[127.0.0.1]:{port} {(d / 'hostkey.pub').read_text()}")
    (d / "changed_hosts").write_text(f"[127.0.0.1]:{port} {(d / 'other.pub').read_text()}")
    (d / "empty_hosts").write_text("")
    try:
        yield Server(port, d)
    finally:
        proc.terminate()
        proc.wait(10)


def test_unknown_host_key_stops_at_the_confirmation_and_names_accept_new(sshd):
    """accept-new is offered, but never as the preferred step: it trusts a key nobody checked."""
    argv = sshd.ssh("empty_hosts", "-i", str(sshd.dir / "client"), "root@127.0.0.1", "true")
    r = aw("--timeout", "20", *argv)
    assert r.code == 125
    err = r.error
    assert err["code"] == "INPUT_REQUIRED" and err["input_kind"] == "confirmation"
    assert "continue connecting" in err["prompt"]
    assert err["code_actions"][0]["command"][0] == "ssh-keyscan" and err["code_actions"][0]["is_preferred"]
    first = next(a for a in err["code_actions"] if "StrictHostKeyChecking=accept-new" in a["command"])
    assert first["command"][:3] == ["ssh", "-o", "StrictHostKeyChecking=accept-new"]
    assert first["applicability"] == "maybe_incorrect" and not first.get("is_preferred")
    assert (sshd.dir / "empty_hosts").read_text() == ""  # nothing was accepted for us

    applied = aw("--timeout", "20", *first["command"])  # the fix an agent can apply works
    assert applied.code == 0, applied.env["error"]
    assert "[127.0.0.1]" in (sshd.dir / "empty_hosts").read_text()


def test_password_prompt_names_batch_mode_which_then_fails_fast_as_authentication(sshd):
    argv = sshd.ssh("known_hosts", "-o", "PubkeyAuthentication=no", "root@127.0.0.1", "true")
    r = aw("--timeout", "20", *argv)
    assert r.error["code"] == "INPUT_REQUIRED" and r.error["input_kind"] == "password"
    batch = r.error["code_actions"][0]
    assert batch["command"][:3] == ["ssh", "-o", "BatchMode=yes"]
    denied = aw("--timeout", "20", *batch["command"])
    assert denied.code == 255
    assert denied.error["code"] == "SSH_PERMISSION_DENIED"
    assert denied.error["category"] == "authentication" and denied.error["retryable"] is False


def test_key_passphrase_prompt_is_a_password_request(sshd):
    argv = sshd.ssh("known_hosts", "-o", "PreferredAuthentications=publickey", "-i", str(sshd.dir / "client_enc"),
                    "root@127.0.0.1", "true")
    r = aw("--timeout", "20", *argv)
    assert r.error["code"] == "INPUT_REQUIRED" and r.error["input_kind"] == "password"
    assert "passphrase" in r.error["prompt"]
    assert r.error["code_actions"][0]["command"][0] == "ssh-add"


def test_changed_host_key_is_a_conflict_and_never_machine_applicable(sshd):
    r = aw("--timeout", "20", *sshd.ssh("changed_hosts", "-i", str(sshd.dir / "client"), "root@127.0.0.1", "true"))
    assert r.code == 255
    err = r.error
    assert err["code"] == "SSH_HOST_KEY_CHANGED" and err["category"] == "conflict"
    assert "SHA256:" in err["detail"]
    assert all(a["applicability"] != "machine_applicable" for a in err["code_actions"])
    assert err["code_actions"][0]["command"][:2] == ["ssh-keygen", "-f"]


def test_success_and_remote_exit_status(sshd):
    ok = aw("--timeout", "20", *sshd.ssh("known_hosts", "-i", str(sshd.dir / "client"), "root@127.0.0.1",
                                         "echo", "hello"))
    assert ok.code == 0 and ok.text().strip() == "hello"
    failed = aw("--timeout", "20", *sshd.ssh("known_hosts", "-i", str(sshd.dir / "client"), "root@127.0.0.1",
                                             "exit 3"))
    assert failed.code == 3  # the remote command's status, passed through
    assert failed.error["code"] == "SSH_REMOTE_COMMAND_FAILED" and failed.error["safe_to_retry"] is False


def test_a_remote_commands_failure_is_the_remote_commands_not_a_local_missing_file(sshd):
    r = aw("--timeout", "20", *sshd.ssh("known_hosts", "-o", "BatchMode=yes", "-i", str(sshd.dir / "client"),
                                        "root@127.0.0.1", "ls /nonexist; exit 7"))
    assert r.code == 7
    err = r.error
    assert err["code"] == "SSH_REMOTE_COMMAND_FAILED" and err["safe_to_retry"] is False  # not FILE_NOT_FOUND
    assert "status 7" in err["detail"] and "root@127.0.0.1" in err["detail"]
    assert "/nonexist" in err["detail"] and "remote host" in err["suggested_fix"] and err["remote_exit_code"] == 7
    assert "Check the path" not in str(r.env)  # no local-path fix for a path on the remote host
    assert "/nonexist" in r.env["output"]["stderr"]["text"]  # the remote's lines kept as text
    assert not any(p["code"] == "FILE_NOT_FOUND" for p in r.env.get("problems") or [])


@pytest.mark.parametrize(("argv", "command"), [
    (["ssh", "host", "ls", "/x"], ["ls", "/x"]), (["ssh", "-p", "22", "-oBatchMode=yes", "u@h", "exit 7"], ["exit 7"]),
    (["ssh", "-vi", "key", "h"], []), (["ssh", "--", "h", "true"], ["true"]), (["scp", "a", "h:b"], []),
])
def test_the_remote_command_is_read_off_the_command_line(argv, command):
    from agentwrap.adapters.ssh import remote_command

    assert remote_command(argv) == command


def test_scp_missing_remote_file_is_not_found(sshd, tmp_path):
    argv = ["scp", "-F", sshd.config("known_hosts"), "-i", str(sshd.dir / "client"), "-P", str(sshd.port),
            "root@127.0.0.1:/nonexistent/file.txt", str(tmp_path)]
    r = aw("--timeout", "20", *argv)
    assert r.code == 1
    assert r.error["code"] == "SCP_NO_SUCH_FILE" and r.error["category"] == "not_found"


def test_refused_connection_is_retryable_network():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = aw("--timeout", "20", "ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-p", str(port), "root@127.0.0.1",
           "true")
    assert r.code == 255
    assert r.error["code"] == "SSH_CONNECTION_REFUSED"
    assert r.error["category"] == "network" and r.error["retryable"] is True


def test_the_host_key_prompt_offers_ssh_keyscan_for_the_host_and_port_the_command_named(sshd):
    """No `<PORT>`/`<HOST>` to fill in: the action names the destination of the ssh command, and running
    it prints the server's own key (the one an agent then checks and adds to known_hosts)."""
    argv = sshd.ssh("scan_hosts", "-i", str(sshd.dir / "client"), "root@127.0.0.1", "true")  # none yet
    r = aw("--timeout", "20", *argv)
    assert r.error["input_kind"] == "confirmation"
    scan = next(a for a in r.error["code_actions"] if a["command"][0] == "ssh-keyscan")
    assert scan["command"] == ["ssh-keyscan", "-p", str(sshd.port), "127.0.0.1"]
    assert scan["applicability"] == "maybe_incorrect" and "127.0.0.1" in scan["title"]
    printed = subprocess.run(scan["command"], capture_output=True, text=True, timeout=20).stdout
    assert (sshd.dir / "hostkey.pub").read_text().split()[1] in printed


def test_the_password_prompt_offers_ssh_copy_id_to_the_user_and_host_the_command_named(sshd):
    argv = sshd.ssh("known_hosts", "-o", "PubkeyAuthentication=no", "-l", "root", "ssh://127.0.0.1", "true")
    r = aw("--timeout", "20", *argv)
    assert r.error["input_kind"] == "password"
    copy = next(a for a in r.error["code_actions"] if a["command"][0] == "ssh-copy-id")
    assert copy["command"] == ["ssh-copy-id", "-p", str(sshd.port), "root@127.0.0.1"]
    assert "<" not in " ".join(copy["command"]) and copy["applicability"] == "maybe_incorrect"


@pytest.mark.parametrize(("argv", "values"), [
    (["ssh", "-p", "2222", "u@h", "ls", "-p"], {"host": "h", "port": "2222", "destination": "u@h"}),
    (["ssh", "h"], {"host": "h", "port": "22", "destination": "h"}),
    (["ssh", "-vp2222", "-l", "bob", "h"], {"host": "h", "port": "2222", "destination": "bob@h"}),
    (["ssh", "ssh://a@[::1]:2200"], {"host": "::1", "port": "2200", "destination": "a@::1"}),
    (["ssh", "-o", "Port=99", "-oUser=z", "-i", "key@x", "host", "cmd"],
     {"host": "host", "port": "99", "destination": "z@host"}),
    (["scp", "-P", "2022", "-l", "100", "x.txt", "me@srv:/tmp/"], {"host": "srv", "port": "2022",
                                                                   "destination": "me@srv"}),
    (["scp", "scp://u@h:23/p", "."], {"host": "h", "port": "23", "destination": "u@h"}),
    (["scp", "./a:b", "/c:d"], {}),  # local paths with a colon, as scp reads them
    (["ssh", "-V"], {}),
])
def test_the_destination_is_read_off_the_command_line(argv, values):
    from agentwrap.adapters.ssh import destination

    assert destination(argv) == values


def test_strict_checking_of_an_unknown_key_prefers_showing_its_fingerprint_and_trusts_nothing(sshd):
    """Strict checking prints no fingerprint: the preferred action shows the server's, for a person to
    compare with the owner's, and adds nothing to known_hosts; the closing `Host key verification failed.`
    is no second problem (nor text) restating the first."""
    (sshd.dir / "strict_hosts").write_text("")
    argv = sshd.ssh("strict_hosts", "-o", "StrictHostKeyChecking=yes", "-i", str(sshd.dir / "client"),
                    "root@127.0.0.1", "true")
    r = aw("--timeout", "20", *argv, detail="concise")
    assert r.code == 255 and r.error["code"] == "SSH_HOST_KEY_UNKNOWN"
    preferred = [a for a in r.error["code_actions"] if a.get("is_preferred")]
    assert len(preferred) == 1 and "StrictHostKeyChecking=accept-new" not in preferred[0]["command"]
    assert preferred[0]["command"][-2:] == [str(sshd.port), "127.0.0.1"]  # the values are arguments, not script
    shown = subprocess.run(preferred[0]["command"], capture_output=True, text=True, timeout=20).stdout
    fingerprint = subprocess.run(["ssh-keygen", "-lf", str(sshd.dir / "hostkey.pub")], capture_output=True,
                                 text=True, check=True).stdout.split()[1]
    assert fingerprint in shown
    assert "ssh-keyscan -p PORT HOST >>" in r.error["suggested_fix"]
    assert (sshd.dir / "strict_hosts").read_text() == ""
    assert "problems" not in r.env and "Host key verification failed" not in r.stdout.decode()


def test_a_remote_failures_quoted_line_is_said_once_and_its_other_lines_stay(sshd):
    """The detail quotes the remote command's last error line: the concise text does not say it again;
    what else the remote command printed stays."""
    argv = sshd.ssh("known_hosts", "-o", "BatchMode=yes", "-i", str(sshd.dir / "client"), "root@127.0.0.1",
                    "echo first-step-done; ls /nonexist; exit 7")
    r = aw("--timeout", "20", *argv, detail="concise")
    assert r.code == 7 and "/nonexist" in r.error["detail"]
    assert "/nonexist" not in str(r.env.get("output", {}))
    assert "first-step-done" in r.env["output"]["stdout"]["text"]
