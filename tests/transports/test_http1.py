"""Both HTTP/1.1 pools, blocking and asyncio, held to the same rules, then each to its own.

The same rules: reuse, gzip, strict framing (what a careless or hostile server sends),
timeouts, refusals. Then threads for the blocking pool, tasks and back-pressure for asyncio.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent import futures

import pytest

from groundwire.contract.errors import Internal
from groundwire.transports import http1, routes
from groundwire.transports.aio_connection import Connection
from groundwire.transports.http1 import PoolClosed
from groundwire.transports.http1_aio import AsyncConnectionPool
from groundwire.wire.http_codec import END, ProtocolError, ResponseHead, ResponseParser
from groundwire.wire.http_codec import encode_request as encode_http_request
from tests.reliability.raw_servers import RawServer, _read_request
from tests.transports.kinds import HEADERS, KINDS, Kind, Pool
from tests.transports.pool_server import BODY, LARGE, PoolServer, running_server

PROMPTLY = 10.0
"""Seconds within which a timeout or a close ends a call that /slow holds (generous)."""


@pytest.fixture
def server() -> Iterator[PoolServer]:
    yield from running_server()


@pytest.fixture(params=KINDS)
def pool(request: pytest.FixtureRequest, server: PoolServer) -> Iterator[Pool]:
    opened = Pool(request.param, server.server_address[1])
    yield opened
    opened.close()


def test_a_connection_is_reused_once_its_response_is_read(pool: Pool, server: PoolServer) -> None:
    for _ in range(3):
        assert pool.read("/plain") == BODY
    assert len(set(server.peers)) == 1


def test_gzip_bodies_are_decompressed_whole_or_in_chunks(pool: Pool) -> None:
    assert pool.read("/gzip") == BODY
    assert b"".join(pool.chunks(pool.post("/gzip-chunked"))) == BODY


def test_a_broken_gzip_body_is_an_internal_error(pool: Pool) -> None:
    with pytest.raises(Internal):
        pool.read("/broken-gzip")


def test_headers_are_found_in_any_case(pool: Pool) -> None:
    response = pool.post("/plain")
    pool.run(response.read())
    assert response.headers["X-MIXED-CASE"] == response.headers["x-mixed-case"] == "yes"


def test_a_connection_the_server_closes_is_not_reused(pool: Pool, server: PoolServer) -> None:
    assert pool.read("/close") == BODY
    assert pool.read("/plain") == BODY
    assert len(set(server.peers)) == 2


def test_a_connection_closed_while_idle_is_replaced_before_it_fails_a_call(
    pool: Pool, server: PoolServer
) -> None:
    assert pool.read("/hang-up") == BODY
    assert server.hung_up.wait(timeout=5.0)  # on loopback, its close has then reached us
    pool.pause(0.05)  # and an asyncio pool's loop has a turn to read it
    assert pool.read("/plain") == BODY
    assert len(set(server.peers)) == 2


def test_connections_idle_too_long_are_replaced(
    pool: Pool, server: PoolServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool.module, "IDLE_SECONDS", 0.0)
    for _ in range(2):
        assert pool.read("/plain") == BODY
    assert len(set(server.peers)) == 2


def test_an_abandoned_response_closes_its_connection(pool: Pool, server: PoolServer) -> None:
    pool.first_chunk_only(pool.post("/gzip-chunked"))
    assert pool.read("/plain") == BODY
    assert len(set(server.peers)) == 2


def test_a_read_past_the_timeout_raises_timeout_error(pool: Pool) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        pool.read("/slow", timeout=0.2)
    assert time.monotonic() - started < PROMPTLY


@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_connection_is_a_connect_error(kind: Kind, refused_port: int) -> None:
    pool = Pool(kind, refused_port)
    try:
        with pytest.raises(routes.ConnectError, match="ConnectionRefusedError"):
            pool.post("/plain")
    finally:
        pool.close()


def reply(body: bytes, *headers: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n" % len(body) + b"".join(
        header + b"\r\n" for header in headers
    )
    return head + b"\r\n" + body


class Scripted:
    """A raw server's handler: each request, on any connection, gets the next reply in turn.

    The server keeps every connection open after its reply (whatever the reply says), so
    only the client can decide not to use it again. `late` bytes follow the first reply
    after a pause, on a connection that is idle by then.
    """

    def __init__(self, *replies: bytes, late: bytes = b"") -> None:
        self._replies = deque(replies)
        self._late = late
        self._lock = threading.Lock()
        self.connections = 0

    def __call__(self, connection: socket.socket, stop: threading.Event) -> None:
        with self._lock:
            self.connections += 1
        while _read_request(connection, stop):
            with self._lock:
                if not self._replies:
                    return
                answer, late, self._late = self._replies.popleft(), self._late, b""
            connection.sendall(answer)
            if late:
                time.sleep(0.1)
                connection.sendall(late)


def read_all(kind: Kind, port: int, count: int, pause: float = 0.0) -> list[bytes]:
    """`count` bodies read in turn on one new pool of `kind`, `pause` s after the first."""
    pool = Pool(kind, port)
    try:
        bodies = []
        for index in range(count):
            pool.pause(pause if index == 1 else 0.0)
            bodies.append(pool.read("/"))
        return bodies
    finally:
        pool.close()


@pytest.mark.parametrize("kind", KINDS)
def test_one_kept_alive_connection_carries_request_after_request(kind: Kind) -> None:
    script = Scripted(reply(b"one"), reply(b"two"), reply(b"three"))
    with RawServer(script) as raw:
        assert read_all(kind, raw.port, 3) == [b"one", b"two", b"three"]
    assert script.connections == 1


@pytest.mark.parametrize("kind", KINDS)
def test_bytes_after_a_response_are_never_read_as_the_next_answer(kind: Kind) -> None:
    script = Scripted(reply(b"first") + reply(b"smuggled"), reply(b"second"))
    with RawServer(script) as raw:
        assert read_all(kind, raw.port, 2) == [b"first", b"second"]
    assert script.connections == 2


@pytest.mark.parametrize("kind", KINDS)
def test_bytes_an_idle_connection_receives_retire_it(kind: Kind) -> None:
    script = Scripted(reply(b"first"), reply(b"second"), late=reply(b"smuggled"))
    with RawServer(script) as raw:
        # the late bytes arrive while the connection is idle
        assert read_all(kind, raw.port, 2, pause=0.4) == [b"first", b"second"]
    assert script.connections == 2


@pytest.mark.parametrize("kind", KINDS)
def test_connection_close_is_honoured_even_when_the_server_keeps_it_open(kind: Kind) -> None:
    script = Scripted(reply(b"first", b"Connection: close"), reply(b"second"))
    with RawServer(script) as raw:
        assert read_all(kind, raw.port, 2) == [b"first", b"second"]
    assert script.connections == 2


FRAMED_TWO_WAYS = (
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled"
)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "raw_reply",
    [
        FRAMED_TWO_WAYS,
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX-Big: " + b"x" * (70 * 1024) + b"\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n folded: header\r\n\r\nok",
        b"HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\nok",
    ],
    ids=[
        "length and chunked",
        "two lengths",
        "negative chunk size",
        "chunk longer than its size",
        "oversized head",
        "folded header",
        "unknown version",
    ],
)
def test_a_malformed_or_ambiguous_response_is_a_protocol_error(
    raw_reply: bytes, kind: Kind
) -> None:
    script = Scripted(raw_reply, reply(b"never read"))
    with RawServer(script) as raw, pytest.raises(ProtocolError):
        read_all(kind, raw.port, 1)


def hang_up_after(raw_reply: bytes) -> Callable[[socket.socket, threading.Event], None]:
    """A raw server's handler: answers one request with `raw_reply`, then closes."""

    def handle(connection: socket.socket, stop: threading.Event) -> None:
        if _read_request(connection, stop):
            connection.sendall(raw_reply)

    return handle


@pytest.mark.parametrize("kind", KINDS)
def test_a_body_cut_short_by_the_server_is_a_dropped_connection_not_a_short_answer(
    kind: Kind,
) -> None:
    cut_short = hang_up_after(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
    with RawServer(cut_short) as raw, pytest.raises(ConnectionResetError):
        read_all(kind, raw.port, 1)


@pytest.mark.parametrize("kind", KINDS)
def test_a_body_without_a_length_ends_when_the_server_closes(kind: Kind) -> None:
    with RawServer(hang_up_after(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")) as raw:
        assert read_all(kind, raw.port, 1) == [b"until the end"]


# What only the blocking pool has to show: threads, and closing from another thread.


@pytest.fixture
def sync_pool(server: PoolServer) -> Iterator[http1.ConnectionPool]:
    opened = http1.ConnectionPool("http", "127.0.0.1", server.server_address[1])
    yield opened
    opened.close()


def post(pool: http1.ConnectionPool, path: str, timeout: float = 3.0) -> http1.Response:
    return pool.request("POST", path, b"{}", HEADERS, timeout)


def test_threads_share_the_pool_each_on_a_connection_of_its_own(
    sync_pool: http1.ConnectionPool, server: PoolServer
) -> None:
    def calls(_: int) -> list[bytes]:
        return [post(sync_pool, "/plain").read() for _ in range(10)]

    with futures.ThreadPoolExecutor(16) as threads:
        bodies = [body for batch in threads.map(calls, range(16)) for body in batch]
    assert bodies == [BODY] * 160
    assert len(set(server.peers)) <= 16


def test_closing_the_pool_fails_the_calls_in_flight_and_refuses_new_ones(
    sync_pool: http1.ConnectionPool, server: PoolServer
) -> None:
    failures: list[BaseException] = []

    def slow_call() -> None:
        try:
            post(sync_pool, "/slow", timeout=30.0).read()
        except BaseException as error:
            failures.append(error)

    caller = threading.Thread(target=slow_call)
    caller.start()
    assert server.slow_started.wait(timeout=5.0)  # the slow call is in flight
    started = time.monotonic()
    sync_pool.close()
    caller.join(PROMPTLY)
    assert time.monotonic() - started < PROMPTLY
    assert len(failures) == 1
    assert isinstance(failures[0], http1.WIRE_ERRORS)
    with pytest.raises(RuntimeError):
        post(sync_pool, "/plain")


def test_a_proxy_url_without_http_is_not_supported() -> None:
    with pytest.raises(routes.ProxyNotSupported):
        routes.parse_proxy("https://proxy.internal:3128")
    assert routes.parse_proxy("proxy.internal").port == 80


# What only the asyncio pool has to show: tasks sharing it, cancelling, reading back-pressure.


async def read(pool: AsyncConnectionPool, path: str, timeout: float = 3.0) -> bytes:
    deadline = asyncio.get_running_loop().time() + timeout
    response = await pool.request("POST", path, b"{}", HEADERS, deadline)
    return await response.read()


@pytest.fixture
async def aio_pool(server: PoolServer) -> AsyncIterator[AsyncConnectionPool]:
    opened = AsyncConnectionPool("http", "127.0.0.1", server.server_address[1])
    yield opened
    await opened.close()


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
        slow = asyncio.create_task(read(pool, "/slow", timeout=30.0))
        assert await asyncio.to_thread(server.slow_started.wait, 5.0)  # it holds the connection
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await read(pool, "/plain", timeout=0.3)
        assert time.monotonic() - started < PROMPTLY
        server.slow_released.set()
        assert await slow == BODY
        assert await read(pool, "/plain") == BODY  # the slot the waiter gave up is not lost
    finally:
        await pool.close()
    assert len(set(server.peers)) == 1


async def test_a_large_body_read_slowly_arrives_whole_and_frees_its_connection(
    aio_pool: AsyncConnectionPool, server: PoolServer
) -> None:
    deadline = asyncio.get_running_loop().time() + 20.0
    response = await aio_pool.request("POST", "/large", b"{}", HEADERS, deadline)
    pieces = []
    async for chunk in response.chunks():
        pieces.append(chunk)
        await asyncio.sleep(0.002)  # the server sends faster than this reader reads
    assert b"".join(pieces) == LARGE
    assert await read(aio_pool, "/plain") == BODY
    assert len(set(server.peers)) == 1


async def test_a_cancelled_request_leaves_no_half_read_connection_behind(
    aio_pool: AsyncConnectionPool, server: PoolServer
) -> None:
    slow = asyncio.create_task(read(aio_pool, "/slow"))
    await asyncio.to_thread(server.slow_started.wait, 5.0)  # the slow request is in flight
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    assert await read(aio_pool, "/plain") == BODY
    assert len(set(server.peers)) == 2


async def test_closing_the_pool_fails_requests_in_flight_and_refuses_new_ones(
    aio_pool: AsyncConnectionPool, server: PoolServer
) -> None:
    slow = asyncio.create_task(read(aio_pool, "/slow", timeout=30.0))
    assert await asyncio.to_thread(server.slow_started.wait, 5.0)  # the request is in flight
    started = time.monotonic()
    await aio_pool.close()
    with pytest.raises(PoolClosed):
        await asyncio.wait_for(slow, 5.0)
    assert time.monotonic() - started < PROMPTLY
    with pytest.raises(PoolClosed):
        await read(aio_pool, "/plain")


async def test_a_connection_stops_reading_a_body_nobody_reads_until_someone_does(
    server: PoolServer,
) -> None:
    loop = asyncio.get_running_loop()
    transport, connection = await loop.create_connection(
        Connection, "127.0.0.1", server.server_address[1]
    )
    try:
        request = encode_http_request("POST", "/large", [("host", "127.0.0.1")], b"{}")
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
