"""One HTTP/1.1 connection on asyncio: a `Protocol` turning the server's bytes into events.

The events queue until the request takes them; it waits on a future only when the queue is
empty, and one timer per request ends the connection at its deadline.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from typing import cast

from groundwire.transports.http1 import check_tunnel, tunnel_request
from groundwire.transports.routes import Route
from groundwire.wire.http_codec import Event, ProtocolError, ResponseParser

_PAUSE_BYTES = 1024 * 1024  # body bytes held unread before the socket is no longer read
_RESUME_BYTES = 256 * 1024


class Connection(asyncio.Protocol):
    """One connection: a request `send`s, reads `next_event` until `END`, then `finish`es.

    Unasked-for bytes, a malformed response, the deadline or `fail` end the connection; the
    request then raises what ended it.
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self._parser: ResponseParser | None = None
        self._events: deque[Event] = deque()
        self._unread = 0
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None
        self._failure: BaseException | None = None
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keeps asyncio's transport, which requests are written to."""
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        """Parses what the server sent; bytes that no request waits for end the connection."""
        if self._parser is None:
            self.fail(ProtocolError("the server sent bytes that no request asked for"))
            return
        try:
            events = self._parser.feed(data)
        except ProtocolError as error:
            self.fail(error)
            return
        if events:
            self._keep(events)
        if self._unread > _PAUSE_BYTES and not self._paused and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()

    def eof_received(self) -> bool | None:
        """The server closed its side: the end of a body read until then, or a cut."""
        if self._parser is None:
            self.fail(ConnectionResetError("the server closed the connection"))
            return None
        try:
            self._keep(self._parser.feed_eof())
        except ConnectionResetError as error:
            self.fail(error)
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection is gone: a request still reading it raises why."""
        self.fail(exc or ConnectionResetError("the connection closed"))

    def fail(self, error: BaseException) -> None:
        """Ends the connection: the request on it (now or later) raises `error`."""
        if self._failure is None:
            self._failure = error
        if self._loop.is_closed():
            return  # nothing waits on a closed loop; asyncio frees the socket once collected
        self._wake()
        if self.transport is not None:
            self.transport.abort()

    @property
    def usable(self) -> bool:
        """Whether the connection is open and has not failed."""
        transport = self.transport
        return self._failure is None and transport is not None and not transport.is_closing()

    def send(self, parser: ResponseParser, request: bytes, deadline: float | None) -> None:
        """Sends a request whose response `parser` reads; TimeoutError once `deadline` passed."""
        assert self.transport is not None
        self._parser = parser
        if deadline is not None:
            self._timer = self._loop.call_at(deadline, self._time_out)
        self.transport.write(request)

    async def next_event(self) -> Event:
        """The next event; once none is left, raises what ended the connection."""
        while not self._events:
            if self._failure is not None:
                raise self._failure
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        event = self._events.popleft()
        if type(event) is bytes:
            self._unread -= len(event)
            if self._paused and self._unread < _RESUME_BYTES and self.transport is not None:
                self._paused = False
                self.transport.resume_reading()
        return event

    def finish(self) -> bool:
        """Ends the exchange; whether the connection can carry another request."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        parser, self._parser = self._parser, None
        reusable = parser is not None and parser.finished and parser.reusable
        return reusable and not self._events and self.usable

    async def tunnel(self, route: Route, context: ssl.SSLContext) -> None:
        """Opens a CONNECT tunnel through the proxy to the route's origin, then TLS in it."""
        assert self.transport is not None
        parser = ResponseParser("CONNECT")
        self.send(parser, tunnel_request(route), None)
        check_tunnel(await self.next_event(), parser)
        await self.next_event()  # the END that a tunnel's head is, at once
        self.finish()
        tls = await self._loop.start_tls(self.transport, self, context, server_hostname=route.host)
        if tls is None:
            raise ConnectionResetError("the tunnel closed during the TLS handshake")
        self.transport = tls

    def _keep(self, events: list[Event]) -> None:
        for event in events:
            if type(event) is bytes:
                self._unread += len(event)
        self._events.extend(events)
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _time_out(self) -> None:
        self._timer = None
        self.fail(TimeoutError("timed out"))
