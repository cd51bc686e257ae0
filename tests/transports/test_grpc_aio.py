"""The asyncio gRPC transport against a real grpc.aio server on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingResponse,
)

from groundwire.core.errors import DeadlineExceeded, InvalidArgument, Unavailable
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.grpc_aio import AsyncGrpcTransport
from tests.support.typed import typed
from tests.transports import canned
from tests.transports.servers import GrpcServer, start_aio_grpc_server


@pytest.fixture
async def transport(aio_grpc_server: GrpcServer) -> AsyncIterator[AsyncGrpcTransport]:
    opened = AsyncGrpcTransport(aio_grpc_server.target, credentials=None, secure=False)
    yield opened
    await opened.close()


async def call(
    transport: AsyncGrpcTransport, answer: str, timeout: float = 3.0
) -> CheckGroundingResponse:
    response = await transport.unary(
        canned.CHECK, canned.check_request(answer), timeout=timeout, metadata=canned.METADATA
    )
    return typed(CheckGroundingResponse, response)


async def test_a_unary_call_returns_the_response_with_cjk_and_emoji_intact(
    transport: AsyncGrpcTransport,
) -> None:
    response = await call(transport, canned.OK)
    assert response == canned.check_response()
    assert response.cited_chunks[0].chunk_text == canned.TEXT


async def test_metadata_arrives_at_the_server(
    transport: AsyncGrpcTransport, aio_grpc_server: GrpcServer
) -> None:
    await call(transport, canned.OK)
    received = aio_grpc_server.seen.metadata[-1]
    for name, value in canned.METADATA:
        assert received[name] == value


async def test_a_status_with_rich_details_becomes_the_matching_error(
    transport: AsyncGrpcTransport,
) -> None:
    with pytest.raises(InvalidArgument) as raised:
        await call(transport, canned.INVALID)
    bad_request = raised.value.detail(error_details_pb2.BadRequest)
    assert bad_request is not None
    assert list(bad_request.field_violations) == [canned.VIOLATION]


async def test_a_call_past_its_timeout_raises_deadline_exceeded(
    transport: AsyncGrpcTransport,
) -> None:
    with pytest.raises(DeadlineExceeded):
        await call(transport, canned.SLOW, timeout=0.2)


async def test_a_refused_port_is_a_connection_failure(refused_port: int) -> None:
    transport = AsyncGrpcTransport(f"127.0.0.1:{refused_port}", credentials=None, secure=False)
    try:
        with pytest.raises(ConnectionFailure):
            await call(transport, canned.OK)
    finally:
        await transport.close()


async def test_a_failed_tls_handshake_is_a_connection_failure(aio_grpc_server: GrpcServer) -> None:
    transport = AsyncGrpcTransport(aio_grpc_server.target, credentials=None, secure=True)
    try:
        with pytest.raises(ConnectionFailure):
            await call(transport, canned.OK)
    finally:
        await transport.close()


async def test_unavailable_sent_by_a_reachable_server_is_not_a_connection_failure(
    transport: AsyncGrpcTransport,
) -> None:
    with pytest.raises(Unavailable) as raised:
        await call(transport, canned.UNAVAILABLE)
    assert not isinstance(raised.value, ConnectionFailure)
    assert raised.value.message == canned.UNAVAILABLE_MESSAGE


async def test_a_bidi_stream_yields_one_response_per_request(
    transport: AsyncGrpcTransport, aio_grpc_server: GrpcServer
) -> None:
    requests = [canned.stream_request(text) for text in ("一", "二 🎉", canned.TEXT)]
    responses = [
        r
        async for r in transport.stream(
            canned.STREAM, requests, timeout=3.0, metadata=canned.METADATA
        )
    ]
    assert responses == list(canned.stream_responses(requests))
    assert aio_grpc_server.seen.metadata[-1]["x-goog-user-project"] == "quota-project"


async def test_a_bidi_stream_is_interactive_with_an_async_generator(
    transport: AsyncGrpcTransport,
) -> None:
    answers: asyncio.Queue[Message] = asyncio.Queue()

    async def conversation() -> AsyncIterator[Message]:
        yield canned.stream_request("first")
        reply = await asyncio.wait_for(answers.get(), timeout=3)
        yield canned.stream_request(f"after {canned.streamed_text(reply)}")

    texts = []
    async for response in transport.stream(canned.STREAM, conversation(), timeout=3.0, metadata=()):
        await answers.put(response)
        texts.append(canned.streamed_text(response))
    assert texts == ["0: first", "1: after 0: first"]


async def test_a_stream_past_its_timeout_raises_deadline_exceeded(
    transport: AsyncGrpcTransport,
) -> None:
    async def slow_requests() -> AsyncIterator[Message]:
        yield canned.stream_request("one")
        await asyncio.sleep(2)
        yield canned.stream_request("two")

    responses = transport.stream(canned.STREAM, slow_requests(), timeout=0.3, metadata=())
    with pytest.raises(DeadlineExceeded):
        async for _ in responses:
            pass


class RequestsFailed(Exception):
    """The caller's own error, raised by its request generator."""


@pytest.mark.parametrize(
    "failure",
    [RequestsFailed("no second request"), InvalidArgument("requests[1] is not a request")],
)
async def test_an_exception_from_the_requests_is_raised_unchanged_not_a_cancellation(
    transport: AsyncGrpcTransport, failure: Exception
) -> None:
    async def requests() -> AsyncIterator[Message]:
        yield canned.stream_request("one")
        raise failure

    responses = transport.stream(canned.STREAM, requests(), timeout=3.0, metadata=())
    assert canned.streamed_text(await anext(responses)) == "0: one"
    with pytest.raises(type(failure)) as raised:
        await anext(responses)
    assert raised.value is failure


async def test_a_transport_built_in_a_worker_thread_works_in_the_event_loop(
    aio_grpc_server: GrpcServer,
) -> None:
    transport = await asyncio.to_thread(
        AsyncGrpcTransport, aio_grpc_server.target, credentials=None, secure=False
    )
    try:
        assert await call(transport, canned.OK) == canned.check_response()
    finally:
        await transport.close()


async def test_a_server_gone_after_the_channel_was_ready_fails_the_next_calls_fast() -> None:
    """Ready channels skip the state check; a failed call makes the next one look again."""
    gone = await start_aio_grpc_server()
    transport = AsyncGrpcTransport(gone.target, credentials=None, secure=False)
    try:
        assert await call(transport, canned.OK) == canned.check_response()
        await gone.server.stop(grace=None)
        with pytest.raises(Unavailable) as first:  # this call saw a READY channel
            await call(transport, canned.OK, timeout=5.0)
        assert first.value.retryable
        with pytest.raises(ConnectionFailure):  # this one looks at the channel again
            await call(transport, canned.OK, timeout=5.0)
    finally:
        await transport.close()
