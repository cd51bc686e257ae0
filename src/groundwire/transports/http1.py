"""Keep-alive HTTP/1.1 over `http.client`, the wire of the blocking REST transport and of tokens.

httpx spends about four times the CPU of `http.client` on a call, and both parse the same
protocol. This module adds only what a client needs around the standard library: a
thread-safe pool of idle connections per origin, a deadline per request, TLS with the
system's roots, gzip within a size cap (`groundwire.core.bodies`), and proxies from the
environment.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.client
import io
import select
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from groundwire.core.bodies import MAX_RESPONSE_BYTES, BodyDecoder, is_gzip
from groundwire.core.endpoints import is_loopback

IDLE_SECONDS = 30.0
"""How long an idle connection is kept; servers and proxies drop quiet ones after a while."""
MAX_IDLE = 100
_CHUNK_BYTES = 65536


class ConnectError(Exception):
    """No connection was made: refused, unresolvable, or the TLS handshake or tunnel failed."""


class ProxyNotSupported(Exception):
    """The environment names a proxy that cannot be used: only http:// proxies can."""


class PoolClosed(RuntimeError):
    """The pool was closed: before the request, or while it waited for its response."""


WIRE_ERRORS = (ConnectError, ProxyNotSupported, PoolClosed, OSError, http.client.HTTPException)
"""What a request, or the reading of its response, raises (other than programming errors).

Besides the three above, an `OSError` or `http.client.HTTPException` means the connection
dropped or the peer broke the protocol after it was made; a timeout is a `TimeoutError`.
A body that is too large or badly compressed raises the core's `GroundwireError` instead.
"""


@dataclass(frozen=True)
class Proxy:
    """An HTTP proxy: its address and the Proxy-Authorization from its URL's user info."""

    host: str
    port: int
    authorization: str | None = field(default=None, repr=False)


def parse_proxy(url: str) -> Proxy:
    """Reads a proxy URL as the environment gives it (`http://` may be left out).

    Example:
        >>> proxy = parse_proxy("http://user:p%40ss@proxy.internal:3128")
        >>> proxy, proxy.authorization
        (Proxy(host='proxy.internal', port=3128), 'Basic dXNlcjpwQHNz')
        >>> parse_proxy("proxy.internal:8080").port
        8080
    """
    parts = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise ProxyNotSupported(
            f"the proxy {parts.scheme}://{parts.hostname or ''} cannot be used: only http:// "
            "proxies are supported (the CONNECT tunnel through one is still end-to-end TLS)"
        )
    authorization = None
    if parts.username is not None:
        user_info = (
            f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        )
        authorization = "Basic " + base64.b64encode(user_info.encode()).decode("ascii")
    return Proxy(parts.hostname, parts.port or 80, authorization)


def environment_proxy(scheme: str, host: str, port: int) -> Proxy | None:
    """The proxy HTTPS_PROXY, HTTP_PROXY or ALL_PROXY name for a URL (lower case first).

    None when there is none, when NO_PROXY exempts the host, or for a loopback host, which
    no proxy could reach. Raises ProxyNotSupported for a proxy that is not http://.

    Example:
        >>> environment_proxy("https", "127.0.0.1", 8443) is None
        True
    """
    if is_loopback(host):
        return None
    proxies = urllib.request.getproxies_environment()
    url = proxies.get(scheme) or proxies.get("all")
    if not url or exempt_from_proxy(host, port, proxies.get("no", "")):
        return None
    return parse_proxy(url)


def exempt_from_proxy(host: str, port: int, no_proxy: str) -> bool:
    """Whether NO_PROXY (`*`, or host names, `.domain` suffixes, `host:port`s) covers a host.

    Example:
        >>> exempt_from_proxy("api.internal.example", 443, "localhost, .example")
        True
        >>> exempt_from_proxy("example.org", 443, "example.org:8443")
        False
    """
    host = host.lower().strip("[]")
    for entry in no_proxy.lower().split(","):
        name = entry.strip().removeprefix("*").lstrip(".").strip("[]")
        if not name and entry.strip() == "*":
            return True
        if name and any(
            candidate == name or candidate.endswith(f".{name}")
            for candidate in (host, f"{host}:{port}")
        ):
            return True
    return False


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    """The system's certificate roots, hostname checks, HTTP/1.1 offered by ALPN.

    Example:
        >>> default_ssl_context().check_hostname
        True
    """
    context = ssl.create_default_context()
    context.set_alpn_protocols(["http/1.1"])
    return context


class Headers(Mapping[str, str]):
    """Response headers by name, in any case; a repeated header's values joined by ", "."""

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self._values: dict[str, str] = {}
        for name, value in pairs:
            key = name.lower()
            self._values[key] = f"{self._values[key]}, {value}" if key in self._values else value

    def __getitem__(self, name: str) -> str:
        return self._values[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class ConnectionPool:
    """Keep-alive HTTP/1.1 connections to one origin, the most recently used reused first.

    Thread-safe: a request takes an idle connection or opens one, so threads run in parallel
    on as many connections; a connection returns to the pool once its response has been read
    to the end, and at most `max_idle` wait there. `ssl_context` (https) defaults to the
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
        max_idle: int = MAX_IDLE,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        if scheme not in ("http", "https"):
            raise ValueError(f"not an HTTP scheme: {scheme!r}")
        self.max_response_bytes = max_response_bytes
        self.scheme, self.host = scheme, host
        self.port = port or (443 if scheme == "https" else 80)
        self._ssl_context = ssl_context
        self._max_idle = max_idle
        self._idle: list[tuple[http.client.HTTPConnection, float]] = []
        self._active: set[http.client.HTTPConnection] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._proxy_problem: str | None = None
        self._proxy: Proxy | None = None
        try:
            self._proxy = environment_proxy(scheme, host, self.port)
        except ProxyNotSupported as problem:
            self._proxy_problem = str(problem)
        authority = f"[{host}]" if ":" in host else host
        forwarding = self._proxy is not None and scheme == "http"
        self._target_prefix = f"http://{authority}:{self.port}" if forwarding else ""

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
            connection.putrequest(method, self._target_prefix + target, skip_accept_encoding=True)
            for name, value in headers.items():
                connection.putheader(name, value)
            connection.putheader("accept-encoding", "gzip")
            if body is not None:
                connection.putheader("content-length", str(len(body)))
            if self._target_prefix and self._proxy and self._proxy.authorization:
                connection.putheader("proxy-authorization", self._proxy.authorization)
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
        for connection, _ in idle:
            connection.close()
        for connection in active:  # wakes a thread blocked reading, which then fails
            if connection.sock is not None:
                with contextlib.suppress(OSError):
                    connection.sock.shutdown(socket.SHUT_RDWR)

    def _take(self, deadline: float | None) -> http.client.HTTPConnection:
        while True:
            with self._lock:
                if self._closed:
                    raise PoolClosed("the connection pool is closed")
                if not self._idle:
                    break
                connection, since = self._idle.pop()
                self._active.add(connection)
            if time.monotonic() - since < IDLE_SECONDS and not _dropped(connection.sock):
                return connection
            self._discard(connection)
        connection = self._open(deadline)
        with self._lock:
            closed = self._closed
            if not closed:
                self._active.add(connection)
        if closed:
            connection.close()
            raise PoolClosed("the connection pool is closed")
        return connection

    def _open(self, deadline: float | None) -> http.client.HTTPConnection:
        if self._proxy_problem is not None:
            raise ProxyNotSupported(self._proxy_problem)
        timeout = time_left(deadline)
        proxy = self._proxy
        host, port = (proxy.host, proxy.port) if proxy is not None else (self.host, self.port)
        connection: http.client.HTTPConnection
        if self.scheme == "https":
            connection = http.client.HTTPSConnection(
                host, port, timeout=timeout, context=self._ssl_context or default_ssl_context()
            )
            if proxy is not None:
                authority = f"[{self.host}]" if ":" in self.host else self.host
                tunnel_headers = {"host": f"{authority}:{self.port}"}
                if proxy.authorization:
                    tunnel_headers["proxy-authorization"] = proxy.authorization
                connection.set_tunnel(self.host, self.port, headers=tunnel_headers)
        else:
            connection = http.client.HTTPConnection(host, port, timeout=timeout)
        connection.response_class = _DeadlineResponse
        try:
            connection.connect()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            where = f"{self.scheme}://{self.host}:{self.port}"
            via = f" through the proxy {proxy.host}:{proxy.port}" if proxy is not None else ""
            reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            raise ConnectError(f"{where}{via}: {reason}") from error
        return connection

    def _give_back(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            self._active.discard(connection)
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append((connection, time.monotonic()))
                return
        connection.close()

    def _discard(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            self._active.discard(connection)
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

        Raises `MessageTooLarge` once more than the pool's `max_response_bytes` came out.
        """
        decoder = BodyDecoder(
            gzip=is_gzip(self._response.getheader("content-encoding")), limit=self._limit
        )
        try:
            decoder.check_length(self._response.getheader("content-length"))
            while chunk := self._response.read1(_CHUNK_BYTES):
                if decoded := decoder.feed(chunk):
                    yield decoded
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
