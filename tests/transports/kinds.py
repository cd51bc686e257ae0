"""Either kind of pool or transport, called the blocking way, so that one test holds for both.

An asyncio one runs in an event loop of its own, kept for the object's life: each call runs
in it to its end, and `pause` lets the loop see what happened meanwhile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator
from types import ModuleType
from typing import Any, Literal, TypeVar

from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.transports import http1, http1_aio
from groundwire.transports.auto import AsyncAutoTransport, AutoTransport
from groundwire.transports.grpc import GrpcTransport
from groundwire.transports.grpc_aio import AsyncGrpcTransport
from groundwire.transports.rest import RestTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.transports import canned

Kind = Literal["sync", "async"]
KINDS: list[Kind] = ["sync", "async"]
HEADERS = {"content-type": "application/json"}

T = TypeVar("T")


class Loop:
    """Runs what an asyncio object returns to its end; a blocking object's results pass through."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self._runner = asyncio.Runner() if kind == "async" else None

    def run(self, result: Coroutine[Any, Any, T] | T) -> T:
        if self._runner is None or not isinstance(result, Coroutine):
            return result  # type: ignore[return-value]
        return self._runner.run(result)

    def pause(self, seconds: float) -> None:
        if self._runner is None:
            time.sleep(seconds)
        else:
            self._runner.run(asyncio.sleep(seconds))

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()


class Pool(Loop):
    """A `ConnectionPool` or an `AsyncConnectionPool` to 127.0.0.1:`port`."""

    def __init__(self, kind: Kind, port: int, **options: Any) -> None:
        super().__init__(kind)
        self.module: ModuleType = http1 if kind == "sync" else http1_aio
        pool_class = http1.ConnectionPool if kind == "sync" else http1_aio.AsyncConnectionPool
        self.pool: Any = pool_class("http", "127.0.0.1", port, **options)

    def post(self, path: str, timeout: float = 30.0) -> Any:
        """Sends a POST to `path` and returns the response, its body unread."""
        if self.kind == "sync":
            return self.pool.request("POST", path, b"{}", HEADERS, timeout)
        return self.run(self._post(path, timeout))

    def read(self, path: str, timeout: float = 30.0) -> bytes:
        """The body of a POST to `path`, read whole."""
        return self.run(self.post(path, timeout).read())

    def chunks(self, response: Any) -> list[bytes]:
        """A response's body, read chunk by chunk."""
        if self.kind == "sync":
            return list(response.chunks())
        return self.run(_collect(response.chunks()))

    def first_chunk_only(self, response: Any) -> None:
        """Reads a response's first chunk, then gives up on the rest."""
        chunks = response.chunks()
        if self.kind == "sync":
            next(chunks)
            chunks.close()
        else:
            self.run(anext(chunks))
            self.run(chunks.aclose())

    def close(self) -> None:
        self.run(self.pool.close())
        super().close()

    async def _post(self, path: str, timeout: float) -> Any:
        deadline = asyncio.get_running_loop().time() + timeout
        return await self.pool.request("POST", path, b"{}", HEADERS, deadline)


class Transports(Loop):
    """Transports of one kind, built here and closed with it, called the blocking way."""

    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self._opened: list[Any] = []

    def rest(self, base_url: str, **options: Any) -> Any:
        """A `RestTransport` or an `AsyncRestTransport`."""
        return self._keep(
            (RestTransport if self.kind == "sync" else AsyncRestTransport)(base_url, **options)
        )

    def grpc(self, target: str, **options: Any) -> Any:
        """A `GrpcTransport` or an `AsyncGrpcTransport`."""
        return self._keep(
            (GrpcTransport if self.kind == "sync" else AsyncGrpcTransport)(target, **options)
        )

    def auto(self, grpc: Any, rest: Any, **options: Any) -> Any:
        """An `AutoTransport` or an `AsyncAutoTransport` over these two."""
        return self._keep(
            (AutoTransport if self.kind == "sync" else AsyncAutoTransport)(grpc, rest, **options)
        )

    def unary(
        self,
        transport: Any,
        request: Message,
        *,
        method: Method = canned.CHECK,
        timeout: float = 30.0,
        metadata: Any = canned.METADATA,
    ) -> Any:
        """The response of one unary call."""
        return self.run(transport.unary(method, request, timeout=timeout, metadata=metadata))

    def check(self, transport: Any, answer: str = canned.OK, timeout: float = 30.0) -> Any:
        """The response of one CheckGrounding call that `answer` tells the test server to give."""
        return self.unary(transport, canned.check_request(answer), timeout=timeout)

    def stream(
        self,
        transport: Any,
        requests: Iterable[Message],
        *,
        each: Callable[[Message], None] | None = None,
        timeout: float = 30.0,
        metadata: Any = (),
    ) -> list[Any]:
        """The responses of one stream, `each` called on every one as it arrives."""
        responses = transport.stream(canned.STREAM, requests, timeout=timeout, metadata=metadata)
        if self.kind == "sync":
            return [_seen(response, each) for response in responses]
        return self.run(_collect(responses, each))

    def live(self, requests: Iterator[Message]) -> Any:
        """`requests` as this kind's live exchange: an async generator for an asyncio one."""
        if self.kind == "sync":
            return requests

        async def live_requests() -> AsyncIterator[Message]:
            for request in requests:
                yield request

        return live_requests()

    def close(self) -> None:
        for transport in reversed(self._opened):
            self.run(transport.close())
        super().close()

    def _keep(self, transport: Any) -> Any:
        self._opened.append(transport)
        return transport


def rest_calls(kind: Kind, base_url: str, count: int = 1, **options: Any) -> list[Message]:
    """`count` CheckGrounding calls in turn on one new REST transport of `kind`, then closed.

    `options` go to the transport's constructor (credentials default to none).
    """
    options.setdefault("credentials", None)
    kinds = Transports(kind)
    try:
        transport = kinds.rest(base_url, **options)
        return [kinds.unary(transport, canned.check_request(), timeout=5) for _ in range(count)]
    finally:
        kinds.close()


def _seen(response: T, each: Callable[[T], None] | None) -> T:
    if each is not None:
        each(response)
    return response


async def _collect(items: AsyncIterator[T], each: Callable[[T], None] | None = None) -> list[T]:
    return [_seen(item, each) async for item in items]
