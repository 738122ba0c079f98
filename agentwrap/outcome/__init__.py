"""From a finished run (live, or replayed from a fixture) to its record, in stages that run one way:

    interpret (the adapter reads the run) -> decide (the deciding problem and exit code)
    -> bound (what stays inline, per detail level) -> build (one frozen `RunRecord`)

Pure: no process is touched here, so `agentwrap run`, `agentwrap adapter test` and the fixture suite
all turn the same bytes into the same record. Every projection of the envelope is a view of the record
(`agentwrap.render.views`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from agentwrap.adapter import Adapter, CapturedRun, Interpretation, Presentation, presentation_of
from agentwrap.artifacts import ArtifactRef
from agentwrap.capture import StreamResult
from agentwrap.envelope import MAX_PROBLEMS  # one bound, for runs and other answers alike
from agentwrap.failure_summary import failure_summary, restates
from agentwrap.outcome import bound, lean, partial
from agentwrap.outcome.decide import decide
from agentwrap.outcome.interpret import captured_run, interpret_with_reader
from agentwrap.outcome.record import Note, RunRecord, Stream
from agentwrap.pipeline import Pipeline
from agentwrap.problem import Problem
from agentwrap.redact import Hider
from agentwrap.runner.session import RunResult


class Reading(NamedTuple):
    """What decides a run when it is not the whole of it: one command of a shell line, or the command a
    wrapper ran (`timeout 30 git status`'s `git status`): its argv, its adapter, its own output and status.
    The record's output is still the whole run's."""

    argv: list[str]
    adapter: Adapter
    captured: CapturedRun
    result: RunResult
    # The later stages of its pipeline its stdout went through (`head -3` of `ruff check . | head -3`): what
    # the line shows is what they let through, so counts read from it may not be its totals.
    piped: str = ""
    # Its stdout reached the line's through a `head` (`pytest | head -3`): the line's stdout is the lines head
    # let through, what the caller asked to see, so it is shown as printed, not filtered by this adapter's rules.
    as_printed: bool = False
    # What the line's other commands printed, each (stream, text as printed, text as its own adapter lays it
    # out): `pytest -q; echo $?` is decided by echo, and pytest's 250-column rules are not echo's to keep.
    others: tuple[tuple[str, str, str], ...] = ()


def build(*, request_id: str, argv: list[str], program: str, adapter: Adapter, result: RunResult,
          pipeline: Pipeline, context: dict[str, Any] | None = None,
          warnings: list[dict[str, str]] | None = None, env_set: dict[str, str] | None = None,
          reading: Reading | None = None, command_extra: dict[str, Any] | None = None,
          secrets: Sequence[str] = ()) -> RunRecord:
    """The record of a run whose output went through `pipeline`. `reading`: the part of it that decides
    (`pipeline.finish()` must have been called already, to read it). `secrets`: values other readers named
    (a shell line's commands other than the deciding one), hidden as the adapter's own are."""
    results = pipeline.finish()
    cwd = (context or {}).get("cwd")
    run_argv, run_result = argv, result
    if reading is not None:
        run_argv, adapter, captured, run_result = reading.argv, reading.adapter, reading.captured, reading.result
    else:
        captured = captured_run(argv, program, adapter, result, results, pipeline, cwd)
    interp, notes, reader, read_argv = interpret_with_reader(adapter, captured)
    # The secrets the adapter named leave every text before anything is bounded or shown, artifacts included
    hider = Hider((*interp.secrets, *secrets))
    if hider:
        pipeline.hide(hider)
        results = pipeline.finish()
        captured, interp = hider.obj(captured), hider.obj(interp).replace(secrets=())
    error = decide(run_argv, run_result, interp, adapter, rerun=argv if reading is not None else None)
    error = hider.obj(error) if hider else error  # a prompt's words, read from the run
    left_half_done = partial.effects(run_argv, error, captured.text(), run_result.left)
    if error is not None and left_half_done:
        error = partial.with_actions(error, left_half_done)
    if reading is not None:  # a shell line's command ran where its `cd` took it
        error = bound.rebased_files(error, captured.cwd, cwd) if error is not None else None
        interp = interp._replace(problems=tuple(bound.rebased_files(p, captured.cwd, cwd) for p in interp.problems))
    if error is not None:
        error = bound.relative_files(error, cwd)
    interp = interp._replace(problems=tuple(bound.relative_files(p, cwd) for p in interp.problems))
    shown = presentation_of(reader, read_argv)  # a launcher's run is shown as the tool it launched,
    if reader is not adapter:  # less the launcher's own noise too (npm's `> pkg@1.0.0 test` header)
        shown = shown.replace(noise=(*shown.noise, *presentation_of(adapter, run_argv).noise))
    if shown.columns and not (context or {}).get("pty", True):
        # Off a terminal ls neither lays names out in columns nor quotes a name with blanks in it
        # ('a  b'): a run of blanks may then be part of a name.
        shown = shown.replace(columns=False)
    problems, problems_omitted = _problems(error, interp.problems)
    summary = _summary(interp, error, run_argv, captured.subcommand, run_result)
    # a stage that printed nothing on stdout (`false | true`) lost nothing to the stages after it
    piped = reading.piped if reading is not None and captured.stdout_text.strip() else ""
    if piped and interp.summary and summary == interp.summary[:300]:
        summary = f"{summary[:200]} (counted in what `{piped[:60]}` let through: may not be the total)"
    elif piped and error is not None:  # read from a part: what it says is partial
        summary = f"{summary[:200]} (its stdout read from what `{piped[:60]}` let through, not whole)"
    said = f"{summary}\n{error.detail}" if error is not None else summary  # what the envelope says in words
    data, cut = bound.bound_data(interp.data, pipeline.max_inline_bytes * bound.DATA_SHARE)
    # Rule 3: a member the adapter names in `concise_written` whose value the caller wrote (a commit's -m)
    written = {k: v for k, v in interp.data.items() if k in shown.concise_written and isinstance(v, str)
               and captured.wrote(v)} if isinstance(interp.data, dict) else {}
    uncut_lean = bound.lean_data(interp.data, (*shown.concise_omit, *written), said, shown.concise_shared)
    lean_data, lean_cut = bound.bound_data(uncut_lean, pipeline.max_inline_bytes * bound.DATA_SHARE)
    # The adapter read every line of stdout into data: the concise envelope sends the data or the text, never
    # both, even when the bound cut the data (it keeps each item's identity and counts what it left out,
    # and the artifact holds the whole text). Not for what a `| head` let through: that text is shown as printed.
    as_printed = reading is not None and reading.as_printed
    whole = shown.parsed_whole and interp.data is not None and captured.complete and not as_printed
    streams, fired, refs = _streams(results, pipeline, interp, problems, lean_data, summary, shown,
                                    parsed_whole=whole, written=tuple(written.values()), as_printed=as_printed,
                                    others=reading.others if reading is not None else ())
    if whole and lean_data is not None:
        # The text stands in for the data, so it has the data's bound (`pip list` is a long table).
        as_text, _, _ = bound.stream(results["stdout"], pipeline.analysis_text("stdout"),
                                     budget=pipeline.max_inline_bytes * bound.DATA_SHARE, store=pipeline.store,
                                     explained=False,
                                     parsed_whole=False, noise=shown.noise_for("stdout"), said=None,
                                     layout=shown.layout, columns=shown.columns)
        if as_text.lean and bound.text_rather_than_data(as_text.lean, as_text.lean_cut, lean_data,
                                                        lean_data is not uncut_lean):
            streams["stdout"] = streams["stdout"].replace(lean=as_text.lean, restated_lines=0,
                                                          noise_lines=as_text.noise_lines)
            lean_data, lean_cut = None, 0
    dropped = bound.dropped_members(uncut_lean, lean_data) if lean_data is not uncut_lean else ()
    if shown.text_says and lean_data is not None and streams["stdout"].lean and not streams["stdout"].lean_cut:
        lean_data = bound.lean_data(lean_data, shown.text_says)  # the patch shows its files and counts
    notes += [Note.of(w) for w in (warnings or [])] + [Note.of(w) for w in pipeline.warnings()]
    # a reading of what a later stage let through says so in its summary (its data is partial for that reason)
    read_whole = captured.complete or (reading is not None and bool(reading.piped))
    notes += _run_notes(result, streams, interp, read_whole, cut, problems_omitted)
    if hider:  # what the caller wrote (`--from-literal=k=VALUE`) and the prompts answered are shown too
        argv, context, notes = hider.obj(argv), hider.obj(context), hider.obj(notes)
    return RunRecord(
        request_id=request_id, summary=summary, exit_code=(error.exit_code or 0) if error else 0,
        command={"argv": argv, "program": program, "adapter": adapter.name, "subcommand": captured.subcommand,
                 **(command_extra or {})},
        context=context,
        exit={"code": result.returncode, "signal": result.signal, "timed_out": result.timed_out,
              "duration_ms": result.duration_ms},
        output=streams,
        metrics={"duration_ms": result.duration_ms, "cpu_ms": result.cpu_ms, "max_rss_bytes": result.max_rss_bytes,
                 "raw_bytes": sum(s.bytes for s in streams.values()),
                 "inline_bytes": sum(len(s.text.encode()) for s in streams.values())},
        error=error, problems=problems, problems_omitted=problems_omitted, data=data, lean_data=lean_data,
        lean_data_cut=lean_cut, lean_data_dropped=dropped,
        effects=(*interp.effects, *left_half_done), warnings=tuple(notes),
        artifacts=tuple(ref.to_dict() for ref in refs), env_set=env_set or {},
        noise_fired=tuple(sorted(fired)))


def _summary(interp: Interpretation, error: Problem | None, argv: list[str], subcommand: str | None,
             result: RunResult) -> str:
    """The adapter's summary of a success, or of a failure it decided in its own words (its counts); any
    other failure's is the one rule's (`failure_summary`): never the deciding error's detail again."""
    own = interp.error is not None and error is not None and (error.code, error.detail) == (
        interp.error.code, interp.error.detail)
    if error is None or (own and not restates(interp.summary, error.detail)):
        return interp.summary[:300]
    return failure_summary(error, program=argv[0], subcommand=subcommand, exit_code=result.returncode,
                           signal=result.signal, problems=interp.problems, adapters=interp.summary if own else "")


def _problems(error: Problem | None, found: tuple[Problem, ...]) -> tuple[tuple[Problem, ...], int]:
    """Every problem once, the deciding one first when the adapter did not list it, within the bound."""
    problems = list(found)
    if error is not None and not any(p.code == error.code and p.detail == error.detail for p in problems):
        problems.insert(0, error)
    return tuple(problems[:MAX_PROBLEMS]), max(0, len(problems) - MAX_PROBLEMS)


def _streams(results: dict[str, StreamResult], pipeline: Pipeline, interp: Interpretation,
             problems: tuple[Problem, ...], lean_data: Any, summary: str, shown: Presentation,
             parsed_whole: bool, written: Sequence[str] = (), as_printed: bool = False,
             others: Sequence[tuple[str, str, str]] = ()) -> tuple[dict[str, Stream], set[str], list[ArtifactRef]]:
    explained = bool(interp.problems) or interp.data is not None
    # What the reader knows: the summary, the problems, the lean data, and what the caller wrote that the
    # lean data leaves out for that reason (`written`: a commit's subject given with -m)
    said = lean.facts_said(problems, lean_data, "\n".join([summary, *written])) if explained else None
    streams: dict[str, Stream] = {}
    fired: set[str] = set()
    refs: list[ArtifactRef] = []
    for name, result in results.items():
        if as_printed and name == "stdout":  # what a `| head` let through: the caller's text, as printed
            streams[name], hits, ref = bound.stream(result, pipeline.analysis_text(name),
                                                    budget=pipeline.max_inline_bytes, store=pipeline.store,
                                                    explained=False, parsed_whole=False, noise=(), said=None)
        else:
            patch = shown.patch and name == "stdout"  # a diff is the change itself: data only counts it
            streams[name], hits, ref = bound.stream(
                result, pipeline.analysis_text(name), budget=pipeline.max_inline_bytes, store=pipeline.store,
                explained=explained and not patch, parsed_whole=parsed_whole and name == "stdout",
                noise=shown.noise_for(name), said=said, layout=shown.layout, patch=patch,
                columns=shown.columns and name == "stdout", kept=interp.kept_lines,
                rewrites=[(text, laid) for stream, text, laid in others if stream == name])
        fired |= hits
        refs += [ref] if ref is not None else []
    return streams, fired, refs


def _answered_note(answered: list[dict[str, object]]) -> str:
    """Which prompts --answer rules answered, short: each asking line once, with its count (never the reply)."""
    from agentwrap.outcome.decide import prompt_line

    counts: dict[str, int] = {}
    for record in answered:
        line = prompt_line(str(record.get("prompt") or ""))[-80:] or "(no prompt text)"
        counts[line] = counts.get(line, 0) + 1
    shown = [f"{line!r}" + (f" x{n}" if n > 1 else "") for line, n in list(counts.items())[:3]]
    more = f" and {len(counts) - 3} more" if len(counts) > 3 else ""
    n = len(answered)
    return f"{n} prompt{'s were' if n != 1 else ' was'} answered by --answer rules: {', '.join(shown)}{more}"


def _not_inline(s: Stream) -> str:
    """How much of a cut stream was left out: lines, or bytes when no whole line was (one 50 MB line)."""
    if s.omitted_lines:
        return f"{s.omitted_lines} of {s.lines} lines"
    from agentwrap.capture import human_bytes

    return f"{human_bytes(max(0, s.bytes - len(s.text.encode())))} of {human_bytes(s.bytes)}"


def _run_notes(result: RunResult, streams: dict[str, Stream], interp: Interpretation, complete: bool, cut: int,
               problems_omitted: int) -> list[Note]:
    notes = [Note("OUTPUT_TRUNCATED", f"{name}: {_not_inline(s)} not inline"
                  + (f"; full text in artifact {s.artifact}" if s.artifact else ""))
             for name, s in streams.items() if s.truncated]
    if interp.data is not None and not complete:
        notes.append(Note("DATA_PARTIAL", "the output was too long to parse whole: data comes from its first "
                          "384 KiB and last 128 KiB, so counts are lower bounds"))
    if cut:
        notes.append(Note("DATA_TRUNCATED", f"{cut} items of data were left out to keep the envelope bounded; "
                          "the full output is in the artifact"))
    if problems_omitted:
        notes.append(Note("PROBLEMS_TRUNCATED", f"{problems_omitted} more problems were left out."))
    if result.tree_ended:
        notes.append(Note("TREE_ENDED", f"{result.tree_ended} descendants were still running after the program "
                          "exited and were ended"))
    if result.answered:
        notes.append(Note("PROMPT_ANSWERED", _answered_note(result.answered)))
    return notes
