"""--read-only against configuration that is code, read by an allowed read: mypy's plugins and
python_executable, ESLint's eslint.config.js, pip.conf's `log =`, pytest's conftest.py; and git's repository
configuration for the reads that talk to a remote (a credential helper, the `ext::` transport) or recurse into
submodules. Each is run for real through agentwrap: the file the code would make must not exist, the refusal
must say why, and the plain case beside it still runs."""

from __future__ import annotations

import http.server
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import aw


def _refused(ans: object, made: Path) -> str:
    error = getattr(ans, "error", None)
    assert not made.exists(), f"{made} was made: the code ran"
    assert error is not None and error["code"] == "MUTATION_REFUSED", getattr(ans, "env", None)
    return str(error["detail"])


def _ran(ans: object) -> None:
    error = getattr(ans, "error", None)
    assert error is None or error["code"] != "MUTATION_REFUSED", error


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _repo(work: Path) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    _git(work, "init", "-q", "-b", "main")
    (work / "f").write_text("a\n")
    _git(work, "add", "f")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return work


_PLUGIN = "import pathlib\npathlib.Path({made!r}).touch()\ndef plugin(version):\n    from mypy.plugin import Plugin\n" \
          "    return Plugin\n"


@pytest.mark.parametrize(("name", "text", "said"), [
    ("mypy.ini", "[mypy]\nplugins = plug.py\n", "mypy.ini sets `plugins`, Python code mypy imports"),
    ("setup.cfg", "[mypy]\nplugins = plug.py\n", "setup.cfg sets `plugins`"),
    ("pyproject.toml", '[tool.mypy]\nplugins = ["plug.py"]\n', "pyproject.toml sets `plugins`"),
    ("mypy.ini", "[mypy]\npython_executable = ./py\n", "sets `python_executable`, a program mypy runs"),
    ("mypy.ini", "[mypy]\njunit_xml = {made}\n", "sets `junit_xml`, a file mypy writes"),
])
def test_mypy_configuration_that_runs_code_is_refused(tmp_path: Path, name: str, text: str, said: str) -> None:
    made = tmp_path / "made"
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "plug.py").write_text(_PLUGIN.format(made=str(made)))
    (tmp_path / "py").write_text(f"#!/bin/sh\ntouch {shlex.quote(str(made))}\nexec {sys.executable} \"$@\"\n")
    (tmp_path / "py").chmod(0o755)
    (tmp_path / name).write_text(text.format(made=made))
    assert said in _refused(aw("--read-only", "mypy", "a.py", cwd=tmp_path), made)


@pytest.mark.slow
def test_mypy_reads_the_configuration_above_the_folder_up_to_the_repository(tmp_path: Path) -> None:
    made = tmp_path / "made"
    work = _repo(tmp_path / "work")
    (work / "sub").mkdir()
    (work / "sub" / "a.py").write_text("x = 1\n")
    (work / "plug.py").write_text(_PLUGIN.format(made=str(made)))
    (work / "pyproject.toml").write_text('[tool.mypy]\nplugins = ["plug.py"]\n')
    assert "work/pyproject.toml sets `plugins`" in _refused(aw("--read-only", "mypy", "a.py", cwd=work / "sub"), made)
    # a configuration above the repository's top is not mypy's: it stops there, and so does the check
    (work / "pyproject.toml").rename(tmp_path / "pyproject.toml")
    _ran(aw("--read-only", "mypy", "a.py", cwd=work / "sub"))
    assert not made.exists()


@pytest.mark.slow
def test_plain_mypy_with_an_ordinary_configuration_runs(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x: int = 1\n")
    ordinary = "[mypy]\nstrict = True\nplugins =\n\n[mypy-yaml.*]\nignore_missing_imports = True\n"
    (tmp_path / "mypy.ini").write_text(ordinary)
    ans = aw("--read-only", "mypy", "a.py", cwd=tmp_path)
    assert ans.code == 0, ans.env["summary"]
    assert aw("--read-only", "mypy", "--version", cwd=tmp_path).code == 0


def test_mypy_python_executable_argument_is_refused(tmp_path: Path) -> None:
    detail = _refused(aw("--read-only", "mypy", "--python-executable", "./py", "a.py", cwd=tmp_path), tmp_path / "m")
    assert "`--python-executable` is a program mypy runs" in detail


_ESLINT_CODE = 'require("fs").writeFileSync({made!r}, ""); module.exports = [];\n'


@pytest.mark.skipif(shutil.which("eslint") is None, reason="eslint is not installed")
@pytest.mark.parametrize(("where", "name", "args"), [
    (".", "eslint.config.js", ["a.js"]),
    (".", "eslint.config.cjs", ["a.js"]),
    (".", "eslint.config.mjs", ["--print-config", "a.js"]),
    ("lib", "eslint.config.js", ["lib"]),  # ESLint 10 looks one up beside each file it lints
])
def test_eslint_javascript_configuration_is_refused(tmp_path: Path, where: str, name: str, args: list[str]) -> None:
    made = tmp_path / "made"
    (tmp_path / "lib").mkdir()
    (tmp_path / "a.js").write_text("var x = 1;\n")
    (tmp_path / "lib" / "b.js").write_text("var y = 1;\n")
    module = f'import fs from "fs"; fs.writeFileSync({str(made)!r}, ""); export default [];\n'
    (tmp_path / where / name).write_text(module if name.endswith(".mjs") else _ESLINT_CODE.format(made=str(made)))
    assert f"{name} is JavaScript ESLint runs" in _refused(aw("--read-only", "eslint", *args, cwd=tmp_path), made)
    assert "`--config x.js`" in _refused(aw("--read-only", "eslint", "-c", "x.js", "--no-config-lookup", "a.js",
                                            cwd=tmp_path), made)


@pytest.mark.skipif(shutil.which("eslint") is None, reason="eslint is not installed")
def test_eslint_without_a_javascript_configuration_runs(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("var x = 1;\n")
    (tmp_path / "eslint.config.js").write_text("module.exports = [];\n")
    assert aw("--read-only", "eslint", "--version", cwd=tmp_path).code == 0  # reads no configuration
    (tmp_path / "eslint.config.js").unlink()
    _ran(aw("--read-only", "eslint", "--no-config-lookup", "a.js", cwd=tmp_path))


def test_a_pip_configuration_naming_a_log_is_refused(tmp_path: Path) -> None:
    made = tmp_path / "made.log"
    (tmp_path / "config" / "pip").mkdir(parents=True)
    (tmp_path / "config" / "pip" / "pip.conf").write_text(f"[global]\nlog = {made}\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    assert "pip.conf sets `global.log`" in _refused(aw("--read-only", "pip", "list", cwd=tmp_path, env=env), made)
    (tmp_path / "config" / "pip" / "pip.conf").write_text("[global]\ntimeout = 60\n")
    assert aw("--read-only", "pip", "list", cwd=tmp_path, env=env).code == 0


def test_pytest_listings_that_import_conftest_are_refused(tmp_path: Path) -> None:
    made = tmp_path / "made"
    (tmp_path / "conftest.py").write_text(f"import pathlib\npathlib.Path({str(made)!r}).touch()\n")
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    for args in (["--collect-only", "-q"], ["--fixtures"], ["--help"]):
        assert "conftest.py" in _refused(aw("--read-only", "pytest", *args, cwd=tmp_path), made)
    assert aw("--read-only", "pytest", "--version", cwd=tmp_path).code == 0  # loads no conftest.py
    assert not made.exists()


class _SignIn(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="r"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def asks_to_sign_in() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SignIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/r.git"
    server.shutdown()
    server.server_close()


def test_a_credential_helper_in_the_repositorys_config_is_refused(tmp_path: Path, asks_to_sign_in: str) -> None:
    made = tmp_path / "made"
    work = _repo(tmp_path / "work")
    _git(work, "config", "credential.helper", f"!touch {shlex.quote(str(made))};:")
    detail = _refused(aw("--read-only", "git", "ls-remote", asks_to_sign_in, cwd=work), made)
    assert "the repository's own git configuration sets `credential.helper" in detail
    _git(work, "config", "--unset", "credential.helper")
    ans = aw("--read-only", "git", "ls-remote", asks_to_sign_in, cwd=work)  # it runs, and asks to sign in
    assert ans.error is not None and ans.error["code"] != "MUTATION_REFUSED", ans.env["summary"]


def test_the_ext_transport_allowed_by_config_or_variable_is_refused(tmp_path: Path) -> None:
    made = tmp_path / "made"
    work = _repo(tmp_path / "work")
    _git(work, "remote", "add", "o", f"ext::sh -c touch% {made}")
    _git(work, "config", "protocol.ext.allow", "always")
    assert "`protocol.ext.allow = always`" in _refused(aw("--read-only", "git", "ls-remote", "o", cwd=work), made)
    _git(work, "config", "--unset", "protocol.ext.allow")
    env = {"GIT_ALLOW_PROTOCOL": "file:ext"}
    assert "GIT_ALLOW_PROTOCOL" in _refused(aw("--read-only", "git", "ls-remote", "o", cwd=work, env=env), made)
    ans = aw("--read-only", "git", "ls-remote", "o", cwd=work)  # git's own default refuses `ext`
    assert ans.error is not None and "transport 'ext' not allowed" in ans.error["detail"]
    assert not made.exists()


@pytest.mark.slow
def test_git_reads_in_a_repository_with_submodules(tmp_path: Path) -> None:
    """A .gitmodules alone refuses nothing; a checked-out submodule whose own configuration names a command
    does, for the subcommands that go into it (`status`), and not for `log`."""
    made = tmp_path / "made"
    _repo(tmp_path / "inner")
    work = _repo(tmp_path / "work")
    _git(work, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(tmp_path / "inner"), "sub")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "sub")
    for args in (["status"], ["log", "-n1"], ["diff"]):
        assert aw("--read-only", "git", *args, cwd=work).code == 0
    _git(work / "sub", "config", "core.fsmonitor", f"touch {shlex.quote(str(made))}")
    detail = _refused(aw("--read-only", "git", "status", cwd=work), made)
    assert "in the submodule sub, git's configuration sets `core.fsmonitor" in detail
    assert aw("--read-only", "git", "log", "-n1", cwd=work).code == 0
    assert not made.exists()
