"""The asyncio REST transport against a real HTTP/1.1 server on loopback."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from groundwire.core.errors import (
    ClientClosed,
    DeadlineExceeded,
    Internal,
    InvalidArgument,
    Unavailable,
)
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.rest import SYSTEM_QUERY
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.reliability.raw_servers import RawServer, http_reply
from tests.transports import canned, servers
from tests.transports.servers import RestServer


@pytest.fixture
async def transport(rest_server: RestServer) -> AsyncIterator[AsyncRestTransport]:
    opened = AsyncRestTransport(rest_server.base_url, credentials=None)
    yield opened
    await opened.close()


async def call(transport: AsyncRestTransport, answer: str, timeout: float = 3.0) -> Message:
    return await transport.unary(
        canned.CHECK, canned.check_request(answer), timeout=timeout, metadata=canned.METADATA
    )


async def test_a_unary_call_returns_the_response_with_cjk_and_emoji_intact(
    transport: AsyncRestTransport, rest_server: RestServer
) -> None:
    assert await call(transport, canned.OK) == canned.check_response()
    for name, value in canned.METADATA:
        assert rest_server.seen.metadata[-1][name] == value


async def test_a_google_json_error_with_details_is_the_same_error_as_over_grpc(
    transport: AsyncRestTransport,
) -> None:
    with pytest.raises(InvalidArgument) as raised:
        await call(transport, canned.INVALID)
    bad_request = raised.value.detail(error_details_pb2.BadRequest)
    assert bad_request is not None
    assert list(bad_request.field_violations) == [canned.VIOLATION]


async def test_a_proxys_html_502_page_is_unavailable_with_an_excerpt(
    transport: AsyncRestTransport,
) -> None:
    with pytest.raises(Unavailable) as raised:
        await call(transport, servers.HTML)
    assert "Bad Gateway" in raised.value.message


@pytest.mark.parametrize("answer", [servers.GARBAGE, servers.TRUNCATED, servers.ARRAY])
async def test_a_2xx_body_that_is_not_the_message_is_an_internal_error(
    transport: AsyncRestTransport, answer: str
) -> None:
    with pytest.raises(Internal):
        await call(transport, answer)


@pytest.mark.parametrize("answer", [servers.DROP, servers.CUT])
async def test_a_dropped_connection_is_a_retryable_unavailable(
    transport: AsyncRestTransport, answer: str
) -> None:
    with pytest.raises(Unavailable) as raised:
        await call(transport, answer)
    assert not isinstance(raised.value, ConnectionFailure)


async def test_a_call_past_its_timeout_raises_deadline_exceeded(
    transport: AsyncRestTransport,
) -> None:
    with pytest.raises(DeadlineExceeded):
        await call(transport, canned.SLOW, timeout=0.2)


async def test_a_refused_port_is_a_connection_failure(refused_port: int) -> None:
    transport = AsyncRestTransport(f"http://127.0.0.1:{refused_port}", credentials=None)
    try:
        with pytest.raises(ConnectionFailure):
            await call(transport, canned.OK)
    finally:
        await transport.close()


async def test_a_live_async_stream_is_refused_clearly(
    transport: AsyncRestTransport, rest_server: RestServer
) -> None:
    async def requests() -> AsyncIterator[Message]:
        for text in ("一", "二 🎉"):
            yield canned.stream_request(text)

    with pytest.raises(InvalidArgument, match="gRPC-only"):
        async for _ in transport.stream(
            canned.STREAM, requests(), timeout=3.0, metadata=canned.METADATA
        ):
            pass
    assert rest_server.seen.calls == 0


async def test_a_stream_yields_each_element_as_soon_as_it_has_arrived(
    transport: AsyncRestTransport, rest_server: RestServer
) -> None:
    rest_server.gate = threading.Event()
    requests = [canned.stream_request(text) for text in ("a", "b", "c")]
    texts = []
    async for response in transport.stream(canned.STREAM, requests, timeout=5.0, metadata=()):
        texts.append(canned.streamed_text(response))
        rest_server.gate.set()
    assert texts == ["0: a", "1: b", "2: c"]
    assert rest_server.gate_passed is True


async def test_a_stream_past_its_timeout_raises_deadline_exceeded(
    transport: AsyncRestTransport, rest_server: RestServer
) -> None:
    rest_server.gate = threading.Event()  # never set: the server stalls after one element
    requests = [canned.stream_request(text) for text in ("a", "b")]
    responses = transport.stream(canned.STREAM, requests, timeout=0.5, metadata=())
    assert canned.streamed_text(await anext(responses)) == "0: a"
    with pytest.raises(DeadlineExceeded):
        await anext(responses)
    rest_server.gate.set()
    await asyncio.sleep(0)


async def test_a_truncated_stream_is_an_internal_error(transport: AsyncRestTransport) -> None:
    requests = [canned.stream_request(servers.STREAM_TRUNCATED), canned.stream_request("b")]
    with pytest.raises(Internal):
        async for _ in transport.stream(canned.STREAM, requests, timeout=3.0, metadata=()):
            pass


async def test_a_call_names_its_host_asks_for_gzip_and_gives_its_length(
    transport: AsyncRestTransport, rest_server: RestServer
) -> None:
    await call(transport, canned.OK)
    sent = rest_server.seen.metadata[-1]
    assert sent["host"] == f"127.0.0.1:{rest_server.server_address[1]}"
    assert sent["accept-encoding"] == "gzip"
    assert int(sent["content-length"]) == len(rest_server.seen.bodies[-1])
    assert rest_server.seen.paths[-1].endswith(SYSTEM_QUERY)


async def test_a_response_that_breaks_http_is_a_retryable_unavailable_naming_it() -> None:
    two_ways = http_reply(
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    )
    with RawServer(two_ways) as server:
        transport = AsyncRestTransport(server.url, credentials=None)
        try:
            with pytest.raises(Unavailable) as raised:
                await call(transport, canned.OK)
        finally:
            await transport.close()
    assert "broke HTTP/1.1" in raised.value.message
    assert raised.value.retryable
    assert not isinstance(raised.value, ConnectionFailure)


async def test_calls_after_close_are_client_closed(transport: AsyncRestTransport) -> None:
    await transport.close()
    with pytest.raises(ClientClosed):
        await call(transport, canned.OK)
