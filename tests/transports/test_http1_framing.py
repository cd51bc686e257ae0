"""Strict framing, held by both HTTP/1.1 pools: what a careless or hostile server sends."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Literal

import pytest

from groundwire.core.http_codec import ProtocolError
from groundwire.transports.http1 import ConnectionPool
from groundwire.transports.http1_aio import AsyncConnectionPool
from tests.reliability.raw_servers import RawServer, _read_request

Kind = Literal["sync", "async"]
KINDS: list[Kind] = ["sync", "async"]
HEADERS = {"content-type": "application/json"}


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
    if kind == "sync":
        pool = ConnectionPool("http", "127.0.0.1", port)
        try:
            bodies = []
            for index in range(count):
                time.sleep(pause if index == 1 else 0.0)
                bodies.append(pool.request("POST", "/", b"{}", HEADERS, 3.0).read())
            return bodies
        finally:
            pool.close()

    async def run() -> list[bytes]:
        aio = AsyncConnectionPool("http", "127.0.0.1", port)
        try:
            bodies = []
            for index in range(count):
                await asyncio.sleep(pause if index == 1 else 0.0)
                deadline = asyncio.get_running_loop().time() + 3.0
                response = await aio.request("POST", "/", b"{}", HEADERS, deadline)
                bodies.append(await response.read())
            return bodies
        finally:
            await aio.close()

    return asyncio.run(run())


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
