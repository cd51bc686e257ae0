"""The asyncio REST transport: the blocking one's twin (`rest.RestCalls`), over `http1_aio`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.transcoding import HttpRequest, encode_request, encode_stream_request
from groundwire.transports import http1, http1_aio
from groundwire.transports.base import AsyncRequests, Metadata, fixed_requests
from groundwire.transports.rest import MessageStream, RestCalls
from groundwire.wire.bodies import decode_response
from groundwire.wire.error_codecs import error_from_http


class AsyncRestTransport(RestCalls[http1_aio.AsyncConnectionPool]):
    """`RestTransport` for one event loop; tokens are refreshed in a worker thread.

    Example:
        >>> transport = AsyncRestTransport("http://127.0.0.1:8080", credentials=None)
        >>> # await transport.unary(...); await transport.close()
    """

    _new_pool = http1_aio.AsyncConnectionPool

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """POSTs the transcoded request; returns the decoded response."""
        http_request = encode_request(method, request)
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        try:
            response = await self._send(http_request, metadata, deadline, timeout)
            body = await response.read()
        except http1.WIRE_ERRORS as error:
            raise self._wire_error(error) from None
        if not response.ok:
            raise error_from_http(response.status, body, response.headers)
        return decode_response(method, body)

    async def stream(
        self, method: Method, requests: AsyncRequests, *, timeout: float | None, metadata: Metadata
    ) -> AsyncIterator[Message]:
        """POSTs all requests as one JSON array; yields each response as its JSON completes.

        The deadline never cancels the caller's code between two responses: the next wait
        raises `DeadlineExceeded` instead.
        """
        http_request = encode_stream_request(method, fixed_requests(requests))
        clock = asyncio.get_running_loop().time
        deadline = None if timeout is None else clock() + timeout
        try:
            response = await self._send(http_request, metadata, deadline, timeout)
            try:
                if not response.ok:
                    raise error_from_http(response.status, await response.read(), response.headers)
                messages = MessageStream(method, response.headers, deadline, clock, timeout)
                async with contextlib.aclosing(response.chunks()) as chunks:
                    async for chunk in chunks:
                        for message in messages.feed(chunk):
                            yield message
                messages.close()
            finally:
                response.close()
        except http1.WIRE_ERRORS as error:
            raise self._wire_error(error) from None

    async def _send(
        self,
        http_request: HttpRequest,
        metadata: Metadata,
        deadline: float | None,
        timeout: float | None,
    ) -> http1_aio.AsyncResponse:
        if self._tokens is not None and self._tokens.needs_refresh():
            await asyncio.to_thread(self._tokens.refresh, timeout)
        target, headers = self._prepared(http_request, metadata, timeout)
        return await self._pool.request(
            http_request.verb, target, http_request.body, headers, deadline
        )

    async def close(self) -> None:
        """Closes the connection pool and the token adapter; calls in flight fail."""
        await self._pool.close()
        if self._tokens is not None:
            self._tokens.close()
