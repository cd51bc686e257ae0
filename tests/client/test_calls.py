"""Retries, deadlines, validation, fallback, headers and streaming, against real servers."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
from google.rpc.error_details_pb2 import BadRequest

from groundwire import AsyncGroundingClient, GroundingClient, RetryPolicy
from groundwire.contract import apis, errors
from groundwire.contract.calls import TransportName
from groundwire.wire import error_codecs
from tests.support.canned import CannedServers, refused_port
from tests.support.held import Held
from tests.support.typed import typed

FAST_RETRY = RetryPolicy(initial=0.01, maximum=0.05, timeout=10.0)
LOCATION = "projects/p/locations/global"
PROMPT = [{"role": "user", "parts": [{"text": "Who wrote Faust?"}]}]
"""A stream request's turns: a request without a prompt is refused before it is sent."""


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)  # of the version called
    answer = request.answer_candidate
    response.claims.add(start_pos=0, end_pos=len(answer.encode()), claim_text=answer)
    return response


def failing(times: int, error: errors.GroundwireError) -> Callable[[apis.Method, Any], Any]:
    state = {"calls": 0}

    def behaviour(method: apis.Method, request: Any) -> Any:
        state["calls"] += 1
        if state["calls"] <= times:
            raise error
        return ok_check(method, request)

    return behaviour


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_unavailable_is_retried_until_it_succeeds(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = failing(2, error_codecs.error_from_status(14, "busy"))
    with GroundingClient(
        "p",
        transport=transport,
        endpoint=servers.grpc_address,
        rest_endpoint=servers.http_url,
        retry=FAST_RETRY,
    ) as client:
        result = client.check_grounding("Paris is in France.", ["Paris is in France."])
    assert result.claims[0].text == "Paris is in France."
    assert servers.recorder.grpc_calls + servers.recorder.rest_calls == 3


def test_retries_are_bounded_by_max_attempts(servers: CannedServers) -> None:
    servers.behaviour = failing(100, error_codecs.error_from_status(14, "down"))
    policy = RetryPolicy(initial=0.01, maximum=0.02, timeout=10.0, max_attempts=4)
    with (
        GroundingClient(
            "p", transport="grpc", endpoint=servers.grpc_address, retry=policy
        ) as client,
        pytest.raises(errors.Unavailable),
    ):
        client.check_grounding("x", ["y"])
    assert servers.recorder.grpc_calls == 4


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_invalid_argument_is_not_retried_and_keeps_its_details(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = failing(
        100, errors.bad_request([("facts[0].fact_text", "too long")], "bad facts")
    )
    with (
        GroundingClient(
            "p",
            transport=transport,
            endpoint=servers.grpc_address,
            rest_endpoint=servers.http_url,
            retry=FAST_RETRY,
            validate=False,
        ) as client,
        pytest.raises(errors.InvalidArgument) as caught,
    ):
        client.check_grounding("x", ["y"])
    violations = typed(BadRequest, caught.value.details[0]).field_violations
    assert violations[0].field == "facts[0].fact_text"
    assert servers.recorder.grpc_calls + servers.recorder.rest_calls == 1


def test_server_requested_retry_delay_is_honoured(servers: CannedServers) -> None:
    from google.protobuf import duration_pb2
    from google.rpc import error_details_pb2, status_pb2

    status = status_pb2.Status(code=8, message="slow down")
    status.details.add().Pack(
        error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(nanos=300_000_000))
    )
    servers.behaviour = failing(
        1, error_codecs.error_from_status(8, "slow down", status.SerializeToString())
    )
    with GroundingClient(
        "p", transport="grpc", endpoint=servers.grpc_address, retry=FAST_RETRY
    ) as client:
        started = time.monotonic()
        client.check_grounding("x", ["y"])
        waited = time.monotonic() - started
    assert waited >= 0.3  # the server asked for 300 ms, far above the policy's 50 ms ceiling
    assert servers.recorder.grpc_calls == 2


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_server_that_never_answers_ends_in_a_deadline_error(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = stall = Held(ok_check)  # answers only once the test is done
    try:
        with GroundingClient(
            "p",
            transport=transport,
            endpoint=servers.grpc_address,
            rest_endpoint=servers.http_url,
            timeout=0.5,
        ) as client:
            started = time.monotonic()
            with pytest.raises(errors.DeadlineExceeded):
                client.check_grounding("x", ["y"])
            waited = time.monotonic() - started
    finally:
        stall.release()
    assert waited < 2.9  # ended by its 0.5 s deadline, not long after


def test_limits_are_checked_before_sending(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    with (
        GroundingClient("p", transport="grpc", endpoint=servers.grpc_address) as client,
        pytest.raises(errors.InvalidArgument) as caught,
    ):
        client.check_grounding("x", ["fact"] * 201, citation_threshold=1.5)
    fields = {v.field for v in typed(BadRequest, caught.value.details[0]).field_violations}
    assert fields == {"facts", "grounding_spec.citation_threshold"}
    assert servers.recorder.grpc_calls == 0


def test_auto_falls_back_to_rest_when_grpc_cannot_connect(
    servers: CannedServers, caplog: pytest.LogCaptureFixture
) -> None:
    servers.behaviour = ok_check
    caplog.set_level(logging.WARNING, logger="groundwire")
    with GroundingClient(
        "p",
        endpoint=f"127.0.0.1:{refused_port()}",
        rest_endpoint=servers.http_url,
        retry=FAST_RETRY,
    ) as client:
        first = client.check_grounding("Rome is in Italy.", ["Rome is in Italy."])
        second = client.check_grounding("Rome is in Italy.", ["Rome is in Italy."])
    assert first.claims[0].text == second.claims[0].text == "Rome is in Italy."
    assert servers.recorder.rest_calls == 2
    switches = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(switches) == 1


def test_headers_name_the_resource_the_client_and_the_quota_project(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    transports: tuple[TransportName, ...] = ("grpc", "rest")
    for transport in transports:
        with GroundingClient(
            "proj",
            transport=transport,
            endpoint=servers.grpc_address,
            rest_endpoint=servers.http_url,
            quota_project="billing",
        ) as client:
            client.check_grounding("x", ["y"])
    for headers in servers.recorder.metadata:
        assert headers["x-goog-request-params"] == (
            "grounding_config=projects%2Fproj%2Flocations%2Fglobal%2FgroundingConfigs"
            "%2Fdefault_grounding_config"
        )
        assert "groundwire/" in headers["x-goog-api-client"]
        assert headers["user-agent"].startswith("groundwire/")
        assert headers["x-goog-user-project"] == "billing"


def stream_pieces(method: apis.Method, request: Any) -> list[Any]:
    pieces = []
    for index, word in enumerate(["Kyoto ", "was ", "the capital."]):
        response: Any = method.response_class()
        candidate = response.candidates.add(index=0)
        candidate.content.parts.add(text=word)
        if index == 2:
            candidate.grounding_score = 0.9
        pieces.append(response)
    return pieces


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_streaming_yields_every_piece_in_order(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = stream_pieces
    with GroundingClient(
        "p", transport=transport, endpoint=servers.grpc_address, rest_endpoint=servers.http_url
    ) as client:
        pieces = list(
            client.stream_generate_grounded_content("Tell me about Kyoto", facts=["Kyoto ..."])
        )
    assert "".join(p.text for p in pieces) == "Kyoto was the capital."
    assert pieces[-1].grounding_score == pytest.approx(0.9)


def test_async_streaming_matches_sync(servers: CannedServers) -> None:
    servers.behaviour = stream_pieces

    async def run() -> list[str]:
        async with AsyncGroundingClient(
            "p", transport="grpc", endpoint=servers.grpc_address
        ) as client:
            return [p.text async for p in client.stream_generate_grounded_content("Kyoto?")]

    assert asyncio.run(run()) == ["Kyoto ", "was ", "the capital."]


def test_an_interactive_stream_over_rest_is_a_clear_error(servers: CannedServers) -> None:
    servers.behaviour = stream_pieces
    with GroundingClient("p", transport="rest", rest_endpoint=servers.http_url) as client:
        request = apis.method("discoveryengine", "v1", "StreamGenerateGroundedContent")
        live = (request.request_class(location=LOCATION, contents=PROMPT) for _ in range(2))
        with pytest.raises(errors.InvalidArgument, match="gRPC"):
            list(client.stream_generate_grounded_content(live))


def test_credentials_never_travel_over_plaintext() -> None:
    from google.auth.credentials import AnonymousCredentials

    client = GroundingClient(
        "p",
        transport="rest",
        rest_endpoint="http://127.0.0.1:1",
        credentials=AnonymousCredentials(),
    )
    with pytest.raises(ValueError, match="plain HTTP"):
        client.check_grounding("x", ["y"])
    client = GroundingClient("p", transport="rest", rest_endpoint="http://example.com")
    with pytest.raises(ValueError, match="loopback"):
        client.check_grounding("x", ["y"])


@pytest.mark.official
def test_a_ready_request_and_official_facts_are_accepted(servers: CannedServers) -> None:
    from google.cloud import discoveryengine_v1

    servers.behaviour = ok_check
    with GroundingClient("p", transport="grpc", endpoint=servers.grpc_address) as client:
        from_official = client.check_grounding(
            "Rome.", [discoveryengine_v1.GroundingFact(fact_text="Rome is in Italy.")]
        )
        request = apis.method("discoveryengine", "v1", "CheckGrounding").request_class(
            grounding_config="projects/p/locations/global/groundingConfigs/default_grounding_config",
            answer_candidate="Rome.",
        )
        from_request = client.check_grounding(request)
    assert from_official.claims[0].text == from_request.claims[0].text == "Rome."


def test_a_live_stream_never_falls_back_to_rest(servers: CannedServers) -> None:
    from groundwire.transports.base import ConnectionFailure

    servers.behaviour = stream_pieces
    method = apis.method("discoveryengine", "v1", "StreamGenerateGroundedContent")
    live = (method.request_class(location=LOCATION, contents=PROMPT) for _ in range(2))
    with (
        GroundingClient(
            "p",
            endpoint=f"127.0.0.1:{refused_port()}",
            rest_endpoint=servers.http_url,
            retry=FAST_RETRY,
        ) as client,
        pytest.raises(ConnectionFailure),
    ):
        list(client.stream_generate_grounded_content(live))
    assert servers.recorder.rest_calls == 0


@pytest.mark.parametrize(
    "name",
    [
        "check_grounding",
        "corroborate_content",
        "generate_grounded_content",
        "stream_generate_grounded_content",
        "check_grounding_many",
        "corroborate_content_many",
    ],
)
def test_both_clients_have_each_method_with_the_same_arguments_and_its_own_return(
    name: str,
) -> None:
    sync, asynchronous = getattr(GroundingClient, name), getattr(AsyncGroundingClient, name)
    assert inspect.signature(sync).parameters == inspect.signature(asynchronous).parameters
    assert sync.__doc__ == asynchronous.__doc__
    assert (sync.__qualname__, asynchronous.__qualname__) == (
        f"GroundingClient.{name}",
        f"AsyncGroundingClient.{name}",
    )
    if name.startswith("stream"):
        assert inspect.isgeneratorfunction(sync)
        assert inspect.isasyncgenfunction(asynchronous)
    elif not name.endswith("_many"):
        assert inspect.iscoroutinefunction(asynchronous)
        assert not inspect.iscoroutinefunction(sync)
