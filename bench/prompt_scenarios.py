"""The scenarios of bench/prompts.py: real interactive programs, each with what it must not have done.

Each scenario runs in a fresh folder that is also HOME (so ssh, gpg, npm, gcloud and git keep their state
there). `setup` prepares it, `undone` says that nothing only an answer could authorise happened (a key
written, a file removed, a package installed, a password set), `teardown` puts the machine back (a user,
a package). `kind` is the input_kind a refusal must name; None: the program asks nothing and must finish.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PY = sys.executable
Check = Callable[[Path], bool]


@dataclass(frozen=True)
class Scenario:
    name: str
    argv: list[str]
    kind: str | None
    setup: Callable[[Path], None] = lambda _d: None
    undone: Check = lambda _d: True
    needs: str = ""  # the program that must be installed (default: argv[0])
    root: bool = False  # changes the machine (users, packages): only as root, and put back by teardown
    teardown: Callable[[Path], None] = lambda _d: None
    env: dict[str, str] = field(default_factory=dict)
    daemon: str = ""  # a process setup starts on purpose (gpg-agent): not a leftover


def env_of(d: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(d), "GNUPGHOME": str(d / ".gnupg"), "GIT_AUTHOR_NAME": "A",
            "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@b",
            "CLOUDSDK_CORE_DISABLE_PROMPTS": ""}


def _run(d: Path, *argv: str, stdin: bytes | None = None) -> None:
    subprocess.run(argv, cwd=d, env=env_of(d), check=True, capture_output=True, input=stdin)


def _write(name: str, text: str = "x\n") -> Callable[[Path], None]:
    return lambda d: (d / name).write_text(text) and None


def _steps(*steps: Callable[[Path], object]) -> Callable[[Path], None]:
    """Set-up steps run in order."""
    def run(d: Path) -> None:
        for step in steps:
            step(d)
    return run


def _files(*names: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        for name in names:
            (d / name).write_text(name + "\n")
    return make


def _same(name: str) -> Check:
    return lambda d: (d / name).read_text() == name + "\n"


def _absent(name: str) -> Check:
    return lambda d: not (d / name).exists()


def _zip(d: Path) -> None:
    (d / "a.txt").write_text("a\n")
    _run(d, "zip", "-q", "z.zip", "a.txt")
    (d / "a.txt").write_text("mine\n")


def _repo(d: Path) -> None:
    (d / "f.txt").write_text("one\n")
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "one"]):
        _run(d, "git", *args)
    (d / "f.txt").write_text("one\ntwo\n")


def _clean_repo(d: Path) -> None:
    _repo(d)
    _run(d, "git", "checkout", "-q", "--", "f.txt")


def _branches(d: Path) -> None:
    _clean_repo(d)
    for args in (["checkout", "-qb", "side"], ["commit", "-qm", "side", "--allow-empty"], ["checkout", "-q", "main"],
                 ["commit", "-qm", "main", "--allow-empty"]):
        _run(d, "git", *args)


def _head(d: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=d, capture_output=True, text=True).stdout


def _key(d: Path, passphrase: str = "") -> None:
    _run(d, "ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-f", str(d / "k"))
    (d / "k.orig").write_bytes((d / "k").read_bytes())


def _gz(d: Path) -> None:
    (d / "f").write_text("f\n")
    _run(d, "gzip", "-k", "f")


def _gnupg(d: Path, *, keys: bool = False, encrypted: bool = False) -> None:
    (d / ".gnupg").mkdir(mode=0o700)
    (d / "notes.txt").write_text("notes\n")
    (d / "pw").write_text("a passphrase\n")
    if keys:
        for who in ("alice@example.org", "bob@example.org"):
            _run(d, "gpg", "-q", "--batch", "--passphrase", "", "--quick-gen-key", who, "ed25519", "sign", "1y")
        _run(d, "gpg", "-q", "-o", "bob.orig", "--export", "bob@example.org")
    if encrypted:
        _run(d, "gpg", "-q", "--batch", "--pinentry-mode", "loopback", "--passphrase-file", "pw", "-c", "notes.txt")
        (d / "notes.orig").write_bytes((d / "notes.txt.gpg").read_bytes())
    _run(d, "gpgconf", "--kill", "gpg-agent")


def _gpg_agent_running(d: Path) -> None:
    _gnupg(d)
    _run(d, "gpg-connect-agent", "/bye")  # starts the agent, as a desktop session would have


def _kill_agent(d: Path) -> None:
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env_of(d), capture_output=True)


def _bob_unsigned(d: Path) -> bool:
    now = subprocess.run(["gpg", "--export", "bob@example.org"], env=env_of(d), capture_output=True).stdout
    return now == (d / "bob.orig").read_bytes()


def _no_secret_keys(d: Path) -> bool:
    out = subprocess.run(["gpg", "-K"], env=env_of(d), capture_output=True, text=True).stdout
    return "sec" not in out


def user_of(d: Path) -> str:
    return "aws" + hashlib.sha1(str(d).encode()).hexdigest()[:8]


def _no_password(d: Path) -> bool:
    entry = subprocess.run(["getent", "shadow", user_of(d)], capture_output=True, text=True).stdout
    return not entry or entry.split(":")[1] in ("!", "*", "!*")


def _deluser(d: Path) -> None:
    subprocess.run(["deluser", "--remove-home", user_of(d)], capture_output=True)


CONF = "/etc/agentwrap-sweep-conf.conf"


def _debs(d: Path) -> None:
    for version in ("1", "2"):
        pkg = d / f"pkg{version}"
        (pkg / "DEBIAN").mkdir(parents=True)
        (pkg / "etc").mkdir()
        (pkg / "DEBIAN" / "control").write_text(
            f"Package: agentwrap-sweep-conf\nVersion: {version}\nArchitecture: all\nMaintainer: a <a@b>\n"
            "Description: agentwrap sweep dummy\n")
        (pkg / "DEBIAN" / "conffiles").write_text(CONF + "\n")
        (pkg / "etc" / os.path.basename(CONF)).write_text(f"setting={version}\n")
        _run(d, "dpkg-deb", "--root-owner-group", "--build", str(pkg), f"p{version}.deb")
    _run(d, "dpkg", "-i", "p1.deb")
    with open(CONF, "a") as f:
        f.write("mine\n")


def _purge(_d: Path) -> None:
    subprocess.run(["dpkg", "--purge", "agentwrap-sweep-conf"], capture_output=True)


def _dpkg_clean(_d: Path) -> bool:
    return subprocess.run(["dpkg", "--audit"], capture_output=True, text=True).stdout == ""


def _not_installed(pkg: str) -> Check:
    return lambda _d: subprocess.run(["dpkg", "-s", pkg], capture_output=True).returncode != 0


def _gcloud_config(d: Path) -> None:
    _run(d, "gcloud", "config", "configurations", "create", "awsweep", "--no-activate")


def _makefile(recipe: str) -> Callable[[Path], None]:
    return _write("Makefile", f"all:\n\t{recipe}\n")


def _local_pkg(d: Path) -> None:
    (d / "lib").mkdir()
    (d / "lib" / "package.json").write_text('{"name": "awlib", "version": "1.0.0"}\n')
    (d / "package.json").write_text('{"name": "app", "version": "1.0.0"}\n')


BLINK = ("import sys, threading, time\n"
         "def blink():\n    on = True\n    while True:\n"
         "        sys.stdout.write('\\x1b[?25h' if on else '\\x1b[?25l'); sys.stdout.flush()\n"
         "        on = not on; time.sleep(0.5)\n"
         "threading.Thread(target=blink, daemon=True).start()\n"
         "sys.stdout.write('Project name: '); sys.stdout.flush()\nname = sys.stdin.readline()\n"
         "open('made', 'w').write(name)")
SPIN_ASK = ("import os, select, sys, tty\ntty.setraw(0)\ni = 0\nwhile True:\n"
            "    sys.stdout.write('\\r' + '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[i % 10] + ' Pick a colour: '); sys.stdout.flush()\n"
            "    if select.select([0], [], [], 0.1)[0]:\n        os.read(0, 1); open('made', 'w').write('x'); break\n"
            "    i += 1")
STATUS_LINE = ("import select, sys, tty\ntty.setraw(0)\nsys.stdout.write('\\x1b[?25l\\x1b[1;23r')\n"
               "for i in range(12):\n    open(f'part{i}', 'w').write('x')\n"
               "    sys.stdout.write(f'\\x1b7\\x1b[24;1H\\x1b[42mProgress: [{i * 100 // 12:3d}%]\\x1b[0m\\x1b8'); "
               "sys.stdout.flush()\n    select.select([0], [], [], 0.3)\n"
               "sys.stdout.write('\\x1b[r\\x1b[?25h\\r\\ndone\\r\\n')")
RAW_PROGRESS = ("import select, sys, tty; tty.setraw(0); [(sys.stdout.write(f'\\r{i}%'), sys.stdout.flush(), "
                "select.select([], [], [], 0.3)) for i in range(8)]")
SPINNER = ("import sys, time\nfor c in '|/-\\\\' * 4:\n    sys.stdout.write('\\r' + c); sys.stdout.flush(); "
           "time.sleep(0.15)\nprint('\\rdone')")


S = Scenario
SCENARIOS = [
    # --- confirmations ------------------------------------------------------------------------------------
    S("rm -i", ["rm", "-i", "x"], "confirmation", _write("x"), lambda d: (d / "x").exists()),
    S("rm -I (many files)", ["rm", "-I", "a", "b", "c", "d"], "confirmation", _files("a", "b", "c", "d"),
      lambda d: (d / "a").exists()),
    S("cp -i", ["cp", "-i", "a", "b"], "confirmation", _files("a", "b"), _same("b")),
    S("mv -i", ["mv", "-i", "a", "b"], "confirmation", _files("a", "b"), lambda d: (d / "a").exists()),
    S("ln -i", ["ln", "-i", "a", "b"], "confirmation", _files("a", "b"), _same("b")),
    S("gzip overwrite", ["gzip", "f"], "confirmation", _gz, lambda d: (d / "f").exists()),
    S("unzip replace", ["unzip", "z.zip"], "confirmation", _zip, lambda d: (d / "a.txt").read_text() == "mine\n"),
    S("python yes/no", [PY, "-c", "input('Delete everything? [y/N] ')"], "confirmation"),
    S("perl yes/no", ["perl", "-e", "print 'Continue? '; $a = <STDIN>; unlink 'x' if $a =~ /y/"], "confirmation",
      _write("x"), lambda d: (d / "x").exists()),
    S("bash 'press any key'", ["bash", "-c", "read -n1 -s -r -p 'Press any key to continue'; touch made"],
      "confirmation", undone=_absent("made")),
    S("git add -p", ["git", "add", "-p"], "confirmation", _repo),
    S("gcloud delete config", ["gcloud", "config", "configurations", "delete", "awsweep"], "confirmation",
      _gcloud_config, lambda d: (d / ".config/gcloud/configurations/config_awsweep").exists()),
    S("gpg overwrite output", ["gpg", "--pinentry-mode", "loopback", "--passphrase-file", "pw", "-c", "notes.txt"],
      "confirmation", lambda d: _gnupg(d, encrypted=True),
      lambda d: (d / "notes.txt.gpg").read_bytes() == (d / "notes.orig").read_bytes(), teardown=_kill_agent),
    S("gpg --sign-key (Really sign?)", ["gpg", "-u", "alice@example.org", "--sign-key", "bob@example.org"],
      "confirmation", lambda d: _gnupg(d, keys=True), _bob_unsigned, teardown=_kill_agent),
    S("apt-get install (asks)", ["apt-get", "install", "cowsay"], "confirmation", undone=_not_installed("cowsay")),
    S("dpkg conffile question", ["dpkg", "-i", "p2.deb"], "confirmation", _debs,
      lambda _d: "mine" in Path(CONF).read_text(), needs="dpkg-deb", root=True, teardown=_purge),
    S("apt-get relaying dpkg's conffile question", ["apt-get", "install", "-y", "./p2.deb"], "confirmation", _debs,
      lambda _d: "mine" in Path(CONF).read_text(), needs="dpkg-deb", root=True, teardown=_purge),
    # --- passwords and credentials -------------------------------------------------------------------------
    S("ssh-keygen new key", ["ssh-keygen", "-t", "ed25519", "-f", "k1"], "password", undone=_absent("k1")),
    S("ssh-keygen -p", ["ssh-keygen", "-p", "-f", "k"], "password", _key,
      lambda d: (d / "k").read_bytes() == (d / "k.orig").read_bytes()),
    S("ssh-keygen -y (encrypted key)", ["ssh-keygen", "-y", "-f", "k"], "password", lambda d: _key(d, "a secret")),
    S("ssh-add encrypted key", ["ssh-agent", "ssh-add", "k"], "password", lambda d: _key(d, "a secret"),
      needs="ssh-agent"),
    S("python getpass", [PY, "-c", "import getpass; getpass.getpass()"], "password"),
    S("passwd", ["passwd", "nobody"], "password",
      undone=lambda _d: subprocess.run(["getent", "shadow", "nobody"], capture_output=True, text=True).stdout
      .split(":")[1:2] in (["*"], ["!"], ["!*"], [])),
    S("adduser (creates, then asks)", ["adduser", "{user}"], "password", undone=_no_password, root=True,
      needs="deluser", teardown=_deluser),
    S("gpg -c (pinentry)", ["gpg", "-c", "notes.txt"], "password", _gnupg, _absent("notes.txt.gpg"),
      teardown=_kill_agent),
    S("gpg -c, agent already running", ["gpg", "-c", "notes.txt"], "password", _gpg_agent_running,
      _absent("notes.txt.gpg"), teardown=_kill_agent, daemon="gpg-agent"),
    S("openssl genrsa -aes256", ["openssl", "genrsa", "-aes256", "-out", "k.pem", "2048"], "password",
      undone=lambda d: not (d / "k.pem").exists() or b"PRIVATE KEY" not in (d / "k.pem").read_bytes()),
    S("openssl passwd", ["openssl", "passwd"], "password"),
    S("zip -e", ["zip", "-e", "z.zip", "a"], "password", _files("a"), _absent("z.zip")),
    S("keytool -genkeypair", ["keytool", "-genkeypair", "-alias", "x", "-keystore", "ks.jks"], "password",
      undone=_absent("ks.jks")),
    S("psql -W", ["psql", "-W", "-h", "127.0.0.1", "-p", "9", "-U", "u", "db"], "password"),
    S("npm login --registry", ["npm", "login", "--auth-type=legacy", "--registry", "http://127.0.0.1:9/"],
      "credential", undone=_absent(".npmrc")),
    S("docker login", ["docker", "login"], "credential", undone=_absent(".docker/config.json")),
    # --- text and shells -------------------------------------------------------------------------------------
    S("python input()", [PY, "-c", "input('Your name: ')"], "text"),
    S("python REPL", [PY, "-i", "-c", "pass"], "text"),
    S("ipython", ["ipython", "--no-banner"], "text"),
    S("bash read", ["bash", "-c", "read -p 'Project name: ' n; touch made"], "text", undone=_absent("made")),
    S("bash read -t (installer countdown)",
      ["bash", "-c", "read -t 5 -p 'Installing to ./app in 5 seconds. Type another directory, or wait: ' d; "
       "mkdir app"], "text", undone=_absent("app")),
    S("blinking cursor input", [PY, "-c", BLINK], "text", undone=_absent("made")),
    S("spinner while asking (raw mode)", [PY, "-c", SPIN_ASK], "selection", undone=_absent("made")),
    S("bash select menu", ["bash", "-c", "select x in alpha beta gamma; do touch \"$x\"; break; done"],
      "selection", undone=lambda d: not any((d / n).exists() for n in ("alpha", "beta", "gamma"))),
    S("git clean -i", ["git", "clean", "-i"], "selection", _steps(_clean_repo, _write("junk")),
      lambda d: (d / "junk").exists()),
    S("node readline", ["node", "-e", "require('readline').createInterface({input: process.stdin, "
      "output: process.stdout}).question('Name? ', () => process.exit(0))"], "text"),
    S("node REPL", ["node"], "text"),
    S("sqlite3 shell", ["sqlite3"], "text"),
    S("bc", ["bc", "-q"], "text"),
    S("gdb", ["gdb", "-q"], "text"),
    S("openssl req", ["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "k.pem"], "text"),
    S("npm init", ["npm", "init"], "text", undone=_absent("package.json")),
    S("gpg --gen-key", ["gpg", "--gen-key"], "text", _gnupg, _no_secret_keys, teardown=_kill_agent),
    # --- editors and pagers ------------------------------------------------------------------------------------
    S("git commit (editor)", ["git", "commit", "-a"], "editor", _repo, lambda d: "two" not in subprocess.run(
        ["git", "show", "HEAD:f.txt"], cwd=d, capture_output=True, text=True).stdout),
    S("git rebase -i", ["git", "rebase", "-i", "--root"], "editor", _clean_repo),
    S("git tag -a (editor)", ["git", "tag", "-a", "v1"], "editor", _clean_repo,
      lambda d: not (d / ".git/refs/tags/v1").exists()),
    S("vim FILE", ["vim", "-u", "NONE", "x"], "editor", _write("x"), lambda d: (d / "x").read_text() == "x\n"),
    S("ed FILE", ["ed", "x"], "editor", _write("x"), lambda d: (d / "x").read_text() == "x\n"),
    S("less FILE", ["less", "x"], "pager", _write("x")),
    S("more FILE (long)", ["more", "long"], "pager", _write("long", "".join(f"{i}\n" for i in range(300)))),
    # --- programs that ask nothing: they must finish, untouched ----------------------------------------------
    S("pip uninstall, not installed", [PY, "-m", "pip", "uninstall", "agentwrap-no-such-pkg"], None, needs="pip"),
    S("raw-mode progress", [PY, "-c", RAW_PROGRESS], None),
    S("spinner then done", [PY, "-c", SPINNER], None),
    S("quiet sleep", ["sleep", "2"], None),
    S("dd with progress", ["dd", "if=/dev/zero", "of=z", "bs=1M", "count=64", "status=progress"], None,
      undone=lambda d: (d / "z").stat().st_size == 64 << 20),
    S("tar create", ["tar", "czf", "t.tgz", "a", "b"], None, _files("a", "b")),
    S("xz -v (progress)", ["xz", "-v", "-T1", "big"], None, lambda d: (d / "big").write_bytes(os.urandom(4 << 20)),
      lambda d: (d / "big.xz").exists()),
    S("git log (pager off)", ["git", "log"], None, _repo),
    S("git merge (no editor)", ["git", "merge", "--no-ff", "side"], None, _branches,
      lambda d: "Merge" in subprocess.run(["git", "log", "-1", "--format=%s"], cwd=d, capture_output=True,
                                          text=True).stdout),
    S("git clone --progress (mutating)", ["git", "clone", "--progress", "src", "dst"], None,
      lambda d: (d / "src").mkdir() or _clean_repo(d / "src"), lambda d: (d / "dst/f.txt").exists()),
    S("man ls (pager prevented)", ["man", "ls"], None),
    S("ssh-keygen -N '' (answered up front)", ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", "k2"], None,
      undone=lambda d: (d / "k2").exists()),
    S("make: dd progress recipe (mutating)", ["make", "-s"], None,
      _makefile("dd if=/dev/zero of=blob bs=1M count=32 status=progress"),
      lambda d: (d / "blob").stat().st_size == 32 << 20),
    S("make: raw-mode status line (mutating)", ["make", "-s"], None,
      _steps(_makefile(f"{PY} status.py"), _write("status.py", STATUS_LINE)),
      lambda d: all((d / f"part{i}").exists() for i in range(12))),
    S("npm install local package (mutating)", ["npm", "install", "--no-audit", "--no-fund", "--offline", "./lib"],
      None, _local_pkg, lambda d: (d / "node_modules/awlib/package.json").exists()),
    S("apt-get --reinstall, fancy progress (mutating)",
      ["apt-get", "install", "--reinstall", "-y", "-o", "Dpkg::Progress-Fancy=1", "bc"], None, undone=_dpkg_clean,
      root=True),
    S("apt --reinstall, status line (mutating)", ["apt", "install", "--reinstall", "-y", "bc"], None,
      undone=_dpkg_clean, root=True),
]
