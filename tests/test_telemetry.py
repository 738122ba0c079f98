"""OpenTelemetry: a run is a span sent to the configured OTLP/HTTP endpoint, and nothing otherwise.

The receiver is a real HTTP server in this process that decodes what the official exporter sends
(OTLP protobuf), so the test checks the wire format, not a mock of the SDK."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from tests.conftest import ROOT, aw

pytest.importorskip("opentelemetry.sdk.trace")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")


class _Receiver(HTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, bytes]] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server protocol
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        assert isinstance(self.server, _Receiver)
        self.server.requests.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[_Receiver]:
    server = _Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _spans(receiver: _Receiver) -> list[Any]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    spans = []
    for path, body in receiver.requests:
        assert path == "/v1/traces"
        request = ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            for scope in resource_spans.scope_spans:
                spans.extend((resource_spans.resource, span) for span in scope.spans)
    return spans


def _attrs(kv: Any) -> dict[str, Any]:
    out = {}
    for item in kv:
        value = item.value
        out[item.key] = getattr(value, value.WhichOneof("value"))
    return out


def test_a_failing_run_is_one_span_with_the_cli_conventions(receiver: _Receiver) -> None:
    marker = "argMARKER42"
    answer = aw("--", "sh", "-c", f"echo TP=$TRACEPARENT; echo {marker}; exit 3",
                env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint})
    assert answer.code == 3
    spans = _spans(receiver)
    assert len(spans) == 1
    resource, span = spans[0]
    assert span.name == "sh"
    attrs = _attrs(span.attributes)
    assert attrs["process.executable.name"] == "sh"
    assert attrs["process.exit.code"] == 3
    assert attrs["error.type"] == answer.error["code"] == attrs["agentwrap.problem.code"]
    assert attrs["agentwrap.raw_bytes"] > 0 and attrs["agentwrap.envelope_bytes"] > 0
    assert attrs["agentwrap.adapter"] == "generic"
    assert span.status.code == 2  # STATUS_CODE_ERROR
    assert _attrs(resource.attributes)["service.name"] == "agentwrap"
    assert marker not in str(span)  # arguments and output are never attributes
    # the program saw the span's own trace context
    traceparent = answer.text().split("TP=")[1].split()[0]
    _, trace_id, span_id, _ = traceparent.split("-")
    assert trace_id == span.trace_id.hex() and span_id == span.span_id.hex()


def test_an_incoming_traceparent_makes_the_run_its_child(receiver: _Receiver) -> None:
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    aw("--", "true", env={"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": receiver.endpoint + "/v1/traces",
                          "TRACEPARENT": parent})
    (_, span), = _spans(receiver)
    assert span.trace_id.hex() == "0af7651916cd43dd8448eb211c80319c"
    assert span.parent_span_id.hex() == "b7ad6b7169203331"
    assert _attrs(span.attributes)["process.exit.code"] == 0 and "error.type" not in _attrs(span.attributes)


def test_nothing_is_sent_or_imported_without_an_endpoint(receiver: _Receiver) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentwrap", "--agent", "--", "true"],
                          capture_output=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0
    assert b"opentelemetry" not in proc.stderr and b"google.protobuf" not in proc.stderr
    aw("--", "true", env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_SDK_DISABLED": "true"})
    assert receiver.requests == []


def test_an_unreachable_collector_never_fails_the_run() -> None:
    answer = aw("--", "echo", "ok", env={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
                                         "OTEL_EXPORTER_OTLP_TIMEOUT": "1"})
    assert answer.code == 0 and answer.env["status"] == "success"
    assert b"OpenTelemetry export" in answer.stderr
