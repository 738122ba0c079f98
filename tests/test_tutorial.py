"""docs/adapters.md, followed verbatim in a scratch HOME: a third-party adapter written only against
agentwrap.sdk works as a built-in does (issue 9's done-when).

The page's fenced blocks run in order as one shell script: ```sh blocks as written, a block whose first
line is `# file: PATH` is written to PATH, and one whose first line is `# replaces the last [[rules]]
table of PATH` does exactly that."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)
_REPLACE = re.compile(r"# replaces the last \[\[rules\]\] table of (\S+)")


def script_of(page: str) -> str:
    steps = ["set -eu"]
    for n, (lang, body) in enumerate(_BLOCK.findall(page)):
        first = body.split("\n", 1)[0]
        if lang == "sh":
            steps.append(body)
        elif first.startswith("# file: "):
            steps.append(f"cat > {first[len('# file: ') :]} <<'AW_EOF_{n}'\n{body.split(chr(10), 1)[1]}AW_EOF_{n}")
        elif (m := _REPLACE.match(first)) is not None:
            rule = body.split("\n", 1)[1]
            steps.append(
                f"cat > /tmp/aw_rule_{n} <<'AW_EOF_{n}'\n{rule}AW_EOF_{n}\n"
                f"python3 - {m.group(1)} /tmp/aw_rule_{n} <<'AW_PY'\n"
                "import sys; p, r = sys.argv[1:]\n"
                "text = open(p).read(); cut = text.rindex('[[rules]]')\n"
                "open(p, 'w').write(text[:cut] + open(r).read())\nAW_PY"
            )
    return "\n".join(steps) + "\n"


def json_values(text: str):
    """The JSON values printed one after another (agentwrap's answers, and the `cat` of an expectation)."""
    decoder, at = json.JSONDecoder(), 0
    while (start := text.find("{", at)) >= 0:
        value, at = decoder.raw_decode(text, start)
        yield value


@pytest.mark.slow
def test_the_tutorial_verbatim_in_a_scratch_home(tmp_path):
    home = tmp_path / "home"
    tools = tmp_path / "tools"
    home.mkdir()
    tools.mkdir()
    shim = tools / "agentwrap"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m agentwrap "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTWRAP_", "XDG_"))}
    env.update(
        HOME=str(home),
        PATH=f"{tools}:{os.environ['PATH']}",
        PYTHONPATH=str(ROOT),
        AGENTWRAP_CACHE_DIR=str(tmp_path / "cache"),
    )
    script = script_of((ROOT / "docs" / "adapters.md").read_text())
    done = subprocess.run(["bash", "-c", script], cwd=home, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    answers = list(json_values(done.stdout))
    tests = [a for a in answers if a.get("summary", "").endswith("failed")]
    assert [t["summary"] for t in tests] == ["3 passed, 0 failed", "3 passed, 0 failed"]  # TOML, then Python
    described, explained = answers[-2]["data"], answers[-1]["data"]
    assert described["name"] == "greet" and "GREET_GUEST_NOT_FOUND" in described["problem_codes"]
    assert explained["title"] == "greet: the guest is not on the list" and explained["tools"] == ["greet"]
    # A run through the Python adapter: the problem has the built-ins' form, data parsed.
    env["PATH"] = f"{home / 'bin'}:{env['PATH']}"  # as the tutorial's step 1 exported it
    run = subprocess.run(
        [str(shim), "--agent", "greet", "bob"], cwd=home, env=env, capture_output=True, text=True, timeout=60
    )
    answer = json.loads(run.stdout)
    error = answer["error"]
    assert answer["summary"] == "greet: the guest is not on the list"  # as adapters.md says: the title, ours
    assert error["type"] == "urn:agentwrap:problem:greet:guest-not-found"
    assert (error["code"], error["location"]) == ("GREET_GUEST_NOT_FOUND", {"file": "guests.txt"})
    ok = json.loads(
        subprocess.run(
            [str(shim), "--agent", "greet", "ada"], cwd=home, env=env, capture_output=True, text=True, timeout=60
        ).stdout
    )
    assert ok["data"] == {"greeted": "ada"}
