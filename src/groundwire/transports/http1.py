"""Keep-alive HTTP/1.1 on blocking sockets, the wire of the blocking REST transport and of tokens.

Responses are read by the core's strict `ResponseParser`, as in the asyncio pool (`http1_aio`),
so both refuse the same ambiguous responses; a deadline per request bounds every read.
"""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import threading
import time
from collections.abc import Generator, Mapping
from typing import Generic, TypeVar, cast

from groundwire.transports.routes import ConnectError, ProxyNotSupported, Route, route_to
from groundwire.transports.tls import default_ssl_context
from groundwire.wire.bodies import MAX_RESPONSE_BYTES, BodyDecoder, is_gzip
from groundwire.wire.http_codec import (
    END,
    Event,
    Headers,
    ProtocolError,
    ResponseHead,
    ResponseParser,
    encode_request,
)

IDLE_SECONDS = 30.0
"""How long an idle connection is kept; servers and proxies drop quiet ones after a while."""
MAX_IDLE = 100
MAX_CONNECTIONS = 100
"""Connections open at once per origin by default; more requests wait for one to be free."""
_READ_BYTES = 65536


class PoolClosed(RuntimeError):
    """The pool was closed: before the request, or while it waited for its response."""


WIRE_ERRORS = (ConnectError, ProxyNotSupported, PoolClosed, ProtocolError, OSError)
"""What a request or its response raises (a `TimeoutError` is an `OSError`); a body too large or
badly compressed raises a `GroundwireError` instead."""


def request_bytes(
    route: Route, method: str, target: str, headers: Mapping[str, str], body: bytes | None
) -> bytes:
    r"""A request's bytes as either pool sends them to `route`.

    Example:
        >>> route = route_to("http", "127.0.0.1", 8080)
        >>> request_bytes(route, "POST", "/v1/x", {}, b"{}").split(b"\r\n")[1:3]
        [b'host: 127.0.0.1:8080', b'accept-encoding: gzip']
    """
    return encode_request(
        method,
        route.target_prefix + target,
        [
            ("host", route.host_header),
            *headers.items(),
            ("accept-encoding", "gzip"),
            *route.proxy_headers(tunnel=False),
        ],
        body,
    )


ConnectionT = TypeVar("ConnectionT")


class PoolBase(Generic[ConnectionT]):
    """Keep-alive HTTP/1.1 connections to one origin, shared by both pools.

    A request takes the most recently used idle connection or opens one, up to
    `max_connections`; past that it waits, within its deadline. A connection read to the end
    returns to the pool, where at most `max_idle` wait. A body past `max_response_bytes` once
    decompressed raises `MessageTooLarge`.
    """

    def __init__(
        self,
        scheme: str,
        host: str,
        port: int | None = None,
        *,
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int = MAX_CONNECTIONS,
        max_idle: int = MAX_IDLE,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self._route = route_to(scheme, host, port)
        self.max_response_bytes = max_response_bytes
        self._ssl_context = ssl_context
        self._max_connections = max_connections
        self._max_idle = max_idle
        self._idle: list[tuple[ConnectionT, float]] = []
        self._active: set[ConnectionT] = set()
        self._opening = 0
        self._closed = False
        self._start_waiting()

    def _start_waiting(self) -> None:
        """Makes what requests wait on for a free connection."""

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._closed

    def _tls(self) -> ssl.SSLContext:
        return self._ssl_context or default_ssl_context()


class ConnectionPool(PoolBase[socket.socket]):
    """`PoolBase` on blocking sockets; thread-safe.

    Example:
        >>> pool = ConnectionPool("http", "127.0.0.1", 8080)
        >>> # pool.request("POST", "/v1/x", b"{}", {}, timeout=5.0).read()
        >>> pool.close()
    """

    def _start_waiting(self) -> None:
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # notified when a connection is freed

    def request(
        self,
        method: str,
        target: str,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout: float | None,
    ) -> Response:
        """Sends a request and returns the response once its head arrived, body unread.

        `timeout` (None: none) bounds the whole exchange, connecting to the body's last byte.
        Raises one of `WIRE_ERRORS`.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        request = request_bytes(self._route, method, target, headers, body)
        connection = self._take(deadline)
        try:
            connection.settimeout(time_left(deadline))
            connection.sendall(request)
            parser = ResponseParser(method)
            events: list[Event] = []
            while not events:
                events = _receive(connection, parser, deadline)
        except BaseException:
            self._discard(connection)
            if self._closed:
                raise PoolClosed("the connection pool was closed during the request") from None
            raise
        return Response(self, connection, parser, events, deadline)

    def close(self) -> None:
        """Closes every connection; requests in flight fail, later ones raise PoolClosed."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            active = list(self._active)
            self._room.notify_all()
        for connection, _ in idle:
            connection.close()
        for connection in active:  # wakes a thread blocked reading, which then fails
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def abandon(self) -> None:
        """Closes this process's copies of connections inherited across `os.fork()`.

        No shutdown or TLS close_notify, so the parent's use goes on; no lock either, which a
        parent's thread may have held at the fork. Later requests raise PoolClosed.
        """
        self._closed = True
        idle, self._idle = self._idle, []
        active, self._active = list(self._active), set()
        for connection in [*(connection for connection, _ in idle), *active]:
            connection.close()

    def _take(self, deadline: float | None) -> socket.socket:
        while True:
            with self._lock:
                self._wait_for_room(deadline)
                if not self._idle:
                    self._opening += 1
                    break
                connection, since = self._idle.pop()
                self._active.add(connection)
            if time.monotonic() - since < IDLE_SECONDS and not _dropped(connection):
                return connection
            self._discard(connection)
        try:
            connection = self._open(deadline)
        except BaseException:
            with self._lock:
                self._opening -= 1
                self._room.notify()
            raise
        with self._lock:
            self._opening -= 1
            closed = self._closed
            if not closed:
                self._active.add(connection)
        if closed:
            connection.close()
            raise PoolClosed("the connection pool is closed")
        return connection

    def _wait_for_room(self, deadline: float | None) -> None:
        """Waits, holding the lock, for an idle connection or room to open one."""
        while True:
            if self._closed:
                raise PoolClosed("the connection pool is closed")
            if self._idle or len(self._active) + self._opening < self._max_connections:
                return
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(
                    f"all {self._max_connections} connections of the pool stayed busy"
                )
            self._room.wait(left)

    def _open(self, deadline: float | None) -> socket.socket:
        route = self._route
        route.check()
        connection = None
        try:
            connection = socket.create_connection(route.address, time_left(deadline))
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if route.scheme == "https":
                if route.tunnelled:
                    _tunnel(connection, route, deadline)
                connection.settimeout(time_left(deadline))
                connection = self._tls().wrap_socket(connection, server_hostname=route.host)
        except BaseException as error:
            if connection is not None:
                connection.close()
            if isinstance(error, OSError | ProtocolError):
                raise route.connect_error(error) from error
            raise
        return connection

    def _give_back(self, connection: socket.socket) -> None:
        with self._lock:
            self._active.discard(connection)
            self._room.notify()
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append((connection, time.monotonic()))
                return
        connection.close()

    def _discard(self, connection: socket.socket) -> None:
        with self._lock:
            self._active.discard(connection)
            self._room.notify()
        connection.close()


def time_left(deadline: float | None) -> float | None:
    """Seconds until `deadline` (on `time.monotonic`; None: none); TimeoutError once passed.

    Example:
        >>> time_left(None) is None, 0 < time_left(time.monotonic() + 5) <= 5
        (True, True)
    """
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


def _receive(
    connection: socket.socket, parser: ResponseParser, deadline: float | None
) -> list[Event]:
    connection.settimeout(time_left(deadline))
    data = connection.recv(_READ_BYTES)
    return parser.feed(data) if data else parser.feed_eof()


def _tunnel(connection: socket.socket, route: Route, deadline: float | None) -> None:
    connection.settimeout(time_left(deadline))
    connection.sendall(tunnel_request(route))
    parser = ResponseParser("CONNECT")
    events: list[Event] = []
    while not events:
        events = _receive(connection, parser, deadline)
    check_tunnel(events[0], parser)


def tunnel_request(route: Route) -> bytes:
    """The CONNECT request asking the route's proxy for a tunnel to its origin."""
    headers = [("host", route.authority), *route.proxy_headers(tunnel=True)]
    return encode_request("CONNECT", route.authority, headers, None)


def check_tunnel(head: Event, parser: ResponseParser) -> None:
    """Raises unless the proxy opened the tunnel and sent nothing before the TLS handshake."""
    assert isinstance(head, ResponseHead)
    if not 200 <= head.status < 300:
        raise OSError(f"Tunnel connection failed: {head.status} {head.reason}")
    if parser.leftover:
        raise ProtocolError("the proxy sent bytes before the TLS handshake")


class Response:
    """A response whose head has arrived; its body is read once, whole or in chunks."""

    def __init__(
        self,
        pool: ConnectionPool,
        connection: socket.socket,
        parser: ResponseParser,
        events: list[Event],
        deadline: float | None,
    ) -> None:
        head = events[0]
        assert isinstance(head, ResponseHead)
        self.status = head.status
        self.headers: Headers = head.headers
        self._pool: ConnectionPool | None = pool
        self._connection = connection
        self._parser = parser
        self._events = events[1:]
        self._deadline = deadline
        self._limit = pool.max_response_bytes
        self._read_to_end = False

    @property
    def ok(self) -> bool:
        """Whether the status is 2xx."""
        return 200 <= self.status < 300

    def read(self) -> bytes:
        """The whole body, decompressed; `MessageTooLarge` past the pool's size limit."""
        with contextlib.closing(self.chunks()) as chunks:
            return b"".join(chunks)

    def chunks(self) -> Generator[bytes, None, None]:
        """The body in pieces of at most `PIECE_BYTES`, decompressed; closes the response."""
        pool = self._pool
        try:
            decoder = BodyDecoder(
                gzip=is_gzip(self.headers.get("content-encoding")), limit=self._limit
            )
            decoder.check_length(self.headers.get("content-length"))
            events = self._events
            while True:
                for event in events:
                    if event is END:
                        decoder.finish()
                        self._read_to_end = True
                        return
                    yield from decoder.feed(cast(bytes, event))
                events = _receive(self._connection, self._parser, self._deadline)
        except WIRE_ERRORS:
            if pool is not None and pool.closed:
                raise PoolClosed("the connection pool was closed during the response") from None
            raise
        finally:
            self.close()

    def close(self) -> None:
        """Ends the exchange; a response read to its end frees the connection for reuse."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if self._read_to_end and self._parser.reusable:
            pool._give_back(self._connection)
        else:
            pool._discard(self._connection)


def _dropped(connection: socket.socket) -> bool:
    """Whether an idle connection became readable: the server closed it or sent junk."""
    try:
        if isinstance(connection, ssl.SSLSocket) and connection.pending():
            return True
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(connection, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([connection], [], [], 0)[0])
    except (OSError, ValueError):
        return True
