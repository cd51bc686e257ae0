"""Interceptors see every call and each of its attempts, on both clients, over gRPC and REST."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Generator
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.client.interceptors import (
    Attempt,
    CallInfo,
    CallObserver,
    Interceptor,
    Metadata,
    Outcome,
)
from groundwire.contract import errors
from groundwire.contract.calls import TransportName
from groundwire.wire import error_codecs
from tests.client.test_calls import FAST_RETRY, failing, ok_check, stream_pieces
from tests.support.canned import CannedServers, refused_port

CHECK = "google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding"


class Recording(Interceptor):
    """Records what it sees; `name` tags the order of hooks in `journal`."""

    def __init__(
        self, name: str = "recording", metadata: Metadata = (), journal: list[str] | None = None
    ) -> None:
        self.name = name
        self.extra = metadata
        self.journal = [] if journal is None else journal
        self.calls: list[CallInfo] = []
        self.attempts: list[Attempt] = []
        self.outcomes: list[Outcome] = []

    def start(self, call: CallInfo) -> CallObserver:
        self.calls.append(call)
        self.journal.append(f"start {self.name}")
        return _Observer(self)


class _Observer(CallObserver):
    def __init__(self, owner: Recording) -> None:
        self.owner = owner

    def metadata(self) -> Metadata:
        return self.owner.extra

    def on_attempt(self, attempt: Attempt) -> None:
        self.owner.attempts.append(attempt)

    def on_finish(self, outcome: Outcome) -> None:
        self.owner.journal.append(f"finish {self.owner.name}")
        self.owner.outcomes.append(outcome)


def client_for(
    servers: CannedServers, transport: TransportName, *interceptors: Interceptor
) -> GroundingClient:
    return GroundingClient(
        "p",
        transport=transport,
        endpoint=servers.grpc_address,
        rest_endpoint=servers.http_url,
        retry=FAST_RETRY,
        interceptors=interceptors,
    )


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_an_interceptor_sees_the_method_request_metadata_and_response(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = ok_check
    recording = Recording()
    with client_for(servers, transport, recording) as client:
        started = time.monotonic()
        client.check_grounding("Paris is in France.", ["Paris is in France."])
        elapsed = time.monotonic() - started
    (call,) = recording.calls
    assert call.procedure == CHECK
    assert call.method.name == "CheckGrounding"
    assert call.request is not None
    assert call.request.answer_candidate == "Paris is in France."  # type: ignore[attr-defined]
    assert dict(call.metadata)["x-goog-request-params"].startswith("grounding_config=")
    (outcome,) = recording.outcomes
    assert outcome.error is None
    assert outcome.response is not None
    assert outcome.response.support_score == 1.0  # type: ignore[attr-defined]
    assert outcome.attempts == 1
    (attempt,) = recording.attempts
    assert (attempt.number, attempt.transport, attempt.fell_back, attempt.error) == (
        1,
        transport,
        False,
        None,
    )
    assert 0 < attempt.duration <= outcome.duration <= elapsed  # the attempt's time, in seconds
    assert "127.0.0.1" in attempt.server


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_metadata_an_interceptor_adds_reaches_the_server(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = ok_check
    first = Recording("first", (("x-tenant", "blue"),))
    second = Recording("second", (("x-team", "search"),))
    with client_for(servers, transport, first, second) as client:
        client.check_grounding("x", ["y"])
    (headers,) = servers.recorder.metadata
    assert headers["x-tenant"] == "blue"
    assert headers["x-team"] == "search"
    assert ("x-tenant", "blue") in second.calls[0].metadata  # later ones see what earlier added


def test_observers_finish_in_the_reverse_order_of_start(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    journal: list[str] = []
    outer, inner = Recording("outer", journal=journal), Recording("inner", journal=journal)
    with client_for(servers, "grpc", outer, inner) as client:
        client.check_grounding("x", ["y"])
    assert journal == ["start outer", "start inner", "finish inner", "finish outer"]


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_each_retried_attempt_is_observed_with_its_number_and_outcome(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = failing(2, error_codecs.error_from_status(14, "busy"))
    recording = Recording()
    with client_for(servers, transport, recording) as client:
        client.check_grounding("x", ["y"])
    assert [a.number for a in recording.attempts] == [1, 2, 3]
    assert [a.error.code.name if a.error else "OK" for a in recording.attempts] == [
        "UNAVAILABLE",
        "UNAVAILABLE",
        "OK",
    ]
    assert {a.transport for a in recording.attempts} == {transport}
    (outcome,) = recording.outcomes
    assert (outcome.attempts, outcome.error) == (3, None)
    assert outcome.last_attempt is recording.attempts[-1]


def test_the_outcome_carries_the_error_the_caller_gets(servers: CannedServers) -> None:
    servers.behaviour = failing(1, error_codecs.error_from_status(3, "bad answer"))
    recording = Recording()
    with (
        client_for(servers, "grpc", recording) as client,
        pytest.raises(errors.InvalidArgument) as raised,
    ):
        client.check_grounding("x", ["y"])
    (outcome,) = recording.outcomes
    assert outcome.error is raised.value
    assert outcome.response is None


def test_a_call_on_a_closed_client_finishes_with_no_attempt(servers: CannedServers) -> None:
    recording = Recording()
    client = client_for(servers, "grpc", recording)
    client.close()
    with pytest.raises(errors.ClientClosed):
        client.check_grounding("x", ["y"])
    (outcome,) = recording.outcomes
    assert isinstance(outcome.error, errors.ClientClosed)
    assert (outcome.attempts, recording.attempts) == (0, [])


def test_the_auto_transport_reports_an_attempt_that_fell_back_to_rest(
    servers: CannedServers,
) -> None:
    servers.behaviour = ok_check
    recording = Recording()
    with GroundingClient(
        "p",
        endpoint=f"127.0.0.1:{refused_port()}",
        rest_endpoint=servers.http_url,
        retry=FAST_RETRY,
        interceptors=[recording],
    ) as client:
        client.check_grounding("x", ["y"])
        client.check_grounding("x", ["y"])  # in the cool-down: REST from the start
    assert [(a.transport, a.fell_back) for a in recording.attempts] == [
        ("rest", True),
        ("rest", True),
    ]
    assert recording.attempts[0].server == servers.http_url
    assert all(outcome.fell_back for outcome in recording.outcomes)


def test_the_auto_transport_reports_grpc_when_grpc_carried_the_attempt(
    servers: CannedServers,
) -> None:
    servers.behaviour = ok_check
    recording = Recording()
    with client_for(servers, "auto", recording) as client:
        client.check_grounding("x", ["y"])
    (attempt,) = recording.attempts
    assert (attempt.transport, attempt.fell_back, attempt.server) == (
        "grpc",
        False,
        servers.grpc_address,
    )


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_stream_is_observed_with_its_responses(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = stream_pieces
    recording = Recording(metadata=(("x-tenant", "blue"),))
    with client_for(servers, transport, recording) as client:
        pieces = list(client.stream_generate_grounded_content("Kyoto?"))
    assert len(pieces) == 3
    (call,) = recording.calls
    assert call.streaming
    assert call.request is not None
    (outcome,) = recording.outcomes
    assert (outcome.error, outcome.responses, outcome.attempts) == (None, 3, 1)
    assert outcome.response is not None
    assert servers.recorder.metadata[0]["x-tenant"] == "blue"


def test_a_stream_the_caller_stops_reading_finishes_as_cancelled(servers: CannedServers) -> None:
    servers.behaviour = stream_pieces
    recording = Recording()
    with client_for(servers, "grpc", recording) as client:
        responses = client.stream_generate_grounded_content("Kyoto?")
        assert isinstance(responses, Generator)
        next(responses)
        responses.close()
    (outcome,) = recording.outcomes
    assert isinstance(outcome.error, errors.Cancelled)
    assert outcome.responses == 1
    (attempt,) = recording.attempts
    assert isinstance(attempt.error, errors.Cancelled)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_one_interceptor_serves_the_async_client_too(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = failing(1, error_codecs.error_from_status(14, "busy"))
    recording = Recording(metadata=(("x-tenant", "blue"),))

    async def run() -> list[Any]:
        async with AsyncGroundingClient(
            "p",
            transport=transport,
            endpoint=servers.grpc_address,
            rest_endpoint=servers.http_url,
            retry=FAST_RETRY,
            interceptors=[recording],
        ) as client:
            await client.check_grounding("x", ["y"])
            servers.behaviour = stream_pieces
            return [p async for p in client.stream_generate_grounded_content("Kyoto?")]

    assert len(asyncio.run(run())) == 3
    assert [c.streaming for c in recording.calls] == [False, True]
    assert [(a.number, a.transport) for a in recording.attempts] == [
        (1, transport),
        (2, transport),
        (1, transport),
    ]
    assert [(o.attempts, o.responses, o.error) for o in recording.outcomes] == [
        (2, 1, None),
        (1, 3, None),
    ]
    assert all(headers["x-tenant"] == "blue" for headers in servers.recorder.metadata)


def test_the_async_auto_transport_reports_its_fallback(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    recording = Recording()

    async def run() -> None:
        async with AsyncGroundingClient(
            "p",
            endpoint=f"127.0.0.1:{refused_port()}",
            rest_endpoint=servers.http_url,
            retry=FAST_RETRY,
            interceptors=[recording],
        ) as client:
            await client.check_grounding("x", ["y"])

    asyncio.run(run())
    assert [(a.transport, a.fell_back) for a in recording.attempts] == [("rest", True)]


class Refusing(Interceptor):
    """Fails every call as it starts, as an interceptor enforcing a policy might."""

    def start(self, call: CallInfo) -> CallObserver:
        raise errors.PermissionDenied("no calls on Sundays")


def test_an_interceptor_that_fails_a_call_finishes_those_started_before_it(
    servers: CannedServers,
) -> None:
    servers.behaviour = ok_check
    outer = Recording()
    with (
        client_for(servers, "grpc", outer, Refusing()) as client,
        pytest.raises(errors.PermissionDenied),
    ):
        client.check_grounding("x", ["y"])
    (outcome,) = outer.outcomes
    assert isinstance(outcome.error, errors.PermissionDenied)
    assert (outcome.attempts, servers.recorder.grpc_calls) == (0, 0)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_stream_the_auto_transport_sent_over_rest_reports_the_fallback(
    servers: CannedServers, asynchronous: bool
) -> None:
    servers.behaviour = stream_pieces
    recording = Recording()
    options: dict[str, Any] = {
        "endpoint": f"127.0.0.1:{refused_port()}",
        "rest_endpoint": servers.http_url,
        "retry": FAST_RETRY,
        "interceptors": [recording],
    }

    async def run_async() -> int:
        async with AsyncGroundingClient("p", **options) as client:
            return len([p async for p in client.stream_generate_grounded_content("Kyoto?")])

    if asynchronous:
        count = asyncio.run(run_async())
    else:
        with GroundingClient("p", **options) as client:
            count = len(list(client.stream_generate_grounded_content("Kyoto?")))
    assert count == 3
    assert [(a.transport, a.fell_back, a.responses) for a in recording.attempts] == [
        ("rest", True, 3)
    ]
    assert recording.outcomes[0].fell_back
