"""The blocking gRPC transport against a real grpc.server on loopback."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingResponse,
)

from groundwire.core.errors import DeadlineExceeded, InvalidArgument, Unavailable
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.grpc import GrpcTransport
from tests.support.typed import typed
from tests.transports import canned
from tests.transports.servers import GrpcServer, start_grpc_server, start_rest_server


@pytest.fixture
def transport(grpc_server: GrpcServer) -> Iterator[GrpcTransport]:
    opened = GrpcTransport(grpc_server.target, credentials=None, secure=False)
    yield opened
    opened.close()


def call(transport: GrpcTransport, answer: str, timeout: float = 3.0) -> CheckGroundingResponse:
    response = transport.unary(
        canned.CHECK, canned.check_request(answer), timeout=timeout, metadata=canned.METADATA
    )
    return typed(CheckGroundingResponse, response)


def test_a_unary_call_returns_the_response_with_cjk_and_emoji_intact(
    transport: GrpcTransport,
) -> None:
    assert call(transport, canned.OK) == canned.check_response()
    assert call(transport, canned.OK).cited_chunks[0].chunk_text == canned.TEXT


def test_metadata_arrives_at_the_server(transport: GrpcTransport, grpc_server: GrpcServer) -> None:
    call(transport, canned.OK)
    received = grpc_server.seen.metadata[-1]
    for name, value in canned.METADATA:
        assert received[name] == value


def test_user_agent_is_set_on_the_channel() -> None:
    server = start_grpc_server()
    transport = GrpcTransport(
        f"127.0.0.1:{server.port}", credentials=None, secure=False, user_agent="groundwire/0.1.0"
    )
    try:
        call(transport, canned.OK)
        assert server.seen.metadata[-1]["user-agent"].startswith("groundwire/0.1.0 ")
    finally:
        transport.close()
        server.server.stop(grace=None)


def test_a_status_with_rich_details_becomes_the_matching_error(transport: GrpcTransport) -> None:
    with pytest.raises(InvalidArgument) as raised:
        call(transport, canned.INVALID)
    assert raised.value.message == canned.INVALID_MESSAGE
    bad_request = raised.value.detail(error_details_pb2.BadRequest)
    assert bad_request is not None
    assert list(bad_request.field_violations) == [canned.VIOLATION]


def test_a_call_past_its_timeout_raises_deadline_exceeded(transport: GrpcTransport) -> None:
    with pytest.raises(DeadlineExceeded) as raised:
        call(transport, canned.SLOW, timeout=0.2)
    assert raised.value.retryable


def test_a_refused_port_is_a_connection_failure(refused_port: int) -> None:
    transport = GrpcTransport(f"127.0.0.1:{refused_port}", credentials=None, secure=False)
    try:
        with pytest.raises(ConnectionFailure) as raised:
            call(transport, canned.OK)
        assert raised.value.retryable
        assert "refused" in raised.value.message.lower()
    finally:
        transport.close()


def test_a_server_gone_after_the_channel_was_ready_fails_the_next_calls_fast() -> None:
    """Ready channels skip the state check; a failed call makes the next one look again."""
    gone = start_grpc_server()
    transport = GrpcTransport(gone.target, credentials=None, secure=False)
    try:
        assert call(transport, canned.OK) == canned.check_response()
        gone.server.stop(grace=None).wait(5)
        with pytest.raises(Unavailable) as first:  # this call saw a READY channel
            call(transport, canned.OK, timeout=5.0)
        assert first.value.retryable
        with pytest.raises(ConnectionFailure):  # this one looks at the channel again
            call(transport, canned.OK, timeout=5.0)
    finally:
        transport.close()


def test_a_peer_without_http2_is_a_connection_failure() -> None:
    http1 = start_rest_server()
    transport = GrpcTransport(
        f"127.0.0.1:{http1.server_address[1]}", credentials=None, secure=False
    )
    try:
        with pytest.raises(ConnectionFailure):
            call(transport, canned.OK)
    finally:
        transport.close()
        http1.shutdown()
        http1.server_close()


def test_a_failed_tls_handshake_is_a_connection_failure(grpc_server: GrpcServer) -> None:
    transport = GrpcTransport(grpc_server.target, credentials=None, secure=True)
    try:
        with pytest.raises(ConnectionFailure) as raised:
            call(transport, canned.OK)
        assert "handshake" in raised.value.message.lower()
    finally:
        transport.close()


def test_unavailable_sent_by_a_reachable_server_is_not_a_connection_failure(
    transport: GrpcTransport,
) -> None:
    call(transport, canned.OK)
    with pytest.raises(Unavailable) as raised:
        call(transport, canned.UNAVAILABLE)
    assert not isinstance(raised.value, ConnectionFailure)
    assert raised.value.message == canned.UNAVAILABLE_MESSAGE


def test_unavailable_on_the_first_call_of_a_channel_is_not_a_connection_failure(
    transport: GrpcTransport,
) -> None:
    with pytest.raises(Unavailable) as raised:
        call(transport, canned.UNAVAILABLE)
    assert not isinstance(raised.value, ConnectionFailure)


def test_a_bidi_stream_yields_one_response_per_request(
    transport: GrpcTransport, grpc_server: GrpcServer
) -> None:
    requests = [canned.stream_request(text) for text in ("一", "二 🎉", canned.TEXT)]
    responses = list(
        transport.stream(canned.STREAM, requests, timeout=3.0, metadata=canned.METADATA)
    )
    assert responses == list(canned.stream_responses(requests))
    assert grpc_server.seen.metadata[-1]["x-goog-api-client"] == canned.METADATA[1][1]


def test_a_bidi_stream_is_interactive(transport: GrpcTransport) -> None:
    answers: queue.Queue[Message] = queue.Queue()

    def conversation() -> Iterator[Message]:
        yield canned.stream_request("first")
        reply = answers.get(timeout=3)  # sent only after the first answer came back
        yield canned.stream_request(f"after {canned.streamed_text(reply)}")

    texts = []
    for response in transport.stream(canned.STREAM, conversation(), timeout=3.0, metadata=()):
        answers.put(response)
        texts.append(canned.streamed_text(response))
    assert texts == ["0: first", "1: after 0: first"]


def test_closing_a_stream_early_cancels_the_call(transport: GrpcTransport) -> None:
    never_ending = threading.Event()

    def requests() -> Iterator[Message]:
        yield canned.stream_request("one")
        never_ending.wait(timeout=3)

    responses = transport.stream(canned.STREAM, requests(), timeout=5.0, metadata=())
    assert canned.streamed_text(next(responses)) == "0: one"
    responses.close()
    never_ending.set()
    assert call(transport, canned.OK) == canned.check_response()


class RequestsFailed(Exception):
    """The caller's own error, raised by its request generator."""


@pytest.mark.parametrize(
    "failure",
    [RequestsFailed("no second request"), InvalidArgument("requests[1] is not a request")],
)
def test_an_exception_from_the_requests_is_raised_unchanged_after_the_earlier_responses(
    transport: GrpcTransport, failure: Exception
) -> None:
    def requests() -> Iterator[Message]:
        yield canned.stream_request("one")
        raise failure

    responses = transport.stream(canned.STREAM, requests(), timeout=3.0, metadata=())
    assert canned.streamed_text(next(responses)) == "0: one"
    with pytest.raises(type(failure)) as raised:
        next(responses)
    assert raised.value is failure


@pytest.mark.parametrize(
    "target", ["example.com:443", "10.0.0.1:50051", "dns:///example.com", "foo.localhost:50051"]
)
def test_plaintext_is_refused_to_a_host_that_is_not_loopback(target: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        GrpcTransport(target, credentials=None, secure=False)


def test_plaintext_is_refused_with_credentials() -> None:
    from google.oauth2.credentials import Credentials

    with pytest.raises(ValueError, match="credentials"):
        GrpcTransport("127.0.0.1:50051", credentials=Credentials(token="secret"), secure=False)
