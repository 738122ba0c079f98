#!/usr/bin/env python3
"""Records the raw terminal bytes of real programs for tests/test_emulator.py's corpus.

    python3 tests/data/screens/capture.py [NAME ...]

Each program runs on a fresh pseudo-terminal of 100x30 (TERM=xterm-256color, ONLCR off as agentwrap's
runner sets it) and its bytes are stored as NAME.raw next to this script. Keys for interactive programs
(less, vim, top) are typed after a pause. The programs are the machine's own; `apt` reinstalls a dozen
cached packages with dpkg's fancy progress (root only).
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROWS, COLS = 30, 100
WORK = Path(tempfile.mkdtemp(prefix="aw-screens-"))

TQDM = "import time, tqdm\nfor _ in tqdm.tqdm(range(40), ncols=80):\n    time.sleep(0.01)\nprint('done')\n"
RICH = ("import time\nfrom rich.progress import track\nfrom rich.console import Console\n"
        "for _ in track(range(30), description='Working'):\n    time.sleep(0.01)\n"
        "Console().print('[bold green]ok[/] table:', {'a': 1})\n")
PYTEST = "def test_ok():\n    assert 1\n\ndef test_bad():\n    assert [1, 2] == [1, 3]\n"
APT = ["bc", "file", "hostname", "less", "libwrap0", "libjsoncpp25", "librhash0", "libuv1", "runit-helper",
       "ninja-build", "ncurses-term", "libarchive13"]


def _setup() -> None:
    (WORK / "t").mkdir()
    (WORK / "t" / "test_x.py").write_text(PYTEST)
    (WORK / "tq.py").write_text(TQDM)
    (WORK / "rich_demo.py").write_text(RICH)
    (WORK / "big").write_bytes(os.urandom(30 << 20))
    (WORK / "text.txt").write_text("".join(f"line {i} of a file for less and vim\n" for i in range(200)))
    repo = WORK / "repo"
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "A",
           "GIT_COMMITTER_EMAIL": "a@x"}
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for i in range(30):
        (repo / f"f{i}.txt").write_text(os.urandom(20000).hex())
        subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
        subprocess.run(["git", "-C", str(repo), "commit", "-qm", f"c{i}"], check=True, env=env)
    subprocess.run(["cargo", "new", "-q", "--vcs", "none", str(WORK / "demo")], check=False)


PROGRAMS: dict[str, tuple[list[str], bytes]] = {
    "git_clone": (["git", "clone", "--progress", "--no-local", f"file://{WORK}/repo", f"{WORK}/copy"], b""),
    "curl": (["curl", "-o", "/dev/null", f"file://{WORK}/big"], b""),
    "pytest": ([sys.executable, "-m", "pytest", "--color=yes", "-p", "no:cacheprovider", f"{WORK}/t"], b""),
    "tqdm": ([sys.executable, f"{WORK}/tq.py"], b""),
    "rich": ([sys.executable, f"{WORK}/rich_demo.py"], b""),
    "pip_list": ([sys.executable, "-m", "pip", "list", "--format=columns"], b""),
    "npm_init": (["npm", "init", "-y"], b""),
    "cargo_build": (["cargo", "build", "--manifest-path", f"{WORK}/demo/Cargo.toml"], b""),
    "less": (["less", f"{WORK}/text.txt"], b" q"),
    "vim": (["vim", "-u", "NONE", f"{WORK}/text.txt"], b":q!\r"),
    "top": (["top", "-n", "1"], b""),
    "apt": (["apt-get", "install", "--reinstall", "-y", "--no-download", "-o", "Dpkg::Progress-Fancy=1",
             "-o", "APT::Color=1", *APT], b""),
}


def run(argv: list[str], keys: bytes) -> bytes:
    master, slave = os.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "LC_ALL": "C.UTF-8", "COLUMNS": str(COLS),
           "LINES": str(ROWS), "DEBIAN_FRONTEND": "noninteractive"}
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=WORK, env=env,
                            start_new_session=True)
    os.close(slave)
    out: list[bytes] = []
    start, typed = time.monotonic(), False
    while time.monotonic() - start < 120:
        if keys and not typed and time.monotonic() - start > 1.5:
            for key in keys:
                os.write(master, bytes([key]))
                time.sleep(0.2)
            typed = True
        if not select.select([master], [], [], 0.3)[0]:
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out.append(chunk)
    os.close(master)
    proc.wait(timeout=30)
    return b"".join(out)


def main() -> None:
    _setup()
    for name in sys.argv[1:] or list(PROGRAMS):
        argv, keys = PROGRAMS[name]
        data = run(argv, keys)
        (HERE / f"{name}.raw").write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
