"""Writing answers to stdout: one JSON value, a jsonl stream, or the pretty view; always redacted."""

from __future__ import annotations

import os
from typing import IO, Any

from agentwrap.envelope import Outcome
from agentwrap.options import Options
from agentwrap.outcome.record import RunRecord
from agentwrap.redact import Redactor
from agentwrap.render import views
from agentwrap.secret_names import secret_values


class Writer:
    def __init__(self, stream: IO[str], *, is_tty: bool | None = None) -> None:
        self.stream = stream
        try:
            self.is_tty = stream.isatty() if is_tty is None else is_tty
        except (ValueError, OSError):
            self.is_tty = False
        self.format = "json"
        self.opts = Options()
        self.redactor = Redactor(secret_values(os.environ))
        self.started = self.completed = False
        self.last_event: dict[str, Any] = {}
        self.broken = False
        self.written = 0  # bytes the caller received (the stats ledger's envelope_bytes)

    def configure(self, fmt: str, opts: Options) -> None:
        self.format, self.opts = fmt, opts
        extra = [*secret_values(opts.env), *(reply for _, reply in opts.answers if len(reply) >= 4)]
        if extra:
            self.redactor = Redactor([*secret_values(os.environ), *extra])

    def _write(self, data: bytes) -> None:
        if self.broken:
            return
        try:
            self.stream.flush()
            if _has_fd(self.stream):
                self.written += os.write(self.stream.fileno(), data)
            else:
                self.stream.write(data.decode())
                self.written += len(data)
        except BrokenPipeError:
            self.broken = True  # the reader went away; the exit code still tells the result
        except OSError:
            self.broken = True

    def event(self, event: dict[str, Any]) -> None:
        """A jsonl event, written at once so a reader sees progress as it happens."""
        self.started, self.last_event = True, event
        if event.get("type") == "operation_completed":
            self.completed = True
        if event.get("type") == "operation_completed" and "envelope" in event:
            event = {**event, "envelope": self._project(event["envelope"])}  # a record or a dict
        self._write(_dumps_event(self.redactor.redact_obj(event)))

    def _project(self, answer: RunRecord | dict[str, Any]) -> dict[str, Any]:
        return views.project(answer, self.opts.detail, self.opts.fields)

    def finish(self, outcome: Outcome) -> None:
        if outcome.raw_output is not None:
            self._write(self.redactor.redact(outcome.raw_output).encode("utf-8", "replace"))
            return
        if self.format == "jsonl":
            if not self.completed:
                self._jsonl_wrap(outcome.answer, outcome.exit_code)
            return
        if self.format == "pretty":
            from agentwrap.render.pretty import render

            env = self.redactor.redact_obj(outcome.envelope)
            text = outcome.raw_text if outcome.raw_text is not None else render(
                env, color=self.is_tty and "NO_COLOR" not in os.environ, live=outcome.shown_live)
            self._write(text.encode())
            return
        if self.format == "problem" and outcome.envelope.get("status") == "error" and outcome.envelope.get("error"):
            env = outcome.envelope["error"]  # the whole RFC 9457 object, whatever the detail level
        else:
            env = self._project(outcome.answer)
        self._write(views.dumps(self.redactor.redact_obj(env)))

    def _jsonl_wrap(self, answer: RunRecord | dict[str, Any], exit_code: int) -> None:
        """A command that produced no stream of its own still answers as a well-formed stream."""
        from agentwrap.events import EventStream

        env = answer.standard() if isinstance(answer, RunRecord) else answer
        op = str(env.get("request_id", "req_")).replace("req_", "op_", 1)
        stream = EventStream(self.event, self.last_event.get("operation_id", op), 0)
        stream.sequence = int(self.last_event.get("sequence", 0))
        if not self.started:
            stream.emit("operation_started")
        if "status" in env:
            stream.emit("operation_completed", status=env["status"], exit_code=exit_code, envelope=answer)
        else:
            stream.emit("operation_completed", status="success", exit_code=exit_code, document=env)


def _has_fd(stream: IO[str]) -> bool:
    try:
        stream.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    return True


def _dumps_event(event: dict[str, Any]) -> bytes:
    """jsonl events come many to a run: orjson's speed pays for its import here (only in jsonl mode)."""
    import orjson

    try:
        return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # a lone surrogate (undecodable argv): the stdlib path replaces it
        return views.dumps(event)
