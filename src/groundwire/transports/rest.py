"""The blocking REST transport (JSON over HTTP/1.1), for networks where gRPC cannot pass.

Also what the asyncio REST transport shares: URL and header rules, and connection failures as
`GroundwireError`.
"""

from __future__ import annotations

import ssl
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

from google.auth.credentials import Credentials
from google.protobuf.message import Message

from groundwire.contract.addresses import parse_rest_address
from groundwire.contract.apis import Method
from groundwire.contract.errors import (
    DeadlineExceeded,
    FailedPrecondition,
    GroundwireError,
    Unavailable,
    Unknown,
)
from groundwire.contract.metadata import USER_AGENT
from groundwire.contract.transcoding import HttpRequest, encode_request, encode_stream_request
from groundwire.transports import http1, routes
from groundwire.transports.auth import AccessTokens
from groundwire.transports.base import (
    ConnectionFailure,
    Metadata,
    Requests,
    client_closed,
    fixed_requests,
    refuse_plaintext,
)
from groundwire.wire.bodies import MAX_RESPONSE_BYTES, decode_response
from groundwire.wire.error_codecs import error_from_http
from groundwire.wire.http_codec import ProtocolError
from groundwire.wire.jsonstream import JsonArrayStream

# Enums as numbers, like Google's own REST clients: values newer than our stubs survive.
SYSTEM_QUERY = "?%24alt=json%3Benum-encoding%3Dint"


def base_url_for(
    base_url: str, credentials: Credentials | None, *, allow_remote_plaintext: bool = False
) -> str:
    """Checks and normalises a base URL: https, or http without credentials to loopback.

    `allow_remote_plaintext` lets http go to another host, still without credentials.

    Example:
        >>> base_url_for("https://discoveryengine.googleapis.com/", None)
        'https://discoveryengine.googleapis.com'
    """
    if not base_url.strip().lower().startswith(("https://", "http://")):
        raise ValueError(f"REST base URL {base_url}: use https:// (or http:// to loopback)")
    address = parse_rest_address(base_url, source="base_url", bare_scheme="https")
    if address.scheme == "http":
        refuse_plaintext(
            f"REST base URL {base_url}",
            address.host,
            credentials is not None,
            allow_remote=allow_remote_plaintext,
        )
    return address.url


def error_from_wire(error: Exception) -> GroundwireError:
    """The GroundwireError for a failure of either REST transport's HTTP/1.1 connection.

    Example:
        >>> type(error_from_wire(routes.ConnectError("refused"))).__name__
        'ConnectionFailure'
        >>> type(error_from_wire(TimeoutError("timed out"))).__name__
        'DeadlineExceeded'
    """
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, http1.PoolClosed):
        return client_closed()
    if isinstance(error, routes.ConnectError):
        return ConnectionFailure(f"could not connect: {error}")
    if isinstance(error, routes.ProxyNotSupported):
        return FailedPrecondition(str(error))
    if isinstance(error, TimeoutError):
        return DeadlineExceeded(f"the attempt's timeout passed: {text}")
    if isinstance(error, ProtocolError):
        return Unavailable(f"the server broke HTTP/1.1: {text}")
    if isinstance(error, OSError):
        return Unavailable(f"the connection dropped: {text}")
    return Unknown(text)


class MessageStream:
    """The messages of a streamed response body, fed chunk by chunk, within its deadline.

    Example:
        >>> from groundwire.contract import apis
        >>> method = apis.method("discoveryengine", "v1", "CheckGrounding")
        >>> messages = MessageStream(method, {}, None, time.monotonic, None)
        >>> [type(message).__name__ for message in messages.feed(b'[{"support_score": 0.5}]')]
        ['CheckGroundingResponse']
        >>> messages.close()
        >>> list(MessageStream(method, {}, 0.0, time.monotonic, 1.0).feed(b"[{}"))
        Traceback (most recent call last):
        ...
        groundwire.contract.errors.DeadlineExceeded: DEADLINE_EXCEEDED: the stream ran past ...
    """

    def __init__(
        self,
        method: Method,
        headers: Mapping[str, str],
        deadline: float | None,
        clock: Callable[[], float],
        timeout: float | None,
    ) -> None:
        self._method, self._headers = method, headers
        self._deadline, self._clock, self._timeout = deadline, clock, timeout
        self._elements = JsonArrayStream()

    def feed(self, chunk: bytes) -> Iterator[Message]:
        """The messages `chunk` completes; `DeadlineExceeded` once the deadline has passed.

        The clock is read every 1,000 elements, so a gzip body that inflates to a million
        tiny ones cannot outlive the deadline.
        """
        for count, element in enumerate(self._elements.feed(chunk), 1):
            yield decode_response(self._method, element, self._headers)
            if count % 1000 == 0:
                self._check_deadline()
        self._check_deadline()

    def _check_deadline(self) -> None:
        if self._deadline is not None and self._clock() > self._deadline:
            raise DeadlineExceeded(f"the stream ran past its timeout of {self._timeout} s")

    def close(self) -> None:
        """Checks that the body ended where its JSON array did."""
        self._elements.close()


PoolT = TypeVar("PoolT", bound=http1.PoolBase[Any])


class RestCalls(Generic[PoolT]):
    """All that the blocking and the asyncio REST transport share: all but the waiting."""

    _new_pool: Callable[..., PoolT]

    def __init__(
        self,
        base_url: str,
        *,
        credentials: Credentials | None,
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int = http1.MAX_CONNECTIONS,
        max_idle_connections: int = http1.MAX_IDLE,
        allow_remote_plaintext: bool = False,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.base_url = base_url_for(
            base_url, credentials, allow_remote_plaintext=allow_remote_plaintext
        )
        parts = urllib.parse.urlsplit(self.base_url)
        self._path_prefix = parts.path
        self._tokens = None if credentials is None else AccessTokens(credentials)
        self._pool = self._new_pool(
            parts.scheme,
            parts.hostname or "",
            parts.port,
            ssl_context=ssl_context,
            max_connections=max_connections,
            max_idle=max_idle_connections,
            max_response_bytes=max_response_bytes,
        )

    def _prepared(
        self, http_request: HttpRequest, metadata: Metadata, timeout: float | None
    ) -> tuple[str, dict[str, str]]:
        """A call's target and headers, with a token refreshed within `timeout` if need be."""
        headers = {"content-type": "application/json", "user-agent": USER_AGENT}
        headers.update(metadata)
        query = http_request.path + SYSTEM_QUERY
        if self._tokens is not None:
            self._tokens.apply(headers, self.base_url + query, timeout)
        return self._path_prefix + query, headers

    def _wire_error(self, error: Exception) -> GroundwireError:
        """`error_from_wire`, except that any failure after `close` is `ClientClosed`."""
        return client_closed() if self._pool.closed else error_from_wire(error)


class RestTransport(RestCalls[http1.ConnectionPool]):
    """Calls over a keep-alive pool of HTTP/1.1 connections; thread-safe.

    `base_url` is `https://host` (or `http://127.0.0.1:port` for an emulator, without
    credentials). `ssl_context` replaces the system's certificate checks. Proxies come from
    HTTPS_PROXY / ALL_PROXY and NO_PROXY. A stream is one POST of all requests as a JSON
    array; responses are yielded as the array arrives. The timeout bounds the whole attempt.
    A body over `max_response_bytes` decompressed raises `MessageTooLarge`; calls cut short by
    `close` raise `ClientClosed`.

    Example:
        >>> transport = RestTransport("http://127.0.0.1:8080", credentials=None)
        >>> transport.close()
    """

    _new_pool = http1.ConnectionPool

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """POSTs the transcoded request; returns the decoded response."""
        http_request = encode_request(method, request)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            response = self._send(http_request, metadata, deadline, timeout)
            body = response.read()
        except http1.WIRE_ERRORS as error:
            raise self._wire_error(error) from None
        if not response.ok:
            raise error_from_http(response.status, body, response.headers)
        return decode_response(method, body)

    def stream(
        self, method: Method, requests: Requests, *, timeout: float | None, metadata: Metadata
    ) -> Iterator[Message]:
        """POSTs all requests as one JSON array; yields each response as its JSON completes."""
        http_request = encode_stream_request(method, fixed_requests(requests))
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            response = self._send(http_request, metadata, deadline, timeout)
            try:
                if not response.ok:
                    raise error_from_http(response.status, response.read(), response.headers)
                messages = MessageStream(
                    method, response.headers, deadline, time.monotonic, timeout
                )
                for chunk in response.chunks():
                    yield from messages.feed(chunk)
                messages.close()
            finally:
                response.close()
        except http1.WIRE_ERRORS as error:
            raise self._wire_error(error) from None

    def _send(
        self,
        http_request: HttpRequest,
        metadata: Metadata,
        deadline: float | None,
        timeout: float | None,
    ) -> http1.Response:
        target, headers = self._prepared(http_request, metadata, timeout)
        return self._pool.request(
            http_request.verb, target, http_request.body, headers, http1.time_left(deadline)
        )

    def close(self) -> None:
        """Closes the connection pool and the token adapter."""
        self._pool.close()
        if self._tokens is not None:
            self._tokens.close()

    def abandon(self) -> None:
        """Lets go of connections inherited across `os.fork()`, sending nothing on them."""
        self._pool.abandon()
        if self._tokens is not None:
            self._tokens.request.abandon()
