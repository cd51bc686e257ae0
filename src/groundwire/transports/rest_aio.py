"""The asyncio REST transport (httpx.AsyncClient): the blocking one's twin, sharing its rules.

httpx only moves bytes here: the body is read raw and decoded by the core's `BodyDecoder`
(gzip within the size cap), and one deadline on the event loop's clock bounds the whole
exchange, connecting and the response head included, which httpx's per-read timeouts do not.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import urllib.parse
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Iterable

import httpx
from google.auth.credentials import Credentials
from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.bodies import MAX_RESPONSE_BYTES, BodyDecoder, is_gzip
from groundwire.core.endpoints import is_loopback
from groundwire.core.errors import DeadlineExceeded, GroundwireError, error_from_http
from groundwire.core.jsonstream import JsonArrayStream
from groundwire.core.transcoding import encode_request, encode_stream_request
from groundwire.transports.auth import AccessTokens
from groundwire.transports.base import Metadata, fixed_requests
from groundwire.transports.rest import (
    SYSTEM_QUERY,
    base_url_for,
    client_closed,
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

    Same rules as `RestTransport`: the timeout bounds the whole attempt, a body over
    `max_response_bytes` is `MessageTooLarge`, a call cut short by `close` is `ClientClosed`.
    A loopback host is reached directly, never through a proxy from the environment.
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
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.base_url = base_url_for(
            base_url, credentials, allow_remote_plaintext=allow_remote_plaintext
        )
        self.max_response_bytes = max_response_bytes
        self._tokens = None if credentials is None else AccessTokens(credentials)
        self._closed = False
        self._client = httpx.AsyncClient(
            limits=limits,
            follow_redirects=False,
            verify=True if ssl_context is None else ssl_context,
            # The environment's proxies are for leaving the machine; loopback never is.
            trust_env=not is_loopback(urllib.parse.urlsplit(self.base_url).hostname or ""),
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
            async with (
                asyncio.timeout_at(deadline),
                self._send(
                    http_request.verb, url, http_request.body, headers, deadline, loop
                ) as response,
            ):
                body = b"".join([chunk async for chunk in self._body(response)])
        except httpx.HTTPError as error:
            raise self._http_error(error) from None
        except RuntimeError:  # httpx's "the client has been closed"
            if self._closed:
                raise client_closed() from None
            raise
        except TimeoutError:
            raise DeadlineExceeded(f"the attempt's timeout of {timeout} s passed") from None
        if not response.is_success:
            raise error_from_http(response.status_code, body, response.headers)
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

        Each wait (for the response head, for each chunk) runs under the attempt's deadline;
        none spans a `yield`, so the caller's own code is never cancelled by it.
        """
        http_request = encode_stream_request(method, fixed_requests(requests))
        url = self.base_url + http_request.path + SYSTEM_QUERY
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        headers = await self._headers(metadata, url, timeout)
        try:
            async with contextlib.AsyncExitStack() as stack:
                async with asyncio.timeout_at(deadline):
                    response = await stack.enter_async_context(
                        self._send(
                            http_request.verb, url, http_request.body, headers, deadline, loop
                        )
                    )
                chunks = self._body(response)
                stack.push_async_callback(chunks.aclose)
                if not response.is_success:
                    async with asyncio.timeout_at(deadline):
                        body = b"".join([chunk async for chunk in chunks])
                    raise error_from_http(response.status_code, body, response.headers)
                elements = JsonArrayStream()
                while True:
                    async with asyncio.timeout_at(deadline):
                        chunk = await anext(chunks, None)
                    if chunk is None:
                        break
                    for element in elements.feed(chunk):
                        yield decode_element(method, element, response.headers)
                elements.close()
        except httpx.HTTPError as error:
            raise self._http_error(error) from None
        except RuntimeError:  # httpx's "the client has been closed"
            if self._closed:
                raise client_closed() from None
            raise
        except TimeoutError:
            raise stream_deadline_error(timeout) from None

    def _send(
        self,
        verb: str,
        url: str,
        body: bytes,
        headers: dict[str, str],
        deadline: float | None,
        loop: asyncio.AbstractEventLoop,
    ) -> contextlib.AbstractAsyncContextManager[httpx.Response]:
        """Starts the request; its response's body is left for `_body` to read, raw."""
        if self._closed:
            raise client_closed()
        headers["accept-encoding"] = "gzip"  # the only coding `BodyDecoder` reads
        return self._client.stream(
            verb, url, content=body, headers=headers, timeout=_time_left(deadline, loop)
        )

    async def _body(self, response: httpx.Response) -> AsyncGenerator[bytes, None]:
        """The body's decoded pieces as they arrive, within the size cap."""
        decoder = BodyDecoder(
            gzip=is_gzip(response.headers.get("content-encoding")), limit=self.max_response_bytes
        )
        decoder.check_length(response.headers.get("content-length"))
        async for raw in response.aiter_raw():
            if decoded := decoder.feed(raw):
                yield decoded
        decoder.finish()

    def _http_error(self, error: httpx.HTTPError) -> GroundwireError:
        """The error for an httpx failure; after `close` any failure is `ClientClosed`."""
        return client_closed() if self._closed else error_from_exception(error)

    async def close(self) -> None:
        """Closes the connection pool and the token adapter; calls in flight fail."""
        self._closed = True
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
