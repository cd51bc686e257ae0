"""Both gRPC transports, blocking and asyncio, against a real gRPC server on loopback."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from groundwire.contract.errors import DeadlineExceeded, InvalidArgument, Unavailable
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.grpc import GrpcTransport
from groundwire.transports.grpc_aio import AsyncGrpcTransport
from tests.transports import canned
from tests.transports.kinds import Transports
from tests.transports.servers import GrpcServer, start_grpc_server, start_rest_server


@pytest.fixture
def transport(kinds: Transports, grpc_server: GrpcServer) -> Any:
    return kinds.grpc(grpc_server.target, credentials=None, secure=False)


def test_a_unary_call_returns_the_response_with_cjk_and_emoji_intact(
    kinds: Transports, transport: Any
) -> None:
    response = kinds.check(transport, canned.OK)
    assert response == canned.check_response()
    assert response.cited_chunks[0].chunk_text == canned.TEXT


def test_metadata_arrives_at_the_server(
    kinds: Transports, transport: Any, grpc_server: GrpcServer
) -> None:
    kinds.check(transport, canned.OK)
    received = grpc_server.seen.metadata[-1]
    for name, value in canned.METADATA:
        assert received[name] == value


def test_user_agent_is_set_on_the_channel(kinds: Transports, grpc_server: GrpcServer) -> None:
    transport = kinds.grpc(
        grpc_server.target, credentials=None, secure=False, user_agent="groundwire/0.1.0"
    )
    kinds.check(transport, canned.OK)
    assert grpc_server.seen.metadata[-1]["user-agent"].startswith("groundwire/0.1.0 ")


def test_a_status_with_rich_details_becomes_the_matching_error(
    kinds: Transports, transport: Any
) -> None:
    with pytest.raises(InvalidArgument) as raised:
        kinds.check(transport, canned.INVALID)
    assert raised.value.message == canned.INVALID_MESSAGE
    bad_request = raised.value.detail(error_details_pb2.BadRequest)
    assert bad_request is not None
    assert list(bad_request.field_violations) == [canned.VIOLATION]


def test_a_call_past_its_timeout_raises_deadline_exceeded(
    kinds: Transports, transport: Any
) -> None:
    kinds.check(transport)  # connected first: the timeout, not a slow connect, ends the call
    with pytest.raises(DeadlineExceeded) as raised:
        kinds.check(transport, canned.SLOW, timeout=0.2)
    assert raised.value.retryable


def test_a_refused_port_is_a_connection_failure(kinds: Transports, refused_port: int) -> None:
    transport = kinds.grpc(f"127.0.0.1:{refused_port}", credentials=None, secure=False)
    with pytest.raises(ConnectionFailure) as raised:
        kinds.check(transport, canned.OK)
    assert raised.value.retryable
    assert "refused" in raised.value.message.lower()


def test_a_server_gone_after_the_channel_was_ready_fails_the_next_calls_fast(
    kinds: Transports,
) -> None:
    """Ready channels skip the state check; a failed call makes the next one look again."""
    gone = start_grpc_server()
    transport = kinds.grpc(gone.target, credentials=None, secure=False)
    assert kinds.check(transport, canned.OK) == canned.check_response()
    gone.server.stop(grace=None).wait(5)
    with pytest.raises(Unavailable) as first:  # this call saw a READY channel
        kinds.check(transport, canned.OK, timeout=5.0)
    assert first.value.retryable
    with pytest.raises(ConnectionFailure):  # this one looks at the channel again
        kinds.check(transport, canned.OK, timeout=5.0)


def test_a_peer_without_http2_is_a_connection_failure(kinds: Transports) -> None:
    http1 = start_rest_server()
    transport = kinds.grpc(f"127.0.0.1:{http1.server_address[1]}", credentials=None, secure=False)
    try:
        with pytest.raises(ConnectionFailure):
            kinds.check(transport, canned.OK)
    finally:
        http1.shutdown()
        http1.server_close()


def test_a_failed_tls_handshake_is_a_connection_failure(
    kinds: Transports, grpc_server: GrpcServer
) -> None:
    transport = kinds.grpc(grpc_server.target, credentials=None, secure=True)
    with pytest.raises(ConnectionFailure) as raised:
        kinds.check(transport, canned.OK)
    assert "handshake" in raised.value.message.lower()


def test_unavailable_sent_by_a_reachable_server_is_not_a_connection_failure(
    kinds: Transports, transport: Any
) -> None:
    kinds.check(transport, canned.OK)
    with pytest.raises(Unavailable) as raised:
        kinds.check(transport, canned.UNAVAILABLE)
    assert not isinstance(raised.value, ConnectionFailure)
    assert raised.value.message == canned.UNAVAILABLE_MESSAGE


def test_unavailable_on_the_first_call_of_a_channel_is_not_a_connection_failure(
    kinds: Transports, transport: Any
) -> None:
    with pytest.raises(Unavailable) as raised:
        kinds.check(transport, canned.UNAVAILABLE)
    assert not isinstance(raised.value, ConnectionFailure)


def test_a_bidi_stream_yields_one_response_per_request(
    kinds: Transports, transport: Any, grpc_server: GrpcServer
) -> None:
    requests = [canned.stream_request(text) for text in ("一", "二 🎉", canned.TEXT)]
    responses = kinds.stream(transport, requests, metadata=canned.METADATA)
    assert responses == list(canned.stream_responses(requests))
    assert grpc_server.seen.metadata[-1]["x-goog-api-client"] == canned.METADATA[1][1]
    assert grpc_server.seen.metadata[-1]["x-goog-user-project"] == "quota-project"


class RequestsFailed(Exception):
    """The caller's own error, raised by its request generator."""


@pytest.mark.parametrize(
    "failure",
    [RequestsFailed("no second request"), InvalidArgument("requests[1] is not a request")],
)
def test_an_exception_from_the_requests_is_raised_unchanged_after_the_earlier_responses(
    kinds: Transports, transport: Any, failure: Exception
) -> None:
    def requests() -> Iterator[Message]:
        yield canned.stream_request("one")
        raise failure

    texts: list[str] = []
    with pytest.raises(type(failure)) as raised:
        kinds.stream(
            transport, kinds.live(requests()), each=lambda r: texts.append(canned.streamed_text(r))
        )
    assert raised.value is failure
    assert texts == ["0: one"]


@pytest.mark.parametrize("transport_class", [GrpcTransport, AsyncGrpcTransport])
@pytest.mark.parametrize(
    "target", ["example.com:443", "10.0.0.1:50051", "dns:///example.com", "foo.localhost:50051"]
)
def test_plaintext_is_refused_to_a_host_that_is_not_loopback(
    transport_class: type[Any], target: str
) -> None:
    with pytest.raises(ValueError, match="loopback"):
        transport_class(target, credentials=None, secure=False)


@pytest.mark.parametrize("transport_class", [GrpcTransport, AsyncGrpcTransport])
def test_plaintext_is_refused_with_credentials(transport_class: type[Any]) -> None:
    from google.oauth2.credentials import Credentials

    with pytest.raises(ValueError, match="credentials"):
        transport_class("127.0.0.1:50051", credentials=Credentials(token="secret"), secure=False)


# What only the blocking transport has to show: a live exchange from a generator, cancelling.


@pytest.fixture
def sync_transport(grpc_server: GrpcServer) -> Iterator[GrpcTransport]:
    opened = GrpcTransport(grpc_server.target, credentials=None, secure=False)
    yield opened
    opened.close()


def test_a_bidi_stream_is_interactive(sync_transport: GrpcTransport) -> None:
    answers: queue.Queue[Message] = queue.Queue()

    def conversation() -> Iterator[Message]:
        yield canned.stream_request("first")
        reply = answers.get(timeout=30)  # sent only after the first answer came back
        yield canned.stream_request(f"after {canned.streamed_text(reply)}")

    texts = []
    for response in sync_transport.stream(canned.STREAM, conversation(), timeout=30.0, metadata=()):
        answers.put(response)
        texts.append(canned.streamed_text(response))
    assert texts == ["0: first", "1: after 0: first"]


def test_closing_a_stream_early_cancels_the_call(sync_transport: GrpcTransport) -> None:
    never_ending = threading.Event()

    def requests() -> Iterator[Message]:
        yield canned.stream_request("one")
        never_ending.wait(timeout=3)

    responses = sync_transport.stream(canned.STREAM, requests(), timeout=5.0, metadata=())
    assert canned.streamed_text(next(responses)) == "0: one"
    responses.close()
    never_ending.set()
    response = sync_transport.unary(
        canned.CHECK, canned.check_request(), timeout=30.0, metadata=canned.METADATA
    )
    assert response == canned.check_response()


# What only the asyncio transport has to show: an async generator, its loop, its thread.


@pytest.fixture
async def aio_transport(aio_grpc_server: GrpcServer) -> AsyncIterator[AsyncGrpcTransport]:
    opened = AsyncGrpcTransport(aio_grpc_server.target, credentials=None, secure=False)
    yield opened
    await opened.close()


async def test_a_bidi_stream_is_interactive_with_an_async_generator(
    aio_transport: AsyncGrpcTransport,
) -> None:
    answers: asyncio.Queue[Message] = asyncio.Queue()

    async def conversation() -> AsyncIterator[Message]:
        yield canned.stream_request("first")
        reply = await asyncio.wait_for(answers.get(), timeout=30)
        yield canned.stream_request(f"after {canned.streamed_text(reply)}")

    texts = []
    async for response in aio_transport.stream(
        canned.STREAM, conversation(), timeout=30.0, metadata=()
    ):
        await answers.put(response)
        texts.append(canned.streamed_text(response))
    assert texts == ["0: first", "1: after 0: first"]


async def test_a_stream_past_its_timeout_raises_deadline_exceeded(
    aio_transport: AsyncGrpcTransport,
) -> None:
    async def slow_requests() -> AsyncIterator[Message]:
        yield canned.stream_request("one")
        await asyncio.sleep(2)
        yield canned.stream_request("two")

    responses = aio_transport.stream(canned.STREAM, slow_requests(), timeout=0.3, metadata=())
    with pytest.raises(DeadlineExceeded):
        async for _ in responses:
            pass


async def test_a_transport_built_in_a_worker_thread_works_in_the_event_loop(
    aio_grpc_server: GrpcServer,
) -> None:
    transport = await asyncio.to_thread(
        AsyncGrpcTransport, aio_grpc_server.target, credentials=None, secure=False
    )
    try:
        response = await transport.unary(
            canned.CHECK, canned.check_request(), timeout=30.0, metadata=canned.METADATA
        )
        assert response == canned.check_response()
    finally:
        await transport.close()
