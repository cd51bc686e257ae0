"""The asyncio REST transport (httpx.AsyncClient): the blocking one's twin, sharing its rules."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterable, AsyncIterator, Iterable

import httpx
from google.auth.credentials import Credentials
from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.errors import DeadlineExceeded, error_from_http
from groundwire.core.jsonstream import JsonArrayStream
from groundwire.core.transcoding import encode_request, encode_stream_request
from groundwire.transports.auth import AccessTokens
from groundwire.transports.base import Metadata, fixed_requests
from groundwire.transports.rest import (
    SYSTEM_QUERY,
    base_url_for,
    decode_element,
    decode_response,
    error_from_exception,
    request_headers,
    stream_deadline_error,
)

DEFAULT_LIMITS = httpx.Limits(
    max_connections=100, max_keepalive_connections=100, keepalive_expiry=30.0
)
"""The connection pool's limits: 100 connections, idle ones kept for 30 s."""


class AsyncRestTransport:
    """Calls over a keep-alive pool of HTTP/1.1 connections from one event loop.

    Same rules as `RestTransport`, the timeout bounding the whole attempt there too.
    Tokens are refreshed in a worker thread, so the event loop never waits on the network.

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
        limits: httpx.Limits = DEFAULT_LIMITS,
        allow_remote_plaintext: bool = False,
    ) -> None:
        self.base_url = base_url_for(
            base_url, credentials, allow_remote_plaintext=allow_remote_plaintext
        )
        self._tokens = None if credentials is None else AccessTokens(credentials)
        self._client = httpx.AsyncClient(
            limits=limits,
            follow_redirects=False,
            verify=True if ssl_context is None else ssl_context,
        )

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """POSTs the transcoded request; returns the decoded response."""
        http_request = encode_request(method, request)
        url = self.base_url + http_request.path + SYSTEM_QUERY
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        headers = await self._headers(metadata, url, timeout)
        try:
            async with asyncio.timeout_at(deadline):
                response = await self._client.request(
                    http_request.verb,
                    url,
                    content=http_request.body,
                    headers=headers,
                    timeout=_time_left(deadline, loop),
                )
        except httpx.HTTPError as error:
            raise error_from_exception(error) from None
        except TimeoutError:
            raise DeadlineExceeded(f"the attempt's timeout of {timeout} s passed") from None
        if not response.is_success:
            raise error_from_http(response.status_code, response.content, response.headers)
        return decode_response(method, response.content)

    async def stream(
        self,
        method: Method,
        requests: Iterable[Message] | AsyncIterable[Message],
        *,
        timeout: float | None,
        metadata: Metadata,
    ) -> AsyncIterator[Message]:
        """POSTs all requests as one JSON array; yields each response as its JSON completes."""
        http_request = encode_stream_request(method, fixed_requests(requests))
        url = self.base_url + http_request.path + SYSTEM_QUERY
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        headers = await self._headers(metadata, url, timeout)
        try:
            async with self._client.stream(
                http_request.verb,
                url,
                content=http_request.body,
                headers=headers,
                timeout=_time_left(deadline, loop),
            ) as response:
                if not response.is_success:
                    body = await response.aread()
                    raise error_from_http(response.status_code, body, response.headers)
                elements = JsonArrayStream()
                chunks = response.aiter_bytes()
                while True:
                    async with asyncio.timeout_at(deadline):
                        chunk = await anext(chunks, None)
                    if chunk is None:
                        break
                    for element in elements.feed(chunk):
                        yield decode_element(method, element, response.headers)
                elements.close()
        except httpx.HTTPError as error:
            raise error_from_exception(error) from None
        except TimeoutError:
            raise stream_deadline_error(timeout) from None

    async def close(self) -> None:
        """Closes the connection pool and the token adapter."""
        await self._client.aclose()
        if self._tokens is not None:
            self._tokens.close()

    async def _headers(self, metadata: Metadata, url: str, timeout: float | None) -> dict[str, str]:
        """The call's headers, with a token fetched (in a thread) within `timeout`."""
        headers = request_headers(metadata)
        if self._tokens is not None:
            if self._tokens.needs_refresh():
                await asyncio.to_thread(self._tokens.refresh, timeout)
            self._tokens.apply(headers, url)
        return headers


def _time_left(deadline: float | None, loop: asyncio.AbstractEventLoop) -> float | None:
    """Seconds until `deadline` on the loop's clock (None: no limit), at least a little."""
    return None if deadline is None else max(deadline - loop.time(), 0.001)
