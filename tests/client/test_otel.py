"""OpenTelemetryInterceptor: one client span and one duration point per call, over gRPC and REST."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="groundwire[otel] and the SDK are not installed")

from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from groundwire import GroundingClient
from groundwire.client.interceptors import Attempt, CallInfo, CallObserver, Interceptor
from groundwire.client.otel import OpenTelemetryInterceptor
from groundwire.contract import errors
from groundwire.contract.calls import TransportName
from groundwire.emulator import Emulator, emulator
from groundwire.wire import error_codecs
from tests.client.test_calls import FAST_RETRY, failing, ok_check
from tests.support.canned import CannedServers, refused_port

CHECK = "google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding"
SERVICE = "google.cloud.discoveryengine.v1.GroundedGenerationService"
ANSWER, FACT = "Paris is in France.", "Paris is the capital of France."


class Telemetry:
    """An SDK tracer and meter provider that keep what they get in memory."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def interceptor(self) -> OpenTelemetryInterceptor:
        return OpenTelemetryInterceptor(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider
        )

    def span(self) -> ReadableSpan:
        (span,) = self.spans.get_finished_spans()
        return span

    def points(self, name: str) -> list[HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        assert data is not None
        found: list[HistogramDataPoint] = []
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(p for p in metric.data.data_points)  # type: ignore[misc]
        return found

    def close(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    recorded = Telemetry()
    yield recorded
    recorded.close()


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with emulator() as running:
        yield running


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_call_against_the_emulator_makes_one_client_span_and_one_duration_point(
    emu: Emulator, telemetry: Telemetry, transport: TransportName
) -> None:
    with emu.client(transport=transport, interceptors=[telemetry.interceptor()]) as client:
        client.check_grounding(ANSWER, [FACT])
    span = telemetry.span()
    assert span.name == CHECK
    assert span.kind is SpanKind.CLIENT
    assert span.status.status_code is StatusCode.UNSET
    seen = attributes(span)
    assert seen["rpc.system"] == transport  # "grpc", or "rest" over REST
    assert (seen["rpc.service"], seen["rpc.method"]) == (SERVICE, "CheckGrounding")
    assert seen["server.address"] == "127.0.0.1"
    assert isinstance(seen["server.port"], int)
    assert seen["groundwire.transport"] == transport
    assert (seen["groundwire.fell_back"], seen["groundwire.retries"]) == (False, 0)
    assert seen["groundwire.characters_sent"] == len(ANSWER) + len(FACT)
    assert seen["groundwire.status_code"] == "OK"
    if transport == "grpc":
        assert seen["rpc.grpc.status_code"] == 0
    else:
        assert seen["http.request.method"] == "POST"
        assert seen["url.full"].startswith(f"{emu.http_url}/v1/projects/")
        assert seen["url.full"].endswith(":check")
        assert seen["http.response.status_code"] == 200
    (event,) = span.events
    assert event.name == "groundwire.attempt"
    assert dict(event.attributes or {})["groundwire.attempt"] == 1
    (point,) = telemetry.points("rpc.client.duration")
    assert point.count == 1
    assert dict(point.attributes or {})["rpc.method"] == "CheckGrounding"


def test_the_async_client_is_traced_alike(emu: Emulator, telemetry: Telemetry) -> None:
    async def run() -> None:
        async with emu.async_client(
            transport="grpc", interceptors=[telemetry.interceptor()]
        ) as client:
            await client.check_grounding(ANSWER, [FACT])

    asyncio.run(run())
    assert telemetry.span().name == CHECK
    assert len(telemetry.points("rpc.client.duration")) == 1


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_trace_context_travels_with_the_call(
    servers: CannedServers, telemetry: Telemetry, transport: TransportName
) -> None:
    servers.behaviour = ok_check
    with GroundingClient(
        "p",
        transport=transport,
        endpoint=servers.grpc_address,
        rest_endpoint=servers.http_url,
        interceptors=[telemetry.interceptor()],
    ) as client:
        client.check_grounding("x", ["y"])
    context = telemetry.span().get_span_context()
    assert context is not None
    (headers,) = servers.recorder.metadata
    flags = int(context.trace_flags)
    assert (
        headers["traceparent"] == f"00-{context.trace_id:032x}-{context.span_id:016x}-{flags:02x}"
    )


def test_the_span_is_a_child_of_the_current_span(emu: Emulator, telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("app")
    with (
        tracer.start_as_current_span("request") as parent,
        emu.client(interceptors=[telemetry.interceptor()]) as client,
    ):
        client.check_grounding(ANSWER, [FACT])
    call = next(s for s in telemetry.spans.get_finished_spans() if s.name == CHECK)
    assert call.parent is not None
    assert call.parent.span_id == parent.get_span_context().span_id


def test_retries_are_events_on_one_span(servers: CannedServers, telemetry: Telemetry) -> None:
    servers.behaviour = failing(2, error_codecs.error_from_status(14, "busy"))
    with GroundingClient(
        "p",
        transport="grpc",
        endpoint=servers.grpc_address,
        retry=FAST_RETRY,
        interceptors=[telemetry.interceptor()],
    ) as client:
        client.check_grounding("x", ["y"])
    span = telemetry.span()
    assert [dict(e.attributes or {})["groundwire.status_code"] for e in span.events] == [
        "UNAVAILABLE",
        "UNAVAILABLE",
        "OK",
    ]
    assert attributes(span)["groundwire.retries"] == 2


def test_a_failed_call_sets_the_error_status(servers: CannedServers, telemetry: Telemetry) -> None:
    servers.behaviour = failing(1, error_codecs.error_from_status(3, "bad answer"))
    with (
        GroundingClient(
            "p",
            transport="grpc",
            endpoint=servers.grpc_address,
            interceptors=[telemetry.interceptor()],
        ) as client,
        pytest.raises(errors.InvalidArgument),
    ):
        client.check_grounding("x", ["y"])
    span = telemetry.span()
    assert span.status.status_code is StatusCode.ERROR
    seen = attributes(span)
    assert (seen["rpc.grpc.status_code"], seen["error.type"]) == (3, "INVALID_ARGUMENT")
    (point,) = telemetry.points("rpc.client.duration")
    assert dict(point.attributes or {})["error.type"] == "INVALID_ARGUMENT"


def test_a_call_that_fell_back_says_so(servers: CannedServers, telemetry: Telemetry) -> None:
    servers.behaviour = ok_check
    with GroundingClient(
        "p",
        endpoint=f"127.0.0.1:{refused_port()}",
        rest_endpoint=servers.http_url,
        retry=FAST_RETRY,
        interceptors=[telemetry.interceptor()],
    ) as client:
        client.check_grounding("x", ["y"])
    seen = attributes(telemetry.span())
    assert (seen["groundwire.transport"], seen["groundwire.fell_back"]) == ("rest", True)
    assert seen["rpc.system"] == "rest"
    assert seen["http.response.status_code"] == 200


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_stable_conventions_are_opted_into(
    emu: Emulator, telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, transport: TransportName
) -> None:
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "rpc")
    with emu.client(transport=transport, interceptors=[telemetry.interceptor()]) as client:
        client.check_grounding(ANSWER, [FACT])
    seen = attributes(telemetry.span())
    assert seen["rpc.system.name"] == transport
    assert seen["rpc.method"] == CHECK
    assert seen["rpc.response.status_code"] == "OK"
    assert "rpc.system" not in seen
    assert "rpc.service" not in seen
    (point,) = telemetry.points("rpc.client.call.duration")
    assert point.count == 1
    assert telemetry.points("rpc.client.duration") == []


def test_dup_emits_both_conventions(
    emu: Emulator, telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "http,rpc/dup")
    with emu.client(transport="grpc", interceptors=[telemetry.interceptor()]) as client:
        client.check_grounding(ANSWER, [FACT])
    seen = attributes(telemetry.span())
    assert (seen["rpc.system"], seen["rpc.system.name"]) == ("grpc", "grpc")
    assert len(telemetry.points("rpc.client.duration")) == 1
    assert len(telemetry.points("rpc.client.call.duration")) == 1


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_stream_is_one_span(
    emu: Emulator, telemetry: Telemetry, transport: TransportName
) -> None:
    with emu.client(transport=transport, interceptors=[telemetry.interceptor()]) as client:
        pieces = list(client.stream_generate_grounded_content("Where is Paris?", facts=[FACT]))
    assert pieces
    span = telemetry.span()
    assert span.name.endswith("/StreamGenerateGroundedContent")
    assert attributes(span)["groundwire.transport"] == transport


class CurrentSpan(Interceptor):
    """Notes which span is current while each attempt of a call runs."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def start(self, call: CallInfo) -> CallObserver:
        return _SeeCurrent(self.seen)


class _SeeCurrent(CallObserver):
    def __init__(self, seen: list[int]) -> None:
        self.seen = seen

    def on_attempt(self, attempt: Attempt) -> None:
        self.seen.append(trace.get_current_span().get_span_context().span_id)


def test_a_unary_call_runs_inside_its_span_and_leaves_the_context_as_it_was(
    emu: Emulator, telemetry: Telemetry
) -> None:
    inside = CurrentSpan()
    before = trace.get_current_span()
    with emu.client(interceptors=[telemetry.interceptor(), inside]) as client:
        client.check_grounding(ANSWER, [FACT])
    context = telemetry.span().get_span_context()
    assert context is not None
    assert inside.seen == [context.span_id]
    assert trace.get_current_span() is before
