"""The HTTP/1.1 pool under the asyncio REST transport: reuse, strict framing, limits, closing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import pytest

from groundwire.core.errors import Internal
from groundwire.core.http_codec import (
    END,
    ResponseHead,
    ResponseParser,
    encode_request,
)
from groundwire.transports import http1_aio, routes
from groundwire.transports.aio_connection import Connection
from groundwire.transports.http1 import PoolClosed
from groundwire.transports.http1_aio import AsyncConnectionPool, AsyncResponse
from tests.transports.pool_server import BODY, LARGE, PoolServer, running_server


@pytest.fixture
def server() -> Iterator[PoolServer]:
    yield from running_server()


@pytest.fixture
async def pool(server: PoolServer) -> AsyncIterator[AsyncConnectionPool]:
    opened = AsyncConnectionPool("http", "127.0.0.1", server.server_address[1])
    yield opened
    await opened.close()


async def post(pool: AsyncConnectionPool, path: str, timeout: float = 3.0) -> AsyncResponse:
    deadline = asyncio.get_running_loop().time() + timeout
    return await pool.request("POST", path, b"{}", {"content-type": "application/json"}, deadline)


async def read(pool: AsyncConnectionPool, path: str, timeout: float = 3.0) -> bytes:
    return await (await post(pool, path, timeout)).read()


async def test_a_connection_is_reused_once_its_response_is_read(
    pool: AsyncConnectionPool, server: PoolServer
) -> None:
    for _ in range(3):
        assert await read(pool, "/plain") == BODY
    assert len(set(server.peers)) == 1


async def test_concurrent_requests_share_at_most_max_connections(server: PoolServer) -> None:
    pool = AsyncConnectionPool("http", "127.0.0.1", server.server_address[1], max_connections=4)

    async def calls() -> list[bytes]:
        return [await read(pool, "/plain") for _ in range(5)]

    try:
        batches = await asyncio.gather(*(calls() for _ in range(16)))
    finally:
        await pool.close()
    assert [body for batch in batches for body in batch] == [BODY] * 80
    assert len(set(server.peers)) == 4


async def test_a_request_waiting_for_a_free_connection_keeps_its_deadline(
    server: PoolServer,
) -> None:
    pool = AsyncConnectionPool("http", "127.0.0.1", server.server_address[1], max_connections=1)
    try:
        slow = asyncio.create_task(read(pool, "/slow", timeout=5.0))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await post(pool, "/plain", timeout=0.3)
        assert time.monotonic() - started < 1.5
        assert await slow == BODY
        assert await read(pool, "/plain") == BODY  # the slot the waiter gave up is not lost
    finally:
        await pool.close()
    assert len(set(server.peers)) == 1


async def test_gzip_bodies_are_decompressed_whole_or_in_chunks(pool: AsyncConnectionPool) -> None:
    assert await read(pool, "/gzip") == BODY
    response = await post(pool, "/gzip-chunked")
    assert b"".join([chunk async for chunk in response.chunks()]) == BODY


async def test_a_broken_gzip_body_is_an_internal_error(pool: AsyncConnectionPool) -> None:
    with pytest.raises(Internal):
        await read(pool, "/broken-gzip")


async def test_headers_are_found_in_any_case(pool: AsyncConnectionPool) -> None:
    response = await post(pool, "/plain")
    await response.read()
    assert response.headers["X-MIXED-CASE"] == response.headers["x-mixed-case"] == "yes"


async def test_a_connection_the_server_closes_is_not_reused(
    pool: AsyncConnectionPool, server: PoolServer
) -> None:
    assert await read(pool, "/close") == BODY
    assert await read(pool, "/plain") == BODY
    assert len(set(server.peers)) == 2


async def test_a_connection_closed_while_idle_is_replaced_before_it_fails_a_call(
    pool: AsyncConnectionPool, server: PoolServer
) -> None:
    assert await read(pool, "/hang-up") == BODY
    await asyncio.sleep(0.1)  # the server's close reaches us
    assert await read(pool, "/plain") == BODY
    assert len(set(server.peers)) == 2


async def test_connections_idle_too_long_are_replaced(
    pool: AsyncConnectionPool, server: PoolServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http1_aio, "IDLE_SECONDS", 0.0)
    for _ in range(2):
        assert await read(pool, "/plain") == BODY
    assert len(set(server.peers)) == 2


async def test_an_abandoned_response_closes_its_connection(
    pool: AsyncConnectionPool, server: PoolServer
) -> None:
    chunks = (await post(pool, "/gzip-chunked")).chunks()
    await anext(chunks)
    await chunks.aclose()
    assert await read(pool, "/plain") == BODY
    assert len(set(server.peers)) == 2


async def test_a_large_body_read_slowly_arrives_whole_and_frees_its_connection(
    pool: AsyncConnectionPool, server: PoolServer
) -> None:
    response = await post(pool, "/large", timeout=20.0)
    pieces = []
    async for chunk in response.chunks():
        pieces.append(chunk)
        await asyncio.sleep(0.002)  # the server sends faster than this reader reads
    assert b"".join(pieces) == LARGE
    assert await read(pool, "/plain") == BODY
    assert len(set(server.peers)) == 1


async def test_a_read_past_the_deadline_raises_timeout_error(pool: AsyncConnectionPool) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await read(pool, "/slow", timeout=0.2)
    assert time.monotonic() - started < 1.5


async def test_a_cancelled_request_leaves_no_half_read_connection_behind(
    pool: AsyncConnectionPool, server: PoolServer
) -> None:
    slow = asyncio.create_task(read(pool, "/slow"))
    await asyncio.sleep(0.3)
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    assert await read(pool, "/plain") == BODY
    assert len(set(server.peers)) == 2


async def test_closing_the_pool_fails_requests_in_flight_and_refuses_new_ones(
    pool: AsyncConnectionPool,
) -> None:
    slow = asyncio.create_task(read(pool, "/slow", timeout=10.0))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    await pool.close()
    with pytest.raises(PoolClosed):
        await asyncio.wait_for(slow, 5.0)
    assert time.monotonic() - started < 1.5
    with pytest.raises(PoolClosed):
        await post(pool, "/plain")


async def test_a_refused_connection_is_a_connect_error(refused_port: int) -> None:
    pool = AsyncConnectionPool("http", "127.0.0.1", refused_port)
    try:
        with pytest.raises(routes.ConnectError, match="ConnectionRefusedError"):
            await post(pool, "/plain")
    finally:
        await pool.close()


async def test_a_connection_stops_reading_a_body_nobody_reads_until_someone_does(
    server: PoolServer,
) -> None:
    loop = asyncio.get_running_loop()
    transport, connection = await loop.create_connection(
        Connection, "127.0.0.1", server.server_address[1]
    )
    try:
        request = encode_request("POST", "/large", [("host", "127.0.0.1")], b"{}")
        connection.send(ResponseParser(), request, None)
        assert isinstance(await connection.next_event(), ResponseHead)
        await asyncio.sleep(0.5)  # the server sends all it can meanwhile
        assert not transport.is_reading()
        pieces = []
        while (event := await connection.next_event()) is not END:
            assert isinstance(event, bytes)
            pieces.append(event)
        assert b"".join(pieces) == LARGE
        assert transport.is_reading()
    finally:
        connection.fail(ConnectionResetError("the test is over"))
