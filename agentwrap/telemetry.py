"""OpenTelemetry: each run as one span, sent only when the user configured an OTLP endpoint.

Nothing here is imported unless `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set
(`agentwrap.observe` checks the environment first), so a run without telemetry pays nothing for it.
With the variable set and the `otel` extra installed (`pip install 'agentwrap[otel]'`: the official SDK and
its OTLP/HTTP exporter, which read the standard `OTEL_*` variables themselves), the run is a span that
follows the semantic conventions for CLI programs
(https://opentelemetry.io/docs/specs/semconv/cli/cli-spans/): named `{process.executable.name}`, with
`process.executable.name`, `process.exit.code` and, when the run failed, `error.type` (the problem code:
a low-cardinality class such as `TIMEOUT` or `GIT_PUSH_REJECTED`), plus agentwrap's own facts as
`agentwrap.*` attributes (adapter, status, problem code, byte counts). Arguments and output are never
attributes. The span's W3C trace context is passed to the program as `TRACEPARENT` (and `TRACESTATE`),
the variables that CLI tools which trace read; an incoming `TRACEPARENT` makes the run its child.

The span is exported when the run ends, synchronously (a CLI exits right after), within
`OTEL_EXPORTER_OTLP_TIMEOUT` seconds (agentwrap's default: 2, not the SDK's 10, so an unreachable collector
cannot hold a run up long). A failed export is one line on stderr, never a failure of the run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
DEFAULT_TIMEOUT_S = 2.0


def configured(environ: Mapping[str, str]) -> bool:
    """An endpoint is set and the standard switches do not turn traces off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return any(environ.get(name, "").strip() for name in ENDPOINT_VARIABLES)


class RunSpan:
    """One run's span: started before the program, ended and exported with its record."""

    def __init__(self, span: Any, exporter: Any, ended: list[Any]) -> None:
        self.span = span
        self.exporter = exporter
        self.ended = ended

    def finish(self, attributes: dict[str, Any], error_type: str | None) -> None:
        from opentelemetry.sdk.trace.export import SpanExportResult
        from opentelemetry.trace import Status, StatusCode

        self.span.set_attributes({k: v for k, v in attributes.items() if v is not None})
        if error_type is not None:
            self.span.set_attribute("error.type", error_type)
            self.span.set_status(Status(StatusCode.ERROR, error_type))
        self.span.end()
        try:
            result = self.exporter.export(self.ended)
        except Exception as exc:  # noqa: BLE001 - telemetry must never fail the run
            result, reason = None, f"{type(exc).__name__}: {exc}"
        else:
            reason = "the collector did not accept the span"
        finally:
            self.exporter.shutdown()
        if result is not SpanExportResult.SUCCESS:
            endpoint = next((os.environ[n] for n in ENDPOINT_VARIABLES if os.environ.get(n)), "")
            sys.stderr.write(f"agentwrap: OpenTelemetry export to {endpoint} failed ({reason}); "
                             "the run is unaffected\n")


def start(name: str, child_env: MutableMapping[str, str]) -> RunSpan | None:
    """Start the run's span and put its trace context into the program's environment."""
    try:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    except ImportError:
        sys.stderr.write("agentwrap: an OTLP endpoint is set but the otel extra is not installed "
                         "(pip install 'agentwrap[otel]'); no span was sent\n")
        return None
    import logging

    from agentwrap import __version__

    # The SDK logs each retry to stderr; agentwrap says once, in one line, whether the export worked.
    sdk_log = logging.getLogger("opentelemetry")
    sdk_log.addHandler(logging.NullHandler())
    sdk_log.propagate = False
    ended: list[Any] = []

    class _Keep(SpanProcessor):
        """Keep the ended span; `RunSpan.finish` exports it and learns whether that worked."""

        def on_end(self, span: Any) -> None:
            ended.append(span)

    resource_attrs = {"service.version": __version__}
    if not os.environ.get("OTEL_SERVICE_NAME"):
        resource_attrs["service.name"] = "agentwrap"
    provider = TracerProvider(resource=Resource.create(resource_attrs))
    provider.add_span_processor(_Keep())
    timeout = None if (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
                       or os.environ.get("OTEL_EXPORTER_OTLP_TIMEOUT")) else DEFAULT_TIMEOUT_S
    exporter = OTLPSpanExporter(timeout=timeout)
    propagator = TraceContextTextMapPropagator()
    carrier = {k.lower(): v for k in ("TRACEPARENT", "TRACESTATE") if (v := os.environ.get(k))}
    parent = propagator.extract(carrier) if carrier else None
    tracer = provider.get_tracer("agentwrap", __version__)
    # The caller side of the CLI conventions: agentwrap starts the program, so the span is a CLIENT span.
    span = tracer.start_span(name, context=parent, kind=trace.SpanKind.CLIENT)
    out: dict[str, str] = {}
    propagator.inject(out, context=trace.set_span_in_context(span))
    for key, value in out.items():
        child_env[key.upper()] = value
    return RunSpan(span, exporter, ended)
