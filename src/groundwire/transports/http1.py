"""Keep-alive HTTP/1.1 over `http.client`, the wire of the blocking REST transport and of tokens.

httpx spends about four times the CPU of `http.client` on a call, and both parse the same
protocol. This module adds only what a client needs around the standard library: a
thread-safe pool of idle connections per origin, a deadline per request, TLS with the
system's roots, gzip within a size cap (`groundwire.core.bodies`), and proxies from the
environment.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import select
import socket
import ssl
import threading
import time
from collections.abc import Generator, Mapping

from groundwire.core.bodies import MAX_RESPONSE_BYTES, BodyDecoder, is_gzip
from groundwire.core.http_codec import Headers
from groundwire.transports.routes import ConnectError, ProxyNotSupported, route_to
from groundwire.transports.tls import default_ssl_context

IDLE_SECONDS = 30.0
"""How long an idle connection is kept; servers and proxies drop quiet ones after a while."""
MAX_IDLE = 100
MAX_CONNECTIONS = 100
"""Connections open at once per origin by default; more requests wait for one to be free."""
_CHUNK_BYTES = 65536


class PoolClosed(RuntimeError):
    """The pool was closed: before the request, or while it waited for its response."""


WIRE_ERRORS = (ConnectError, ProxyNotSupported, PoolClosed, OSError, http.client.HTTPException)
"""What a request, or the reading of its response, raises (other than programming errors).

Besides the three above, an `OSError` or `http.client.HTTPException` means the connection
dropped or the peer broke the protocol after it was made; a timeout is a `TimeoutError`.
A body that is too large or badly compressed raises the core's `GroundwireError` instead.
"""


class ConnectionPool:
    """Keep-alive HTTP/1.1 connections to one origin, the most recently used reused first.

    Thread-safe: a request takes an idle connection or opens one, so threads run in parallel
    on up to `max_connections` (more wait for one to be free, within their timeout); a
    connection returns to the pool once its response has been read to the end, and at most
    `max_idle` wait there. `ssl_context` (https) defaults to the
    system's roots. A proxy from the environment carries https in a CONNECT tunnel, and
    http as requests for absolute URLs. A response body is cut off with `MessageTooLarge`
    past `max_response_bytes` once decompressed.

    Example:
        >>> pool = ConnectionPool("http", "127.0.0.1", 8080)
        >>> # pool.request("POST", "/v1/x", b"{}", {}, timeout=5.0).read()
        >>> pool.close()
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
        self.scheme, self.host, self.port = scheme, host, self._route.port
        self._ssl_context = ssl_context
        self._max_connections = max_connections
        self._max_idle = max_idle
        self._idle: list[tuple[http.client.HTTPConnection, float]] = []
        self._active: set[http.client.HTTPConnection] = set()
        self._opening = 0
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # notified when a connection is freed
        self._closed = False

    def request(
        self,
        method: str,
        target: str,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout: float | None,
    ) -> Response:
        """Sends a request, waits for the response's head and returns it, body unread.

        `target` is the path and query. `timeout` bounds the whole exchange, from connecting
        to reading the body's last byte (None: no limit): every socket operation waits only for
        what is left of it, and a `TimeoutError` ends the exchange once it has passed. Raises
        one of `WIRE_ERRORS`.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        connection = self._take(deadline)
        try:
            connection.sock.settimeout(time_left(deadline))
            connection.putrequest(
                method, self._route.target_prefix + target, skip_accept_encoding=True
            )
            for name, value in headers.items():
                connection.putheader(name, value)
            connection.putheader("accept-encoding", "gzip")
            if body is not None:
                connection.putheader("content-length", str(len(body)))
            for name, value in self._route.proxy_headers(tunnel=False):
                connection.putheader(name, value)
            connection.endheaders(body)
            connection.sock.settimeout(time_left(deadline))  # the response keeps this deadline
            response = connection.getresponse()
        except BaseException:
            self._discard(connection)
            if self._closed:
                raise PoolClosed("the connection pool was closed during the request") from None
            raise
        return Response(self, connection, response)

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._closed

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
            if connection.sock is not None:
                with contextlib.suppress(OSError):
                    connection.sock.shutdown(socket.SHUT_RDWR)

    def abandon(self) -> None:
        """Lets go of connections inherited across `os.fork()`, sending nothing on them.

        The parent keeps using them: the child closes only its own copies of the sockets
        (no shutdown, no TLS close_notify), so the server sees no change. Takes no lock,
        which a thread of the parent's may have held at the fork. Later requests raise
        PoolClosed.
        """
        self._closed = True
        idle, self._idle = self._idle, []
        active, self._active = list(self._active), set()
        for connection in [*(connection for connection, _ in idle), *active]:
            connection.close()

    def _take(self, deadline: float | None) -> http.client.HTTPConnection:
        while True:
            with self._lock:
                self._wait_for_room(deadline)
                if not self._idle:
                    self._opening += 1
                    break
                connection, since = self._idle.pop()
                self._active.add(connection)
            if time.monotonic() - since < IDLE_SECONDS and not _dropped(connection.sock):
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
        """Waits (holding the lock) until an idle connection or room for one more exists."""
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

    def _open(self, deadline: float | None) -> http.client.HTTPConnection:
        route = self._route
        route.check()
        timeout = time_left(deadline)
        host, port = route.address
        connection: http.client.HTTPConnection
        if self.scheme == "https":
            connection = http.client.HTTPSConnection(
                host, port, timeout=timeout, context=self._ssl_context or default_ssl_context()
            )
            if route.tunnelled:
                tunnel_headers = dict(
                    [("host", route.authority), *route.proxy_headers(tunnel=True)]
                )
                connection.set_tunnel(self.host, self.port, headers=tunnel_headers)
        else:
            connection = http.client.HTTPConnection(host, port, timeout=timeout)
        connection.response_class = _DeadlineResponse
        try:
            connection.connect()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            raise route.connect_error(error) from error
        return connection

    def _give_back(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            self._active.discard(connection)
            self._room.notify()
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append((connection, time.monotonic()))
                return
        connection.close()

    def _discard(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            self._active.discard(connection)
            self._room.notify()
        connection.close()


def time_left(deadline: float | None) -> float | None:
    """Seconds until `deadline` (on `time.monotonic`), None for none; TimeoutError once passed.

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


class _DeadlineReader(io.RawIOBase):
    """A socket's reading side where every read waits only until one deadline."""

    def __init__(self, sock: socket.socket, deadline: float | None) -> None:
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int | None:  # type: ignore[override]
        self._sock.settimeout(time_left(self._deadline))
        return self._raw.readinto(buffer)

    def fileno(self) -> int:
        return self._raw.fileno()

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    """An `http.client` response whose head and body are read by one deadline.

    The deadline is the socket's timeout when the response is made: the pool sets it to what
    is left of the request's deadline just before it waits for the response.
    """

    def __init__(
        self,
        sock: socket.socket,
        debuglevel: int = 0,
        method: str | None = None,
        url: str | None = None,
    ) -> None:
        super().__init__(sock, debuglevel, method, url)
        timeout = sock.gettimeout()
        self.fp.close()
        self.fp = io.BufferedReader(
            _DeadlineReader(sock, None if timeout is None else time.monotonic() + timeout)
        )


class Response:
    """A response whose head has arrived; its body is then read once, whole or in chunks.

    Reading to the end gives the connection back to the pool; `close` before that closes it.
    """

    def __init__(
        self,
        pool: ConnectionPool,
        connection: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
    ) -> None:
        self.status = response.status
        self._pool: ConnectionPool | None = pool
        self._connection = connection
        self._response = response
        self._limit = pool.max_response_bytes

    @property
    def ok(self) -> bool:
        """Whether the status is 2xx."""
        return 200 <= self.status < 300

    def headers(self) -> Headers:
        """The response headers."""
        return Headers(self._response.getheaders())

    def read(self) -> bytes:
        """The whole body, decompressed; `MessageTooLarge` past the pool's size limit."""
        try:
            return b"".join(self.chunks())
        finally:
            self.close()

    def chunks(self) -> Generator[bytes, None, None]:
        """The body in pieces as they arrive, decompressed; closes the response at the end.

        No piece is over `PIECE_BYTES`. Raises `MessageTooLarge` once more than the pool's
        `max_response_bytes` came out.
        """
        decoder = BodyDecoder(
            gzip=is_gzip(self._response.getheader("content-encoding")), limit=self._limit
        )
        try:
            decoder.check_length(self._response.getheader("content-length"))
            while chunk := self._response.read1(_CHUNK_BYTES):
                yield from decoder.feed(chunk)
            if self._response.length:  # read1 ends quietly where the peer hung up early
                raise http.client.IncompleteRead(b"", self._response.length)
            self._response.read()  # b"" at the end; marks the response done, for reuse
            decoder.finish()
        except (OSError, http.client.HTTPException):
            if self._pool is not None and self._pool.closed:
                raise PoolClosed("the connection pool was closed during the response") from None
            raise
        finally:
            self.close()

    def close(self) -> None:
        """Ends the exchange: a response read to its end frees the connection for reuse."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if self._response.isclosed() and self._connection.sock is not None:
            pool._give_back(self._connection)
        else:
            pool._discard(self._connection)


def _dropped(sock: socket.socket | None) -> bool:
    """Whether an idle connection became readable: the server closed it (or sent junk)."""
    if sock is None:
        return True
    try:
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True
