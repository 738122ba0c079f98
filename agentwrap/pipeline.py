"""Raw terminal bytes -> cleaned -> redacted -> bounded capture (and jsonl events), per stream.

This is the runner's Sink: the runner hands over bytes as they arrive and asks for the text on
screen when it needs a prompt's wording; nothing here touches a process.
"""

from __future__ import annotations

import _thread  # a lock: agentwrap's run path imports no `threading`
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentwrap import signal_mask
from agentwrap.artifacts import ArtifactError, ArtifactRef, ArtifactStore, rewrite_hidden
from agentwrap.batch import Batch
from agentwrap.capture import StreamCapture, StreamResult
from agentwrap.redact import REDACTED, Hider, Redactor
from agentwrap.terminal import WINDOW_RESIZED, TerminalCleaner

if TYPE_CHECKING:
    from agentwrap.events import EventStream
    from agentwrap.progress import ProgressTracker

STREAMS = ("stdout", "stderr")
ANALYSIS_HEAD = 384 * 1024  # what adapters read: the whole text when small, else head and tail
ANALYSIS_TAIL = 128 * 1024
HOLD_LINE_CHARS = 1 << 20  # a line is redacted whole up to this length, then in overlapping pieces
HOLD_OVERLAP = 8192  # more than the longest secret the redactor matches (4096 characters)
BINARY_MIN = 32  # non-text bytes before a stream can be judged binary (a stray byte in a log is not)
PROMPT_LINES = 8  # a dialog (pinentry, whiptail) asks above its button row and frame
# After an --answer reply the prompt is what the program writes after it, read on a screen of its own; past
# this much output the old prompt has long scrolled away and the run's own screen says it again.
SINCE_ANSWER_BYTES = 64 * 1024
# --format jsonl: how often the lines above the cursor are looked at; one unchanged at two looks in a row is
# emitted then, not only once it scrolls off the screen (CONTRACT 8): 0.3-0.6 s after the program wrote it
SETTLE_EVERY = 0.3


class Pipeline:
    def __init__(self, *, max_inline_bytes: int, store: ArtifactStore | None, secrets: list[str],
                 events: EventStream | None = None, tee: Callable[[str, bytes], None] | None = None,
                 window: tuple[int, int] | None = None, live_output: bool = True) -> None:
        self.events = events
        # False: the adapter names secrets only after the run (Presentation.names_secrets), so no output event
        # may carry the text before they are hidden; the final envelope and its artifacts hold it, clean
        self.live_output = live_output
        self._withheld = False  # the OUTPUT_EVENTS_WITHHELD warning was sent (once, at the first output)
        self.store = store
        self.max_inline_bytes = max_inline_bytes
        self.tee = tee  # `agentwrap capture` records the raw bytes as the terminal delivered them
        self.progress: ProgressTracker | None = None
        if events is not None:  # --format jsonl only: most runs never import either
            from agentwrap.progress import ProgressTracker

            self.progress = ProgressTracker()
        self.window = window
        cols, rows = window or (250, 50)  # the program's terminal (runner.spawn's default window)
        self.cleaners = {s: TerminalCleaner(rows=rows, cols=cols, on_transient=self._transient_handler(s))
                         for s in STREAMS}
        self.redactors = {s: Redactor(secrets) for s in STREAMS}
        self.captures = {s: StreamCapture(s, max_inline_bytes=max_inline_bytes, store=store) for s in STREAMS}
        self.last_stream = "stdout"
        self._head: dict[str, list[str]] = {s: [] for s in STREAMS}
        self._head_size = dict.fromkeys(STREAMS, 0)
        self._tail: dict[str, list[str]] = {s: [] for s in STREAMS}
        self._tail_size = dict.fromkeys(STREAMS, 0)
        self._cut = dict.fromkeys(STREAMS, False)
        self._results: dict[str, StreamResult] | None = None
        self._partial = dict.fromkeys(STREAMS, "")  # the end of a line not yet committed
        # what the program wrote since the last --answer reply (see answering), or None
        self._since: dict[str, TerminalCleaner] | None = None
        self._since_text: dict[str, list[str]] = {s: [] for s in STREAMS}
        self._since_bytes = 0
        self._hidden = 0  # values an adapter named, hidden after the run (see hide)
        self._hide_warnings: list[dict[str, str]] = []
        # the settle timer's thread and the runner's (or relay's) take turns at the cleaners and the events
        self._lock = _thread.allocate_lock()
        self._settling = False

    def _transient_handler(self, stream: str) -> Callable[[str], None] | None:
        progress, events = self.progress, self.events
        if progress is None or events is None:
            return None

        def handle(line: str) -> None:
            update = progress.observe(stream, line)
            if update is not None:
                events.emit("progress", **update)

        return handle

    # --- the runner's Sink ------------------------------------------------------------------
    def output(self, stream: str, data: bytes) -> None:
        with self._lock:
            self._output(stream, data)
        if not self._settling and self.events is not None and self.live_output and self._results is None:
            self._settling = True
            signal_mask.start_thread(self._settle_loop)

    def _settle_loop(self) -> None:
        """Until `finish`: each stream's lines above its cursor that stopped changing go out as events now."""
        while True:
            time.sleep(SETTLE_EVERY)
            with self._lock:
                if self._results is not None:
                    return
                for stream in STREAMS:
                    text = self.cleaners[stream].settle()
                    if text:
                        self._commit(stream, text)

    def _output(self, stream: str, data: bytes) -> None:
        if self.tee is not None:
            self.tee(stream, data)
        self.captures[stream].add_raw_bytes(len(data))
        text = self.cleaners[stream].feed(data)
        if text:
            self._commit(stream, text)
        if self._since is not None:
            self._since_bytes += len(data)
            if self._since_bytes > SINCE_ANSWER_BYTES:
                self._since = None
            else:
                self._since_text[stream].append(self._since[stream].feed(data))
        self.last_stream = stream

    def answering(self) -> None:
        """An --answer reply is about to be written: from now on the prompt is only what the program writes
        after it, so that a rule never matches the question it already answered (`Continue? [y/N] Name:`)."""
        with self._lock:
            self._answering()

    def _answering(self) -> None:
        cols, rows = self.window or (250, 50)
        self._since = {s: TerminalCleaner(rows=rows, cols=cols) for s in STREAMS}
        self._since_text = {s: [] for s in STREAMS}
        self._since_bytes = 0

    def prompt_text(self) -> str:
        """What the program last showed: the unfinished lines of the stream it wrote to last (since the last
        --answer reply, when there was one)."""
        with self._lock:
            return self._prompt_text()

    def _prompt_text(self) -> str:
        cleaners = self._since if self._since is not None else self.cleaners
        order = [self.last_stream, *(s for s in STREAMS if s != self.last_stream)]
        # a prompt is an unfinished line: the stream whose cursor sits after text asks (npm writes
        # "Username: " to the terminal, then a notice line to stderr)
        order.sort(key=lambda s: not cleaners[s].screen_tail(1).strip())
        for stream in order:
            tail = cleaners[stream].screen_tail(PROMPT_LINES).strip()
            if tail:
                return self.redactors[stream].redact(tail)[-1000:]
        return ""

    def since_answer(self) -> str | None:
        """Everything the program wrote on both streams since the last --answer reply (redacted), or None:
        no reply yet, or more than SINCE_ANSWER_BYTES since it."""
        with self._lock:
            return self._since_answer()

    def _since_answer(self) -> str | None:
        if self._since is None:
            return None
        parts = ["".join(self._since_text[s]) + self._since[s].screen_tail(PROMPT_LINES) for s in STREAMS]
        return "\n".join(self.redactors[s].redact(p) for s, p in zip(STREAMS, parts, strict=True) if p.strip())

    def event(self, kind: str, payload: dict[str, object]) -> None:
        with self._lock:
            self._event(kind, payload)

    def _event(self, kind: str, payload: dict[str, object]) -> None:
        if kind == WINDOW_RESIZED:  # the runner's word to the cleaners, not an event of the stream
            cols, rows = int(payload["cols"]), int(payload["rows"])  # type: ignore[call-overload]
            self.window = (cols, rows)
            for cleaner in (*self.cleaners.values(), *(self._since or {}).values()):
                cleaner.resize(rows=rows, cols=cols)
            return
        if self.events is not None:
            self.events.emit(kind, **payload)

    # --- end of run -------------------------------------------------------------------------
    def _commit(self, stream: str, text: str, *, final: bool = False) -> None:
        # The redactor sees whole lines: a line longer than the window leaves the screen a row at a
        # time, so a secret could straddle two commits. An overlong line is cut at a blank well before
        # its end, never inside a run a secret could be made of.
        text = self._partial[stream] + text
        if not final:
            cut = text.rfind("\n") + 1
            if not cut and len(text) > HOLD_LINE_CHARS:
                cut = max(text.rfind(" ", 0, len(text) - HOLD_OVERLAP), text.rfind("\t", 0, len(text) - HOLD_OVERLAP))
                cut = cut + 1 if cut > len(text) - HOLD_LINE_CHARS else len(text) - HOLD_OVERLAP
            text, self._partial[stream] = text[:cut], text[cut:]
        if not text:
            return
        batch = Batch(text)  # the forms of it (lower-cased, encoded, newlines) the stages share
        text = self.redactors[stream].redact(text, batch)
        self.captures[stream].write(text, batch)  # a redacted text gets a batch of its own there
        self._keep_for_analysis(stream, text)
        if self.events is not None and self.live_output:
            self.events.output(stream, text)
        elif self.events is not None and not self._withheld:
            self._withheld = True
            self.events.emit("warning", code="OUTPUT_EVENTS_WITHHELD",
                             message="this command prints secrets that only its adapter can name once it has read "
                                     "the whole output: no output events are sent; the final envelope holds the "
                                     "output with them hidden")

    def _keep_for_analysis(self, stream: str, text: str) -> None:
        if self._head_size[stream] < ANALYSIS_HEAD:
            self._head[stream].append(text)
            self._head_size[stream] += len(text)
            return
        self._cut[stream] = True
        tail = self._tail[stream]
        tail.append(text)
        self._tail_size[stream] += len(text)
        while self._tail_size[stream] - len(tail[0]) > ANALYSIS_TAIL:
            self._tail_size[stream] -= len(tail.pop(0))

    def analysis_text(self, stream: str) -> tuple[str, bool]:
        """The cleaned text adapters parse, and whether it is complete (else head + tail of it)."""
        head = "".join(self._head[stream])
        if not self._cut[stream]:
            return head, True
        tail = "".join(self._tail[stream])[-ANALYSIS_TAIL:]
        tail = tail[tail.find("\n") + 1:]  # start at a line
        return f"{head}\n[agentwrap: middle of the output omitted from analysis]\n{tail}", False

    def finish(self) -> dict[str, StreamResult]:
        with self._lock:
            return self._finish()

    def _finish(self) -> dict[str, StreamResult]:
        if self._results is not None:  # finished already (a shell line's verdict reads it first)
            return self._results
        results = {}
        for stream in STREAMS:
            self._commit(stream, self.cleaners[stream].finish(), final=True)
            result = self.captures[stream].close()
            if self._binary(stream, result):  # its text is replacement characters: tokens that say nothing
                result = result._replace(text="", truncated=True, omitted_lines=result.lines)
            results[stream] = result
        self._results = results
        return results

    def hide(self, hider: Hider) -> None:
        """Hide the values an adapter named in everything this capture kept: the text adapters read, each
        stream's bounded result (text, head, tail, salient lines) and the artifact each one spilled to.

        After `finish`: the adapter names them once it has read the whole run, by which time the artifacts
        are written. Live `--format jsonl` output events went out before that (docs/CONTRACT.md, notes)."""
        if not hider:
            return
        results = self.finish()
        for stream in STREAMS:
            before = hider.count
            for kept in (self._head, self._tail):
                joined = "".join(kept[stream])  # a value cut between two commits is found whole
                kept[stream][:] = [hider.text(joined)] if joined else []
            in_text = hider.count - before
            result = results[stream]
            ref, in_artifact = self._rewritten(stream, result.artifact, hider)
            results[stream] = result._replace(
                text=hider.text(result.text), head=tuple(map(hider.text, result.head)),
                tail=tuple(map(hider.text, result.tail)),
                salient=tuple((n, hider.text(line)) for n, line in result.salient), artifact=ref,
                cleaned_bytes=ref.bytes if ref is not None else result.cleaned_bytes)
            # the views of a stream show the same occurrences again: each is counted once, where all are
            hider.count = before + max(in_text, in_artifact)
            self._hidden += hider.count - before

    def _rewritten(self, stream: str, ref: ArtifactRef | None, hider: Hider) -> tuple[ArtifactRef | None, int]:
        """`ref` rewritten without the named values; None, with a warning, when it cannot be: the secret in it
        must not outlive the run, so the artifact goes."""
        if ref is None:
            return None, 0
        try:
            new, count = rewrite_hidden(ref, [v.encode("utf-8", "replace") for v in hider.literals],
                                        REDACTED.encode())
        except ArtifactError as exc:
            import contextlib
            import os

            for path in (ref.path, os.path.join(os.path.dirname(ref.path), f"{ref.id}.json")):
                with contextlib.suppress(OSError):
                    os.unlink(path)
            self._hide_warnings.append({"code": "ARTIFACT_UNAVAILABLE", "stream": stream, "message":
                                        f"{stream}: the full text was removed: it held a secret the adapter "
                                        f"named and could not be rewritten ({exc})"})
            return None, 0
        return new, count

    def _binary(self, stream: str, result: StreamResult) -> bool:
        """Whether the stream was binary data: a third of its bytes or more were not text."""
        cleaner = self.cleaners[stream]
        odd = cleaner.binary_bytes + cleaner.invalid_utf8
        return odd >= BINARY_MIN and 3 * odd >= result.bytes

    def warnings(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for stream in STREAMS:
            cleaner, capture = self.cleaners[stream], self.captures[stream]
            out.extend(capture.warnings)
            if self._results is not None and self._binary(stream, self._results[stream]):
                out.append({"code": "BINARY_OUTPUT", "message": f"{stream} was binary data "
                            f"({self._results[stream].bytes} bytes), not shown: to keep its bytes, redirect it to a "
                            "file (`> out.bin`); to read it, pipe it through `od -c` or `xxd`"})
                continue
            if cleaner.invalid_utf8:
                out.append({"code": "INVALID_UTF8", "message":
                            f"{stream}: {cleaner.invalid_utf8} byte sequences were not UTF-8 (shown as U+FFFD)"})
            if cleaner.binary_bytes:
                out.append({"code": "BINARY_OUTPUT", "message":
                            f"{stream}: {cleaner.binary_bytes} binary control bytes were removed"})
        out.extend(self._hide_warnings)
        redactions = sum(r.count for r in self.redactors.values()) + self._hidden
        if redactions:
            out.append({"code": "REDACTED", "message": f"{redactions} secrets were redacted from the output"})
        return out
