"""agentwrap normalize on the logs people have: problem matchers, `gh run view --log`, a growing log
followed with `tail -f`, an endless line, text before a compiler's path, make's directories."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, aw

PY = sys.executable
DATA = Path(__file__).parent / "data" / "normalize"
needs_gcc = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc is not installed")


def gcc_output(tmp_path: Path, source: str = "int f(void) { int unused; return 1; }\n",
               name: str = "a.c") -> str:
    """What gcc really prints for `source` (no colour), compiled in tmp_path."""
    (tmp_path / name).write_text(source)
    done = subprocess.run(["gcc", "-Wall", "-fdiagnostics-color=never", "-c", name, "-o", os.devnull],
                          cwd=tmp_path, capture_output=True, text=True)
    return done.stderr


def github_lines(text: str) -> list[str]:
    return [f"2024-05-01T10:00:{i % 60:02d}.1234567Z {line}" for i, line in enumerate(text.splitlines())]


def jsonl(args: list[str], **kw: object) -> list[dict]:
    a = aw("normalize", "--format", "jsonl", *args, check=False, **kw)  # type: ignore[arg-type]
    return [json.loads(line) for line in a.stdout.decode().splitlines()]


def python_traceback(tmp_path: Path) -> str:
    script = tmp_path / "app.py"
    script.write_text("def main():\n    raise ValueError('boom')\n\nmain()\n")
    return subprocess.run([PY, str(script)], capture_output=True, text=True).stderr


def test_a_setup_python_problem_matcher_reads_a_log_as_github_would_annotate_it(tmp_path):
    """actions/setup-python's own matcher (tests/data/normalize) on a real traceback in a coloured
    GitHub log: GitHub annotates the raising frame's file and line with the exception's message."""
    lines = ["##[group]Run python app.py", *("\x1b[31m" + line + "\x1b[0m" for line in
                                            python_traceback(tmp_path).splitlines()), "##[endgroup]"]
    log = tmp_path / "ci.log"
    log.write_text("\n".join(github_lines("\n".join(lines))) + "\n")
    found = [p for p in jsonl(["--matcher", str(DATA / "setup-python-python.json"), str(log)])
             if p["tool"] == "python"]
    # one annotation, as GitHub makes it: the matcher's and the python adapter's reading are one diagnostic,
    # kept in the adapter's richer form (its own code, the exception's name)
    assert [(p["location"]["file"], p["location"]["line"], p["detail"]) for p in found] == [
        (str(tmp_path / "app.py"), 2, "ValueError: boom")]
    assert found[0]["step"] == "Run python app.py"


def test_matcher_files_in_the_user_adapter_folder_are_read(tmp_path):
    folder = tmp_path / "adapters"
    folder.mkdir()
    shutil.copy(DATA / "setup-python-python.json", folder / "python.json")
    log = tmp_path / "ci.log"
    log.write_text(python_traceback(tmp_path))
    found = jsonl([str(log)], env={"AGENTWRAP_ADAPTER_DIR": str(folder), "AGENTWRAP_ADAPTERS": ""})
    assert [p["detail"] for p in found if p["location"]["file"].endswith("app.py")] == ["ValueError: boom"]


@pytest.mark.parametrize(("content", "needle"), [
    ("{", "not valid JSON"),
    ('{"problemMatcher": [{"owner": "x", "pattern": [{"regexp": "("}]}]}', "does not compile"),
    ('{"problemMatcher": [{"owner": "x", "pattern": [{"regexp": "(a)", "file": 3}]}]}', "group 3"),
    ('{"matchers": []}', "problemMatcher"),
])
def test_a_bad_matcher_file_is_a_usage_problem(tmp_path, content, needle):
    path = tmp_path / "m.json"
    path.write_text(content)
    a = aw("normalize", "--matcher", str(path), "-", input=b"")
    assert a.code == 125 and needle in a.error["detail"]


def gh_layout(job: str, steps: dict[str, str]) -> str:
    """`gh run view --log-failed`: each GitHub log line behind the job and step columns (a step's first
    line keeps the byte-order mark its log file starts with)."""
    out = []
    for step, body in steps.items():
        for i, line in enumerate(github_lines(f"##[group]Run {step}\n{body}##[endgroup]\n")):
            out.append(f"{job}\t{step}\t{'' if i else chr(0xFEFF)}{line}")
    return "\n".join(out) + "\n"


@needs_gcc
def test_the_readme_gh_run_view_pipeline_reads_job_and_step_columns(tmp_path):
    log = tmp_path / "failed.log"
    log.write_text(gh_layout("build (ubuntu-latest)", {"Set up job": "Runner Image: ubuntu-24.04\n",
                                                       "make": gcc_output(tmp_path, "int f(void) { return x; }\n")}))
    done = subprocess.run(f"cat {log} | {PY} -m agentwrap normalize --format jsonl -", shell=True,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    problems = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1
    errors = [p for p in problems if p["severity"] == "error"]
    assert [(p["location"]["file"], p["location"]["line"]) for p in errors] == [("a.c", 1)]
    assert {p["step"] for p in problems} == {"build (ubuntu-latest) / make"}
    env = aw("normalize", str(log)).env
    assert env["data"]["steps"] == ["build (ubuntu-latest) / Set up job", "build (ubuntu-latest) / make"]


@needs_gcc
@pytest.mark.parametrize("fmt", ["jsonl", "github"])
def test_a_follower_of_a_growing_log_sees_problems_before_the_log_ends(tmp_path, fmt):
    """`tail -f build.log | agentwrap normalize --format jsonl -`, a real file and a real pipe: the problem
    is on stdout while the log is still open and growing."""
    log = tmp_path / "build.log"
    log.write_text("2024-05-01T10:00:00.0000000Z ##[group]Run make\n")
    pipeline = subprocess.Popen(f"tail -n +1 -f {log} | exec {PY} -m agentwrap normalize --format {fmt} -",
                                shell=True, stdout=subprocess.PIPE, start_new_session=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        with log.open("a") as f:
            f.write("\n".join(github_lines(gcc_output(tmp_path))) + "\n")
            f.flush()
            deadline, line = time.monotonic() + 30, b""
            assert pipeline.stdout is not None
            while time.monotonic() < deadline and not line.endswith(b"\n"):
                f.write("2024-05-01T10:00:59.0000000Z compiling more ...\n")  # the log keeps growing
                f.flush()
                if select.select([pipeline.stdout], [], [], 0.5)[0]:
                    line += os.read(pipeline.stdout.fileno(), 65536)
            assert pipeline.poll() is None  # the log has not ended, the follower still runs
        first = line.decode().splitlines()[0]
        if fmt == "github":
            assert first.startswith("::warning file=a.c,line=1,col=")
        else:
            problem = json.loads(first)
            assert problem["location"]["file"] == "a.c" and problem["severity"] == "warning"
    finally:
        os.killpg(pipeline.pid, signal.SIGTERM)
        pipeline.wait(timeout=10)


@pytest.mark.slow
def test_a_50_mb_line_without_a_newline_costs_flat_memory(tmp_path):
    log = tmp_path / "long.log"
    with log.open("wb") as f:
        f.write(b"make: *** No rule to make target 'x'.  Stop.\n")
        for _ in range(50):
            f.write(b"x" * 1_000_000)
    script = ("import resource, subprocess, sys; "
              "subprocess.run([sys.executable, '-m', 'agentwrap', '--agent', 'normalize', sys.argv[1]], "
              "stdout=subprocess.DEVNULL); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    peak_kib = int(subprocess.run([PY, "-c", script, str(log)], capture_output=True, text=True, check=True,
                                  env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout)
    assert peak_kib < 90 * 1024
    a = aw("normalize", str(log), timeout=120)
    assert a.error["code"] == "MAKE_NO_RULE"
    assert a.env["data"]["bytes"] == log.stat().st_size


@needs_gcc
@pytest.mark.parametrize("lead", ["     [exec] ", "[11/40] ", " 11% ", "[ 11%] ", "C/C++: ", " "])
def test_text_before_a_compilers_path_is_not_part_of_the_path(tmp_path, lead):
    printed = gcc_output(tmp_path)
    log = tmp_path / "ci.log"
    log.write_text("".join((lead if ": warning:" in line else "") + line + "\n" for line in printed.splitlines()))
    found = jsonl([str(log)])
    assert [(p["location"]["file"], p["location"]["line"]) for p in found] == [("a.c", 1)]


def test_clang_source_ranges_are_read_as_the_location():
    line = b"a.c:47:15:{47:8-47:14}{47:17-47:24}: warning: comparison of integers of different signs\n"
    found = jsonl(["-"], input=line)
    assert [(p["location"]["file"], p["location"]["line"], p["location"]["column"]) for p in found] == [
        ("a.c", 47, 15)]


@needs_gcc
def test_make_entering_directory_resolves_relative_paths(tmp_path):
    sub = tmp_path / "lib"
    sub.mkdir()
    (sub / "Makefile").write_text("all:\n\tgcc -Wall -fdiagnostics-color=never -c a.c -o /dev/null\n")
    (sub / "a.c").write_text("int f(void) { int unused; return 1; }\n")
    done = subprocess.run(["make", "-w", "-C", str(sub)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = tmp_path / "ci.log"
    log.write_text(done.stdout)  # as `make 2>&1 | tee` saves it: the warning between Entering and Leaving
    assert "Leaving directory" in done.stdout.split("warning:")[1]
    found = jsonl([str(log)])
    assert [p["location"]["file"] for p in found if p["tool"] == "gcc"] == [str(sub / "a.c")]
    sarif = json.loads(aw("normalize", "--format", "sarif", "--root", str(tmp_path), str(log), check=False).stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {"lib/a.c"}


def test_ordinary_log_lines_are_no_problems():
    """Progress, clocks, URLs, sizes, test ids, directories, diff headers: nothing to report."""
    lines = [
        "Run actions/checkout@v4", "Syncing repository: octo/app", "Getting Git version info",
        "[11/40] Building C object src/CMakeFiles/app.dir/mod_1.c.o", "[ 45%] Linking C executable app",
        "tests/test_m1.py::test_case_1 PASSED                    [ 10%]",
        "make[2]: Entering directory '/home/runner/work/p/p/build'", "cc -O2 -Wall -c mod_1.c -o mod_1.o",
        "  Downloading package_1-1.2.3-py3-none-any.whl (123 kB)", "123.4/123.4 kB 5.0 MB/s eta 0:00:00",
        "Started at 10:00:01, finished at 10:02:33", "See https://example.com:8443/docs/a.html#x for details",
        "--- a/src/main.c", "+++ b/src/main.c", "@@ -1,3 +1,4 @@", "ok 1 - some tap test passes",
        "Compiling serde v1.0.200", "    Finished `release` profile [optimized] target(s) in 12.34s",
        "added 120 packages, and audited 121 packages in 3s", "found 0 vulnerabilities",
        "Successfully installed requests-2.32.3", "---", "total 48", "drwxr-xr-x  2 runner docker 4096 May  1 10:00 .",
        "Cache restored from key: Linux-node-3f2a", "Post job cleanup.", "Process completed with exit code 0.",
    ]
    found = jsonl(["-"], input="\n".join(github_lines("\n".join(lines))).encode() + b"\n")
    assert found == []


ESLINT = shutil.which("eslint")


@pytest.mark.skipif(ESLINT is None, reason="eslint not installed (npm install -g eslint)")
def test_setup_node_eslint_matcher_reads_real_eslint_output_as_eslints_json_says(tmp_path):
    """actions/setup-node's eslint-stylish matcher on a coloured GitHub log of real eslint output: the
    problems are those of eslint's own `-f json` (file, line, column, severity, rule). (ESLint 9 no longer
    ships the compact formatter; errorformat's corpus has its output, see bench/errorformat.py.)"""
    assert ESLINT is not None
    (tmp_path / "eslint.config.mjs").write_text('export default [{ rules: { eqeqeq: "error", semi: ["warn", '
                                                '"always"], "no-unused-vars": "error" } }];\n')
    (tmp_path / "app.js").write_text("var unused = 1;\nlet total = 2\nif (total == 3) {\n  total = 4;\n}\n")
    own = json.loads(subprocess.run([ESLINT, "-f", "json", "app.js"], capture_output=True, text=True,
                                    cwd=tmp_path).stdout)
    want = {(f["filePath"], m["line"], m["column"], "error" if m["severity"] == 2 else "warning", m["ruleId"])
            for f in own for m in f["messages"]}
    printed = subprocess.run([ESLINT, "--color", "app.js"], capture_output=True, text=True, cwd=tmp_path).stdout
    log = tmp_path / "ci.log"
    log.write_text("\n".join(github_lines(f"##[group]Run npx eslint .\n{printed}##[endgroup]")) + "\n")
    # The matcher and the built-in stylish reader both read these lines (ESLint 10's layout is one the
    # built-in knows): each diagnostic is one problem, with eslint's own facts, whichever read it.
    problems = [p for p in jsonl(["--matcher", str(DATA / "setup-node-eslint-stylish.json"), str(log)])
                if p["tool"] in ("eslint-stylish", "eslint")]
    found = {(p["location"]["file"], p["location"]["line"], p["location"]["column"], p["severity"], p.get("rule"))
             for p in problems}
    assert found == want and len(want) == 3 == len(problems)


TSC = shutil.which("tsc")


@pytest.mark.skipif(TSC is None, reason="tsc not installed (npm install -g typescript)")
def test_setup_node_tsc_matcher_agrees_with_the_tsc_adapter_on_real_output(tmp_path):
    assert TSC is not None
    (tmp_path / "app.ts").write_text("function f(y) { return y; }\nconst n: number = 'a';\nmissing();\n")
    printed = subprocess.run([TSC, "--pretty", "false", "--noEmit", "--strict", "app.ts"], capture_output=True,
                             text=True, cwd=tmp_path).stdout
    log = tmp_path / "ci.log"
    log.write_text("\n".join(github_lines(printed)) + "\n")
    def where(found: list[dict]) -> set[tuple[str, int, int]]:
        return {(p["location"]["file"], p["location"]["line"], p["location"]["column"]) for p in found}

    alone = where(jsonl([str(log)]))
    problems = jsonl(["--matcher", str(DATA / "setup-node-tsc.json"), str(log)])
    # the matcher finds what the adapter finds: each diagnostic once, in the adapter's richer form
    assert len(alone) == 3 and len(problems) == 3 and where(problems) == alone
    assert not [p for p in problems if p["code"] == "TSC_DIAGNOSTIC"]


def azure(steps: dict[str, str]) -> str:
    out = []
    for name, body in steps.items():
        out.append(f"##[section]Starting: {name}")
        out += body.splitlines()
        out.append(f"##[section]Finishing: {name}")
    return "\n".join(github_lines("\n".join(out))) + "\n"


def buildkite(steps: dict[str, str]) -> str:
    """Buildkite's raw log: `--- ` section headers, each line behind an APC timestamp sequence."""
    out = []
    for name, body in steps.items():
        out.append(f"--- :hammer: {name}")
        out += body.splitlines()
    return "".join(f"\x1b_bk;t=1714557600{i:03d}\x07{line}\n" for i, line in enumerate(out))


def jenkins(steps: dict[str, str]) -> str:
    out = ["[Pipeline] Start of Pipeline", "[Pipeline] node"]
    for name, body in steps.items():
        out += ["[Pipeline] stage", f"[Pipeline] {{ ({name})", "[Pipeline] sh"]
        out += [f"[2024-05-01T10:00:00.123Z] {line}" for line in body.splitlines()]
        out += ["[Pipeline] }", "[Pipeline] // stage"]
    return "\n".join(out) + "\n"


def gitlab_timestamped(steps: dict[str, str]) -> str:
    """GitLab with job log timestamps: `TIME 00O ` before each line (`00O+` for a continued one)."""
    out = []
    for i, (name, body) in enumerate(steps.items()):
        key = name.lower()
        out.append(f"\x1b[0Ksection_start:{1700000000 + i}:{key}\r\x1b[0K\x1b[36;1m{name}\x1b[0;m")
        out.extend(body.splitlines())
        out.append(f"\x1b[0Ksection_end:{1700000000 + i}:{key}\r\x1b[0K")
    return "".join(f"2024-05-01T10:00:00.{n:06d}Z 00O {line}\n" for n, line in enumerate(out))


def circleci(steps: dict[str, str]) -> str:
    return "".join(steps.values())  # a downloaded step log carries no decoration


@needs_gcc
@pytest.mark.parametrize("layout", [azure, buildkite, jenkins, gitlab_timestamped, circleci])
def test_ci_layouts_give_steps_and_the_compilers_problems(tmp_path, layout):
    log = tmp_path / "ci.log"
    log.write_text(layout({"Checkout": "Syncing repository: octo/app\n", "Build": gcc_output(tmp_path)}))
    env = aw("normalize", str(log)).env
    problems = [p for p in env["problems"] if p["tool"] == "gcc"]
    assert [(p["location"]["file"], p["location"]["line"], p["severity"]) for p in problems] == [("a.c", 1, "warning")]
    if layout is not circleci:
        assert env["data"]["steps"] == ["Checkout", "Build"] and problems[0]["step"] == "Build"


def test_old_gcc_lines_without_a_severity_word_are_errors():
    """gcc 2.x/3.x printed `file:line: parse error before ...`; the compiler's context lines are not read."""
    log = (b"make: Entering directory '/src'\na.c: In function `main':\na.c:12: parse error before `x'\n"
           b"a.c:14:3:   required from here\nmake: *** [a.o] Error 1\n")
    found = jsonl(["-"], input=log)
    assert [(p["location"]["file"], p["location"]["line"], p["severity"]) for p in found if p["tool"] == "gcc"] == [
        ("/src/a.c", 12, "error")]


JAVAC = shutil.which("javac")


@pytest.mark.slow  # moved to -m slow (the default suite's 5-minute budget); .ci/run runs it
@pytest.mark.skipif(JAVAC is None, reason="javac not installed")
def test_a_live_javac_run_and_its_saved_log_get_the_same_problems(tmp_path):
    """The java format reads a live run (`agentwrap -- javac`) and the same output in a log alike."""
    (tmp_path / "Foo.java").write_text('public class Foo {\n  void f() {\n    int x = "s";\n    g(y);\n  }\n}\n')
    live = aw("--", "javac", "Foo.java", cwd=tmp_path)
    assert live.env["command"]["adapter"] == "java"
    live_found = {(p["location"]["file"], p["location"]["line"], p["location"]["column"])
                  for p in live.env["problems"]}
    printed = subprocess.run(["javac", "Foo.java"], cwd=tmp_path, capture_output=True, text=True).stderr
    log = tmp_path / "ci.log"
    log.write_text("\n".join(github_lines(printed)) + "\n")
    saved = {(p["location"]["file"], p["location"]["line"], p["location"]["column"]) for p in jsonl([str(log)])}
    forced = {(p["location"]["file"], p["location"]["line"], p["location"]["column"])
              for p in jsonl(["--adapter", "java", str(log)])}
    assert live_found == saved == forced == {("Foo.java", 3, 13), ("Foo.java", 4, 7)}  # the carets


def test_a_command_echoed_onto_the_diagnostic_line_is_not_part_of_the_path():
    """run-clang-tidy in parallel: its echoed command and a diagnostic on one line (the shape of the
    reports in issue 11; clang-tidy is not installed here, so the line is written out)."""
    line = (b"/usr/bin/clang-tidy-14 -checks=-*,bugprone-* -p=/build /src/a.cpp /src/a.cpp:12:3: warning: "
            b"narrowing conversion [bugprone-narrowing-conversions]\n")
    found = jsonl(["-"], input=line)
    assert [(p["location"]["file"], p["location"]["line"], p["location"]["column"]) for p in found] == [
        ("/src/a.cpp", 12, 3)]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl not installed")
def test_a_failure_without_a_location_is_found_among_ordinary_lines(tmp_path):
    """curl's real error for a name that can never resolve (.invalid, RFC 6761), in 20,000 lines of
    progress: the generic rules read it, as in a live run."""
    printed = subprocess.run(["curl", "-sS", "https://agentwrap-test.invalid/"], capture_output=True,
                             text=True).stderr
    noise = [f"  compiling module_{i}.o ... done in {i % 97}ms" for i in range(20_000)]
    log = tmp_path / "ci.log"
    log.write_text("\n".join(github_lines("\n".join([*noise[:10_000], printed.strip(), *noise[10_000:]]))) + "\n")
    found = jsonl([str(log)])
    assert [(p["code"], p["tool"]) for p in found] == [("HOST_NOT_FOUND", "generic")]


def test_a_users_matcher_finds_lines_no_trigger_word_marks(tmp_path):
    """GitHub runs a matcher on every line: one for `file#line TODO text` must work in a large log too."""
    matcher = tmp_path / "todo.json"
    matcher.write_text(json.dumps({"problemMatcher": [{"owner": "todo", "severity": "warning", "pattern": [
        {"regexp": r"^(?<file>.+\.py)#(\d+) TODO (.*)$", "line": 2, "message": 3}]}]}))
    noise = "\n".join(f"step {i} ok" for i in range(5000))
    log = tmp_path / "ci.log"
    log.write_text("\n".join(github_lines(f"{noise}\nsrc/a.py#12 TODO tidy this\n{noise}")) + "\n")
    found = jsonl(["--matcher", str(matcher), str(log)])
    assert [(p["location"], p["detail"], p["severity"]) for p in found] == [
        ({"file": "src/a.py", "line": 12}, "tidy this", "warning")]


CLANG = shutil.which("clang")
RUN_CLANG_TIDY = shutil.which("run-clang-tidy")


@pytest.mark.skipif(CLANG is None, reason="clang not installed")
def test_real_clang_source_ranges_are_read_as_the_location(tmp_path):
    (tmp_path / "a.c").write_text("int f(unsigned a, int b) {\n  if (a < b) return 1;\n  return 0;\n}\n")
    printed = subprocess.run([CLANG, "-Wall", "-Wextra", "-fdiagnostics-print-source-range-info",
                              "-fcolor-diagnostics", "-c", "a.c", "-o", os.devnull], cwd=tmp_path,
                             capture_output=True, text=True).stderr
    assert ":{2:" in printed  # clang printed the ranges
    found = jsonl(["-"], input=printed.encode())
    assert [(p["location"]["file"], p["location"]["line"], p["location"]["column"], p["severity"]) for p in found] == [
        ("a.c", 2, 9, "warning")]


@pytest.mark.skipif(RUN_CLANG_TIDY is None, reason="clang-tidy not installed")
def test_run_clang_tidys_coloured_report_is_read(tmp_path):
    (tmp_path / "t.c").write_text("int main(void) {\n  int x = 3.5;\n  return x;\n}\n")
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tmp_path), "command": "clang -c t.c", "file": "t.c"}]))
    done = subprocess.run([RUN_CLANG_TIDY, "-checks=-*,bugprone-*", "-p", "."], cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    found = jsonl(["-"], input=done.stdout.encode())
    assert [(p["location"]["file"], p["location"]["line"], p["location"]["column"]) for p in found] == [
        ("t.c", 2, 11)]


@needs_gcc
def test_a_path_with_a_colon_is_one_path(tmp_path):
    """gcc compiling `v1:2/a.c` (a directory with a colon, as tools that version folders make)."""
    (tmp_path / "v1:2").mkdir()
    printed = gcc_output(tmp_path, name="v1:2/a.c")
    assert "v1:2/a.c:1:" in printed
    found = jsonl(["-"], input=printed.encode())
    assert [(p["location"]["file"], p["location"]["line"]) for p in found] == [("v1:2/a.c", 1)]


@needs_gcc
def test_a_vs_code_task_matcher_with_one_location_group_reads_real_gcc_output(tmp_path):
    """VS Code's form (a single matcher object, `location` = `line:column`), written here for gcc."""
    matcher = tmp_path / "tasks-matcher.json"
    matcher.write_text(json.dumps({"problemMatcher": {
        "owner": "cpp", "fileLocation": ["relative", "${workspaceFolder}"],
        "pattern": {"regexp": r"^(.*?):(\d+:\d+):\s+(warning|error):\s+(.*)$",
                    "file": 1, "location": 2, "severity": 3, "message": 4}}}))
    found = jsonl(["--matcher", str(matcher), "-"], input=gcc_output(tmp_path).encode())
    # read by the matcher and by the gcc adapter: one problem, the adapter's (GCC_WARNING, its -W option)
    assert [(p["location"], p["severity"], p["code"]) for p in found] == [
        ({"file": "a.c", "line": 1, "column": 19}, "warning", "GCC_WARNING")]
    other = tmp_path / "other-matcher.json"  # a matcher the adapter does not cover is still read
    other.write_text(json.dumps({"problemMatcher": {"owner": "fn", "pattern": {
        "regexp": r"^(\S+): In function ‘(\w+)’:$", "file": 1, "message": 2}}}))
    printed = gcc_output(tmp_path, "int f(void) { int unused; return 1; }\n")
    assert [p["tool"] for p in jsonl(["--matcher", str(other), "-"], input=printed.encode())].count("fn") == 1
