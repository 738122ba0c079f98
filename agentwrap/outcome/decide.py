"""Decide: which problem (if any) decides a run, and agentwrap's exit code (CONTRACT sections 3-5).

Precedence: what agentwrap did to the run (interrupted, timed out, stopped at a prompt) outranks what
the program reported, because it explains the program's own exit status.
"""

from __future__ import annotations

import os
import re
import signal

from agentwrap import codes
from agentwrap.adapter import Adapter, Interpretation, generic_spec
from agentwrap.lazyre import lazy
from agentwrap.problem import CodeAction, Problem, wrapper_problem
from agentwrap.runner.prompts import PROGRAM_KINDS, classify
from agentwrap.runner.session import PromptInfo, RunResult
from agentwrap.runner.shims import Request, refusal_line


def _signame(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


_CRASHES = frozenset(("SIGSEGV", "SIGABRT", "SIGBUS", "SIGFPE", "SIGILL", "SIGSYS", "SIGTRAP"))


def _signal_fix(name: str) -> str:
    """The table's advice for this signal only: the out-of-memory killer sends SIGKILL, never SIGTERM."""
    fixes = codes.BY_CODE["KILLED_BY_SIGNAL"].fixes
    return fixes[0] if name == "SIGKILL" else fixes[1] if name in _CRASHES else fixes[2]


def _answer_template(prompt: str, argv: list[str]) -> CodeAction:
    last = prompt_line(prompt)  # the line that asks: not a dialog's frame, button row or spinner
    pattern = re.escape(last[-60:]).replace("=", "\\=") if last else "^"
    return CodeAction(
        title="Authorise a reply to this prompt (replace <REPLY>)",
        command=("agentwrap", "--answer", f"{pattern}=<REPLY>", "--", *argv),
        applicability="has_placeholders", is_preferred=False)


# Programs for which saving the prepared text unchanged still installs it (an empty crontab, a sudoers).
_SAVING_INSTALLS = frozenset({"crontab", "visudo", "vipw", "vigr", "edquota"})
# `-i` asks before each change; the program's own flags say the answer up front.
_INSTEAD_OF_I = {"rm": (("-f", "Remove without asking (rm -f)"),),
                 "ln": (("-f", "Replace the existing file or link without asking (ln -f)"),),
                 "cp": (("-n", "Copy without overwriting existing files (cp -n)"),
                        ("-f", "Copy, overwriting existing files (cp -f)")),
                 "mv": (("-n", "Move without overwriting existing files (mv -n)"),
                        ("-f", "Move, overwriting existing files (mv -f)"))}


def _has_prepared_text(argv: list[str], prepared: bool | None) -> bool:
    """Whether saving an editor's file unchanged keeps a text: as the editor shim saw the file, else (a
    replayed log, an editor the shim did not stand in for) as the arguments say."""
    return prepared if prepared is not None else not _prepares_nothing(argv)


def _prepares_nothing(argv: list[str]) -> bool:
    """A new commit or annotated tag: the text git prepares is only comments, so saving it unchanged aborts
    (`Aborting commit due to empty commit message`); an amend, a reused message or a fixup has a text."""
    words = [a for a in argv[1:] if not a.startswith("-")]
    if os.path.basename(argv[0]) != "git" or not words or words[0] not in ("commit", "tag"):
        return False
    kept = ("--amend", "-c", "-C", "--reuse-message", "--reedit-message", "--fixup", "--squash", "-t",
            "--template", "--no-edit")
    return not any(a == k or a.startswith(k + "=") for a in argv[2:] for k in kept)


def _own_alternatives(prog: str, argv: list[str], kind: str) -> list[CodeAction]:
    """The program's own non-interactive form of what the caller asked, where agentwrap knows it."""
    asks = "-I" if prog == "rm" and "-I" in argv[1:] else "-i"  # rm -I asks once for many files
    if kind != "confirmation" or prog not in _INSTEAD_OF_I or asks not in argv[1:]:
        return []
    rest = [a for a in argv[1:] if a != asks]
    return [CodeAction(title=title, command=(argv[0], flag, *rest), applicability="maybe_incorrect")
            for flag, title in _INSTEAD_OF_I[prog]]


_FRAME = lazy(r"^[lqkxmjtuvwn─│┌┐└┘├┤┬┴┼\s]*$")  # a box drawn with DEC line drawing (pinentry)
_ASKS = lazy(r"[:?]\s*(?:\[REDACTED\]|_+)?\s*$")
_SPINNER = lazy(r"^[\u2800-\u28ff◐◓◑◒◴◷◶◵|/\\-] +(?=\S)")
_BUTTONS = lazy(r"(?:\s*<[\w ]+>)+\s*")


def prompt_line(prompt: str) -> str:
    """The line of the screen that asks: the last one, box-drawing frames and side bars left out; when that
    is a dialog's button row (`<OK>  <Cancel>`), the last one above it that ends in `:` or `?`."""
    lines = []
    for raw in prompt.splitlines():
        line = raw.strip()
        if not line or _FRAME.match(line):
            continue
        if line[:2] in ("x ", "│ ") and line[-1:] in ("x", "│"):
            line = line[1:-1].strip()  # a box's side bars
        lines.append(line)
    chosen = lines[-1] if lines else ""
    if _BUTTONS.fullmatch(chosen):
        chosen = next((line for line in reversed(lines) if _ASKS.search(line)), chosen)
    chosen = _SPINNER.sub("", chosen)  # a spinner drawn in front of the question is not part of it
    return re.sub(r"\s*(?:\[REDACTED\]|_{2,})\s*$", "", chosen)[:200]


def input_required(argv: list[str], prompt: str, kind: str, how: dict[str, object],
                   prepared: bool | None = None) -> Problem:
    """`prepared`: whether an editor's file held text besides comments, where the editor shim saw it."""
    prog = argv[0].rsplit("/", 1)[-1]
    shown = prompt_line(prompt)
    detail = (f"{prog} is waiting for {kind} input: {shown!r}" if shown
              else f"{prog} is waiting for input on its terminal without printing a prompt")
    actions = list(_own_alternatives(prog, argv, kind))
    if kind == "editor" and how.get("source") not in ("editor",) and prog in PROGRAM_KINDS:
        actions.append(CodeAction(  # `vim FILE` itself: the agent edits files with its own tools
            title="Change the file without an editor (write it whole, or `sed -i` / a patch) instead",
            kind="command", applicability="unspecified"))
    elif kind == "editor":
        actions.append(CodeAction(
            title="Pass the text with the program's own option (e.g. `-m MESSAGE` or `-F FILE`) instead",
            kind="command", applicability="unspecified"))
        if prog not in _SAVING_INSTALLS and _has_prepared_text(argv, prepared):
            actions.append(CodeAction(
                title="Accept the prepared text unchanged (an editor that saves at once)",
                command=("agentwrap", "--env", "EDITOR=true", "--env", "VISUAL=true", "--env", "GIT_EDITOR=true",
                         "--env", "GIT_SEQUENCE_EDITOR=true", "--", *argv),
                applicability="maybe_incorrect"))
    elif kind == "pager":
        files = [a for a in argv[1:] if not a.startswith("-")]
        if prog in PROGRAM_KINDS and files:
            actions.append(CodeAction(title="Read the file without a pager", command=("cat", "--", *files),
                                      applicability="machine_applicable", is_preferred=True))
        actions.append(_answer_template(prompt, argv))
    else:
        actions.append(_answer_template(prompt, argv))
        if how.get("source") == "terminal" and kind in ("text", "confirmation") and len(actions) == 1:
            # not where the program's own flags say the answer (`rm -f`): an answer file would only repeat it
            actions.append(CodeAction(
                title="Feed the answer on standard input instead (replace <FILE>)",
                command=("agentwrap", "--stdin", "<FILE>", "--", *argv), applicability="has_placeholders"))
    import shlex

    fix = ("Use the program's non-interactive flag or variable if it has one; otherwise authorise a reply "
           f"with `agentwrap --answer 'REGEX=REPLY' -- {shlex.join(argv)[:200]}`.")
    if kind in ("password", "credential"):
        fix = ("Provide credentials non-interactively (a credential helper, a token in the environment, "
               "or an SSH agent/key); a person may need to supply the secret.")
    return wrapper_problem(
        "INPUT_REQUIRED", detail, suggested_fix=fix, code_actions=tuple(actions),
        remediation=({"action": "provide_input", "args": {"prompt": shown, "input_kind": kind},
                      "requires_user": kind in ("password", "credential")},),
        extra={"prompt": shown or prompt.strip()[-1000:], "input_kind": kind, **how})


def _from_prompt(argv: list[str], prompt: PromptInfo) -> Problem:
    return input_required(argv, prompt.text, prompt.input_kind,
                          {"detection": prompt.detection, "source": prompt.source, "process": prompt.process})


def _from_request(argv: list[str], req: Request) -> Problem:
    kind = "editor" if req.kind == "editor" else classify(req.prompt)
    if req.kind == "askpass" and kind == "text":
        kind = "password"
    problem = input_required(argv, req.prompt or f"{req.kind} requested", kind,
                             {"detection": f"{req.kind}-shim", "source": req.kind}, prepared=req.prepared)
    return problem._replace(matched=refusal_line(req.kind, req.prompt))  # the shim's own line, said once


def _with_tool_help(problem: Problem, adapter: Adapter, argv: list[str]) -> Problem:
    """Put the tool's own non-interactive alternative (`apt-get -y`, `git commit -m`) first."""
    extra = problem.extra or {}
    prompt, kind = str(extra.get("prompt") or ""), str(extra.get("input_kind"))
    fix, actions = adapter.prompt_help(argv, prompt, kind)
    helper = extra.get("source") in ("askpass", "editor")  # a helper asked: not a shell line's `read`
    shell = os.path.basename(argv[0]) in ("bash", "sh", "dash", "zsh", "ksh") if argv else False
    if not fix and not actions and not (helper and shell):  # common programs' prompts (gzip, sudo, psql...)
        fix, actions = generic_spec().prompt_help(argv, None, prompt, kind)
    if not fix and not actions:
        return problem
    # a generic template the tool's own entry already offers in its own words (`--stdin FILE`) is not repeated
    # and a generic hint without a command ("pass the text with the program's own option") is not said
    # beside the tool's own commands that do it
    known = {a.command[:2] for a in actions if a.command and a.command[0] == "agentwrap"}
    commands = any(a.command for a in actions)
    return problem._replace(suggested_fix=fix or problem.suggested_fix,
                            code_actions=(*actions, *(a for a in problem.code_actions
                                                      if (a.command and a.command[:2] not in known)
                                                      or (not a.command and not commands))))


def _answer_rejected(problem: Problem, prog: str, rejected: dict[str, object]) -> Problem:
    """The program asked again, at once, what an --answer rule had just answered: the reply is not sent again."""
    times = int(str(rejected.get("times") or 0))
    said = f"{times} time" + ("s" if times != 1 else "")
    detail = (f"{prog} rejected the reply authorised by --answer rule `{rejected.get('pattern')}`: it asked "
              f"{str(rejected.get('prompt'))!r} again at once after it (sent {said}), so it was not sent again")
    fix = ("The program did not accept the authorised reply: change the REPLY of that --answer rule to one it "
           "accepts, or use the program's non-interactive flag.")
    return problem._replace(detail=detail, suggested_fix=fix,
                            extra={**(problem.extra or {}), "answer_rejected": dict(rejected)})


# CONTRACT section 4: codes that fix agentwrap's exit status whatever the program did.
_FIXED_EXIT = {"TIMEOUT": 124, "INPUT_REQUIRED": 125, "USAGE": 125, "MUTATION_REFUSED": 125,
               "IDEMPOTENCY_CONFLICT": 125, "INTERNAL": 125, "NOT_EXECUTABLE": 126, "PROGRAM_NOT_FOUND": 127}


def exit_status(problem: Problem | None, *, program_exit: int | None = None, signal: int | None = None) -> int:
    """The one exit-status table: agentwrap's process exit code for a deciding problem (or none)."""
    if problem is None:
        return 0
    if problem.code in _FIXED_EXIT:
        return _FIXED_EXIT[problem.code]
    if program_exit is None and signal is None and problem.exit_code in (125, 126, 127):
        return problem.exit_code  # agentwrap refused before any program ran
    if signal is not None:
        return 128 + signal
    return program_exit or 1  # 1: the program exited 0 but its adapter found a failure


def _rerun_whole(problem: Problem, argv: list[str], rerun: list[str]) -> Problem:
    """A prompt inside a shell line: agentwrap's own remedies (`--answer`, `--stdin`) rerun the whole line,
    not the one command that asked, which alone would run out of its `cd` and without the rest."""
    tail = ["--", *argv]
    actions = tuple(
        a._replace(command=(*a.command[:len(a.command) - len(tail)], "--", *rerun))
        if a.command and a.command[0] == "agentwrap" and list(a.command[-len(tail):]) == tail else a
        for a in problem.code_actions)
    import shlex

    fix = (problem.suggested_fix or "").replace(shlex.join(argv)[:200], shlex.join(rerun)[:200])
    return problem._replace(code_actions=actions, suggested_fix=fix or problem.suggested_fix)


def _asked(problem: Problem, adapter: Adapter, argv: list[str], rerun: list[str] | None) -> Problem:
    helped = _with_tool_help(problem, adapter, argv)
    if rerun is None or rerun == argv:
        return helped
    asker = str((problem.extra or {}).get("process") or "")
    if (problem.extra or {}).get("source") in ("askpass", "editor"):
        return _rerun_whole(helped, argv, rerun)  # a helper program asked, never the shell's `read`
    shell_asked = not asker or asker in ("bash", "sh", "dash", "zsh") or asker == os.path.basename(argv[0]) == "read"
    if helped is problem and shell_asked:  # nothing known of the command alone: the line's shell may have
        helped = _with_tool_help(problem, adapter, rerun)  # asked (`read`), never when `rm -i` itself did
    return _rerun_whole(helped, argv, rerun)


def decide(argv: list[str], run: RunResult, interp: Interpretation, adapter: Adapter,
           rerun: list[str] | None = None) -> Problem | None:
    """The deciding problem, its `exit_code` set from `exit_status` (so code, status and error agree).
    `rerun`: the whole invocation when `argv` is one command of a shell line."""
    prog = argv[0].rsplit("/", 1)[-1]
    safe = adapter.effects(argv).read_only is True  # safety.stopped widens it to all --read-only would run
    problem: Problem | None
    pending = [r for r in run.requests if r.answered is None]
    if run.interrupted is not None:
        problem = wrapper_problem("INTERRUPTED", f"agentwrap received {_signame(run.interrupted)} and ended "
                                  f"{prog} and its descendants", safe_to_retry=safe)
    elif run.timed_out:
        problem = wrapper_problem("TIMEOUT", f"{prog} was still running after {run.duration_ms / 1000:.1f} s; "
                                  "its process tree was ended", safe_to_retry=safe)
    elif run.prompt is not None:
        problem = _asked(_from_prompt(argv, run.prompt), adapter, argv, rerun)
        if run.rejected is not None:
            problem = _answer_rejected(problem, prog, run.rejected)
    elif pending:
        # Whatever the program did next (CONTRACT 5.1): it never had the answer it asked for. The first
        # request is the cause: a password prompt after a refused passphrase is a symptom.
        problem = _asked(_from_request(argv, pending[0]), adapter, argv, rerun)
        if pending[0].rejected is not None:
            times = sum(1 for r in run.requests if r.answered == pending[0].rejected)
            problem = _answer_rejected(problem, prog, {"pattern": pending[0].rejected, "prompt": pending[0].prompt,
                                                       "times": times})
        if not _has_prepared_text(argv, pending[0].prepared):
            # the file holds only comments: saving it unchanged aborts the commit
            problem = problem._replace(code_actions=tuple(
                a for a in problem.code_actions if "--no-edit" not in (a.command or ())))
    elif interp.error is not None:
        problem = interp.error
    elif run.signal is not None:
        name = _signame(run.signal)
        problem = wrapper_problem("KILLED_BY_SIGNAL", f"{prog} was killed by {name}", suggested_fix=_signal_fix(name))
    elif interp.success is False:
        problem = wrapper_problem("COMMAND_FAILED", interp.summary[:1000])
    else:
        return None
    signal = run.interrupted if run.interrupted is not None else run.signal
    code = exit_status(problem, program_exit=run.returncode, signal=signal)
    return problem._replace(exit_code=code)
