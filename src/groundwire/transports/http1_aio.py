"""Keep-alive HTTP/1.1 on asyncio, the wire of the asyncio REST transport.

Connections are `aio_connection` protocols (no stream objects, no extra tasks); the pool's
rules are `http1.PoolBase`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncGenerator, Mapping
from typing import cast

from groundwire.transports.aio_connection import Connection
from groundwire.transports.http1 import (
    IDLE_SECONDS,
    WIRE_ERRORS,
    PoolBase,
    PoolClosed,
    request_bytes,
)
from groundwire.wire.bodies import BodyDecoder, is_gzip
from groundwire.wire.http_codec import END, Event, ProtocolError, ResponseHead, ResponseParser


class AsyncConnectionPool(PoolBase[Connection]):
    """`PoolBase` on asyncio, for the event loop it is used on.

    Example:
        >>> pool = AsyncConnectionPool("http", "127.0.0.1", 8080)
        >>> # await (await pool.request("POST", "/v1/x", b"{}", {}, deadline=None)).read()
    """

    def _start_waiting(self) -> None:
        self._waiters: deque[asyncio.Future[Connection | None]] = deque()

    async def request(
        self,
        method: str,
        target: str,
        body: bytes | None,
        headers: Mapping[str, str],
        deadline: float | None,
    ) -> AsyncResponse:
        """Sends a request and returns the response once its head arrived, body unread.

        `deadline` (on the loop's clock; None: none) bounds the whole exchange. Raises one of
        `WIRE_ERRORS`.
        """
        request = request_bytes(self._route, method, target, headers, body)
        connection = await self._take(deadline)
        try:
            connection.send(ResponseParser(method), request, deadline)
            head = await connection.next_event()
        except BaseException:
            self._discard(connection)
            if self._closed:
                raise PoolClosed("the connection pool was closed during the request") from None
            raise
        assert isinstance(head, ResponseHead)
        return AsyncResponse(self, connection, head)

    async def close(self) -> None:
        """Closes every connection; requests in flight fail, later ones raise PoolClosed."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in [*(connection for connection, _ in idle), *self._active]:
            connection.fail(PoolClosed("the connection pool was closed"))
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
        await asyncio.sleep(0)  # lets the transports finish closing their sockets

    async def _take(self, deadline: float | None) -> Connection:
        loop = asyncio.get_running_loop()
        while True:
            if self._closed:
                raise PoolClosed("the connection pool is closed")
            while self._idle:
                connection, since = self._idle.pop()
                if connection.usable and loop.time() - since < IDLE_SECONDS:
                    self._active.add(connection)
                    return connection
                connection.fail(ConnectionResetError("the idle connection was dropped"))
            if len(self._active) + self._opening < self._max_connections:
                return await self._open(deadline)
            handed = await self._wait(deadline)
            if handed is not None:
                return handed

    async def _wait(self, deadline: float | None) -> Connection | None:
        """A connection another request gave back, or None when there is room to open one."""
        waiter: asyncio.Future[Connection | None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout_at(deadline):
                return await waiter
        except BaseException:
            if not waiter.done():
                waiter.cancel()
            elif not waiter.cancelled():  # handed over too late: pass it on
                handed = waiter.result()
                if handed is None:
                    self._hand_over(None)
                else:
                    self._give_back(handed)
            raise

    async def _open(self, deadline: float | None) -> Connection:
        route = self._route
        route.check()
        context = self._tls() if route.scheme == "https" else None
        loop = asyncio.get_running_loop()
        connection: Connection | None = None
        self._opening += 1
        try:
            async with asyncio.timeout_at(deadline):
                direct = None if route.tunnelled else context
                _, connection = await loop.create_connection(
                    Connection,
                    *route.address,
                    ssl=direct,
                    server_hostname=route.host if direct is not None else None,
                )
                if context is not None and route.tunnelled:
                    await connection.tunnel(route, context)
        except BaseException as error:
            if connection is not None:
                connection.fail(error)
            if isinstance(error, OSError | ProtocolError):
                raise route.connect_error(error) from error
            raise
        finally:
            self._opening -= 1
        assert connection is not None
        if self._closed:
            connection.fail(PoolClosed("the connection pool is closed"))
            raise PoolClosed("the connection pool is closed")
        self._active.add(connection)
        return connection

    def _give_back(self, connection: Connection) -> None:
        if self._closed:
            self._discard(connection)
        elif not self._hand_over(connection):
            self._active.discard(connection)
            if len(self._idle) < self._max_idle:
                self._idle.append((connection, asyncio.get_running_loop().time()))
            else:
                connection.fail(ConnectionResetError("too many idle connections"))

    def _discard(self, connection: Connection) -> None:
        connection.finish()
        connection.fail(ConnectionResetError("the exchange was cut short"))
        self._active.discard(connection)
        self._hand_over(None)

    def _hand_over(self, connection: Connection | None) -> bool:
        """Wakes the first waiting request: with `connection`, or None to open its own."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return True
        return False


class AsyncResponse:
    """A response whose head has arrived; its body is read once, whole or in chunks."""

    def __init__(
        self, pool: AsyncConnectionPool, connection: Connection, head: ResponseHead
    ) -> None:
        self.status = head.status
        self.headers = head.headers
        self._pool: AsyncConnectionPool | None = pool
        self._connection = connection
        self._limit = pool.max_response_bytes

    @property
    def ok(self) -> bool:
        """Whether the status is 2xx."""
        return 200 <= self.status < 300

    async def read(self) -> bytes:
        """The whole body, decompressed; `MessageTooLarge` past the pool's size limit."""
        async with contextlib.aclosing(self.chunks()) as chunks:
            return b"".join([piece async for piece in chunks])

    async def chunks(self) -> AsyncGenerator[bytes, None]:
        """The body in pieces of at most `PIECE_BYTES`, decompressed; closes the response."""
        try:
            decoder = BodyDecoder(
                gzip=is_gzip(self.headers.get("content-encoding")), limit=self._limit
            )
            decoder.check_length(self.headers.get("content-length"))
            while (event := await self._next_event()) is not END:
                for piece in decoder.feed(cast(bytes, event)):
                    yield piece
            decoder.finish()
        finally:
            self.close()

    def close(self) -> None:
        """Ends the exchange; a response read to its end frees the connection for reuse."""
        pool, self._pool = self._pool, None
        if pool is not None and self._connection.finish():
            pool._give_back(self._connection)
        elif pool is not None:
            pool._discard(self._connection)

    async def _next_event(self) -> Event:
        try:
            return await self._connection.next_event()
        except WIRE_ERRORS:
            if self._pool is not None and self._pool.closed:
                raise PoolClosed("the connection pool was closed during the response") from None
            raise
