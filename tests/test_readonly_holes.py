"""--read-only keeps its promise against the arguments and variables that make a reading command run a program
or write a file: each is attempted for real, and the file it would make must not exist afterwards."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import aw


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    _git(tmp_path, "init", "-q", "-b", "main", str(work))
    (work / "f").write_text("a\n")
    _git(work, "add", "f")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    (work / "f").write_text("a\nb\n")  # a change for diff to show
    return work


def _refused(ans: object, made: Path) -> str:
    error = getattr(ans, "error", None)
    assert error is not None and error["code"] == "MUTATION_REFUSED", getattr(ans, "env", None)
    assert not made.exists(), f"{made} was made: the command ran"
    return str(error["detail"])


def _touch(path: Path) -> str:
    return f"touch {shlex.quote(str(path))}"


@pytest.mark.parametrize(("args", "said"), [
    (["-c", "core.fsmonitor={touch}", "status"], "`-c core.fsmonitor="),
    (["-c", "diff.external={touch}", "diff", "--ext-diff", "HEAD"], "`-c diff.external="),
    (["-c", "core.pager={touch}", "-p", "log", "-n1"], "`-c core.pager="),
    (["-c", "alias.st=!{touch}", "st"], "`-c alias.st="),
    (["--config-env=core.fsmonitor=HOME", "status"], "`--config-env`"),
    (["log", "-n1", "--output={made}"], "`--output=FILE`"),
    (["diff", "--output={made}"], "`--output=FILE`"),
    (["show", "--output={made}"], "`--output=FILE`"),
    (["grep", "-O{touch}", "a"], "`-O`"),
    (["ls-remote", "--upload-pack={touch}; git-upload-pack", "."], "`--upload-pack=COMMAND`"),
    (["push", "--dry-run", "--receive-pack={touch}; git-receive-pack", ".", "main"], "`--receive-pack"),
    (["format-patch", "-1", "-o", "{made}"], "mutating"),
    (["archive", "-o", "{made}", "HEAD"], "mutating"),
    (["bundle", "create", "{made}", "HEAD"], "mutating"),
    (["difftool", "-y", "-x", "{touch}"], "mutating"),
])
def test_git_reading_subcommands_that_would_run_or_write_are_refused(repo: Path, args: list[str],
                                                                     said: str) -> None:
    made = repo.parent / "made"
    argv = [a.format(touch=_touch(made), made=made) for a in args]
    detail = _refused(aw("--read-only", "git", *argv, cwd=repo), made)
    assert said in detail


def test_git_reflog_expire_is_refused_and_the_reflog_kept(repo: Path) -> None:
    before = _git(repo, "reflog")
    ans = aw("--read-only", "git", "reflog", "expire", "--expire=now", "--all", cwd=repo)
    assert "deletes reflog entries" in _refused(ans, repo / "never")
    assert _git(repo, "reflog") == before


@pytest.mark.parametrize("args", [["status"], ["log", "-n", "3"], ["diff"], ["-c", "color.ui=never", "log"],
                                  ["-C", ".", "show", "--stat"], ["reflog"],
                                  ["log", "-n1", "--", "--output=x"]])
def test_plain_git_reads_still_run(repo: Path, args: list[str]) -> None:
    ans = aw("--read-only", "git", *args, cwd=repo)
    assert ans.code == 0, ans.env["summary"]
    assert not (repo / "x").exists()


@pytest.mark.parametrize(("argv", "said"), [
    (["sed", "-n", "w {made}", "f"], "writes a file or runs a command"),
    (["sed", "-n", "1e {touch}", "f"], "writes a file or runs a command"),
    (["sed", "s/a/b/w {made}", "f"], "writes a file or runs a command"),
    (["sort", "-ro", "{made}", "f"], "`-o FILE`"),
    (["find", ".", "-maxdepth", "0", "-fprint", "{made}"], "counts as mutating"),
    (["find", ".", "-maxdepth", "0", "-exec", "touch", "{made}", ";"], "counts as mutating"),
    (["xxd", "f", "{made}"], "second file operand"),
    (["python3", "-m", "json.tool", "j", "{made}"], "mutating"),
    (["curl", "-sS", "--trace", "{made}", "file:///dev/null"], "mutating"),
    (["curl", "-sS", "-o", "{made}", "file:///dev/null"], "mutating"),
    (["python3", "-c", "open('{made}', 'w')"], "cannot tell"),
])
def test_other_programs_that_would_write_are_refused(tmp_path: Path, argv: list[str], said: str) -> None:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    (tmp_path / "f").write_text("a\n")
    (tmp_path / "j").write_text("{}\n")
    made = tmp_path / "made"
    words = [a.format(touch=_touch(made), made=made) for a in argv]
    assert said in _refused(aw("--read-only", *words, cwd=tmp_path), made)


def test_sed_in_place_in_a_flag_cluster_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a\n")
    _refused(aw("--read-only", "sed", "-Ei", "s/a/changed/", "f", cwd=tmp_path), tmp_path / "never")
    assert (tmp_path / "f").read_text() == "a\n"


@pytest.mark.parametrize("argv", [["find", ".", "-name", "f"], ["sed", "-n", "s/a/b/p;1,5p", "f"],
                                  ["sort", "-r", "f"], ["sed", "--sandbox", "-n", "p", "f"]])
def test_plain_reads_still_run(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "f").write_text("a\n")
    ans = aw("--read-only", *argv, cwd=tmp_path)
    assert ans.code == 0, ans.env["summary"]


def test_a_shell_line_setting_a_command_variable_is_refused(repo: Path) -> None:
    made = repo.parent / "made"
    for line in (f"GIT_PAGER='{_touch(made)}' git -p log -n1",
                 f"export GIT_EXTERNAL_DIFF='{_touch(made)}'; git diff",
                 f"printf -v GIT_PAGER '{_touch(made)}'; export GIT_PAGER; git -p log -n1"):
        assert "GIT_" in _refused(aw("--read-only", "bash", "-c", line, cwd=repo), made)
    assert aw("--read-only", "bash", "-c", "PAGER=cat git log -n1 && grep -c PATH f", cwd=repo).code in (0, 1)


@pytest.mark.parametrize("env", [
    {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "{touch}"},
    {"GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='{touch}'"},
    {"GIT_EXTERNAL_DIFF": "{touch}"}, {"GIT_PAGER": "{touch}; cat"}, {"GIT_SSH_COMMAND": "{touch}"},
    {"GIT_TRACE": "{made}"}, {"LD_PRELOAD": "/nonexistent.so"}, {"BASH_ENV": "/dev/null"}, {"PATH": "."},
    {"NODE_OPTIONS": "--require ./x.js"}, {"HOME": "/tmp"},
])
def test_caller_variables_that_run_code_are_refused(repo: Path, env: dict[str, str]) -> None:
    from agentwrap.safety import readonly

    made = repo.parent / "made"
    filled = {k: v.format(touch=_touch(made), made=made) for k, v in env.items()}
    with pytest.raises(readonly.MutationRefused, match="--env "):
        readonly.check(["git", "status"], filled)


@pytest.mark.parametrize("env", [{"LANG": "C"}, {"PAGER": "cat"}, {"GIT_TRACE": "1"},
                                 {"GIT_CONFIG_NOSYSTEM": "1"}])
def test_harmless_caller_variables_are_allowed(env: dict[str, str]) -> None:
    from agentwrap.safety import readonly

    assert readonly.check(["git", "status"], env).read_only


@pytest.mark.parametrize(("argv", "made_name"), [
    (["ruff", "check", "--output-file", "{made}", "."], "made"),
    (["mypy", "--junit-xml", "{made}", "m.py"], "made"),
    (["pip", "list", "--log", "{made}"], "made"),
    (["less", "-o", "{made}", "f"], "made"),
    (["file", "-C", "-m", "f"], "f.mgc"),
])
def test_installed_tools_writing_a_file_are_refused(tmp_path: Path, argv: list[str], made_name: str) -> None:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    (tmp_path / "f").write_text("a\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    words = [a.format(made=tmp_path / "made") for a in argv]
    _refused(aw("--read-only", *words, cwd=tmp_path), tmp_path / made_name)


@pytest.mark.parametrize(("argv", "allowed"), [
    (["terraform", "plan", "-out=tf.plan"], False),
    (["terraform", "plan", "-out", "tf.plan"], False),
    (["terraform", "plan"], True),
    (["npm", "pack"], False),  # writes a tarball, runs prepack/prepare scripts
    (["npm", "pack", "--dry-run"], False),  # dry_runs.toml has no entry for it yet
    (["npm", "cache", "verify"], False),
    (["npm", "view", "left-pad"], True),
    (["npm", "exec", "cowsay"], False),
    (["docker", "compose", "config", "-o", "out.yml"], False),
    (["docker", "compose", "config"], True),
    (["docker", "buildx", "inspect", "--bootstrap"], False),
    (["docker", "run", "alpine"], False),
    (["make", "-n"], False),  # make reads the Makefile: `$(shell CMD)` and `+` lines run under -n too
    (["make", "--version"], True),
    (["make"], False),
    (["curl", "-I", "https://example.com"], True),
    (["curl", "-K", "curl.cfg", "https://example.com"], False),  # the config file may say output=FILE
    (["curl", "-w", "%output{out.txt}%{http_code}", "https://example.com"], False),
    (["curl", "-Q", "DELE f", "ftp://example.com/"], False),
    (["curl", "-d", "x=1", "https://example.com"], False),
    (["pip", "install", "--dry-run", "--report", "out.json", "x"], False),
    (["pip", "install", "--dry-run", "x"], True),
    (["python3", "-m", "json.tool", "--indent", "2", "in.json"], True),
    (["python3", "-m", "http.server", "--cgi"], False),
    (["ruff", "check", "--add-noqa"], False),
    (["mypy", "--html-report", "out", "."], False),
    (["rg", "--pre", "./x.sh", "a"], False),
    (["rg", "-n", "a"], True),
    (["tree", "-o", "out.txt"], False),
    (["date", "-s", "2020-01-01"], False),
    (["date", "+%s"], True),
    (["hostname", "evil"], False),
    (["less", "+!touch x", "f"], False),
    (["unknown-program", "--help"], False),
])
def test_classification_of_invocations_that_write_or_run(argv: list[str], allowed: bool) -> None:
    from agentwrap.safety import readonly

    assert readonly.classify(argv).read_only is allowed, readonly.classify(argv).reason


@pytest.mark.parametrize(("script", "writes"), [
    ("1,5p", False), ("s/hello/world/g;p", False), ("/foo/,/bar/{s/x/y/;p}", False), ("y/abc/xyz/", False),
    ("$!N;s/\\n/ /", False), ("/start/,$ p", False), ("1i hello world", False), ("a\\\nwrite me", False),
    ("s|/usr/bin|/bin|", False), ("/re/Id", False), ("0~2d", False), (":a;N;ba", False), ("r other", False),
    ("w out", True), ("1W out", True), ("e touch x", True), ("s/a/b/w out", True), ("s/a/b/ge", True),
    ("s/a/b/;e", True), ("/x/{w out\n}", True), ("s/unterminated", True), ("k", True),
])
def test_sed_scripts_that_write_or_run_are_found(script: str, writes: bool) -> None:
    from agentwrap.safety import sed_script

    assert sed_script.writes(script) is writes


def test_run_read_only_refuses_command_variables(tmp_path: Path) -> None:
    """The MCP tool: its `env` schema leaves out what runs code, so the server refuses it before starting."""
    import jsonschema

    from agentwrap import mcp_tools

    schema = mcp_tools.BY_NAME["run_read_only"].input_schema
    for env in ({"GIT_CONFIG_COUNT": "1"}, {"GIT_SSH_COMMAND": "x"}, {"PAGER": "sh -c x"},
                {"GIT_TRACE": "/tmp/t"}, {"LD_PRELOAD": "x.so"}, {"PATH": "."}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"argv": ["git", "status"], "env": env}, schema)
    jsonschema.validate({"argv": ["git", "status"], "env": {"LANG": "C", "PAGER": "cat"}}, schema)
    cli = mcp_tools.run_args({"argv": ["git", "status"]}, None, read_only=True)
    assert cli[:2] == ["--agent", "--read-only"]
