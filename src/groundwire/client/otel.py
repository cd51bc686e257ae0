"""OpenTelemetry on the interceptor chain: a span per call, the duration metric, trace context.

Install `groundwire[otel]` and register the interceptor on either client:

>>> from groundwire.client.otel import OpenTelemetryInterceptor                    # doctest: +SKIP
>>> client = GroundingClient("p", interceptors=[OpenTelemetryInterceptor()])  # doctest: +SKIP

Each call is one CLIENT span, each attempt an event on it; docs/operators.md ("Telemetry")
lists every attribute.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import Token
from dataclasses import dataclass
from urllib.parse import urlsplit

from groundwire.client.extras import missing_extra

try:
    from opentelemetry import context as otel_context
    from opentelemetry import metrics, propagate, trace
    from opentelemetry.context import Context
    from opentelemetry.metrics import Histogram, MeterProvider
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider
    from opentelemetry.util.types import AttributeValue
except ImportError as error:
    raise missing_extra(error, "otel", "groundwire.otel") from error

from groundwire.client.interceptors import (
    Attempt,
    CallInfo,
    CallObserver,
    Interceptor,
    Metadata,
    Outcome,
)
from groundwire.contract.errors import GroundwireError
from groundwire.contract.spec import spec_for
from groundwire.contract.version import VERSION

Attributes = dict[str, AttributeValue]

OPT_IN_VARIABLE = "OTEL_SEMCONV_STABILITY_OPT_IN"
SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)


def conventions(environ: Mapping[str, str]) -> tuple[bool, bool]:
    """Which RPC conventions to emit, from `OTEL_SEMCONV_STABILITY_OPT_IN`: (old, current).

    Example:
        >>> conventions({}), conventions({OPT_IN_VARIABLE: "http,rpc"})
        ((True, False), (False, True))
    """
    values = {part.strip() for part in environ.get(OPT_IN_VARIABLE, "").split(",")}
    if "rpc/dup" in values:
        return True, True
    if "rpc" in values:
        return False, True
    return True, False


class OpenTelemetryInterceptor(Interceptor):
    """Traces and measures every call of the client it is registered on.

    Args:
        tracer_provider: where spans go; by default the global tracer provider.
        meter_provider: where the duration histogram goes; by default the global one.
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
    ) -> None:
        self._tracer = trace.get_tracer("groundwire", VERSION, tracer_provider)
        meter = metrics.get_meter("groundwire", VERSION, meter_provider)
        self._old, self._current = conventions(os.environ)
        description = "Duration of outgoing RPCs."
        self._histograms: list[tuple[Histogram, float]] = []  # each with its unit's scale
        if self._old:
            in_ms = meter.create_histogram(
                "rpc.client.duration", unit="ms", description=description
            )
            self._histograms.append((in_ms, 1000.0))
        if self._current:
            in_seconds = meter.create_histogram(
                "rpc.client.call.duration",
                unit="s",
                description=description,
                explicit_bucket_boundaries_advisory=list(SECONDS_BUCKETS),
            )
            self._histograms.append((in_seconds, 1.0))

    def start(self, call: CallInfo) -> CallObserver:
        """Starts the call's span and gives its trace context to the call's metadata."""
        attributes = rpc_attributes(call, None, self._old, self._current)
        if call.request is not None:
            characters = spec_for(call.method).billed_characters(call.request)
            if characters is not None:
                attributes["groundwire.characters_sent"] = characters
        span = self._tracer.start_span(call.procedure, kind=SpanKind.CLIENT, attributes=attributes)
        carrier: dict[str, str] = {}
        span_context = trace.set_span_in_context(span)
        propagate.inject(carrier, context=span_context)
        # A stream yields to its caller between pieces: its span is not made current, lest
        # the caller's own work land in it.
        token = None if call.streaming else otel_context.attach(span_context)
        return _TracedCall(self, span, tuple(carrier.items()), token)


@dataclass(slots=True)
class _TracedCall(CallObserver):
    interceptor: OpenTelemetryInterceptor
    span: Span
    trace_context: Metadata
    token: Token[Context] | None

    def metadata(self) -> Metadata:
        return self.trace_context

    def on_attempt(self, attempt: Attempt) -> None:
        code = "OK" if attempt.error is None else attempt.error.code.name
        self.span.add_event(
            "groundwire.attempt",
            {
                "groundwire.attempt": attempt.number,
                "groundwire.transport": attempt.transport,
                "groundwire.fell_back": attempt.fell_back,
                "groundwire.status_code": code,
                "groundwire.duration": attempt.duration,
                "server.address": server_of(attempt.server)[0],
            },
        )

    def on_finish(self, outcome: Outcome) -> None:
        span, attempt, interceptor = self.span, outcome.last_attempt, self.interceptor
        transport = "" if attempt is None else attempt.transport
        old, current = interceptor._old, interceptor._current
        attributes = rpc_attributes(outcome.call, attempt, old, current)
        attributes.update(status_attributes(outcome.error, transport, old, current))
        if transport:
            attributes["groundwire.transport"] = transport
        span_attributes: Attributes = {
            **attributes,
            "groundwire.fell_back": outcome.fell_back,
            "groundwire.retries": max(outcome.attempts - 1, 0),
        }
        if attempt is not None and transport == "rest":
            span_attributes.update(http_attributes(outcome, attempt))
        span.set_attributes(span_attributes)
        if outcome.error is not None:
            span.set_status(Status(StatusCode.ERROR, outcome.error.message))
        span.end()
        if self.token is not None:
            otel_context.detach(self.token)
        for histogram, scale in interceptor._histograms:
            histogram.record(outcome.duration * scale, attributes)


def rpc_attributes(call: CallInfo, attempt: Attempt | None, old: bool, current: bool) -> Attributes:
    """The RPC attributes of a call ended after `attempt` (None: no attempt was made)."""
    attributes: Attributes = {}
    if old:
        attributes["rpc.service"] = call.service
        attributes["rpc.method"] = call.method.name
    if current:
        attributes["rpc.method"] = call.procedure
    if attempt is None:
        return attributes
    system = "grpc" if attempt.transport == "grpc" else "rest"
    if old:
        attributes["rpc.system"] = system
    if current:
        attributes["rpc.system.name"] = system
    host, port = server_of(attempt.server)
    attributes["server.address"] = host
    if port is not None:
        attributes["server.port"] = port
    return attributes


def status_attributes(
    error: GroundwireError | None, transport: str, old: bool, current: bool
) -> Attributes:
    """The status attributes of a call that ended with `error` (None: OK)."""
    code = "OK" if error is None else error.code.name
    attributes: Attributes = {"groundwire.status_code": code}
    if old and transport == "grpc":
        attributes["rpc.grpc.status_code"] = 0 if error is None else int(error.code.value)
    if current:
        attributes["rpc.response.status_code"] = code
    if error is not None:
        attributes["error.type"] = code
    return attributes


def http_attributes(outcome: Outcome, attempt: Attempt) -> Attributes:
    """The HTTP client attributes of a call whose last attempt went over REST."""
    from groundwire.contract.transcoding import path_for

    method = outcome.call.method
    attributes: Attributes = {"http.request.method": method.http.verb}
    request = outcome.call.request
    if request is not None:
        attributes["url.full"] = attempt.server.rstrip("/") + path_for(method, request)
    error = outcome.error
    attributes["http.response.status_code"] = 200 if error is None else error.http_status
    return attributes


def server_of(server: str) -> tuple[str, int | None]:
    """The host and port of a gRPC target or a REST base URL.

    >>> server_of("127.0.0.1:50051"), server_of("https://discoveryengine.googleapis.com")
    (('127.0.0.1', 50051), ('discoveryengine.googleapis.com', 443))
    >>> server_of("dns:///[::1]:8443"), server_of("unix:/tmp/grounding.sock")
    (('::1', 8443), ('/tmp/grounding.sock', None))
    """
    if "://" in server and not server.startswith("dns:"):
        parts = urlsplit(server)
        default = 443 if parts.scheme == "https" else 80
        return parts.hostname or "", parts.port or default
    if server.startswith("unix:"):
        return server.removeprefix("unix:").removeprefix("//"), None
    target = server.removeprefix("dns:").lstrip("/")
    for prefix in ("ipv4:", "ipv6:"):
        target = target.removeprefix(prefix)
    host, colon, port = target.rpartition(":")
    if not colon or not port.isdigit() or (host.count(":") and not host.startswith("[")):
        return target.strip("[]"), 443
    return host.strip("[]"), int(port)
