"""The asyncio REST transport: the blocking one's twin, sharing its rules, over `http1_aio`.

Everything but the waiting comes from `rest`: the URL and header rules, how bodies and
stream elements are decoded, how connection failures become `GroundwireError`. One
deadline on the event loop's clock bounds the whole exchange, connecting included.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import urllib.parse
from collections.abc import AsyncIterable, AsyncIterator, Iterable

from google.auth.credentials import Credentials
from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.bodies import MAX_RESPONSE_BYTES
from groundwire.core.error_codecs import error_from_http
from groundwire.core.errors import GroundwireError
from groundwire.core.jsonstream import JsonArrayStream
from groundwire.core.transcoding import encode_request, encode_stream_request
from groundwire.transports import http1, http1_aio
from groundwire.transports.auth import AccessTokens
from groundwire.transports.base import Metadata, fixed_requests
from groundwire.transports.rest import (
    SYSTEM_QUERY,
    base_url_for,
    client_closed,
    decode_element,
    decode_response,
    elements_in_time,
    error_from_wire,
    request_headers,
)


class AsyncRestTransport:
    """Calls over a keep-alive pool of HTTP/1.1 connections from one event loop.

    Same rules as `RestTransport`: the timeout bounds the whole attempt, a body over
    `max_response_bytes` is `MessageTooLarge`, a call cut short by `close` is `ClientClosed`,
    proxies come from the environment and loopback never goes through one. At most
    `max_connections` are open at once; more calls wait for one. Tokens are refreshed in a
    worker thread, so the event loop never waits on the network.

    Example:
        >>> transport = AsyncRestTransport("http://127.0.0.1:8080", credentials=None)
        >>> # await transport.unary(...); await transport.close()
    """

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
        self._pool = http1_aio.AsyncConnectionPool(
            parts.scheme,
            parts.hostname or "",
            parts.port,
            ssl_context=ssl_context,
            max_connections=max_connections,
            max_idle=max_idle_connections,
            max_response_bytes=max_response_bytes,
        )

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """POSTs the transcoded request; returns the decoded response."""
        http_request = encode_request(method, request)
        target = self._path_prefix + http_request.path + SYSTEM_QUERY
        deadline = _deadline(timeout)
        headers = await self._headers(metadata, http_request.path, timeout)
        try:
            response = await self._pool.request(
                http_request.verb, target, http_request.body, headers, deadline
            )
            body = await response.read()
        except http1.WIRE_ERRORS as error:
            raise self._wire_error(error) from None
        if not response.ok:
            raise error_from_http(response.status, body, response.headers)
        return decode_response(method, body)

    async def stream(
        self,
        method: Method,
        requests: Iterable[Message] | AsyncIterable[Message],
        *,
        timeout: float | None,
        metadata: Metadata,
    ) -> AsyncIterator[Message]:
        """POSTs all requests as one JSON array; yields each response as its JSON completes.

        The deadline never cancels the caller's code between two responses: once it has
        passed, the connection is closed and the next wait raises `DeadlineExceeded`, and so
        does the next response of a burst already received (looked at every 1,000).
        """
        http_request = encode_stream_request(method, fixed_requests(requests))
        target = self._path_prefix + http_request.path + SYSTEM_QUERY
        deadline = _deadline(timeout)
        headers = await self._headers(metadata, http_request.path, timeout)
        try:
            response = await self._pool.request(
                http_request.verb, target, http_request.body, headers, deadline
            )
            try:
                if not response.ok:
                    raise error_from_http(response.status, await response.read(), response.headers)
                elements = JsonArrayStream()
                clock = asyncio.get_running_loop().time
                async with contextlib.aclosing(response.chunks()) as chunks:
                    async for chunk in chunks:
                        in_time = elements_in_time(elements.feed(chunk), deadline, clock, timeout)
                        for element in in_time:
                            yield decode_element(method, element, response.headers)
                elements.close()
            finally:
                response.close()
        except http1.WIRE_ERRORS as error:
            raise self._wire_error(error) from None

    async def close(self) -> None:
        """Closes the connection pool and the token adapter; calls in flight fail."""
        await self._pool.close()
        if self._tokens is not None:
            self._tokens.close()

    def _wire_error(self, error: Exception) -> GroundwireError:
        """`error_from_wire`, except that any failure after `close` is `ClientClosed`."""
        return client_closed() if self._pool.closed else error_from_wire(error)

    async def _headers(
        self, metadata: Metadata, path: str, timeout: float | None
    ) -> dict[str, str]:
        """The call's headers, with a token fetched (in a thread) within `timeout`."""
        headers = request_headers(metadata)
        if self._tokens is not None:
            if self._tokens.needs_refresh():
                await asyncio.to_thread(self._tokens.refresh, timeout)
            self._tokens.apply(headers, self.base_url + path + SYSTEM_QUERY)
        return headers


def _deadline(timeout: float | None) -> float | None:
    """The moment, on the running event loop's clock, that `timeout` seconds from now is."""
    return None if timeout is None else asyncio.get_running_loop().time() + timeout
